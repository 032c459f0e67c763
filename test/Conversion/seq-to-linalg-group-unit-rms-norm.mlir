// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s
//
// GroupNormalization views the channels as (groups, channels per group),
// reduces every (sample, group) over its positions and channels (reassoc
// sums, which LLVM vectorizes) and takes 1 / sqrt(variance + epsilon) once
// per (sample, group); Unit and RMS normalization scale each last-axis row
// by a function of its sum of squares, computed once per row.

// CHECK-DAG: #[[$GROUPED:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$STATS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// CHECK-DAG: #[[$CHANNEL:.*]] = affine_map<(d0, d1, d2, d3) -> (d2 * 2 + d3)>

// CHECK-LABEL: func.func @group_norm(
// CHECK-SAME:      %[[X:.*]]: tensor<?x5x6xf32>, %[[G:.*]]: tensor<6xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK-DAG:     %[[COUNT:.*]] = arith.constant 1.000000e+01 : f32
// CHECK:         %[[GX:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [%{{.*}}, 5, 3, 2] : tensor<?x5x6xf32> into tensor<?x5x3x2xf32>
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$GROUPED]], #[[$STATS]]], iterator_types = ["parallel", "reduction", "parallel", "reduction"]} ins(%[[GX]] : tensor<?x5x3x2xf32>) outs(%{{.*}} : tensor<?x3xf32>)
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} outs(%[[SUM]] : tensor<?x3xf32>)
// CHECK:           arith.divf %{{.*}}, %[[COUNT]]
// CHECK:         %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[$GROUPED]], #[[$STATS]], #[[$STATS]]], iterator_types = ["parallel", "reduction", "parallel", "reduction"]} ins(%[[GX]], %[[MEAN]] : {{.*}}) outs(%{{.*}} : tensor<?x3xf32>)
// CHECK:           arith.addf {{.*}} fastmath<reassoc>
// CHECK:         %[[INV:.*]] = linalg.generic {{.*}} outs(%[[SQ]] : tensor<?x3xf32>)
// CHECK:           math.sqrt
// CHECK:           arith.divf
// CHECK:         %[[NORM:.*]] = linalg.generic {indexing_maps = [#[[$GROUPED]], #[[$STATS]], #[[$STATS]], #[[$CHANNEL]], #[[$CHANNEL]], #[[$GROUPED]]]{{.*}} ins(%[[GX]], %[[MEAN]], %[[INV]], %[[G]], %[[B]] : {{.*}}) outs(%{{.*}} : tensor<?x5x3x2xf32>)
// CHECK-NOT:       math.sqrt
// CHECK:         tensor.collapse_shape %[[NORM]] {{\[}}[0], [1], [2, 3]] : tensor<?x5x3x2xf32> into tensor<?x5x6xf32>
func.func @group_norm(%x: tensor<?x5x6xf32>, %g: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<?x5x6xf32> {
  %0 = seq.group_norm %x, %g, %b {epsilon = 1.0e-3 : f32, groups = 3 : i64} : (tensor<?x5x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x5x6xf32>
  return %0 : tensor<?x5x6xf32>
}

// CHECK-LABEL: func.func @unit_norm(
// CHECK-DAG:     %[[FLOOR:.*]] = arith.constant 9.99999996E-13 : f32
// CHECK:         %[[SQ:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf {{.*}} fastmath<reassoc>
// CHECK:         %[[F:.*]] = linalg.generic {{.*}} outs(%[[SQ]] : tensor<?xf32>)
// CHECK:           arith.maximumf %{{.*}}, %[[FLOOR]]
// CHECK:           math.sqrt
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[F]] : tensor<?x6xf32>, tensor<?xf32>)
// CHECK-NOT:       math.sqrt
func.func @unit_norm(%x: tensor<?x6xf32>) -> tensor<?x6xf32> {
  %0 = seq.unit_norm %x : tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// keras.ops.normalize's floor of the norm, squared.
// CHECK-LABEL: func.func @unit_norm_epsilon(
// CHECK:         arith.constant 9.99999982E-15 : f32
func.func @unit_norm_epsilon(%x: tensor<?x6xf32>) -> tensor<?x6xf32> {
  %0 = seq.unit_norm %x {epsilon = 1.0e-14 : f32} : tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// CHECK-LABEL: func.func @rms_norm(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6xf32>, %[[S:.*]]: tensor<6xf32>)
// CHECK-DAG:     %[[N:.*]] = arith.constant 6.000000e+00 : f32
// CHECK:         %[[SQ:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:         %[[F:.*]] = linalg.generic {{.*}} outs(%[[SQ]] : tensor<?xf32>)
// CHECK:           arith.divf %{{.*}}, %[[N]]
// CHECK:           math.sqrt
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[F]], %[[S]] : tensor<?x6xf32>, tensor<?xf32>, tensor<6xf32>)
// CHECK-NOT:       math.sqrt
func.func @rms_norm(%x: tensor<?x6xf32>, %s: tensor<6xf32>) -> tensor<?x6xf32> {
  %0 = seq.rms_norm %x, %s {epsilon = 1.0e-6 : f32} : (tensor<?x6xf32>, tensor<6xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

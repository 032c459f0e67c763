// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s

// Attention is three contractions' worth of linalg.generic: the scores
// (b, h, i, j) reduce the features of query (b, i, h, f) and key
// (b, j, h floordiv group, f) -- grouped key/value heads are read by index,
// not copied; the factor and the causal mask (j <= i, else Keras' -0.7 * FLT_MAX) in one
// elementwise pass; the softmax over j; then the weighted sum of the values.
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1 floordiv 2, d4)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2 floordiv 2, d3)>
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[QMASK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// CHECK-DAG: #[[KMASK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-LABEL: func.func @grouped_causal(
// CHECK-SAME:      %[[QA:.*]]: tensor<?x5x4x2xf32>, %[[KA:.*]]: tensor<?x7x2x2xf32>, %[[VA:.*]]: tensor<?x7x2x6xf32>)
// CHECK-DAG:     %[[NEVER:.*]] = arith.constant -2.38197633E+38 : f32
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[SCORES:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[QA]], %[[KA]] : {{.*}}) outs(%{{.*}} : tensor<?x4x5x7xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} outs(%[[SCORES]] : tensor<?x4x5x7xf32>)
// CHECK:           %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[HALF]] : f32
// CHECK:           %[[ROW:.*]] = linalg.index 2 : index
// CHECK:           %[[COL:.*]] = linalg.index 3 : index
// CHECK:           %[[SEEN:.*]] = arith.cmpi ule, %[[COL]], %[[ROW]] : index
// CHECK:           arith.select %[[SEEN]], %[[SCALED]], %[[NEVER]] : f32
// CHECK:         arith.maximumf
// CHECK:         math.exp
// CHECK:         arith.divf
// CHECK:         linalg.generic {indexing_maps = [#[[Q]], #[[V]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[VA]] : tensor<?x4x5x7xf32>, tensor<?x7x2x6xf32>) outs(%{{.*}} : tensor<?x5x4x6xf32>)
func.func @grouped_causal(%q: tensor<?x5x4x2xf32>, %k: tensor<?x7x2x2xf32>, %v: tensor<?x7x2x6xf32>) -> tensor<?x5x4x6xf32> {
  %0 = seq.attention dot %q, %k, %v {scale = 0.5 : f32, causal} : tensor<?x5x4x2xf32>, tensor<?x7x2x2xf32>, tensor<?x7x2x6xf32> -> tensor<?x5x4x6xf32>
  return %0 : tensor<?x5x4x6xf32>
}

// Additive scores: the feature scale times tanh of the scaled sum, summed
// over the features, then the score weight.
// CHECK-LABEL: func.func @additive(
// CHECK-SAME:      %[[X:.*]]: tensor<?x5x1x3xf32>, %[[W:.*]]: tensor<3xf32>)
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[INNER:.*]] = arith.constant 1.500000e+00 : f32
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[X]], %[[W]] : tensor<?x5x1x3xf32>, tensor<?x5x1x3xf32>, tensor<3xf32>)
// CHECK:           %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.mulf %[[SUM]], %[[INNER]] : f32
// CHECK:           math.tanh
// CHECK:         linalg.generic
// CHECK:           arith.mulf %{{.*}}, %[[TWO]] : f32
// CHECK-NOT:       linalg.index
func.func @additive(%x: tensor<?x5x1x3xf32>, %w: tensor<3xf32>) -> tensor<?x5x1x3xf32> {
  %0 = seq.attention additive %x, %x, %x feature_scale(%w : tensor<3xf32>) {scale = 1.5 : f32, score_weight = 2.0 : f32} : tensor<?x5x1x3xf32>, tensor<?x5x1x3xf32>, tensor<?x5x1x3xf32> -> tensor<?x5x1x3xf32>
  return %0 : tensor<?x5x1x3xf32>
}

// A batched product with b transposed: out[s, i, j] += a[s, i, l] * b[s, j, l].
// CHECK-LABEL: func.func @matmul(
// CHECK:         linalg.generic {indexing_maps = [#[[A]], #[[BT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @matmul(%a: tensor<?x5x3xf32>, %b: tensor<?x4x3xf32>) -> tensor<?x5x4xf32> {
  %0 = seq.matmul %a, %b {transpose_b} : (tensor<?x5x3xf32>, tensor<?x4x3xf32>) -> tensor<?x5x4xf32>
  return %0 : tensor<?x5x4xf32>
}

// A sliding window hides the key steps with |i - j| >= window: j < i + w
// and i < j + w.
// CHECK-LABEL: func.func @window(
// CHECK-DAG:     %[[W:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[HIDDEN:.*]] = arith.constant -2.38197633E+38 : f32
// CHECK:         %[[ROW:.*]] = linalg.index 2 : index
// CHECK:         %[[COL:.*]] = linalg.index 3 : index
// CHECK:         %[[END:.*]] = arith.addi %[[ROW]], %[[W]] : index
// CHECK:         %[[AHEAD:.*]] = arith.cmpi ult, %[[COL]], %[[END]] : index
// CHECK:         %[[FROM:.*]] = arith.addi %[[COL]], %[[W]] : index
// CHECK:         %[[BEHIND:.*]] = arith.cmpi ult, %[[ROW]], %[[FROM]] : index
// CHECK:         %[[NEAR:.*]] = arith.andi %[[AHEAD]], %[[BEHIND]] : i1
// CHECK:         arith.select %[[NEAR]], %{{.*}}, %[[HIDDEN]] : f32
func.func @window(%x: tensor<?x6x2x3xf32>) -> tensor<?x6x2x3xf32> {
  %0 = seq.attention dot %x, %x, %x {window = 2} : tensor<?x6x2x3xf32>, tensor<?x6x2x3xf32>, tensor<?x6x2x3xf32> -> tensor<?x6x2x3xf32>
  return %0 : tensor<?x6x2x3xf32>
}

// Timestep masks: a step where the query's (b, i) or the key's (b, j) mask
// is 0 is hidden.
// CHECK-LABEL: func.func @masks(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6x2x3xf32>, %[[QM:.*]]: tensor<?x6xf32>, %[[KM:.*]]: tensor<?x6xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[QMASK]], #[[KMASK]], {{.*}}]{{.*}} ins(%[[QM]], %[[KM]] : tensor<?x6xf32>, tensor<?x6xf32>)
// CHECK:           %[[QSET:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK:           %[[KSET:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK:           %[[BOTH:.*]] = arith.andi %[[QSET]], %[[KSET]] : i1
// CHECK:           arith.select %[[BOTH]]
func.func @masks(%x: tensor<?x6x2x3xf32>, %qm: tensor<?x6xf32>, %km: tensor<?x6xf32>) -> tensor<?x6x2x3xf32> {
  %0 = seq.attention dot %x, %x, %x query_mask(%qm : tensor<?x6xf32>) key_mask(%km : tensor<?x6xf32>) : tensor<?x6x2x3xf32>, tensor<?x6x2x3xf32>, tensor<?x6x2x3xf32> -> tensor<?x6x2x3xf32>
  return %0 : tensor<?x6x2x3xf32>
}

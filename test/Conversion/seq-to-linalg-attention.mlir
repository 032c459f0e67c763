// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s

// Dot attention with static key steps and value width: the key transposed
// to (b, kh, f, j) once; then per batch row and head, with the softmax fused
// between two linalg.matmul of 2-D slices (the CPU backend's GEMM kernel):
// the (tq, tk) score tile, the factor and the causal mask (j <= i, else
// Keras' -0.7 * FLT_MAX) in one elementwise pass over it, the softmax over
// j, and the weights times the values into the head's output slice. Grouped
// key/value heads are read at h / group, not copied; the scores of the
// whole batch never exist.
// CHECK-DAG: #[[KT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d3)>
// CHECK-DAG: #[[KTR:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[ROWI:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[ROWJ:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @grouped_causal(
// CHECK-SAME:      %[[QA:.*]]: tensor<?x5x4x2xf32>, %[[KA:.*]]: tensor<?x7x2x2xf32>, %[[VA:.*]]: tensor<?x7x2x6xf32>)
// CHECK-DAG:     %[[NEVER:.*]] = arith.constant -2.38197633E+38 : f32
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[GROUP:.*]] = arith.constant 2 : index
// CHECK:         %[[KEYT:.*]] = linalg.generic {indexing_maps = [#[[KT]], {{.*}}]{{.*}} ins(%[[KA]] : tensor<?x7x2x2xf32>) outs(%{{.*}} : tensor<?x2x2x7xf32>)
// CHECK:         %[[OUT:.*]] = scf.for %[[B:[a-z0-9_]+]] = {{.*}} -> (tensor<?x5x4x6xf32>)
// CHECK:           scf.for %[[H:[a-z0-9_]+]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<?x5x4x6xf32>)
// CHECK:             %[[TILE:.*]] = linalg.fill {{.*}} -> tensor<5x7xf32>
// CHECK:             %[[QS:.*]] = tensor.extract_slice %[[QA]][%[[B]], 0, %[[H]], 0] [1, 5, 1, 2] [1, 1, 1, 1] : tensor<?x5x4x2xf32> to tensor<5x2xf32>
// CHECK:             %[[KH:.*]] = arith.divui %[[H]], %[[GROUP]] : index
// CHECK:             %[[KS:.*]] = tensor.extract_slice %[[KEYT]][%[[B]], %[[KH]], 0, 0] [1, 1, 2, 7] [1, 1, 1, 1] : tensor<?x2x2x7xf32> to tensor<2x7xf32>
// CHECK:             %[[SCORES:.*]] = linalg.matmul ins(%[[QS]], %[[KS]] : tensor<5x2xf32>, tensor<2x7xf32>) outs(%[[TILE]] : tensor<5x7xf32>)
// CHECK:             %[[MASKED:.*]] = linalg.generic {{.*}} outs(%[[SCORES]] : tensor<5x7xf32>)
// CHECK:               %[[ROW:.*]] = linalg.index 0 : index
// CHECK:               %[[COL:.*]] = linalg.index 1 : index
// CHECK:               %[[SEEN:.*]] = arith.cmpi ule, %[[COL]], %[[ROW]] : index
// CHECK:               %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[HALF]] : f32
// CHECK:               arith.select %[[SEEN]], %[[SCALED]], %[[NEVER]] : f32
// CHECK:             linalg.generic {{.*}} ins(%[[MASKED]] : tensor<5x7xf32>)
// CHECK:               arith.maximumf
// CHECK:             math.exp
// CHECK:             %[[WEIGHTS:.*]] = linalg.generic {indexing_maps = [#[[ROWI]], {{.*}}]{{.*}} ins(%{{.*}} : tensor<5xf32>) outs(%{{.*}} : tensor<5x7xf32>)
// CHECK-NEXT:          ^bb0
// CHECK-NEXT:          arith.divf
// CHECK:             %[[OS:.*]] = tensor.extract_slice %[[ACC]][%[[B]], 0, %[[H]], 0] [1, 5, 1, 6] [1, 1, 1, 1] : tensor<?x5x4x6xf32> to tensor<5x6xf32>
// CHECK:             %[[ZERO:.*]] = linalg.fill {{.*}} outs(%[[OS]] : tensor<5x6xf32>)
// CHECK:             %[[VS:.*]] = tensor.extract_slice %[[VA]][%[[B]], 0, %[[KH]], 0] [1, 7, 1, 6] [1, 1, 1, 1] : tensor<?x7x2x6xf32> to tensor<7x6xf32>
// CHECK:             %[[PRODUCT:.*]] = linalg.matmul ins(%[[WEIGHTS]], %[[VS]] : tensor<5x7xf32>, tensor<7x6xf32>) outs(%[[ZERO]] : tensor<5x6xf32>)
// CHECK:             tensor.insert_slice %[[PRODUCT]] into %[[ACC]][%[[B]], 0, %[[H]], 0] [1, 5, 1, 6] [1, 1, 1, 1]
// CHECK:         return %[[OUT]]
func.func @grouped_causal(%q: tensor<?x5x4x2xf32>, %k: tensor<?x7x2x2xf32>, %v: tensor<?x7x2x6xf32>) -> tensor<?x5x4x6xf32> {
  %0 = seq.attention dot %q, %k, %v {scale = 0.5 : f32, causal} : tensor<?x5x4x2xf32>, tensor<?x7x2x2xf32>, tensor<?x7x2x6xf32> -> tensor<?x5x4x6xf32>
  return %0 : tensor<?x5x4x6xf32>
}

// Additive scores (and dot scores over unknown key steps or value width):
// loops (b, h, i, f, j) with the transposed key's contiguous steps
// innermost; the feature scale times tanh of the scaled sum, summed over the
// features, then the score weight; the softmax over the whole (b, h, i, j)
// scores.
// CHECK-LABEL: func.func @additive(
// CHECK-SAME:      %[[X:.*]]: tensor<?x5x1x3xf32>, %[[W:.*]]: tensor<3xf32>)
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[INNER:.*]] = arith.constant 1.500000e+00 : f32
// CHECK:         %[[XT:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?x5x1x3xf32>) outs(%{{.*}} : tensor<?x1x3x5xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[Q]], #[[KTR]], {{.*}}, #[[S]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[X]], %[[XT]], %[[W]] : tensor<?x5x1x3xf32>, tensor<?x1x3x5xf32>, tensor<3xf32>)
// CHECK:           %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.mulf %[[SUM]], %[[INNER]] : f32
// CHECK:           arith.shli
// CHECK:         linalg.generic
// CHECK:           arith.mulf %{{.*}}, %[[TWO]] : f32
// CHECK-NOT:       linalg.index
func.func @additive(%x: tensor<?x5x1x3xf32>, %w: tensor<3xf32>) -> tensor<?x5x1x3xf32> {
  %0 = seq.attention additive %x, %x, %x feature_scale(%w : tensor<3xf32>) {scale = 1.5 : f32, score_weight = 2.0 : f32} : tensor<?x5x1x3xf32>, tensor<?x5x1x3xf32>, tensor<?x5x1x3xf32> -> tensor<?x5x1x3xf32>
  return %0 : tensor<?x5x1x3xf32>
}

// A batched product with b transposed: b copied to (s, l, j) first, then
// out[s, i, j] += a[s, i, l] * b[s, l, j] with j innermost.
// CHECK-LABEL: func.func @matmul(
// CHECK:         %[[B:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x3x4xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[A]], #[[BT]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}}, %[[B]] :
func.func @matmul(%a: tensor<?x5x3xf32>, %b: tensor<?x4x3xf32>) -> tensor<?x5x4xf32> {
  %0 = seq.matmul %a, %b {transpose_b} : (tensor<?x5x3xf32>, tensor<?x4x3xf32>) -> tensor<?x5x4xf32>
  return %0 : tensor<?x5x4xf32>
}

// A sliding window hides the key steps with |i - j| >= window: j < i + w
// and i < j + w.
// CHECK-LABEL: func.func @window(
// CHECK-DAG:     %[[W:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[HIDDEN:.*]] = arith.constant -2.38197633E+38 : f32
// CHECK:         %[[ROW:.*]] = linalg.index 0 : index
// CHECK:         %[[COL:.*]] = linalg.index 1 : index
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
// is 0 is hidden; each batch row's masks are sliced once for its heads.
// CHECK-LABEL: func.func @masks(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6x2x3xf32>, %[[QM:.*]]: tensor<?x6xf32>, %[[KM:.*]]: tensor<?x6xf32>)
// CHECK:         scf.for %[[B:[a-z0-9_]+]] =
// CHECK:           %[[QROW:.*]] = tensor.extract_slice %[[QM]][%[[B]], 0] [1, 6] [1, 1] : tensor<?x6xf32> to tensor<6xf32>
// CHECK:           %[[KROW:.*]] = tensor.extract_slice %[[KM]][%[[B]], 0] [1, 6] [1, 1] : tensor<?x6xf32> to tensor<6xf32>
// CHECK:           scf.for
// CHECK:             linalg.generic {indexing_maps = [#[[ROWI]], #[[ROWJ]], {{.*}}]{{.*}} ins(%[[QROW]], %[[KROW]] : tensor<6xf32>, tensor<6xf32>)
// CHECK:           %[[QSET:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK:           %[[KSET:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK:           %[[BOTH:.*]] = arith.andi %[[QSET]], %[[KSET]] : i1
// CHECK:           arith.select %[[BOTH]]
func.func @masks(%x: tensor<?x6x2x3xf32>, %qm: tensor<?x6xf32>, %km: tensor<?x6xf32>) -> tensor<?x6x2x3xf32> {
  %0 = seq.attention dot %x, %x, %x query_mask(%qm : tensor<?x6xf32>) key_mask(%km : tensor<?x6xf32>) : tensor<?x6x2x3xf32>, tensor<?x6x2x3xf32>, tensor<?x6x2x3xf32> -> tensor<?x6x2x3xf32>
  return %0 : tensor<?x6x2x3xf32>
}

// An attention_mask (b, i, j): a pair where it is 0 is hidden.
// CHECK-LABEL: func.func @attention_mask(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6x2x3xf32>, %[[AM:.*]]: tensor<?x6x6xf32>)
// CHECK:         %[[AROW:.*]] = tensor.extract_slice %[[AM]][%{{.*}}, 0, 0] [1, 6, 6] [1, 1, 1] : tensor<?x6x6xf32> to tensor<6x6xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[AROW]] : tensor<6x6xf32>)
// CHECK:           %[[SET:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK:           arith.select %[[SET]]
func.func @attention_mask(%x: tensor<?x6x2x3xf32>, %am: tensor<?x6x6xf32>) -> tensor<?x6x2x3xf32> {
  %0 = seq.attention dot %x, %x, %x attention_mask(%am : tensor<?x6x6xf32>) : tensor<?x6x2x3xf32>, tensor<?x6x2x3xf32>, tensor<?x6x2x3xf32> -> tensor<?x6x2x3xf32>
  return %0 : tensor<?x6x2x3xf32>
}

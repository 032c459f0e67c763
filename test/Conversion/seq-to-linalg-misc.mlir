// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s

// CHECK-DAG: #[[$CH:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[$REPIN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK: module attributes {seqc.error_sites = ["layer 'tok_emb' (Embedding): ids outside [0, 10) or not integers"]}
// CHECK: func.func private @seqc_report_error(i32, i64)

// CHECK-LABEL: func.func @batch_norm(
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #{{.*}}]
// CHECK:           math.sqrt
// CHECK:           arith.divf
func.func @batch_norm(%x: tensor<?x5x3xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x5x3xf32> {
  %0 = seq.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0e-3 : f32} : (tensor<?x5x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x5x3xf32>
  return %0 : tensor<?x5x3xf32>
}

// Mean, then the sum of squared deviations (both sums reassociable, so that
// LLVM vectorizes them), 1 / sqrt(variance + epsilon) once per row, then one
// normalising generic without a square root or a division.
// CHECK-LABEL: func.func @layer_norm(
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]}
// CHECK:           arith.addf {{.*}} fastmath<reassoc>
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} outs(%[[SUM]] : tensor<?xf32>)
// CHECK:         %[[SQ:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %[[MEAN]]
// CHECK:           arith.addf {{.*}} fastmath<reassoc>
// CHECK:         %[[INV:.*]] = linalg.generic {{.*}} outs(%[[SQ]] : tensor<?xf32>)
// CHECK:           math.sqrt
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[MEAN]], %[[INV]], %{{.*}}, %{{.*}} :
// CHECK-NOT:       math.sqrt
// CHECK:           linalg.yield
func.func @layer_norm(%x: tensor<?x6xf32>, %g: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<?x6xf32> {
  %0 = seq.layer_norm %x, %g, %b {epsilon = 1.0e-3 : f32} : (tensor<?x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// Invalid ids are counted and reported through @seqc_report_error with the
// site's message on the module; the lookup clamps, so it never reads
// outside the table. It is one loop over the ids, each id converted and
// clamped once and its table row copied whole.
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME:      %[[IDS:.*]]: tensor<?x5xf32>, %[[TABLE:.*]]: tensor<10x4xf32>)
// CHECK:         %[[COUNT:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[IDS]] : tensor<?x5xf32>) outs(%{{.*}} : tensor<i64>)
// CHECK:           arith.fptosi
// CHECK:         %[[BAD:.*]] = tensor.extract %[[COUNT]][] : tensor<i64>
// CHECK:         scf.if
// CHECK:           func.call @seqc_report_error(%{{.*}}, %[[BAD]]) : (i32, i64) -> ()
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[IDS]] {{\[\[}}0, 1]] : tensor<?x5xf32> into tensor<?xf32>
// CHECK:         %[[ROWS:.*]] = scf.for %[[I:.*]] = %c0 to %{{.*}} step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<?x4xf32>)
// CHECK:           %[[ID:.*]] = tensor.extract %[[FLAT]][%[[I]]]
// CHECK:           arith.fptosi %[[ID]]
// CHECK:           %[[CLAMPED:.*]] = arith.minsi
// CHECK:           %[[ROW:.*]] = arith.index_cast %[[CLAMPED]]
// CHECK:           %[[SLICE:.*]] = tensor.extract_slice %[[TABLE]][%[[ROW]], 0] [1, 4] [1, 1]
// CHECK:           %[[PUT:.*]] = tensor.insert_slice %[[SLICE]] into %[[ACC]][%[[I]], 0] [1, 4] [1, 1]
// CHECK:           scf.yield %[[PUT]]
// CHECK:         %[[OUT:.*]] = tensor.expand_shape %[[ROWS]] {{\[\[}}0, 1], [2]]
// CHECK:         return %[[OUT]]
func.func @embedding(%ids: tensor<?x5xf32>, %table: tensor<10x4xf32>) -> tensor<?x5x4xf32> {
  %0 = seq.embedding %ids, %table : (tensor<?x5xf32>, tensor<10x4xf32>) -> tensor<?x5x4xf32> loc("tok_emb")
  return %0 : tensor<?x5x4xf32>
}

// The backward sequence is flipped back along time, then both are
// placed side by side.
// CHECK-LABEL: func.func @bidi_concat(
// CHECK-SAME:      %[[F:.*]]: tensor<?x5x2xf32>, %[[B:.*]]: tensor<?x5x2xf32>)
// CHECK:         %[[FLIP:.*]] = linalg.generic
// CHECK:           %[[T:.*]] = linalg.index 1
// CHECK:           %[[REV:.*]] = arith.subi %c4, %[[T]]
// CHECK:           tensor.extract %[[B]][%{{.*}}, %[[REV]], %{{.*}}]
// CHECK:         %[[HALF:.*]] = tensor.insert_slice %[[F]] into %{{.*}}[0, 0, 0] [%{{.*}}, 5, 2]
// CHECK:         tensor.insert_slice %[[FLIP]] into %[[HALF]][0, 0, 2] [%{{.*}}, 5, 2]
func.func @bidi_concat(%f: tensor<?x5x2xf32>, %b: tensor<?x5x2xf32>) -> tensor<?x5x4xf32> {
  %0 = seq.bidirectional concat %f, %b : (tensor<?x5x2xf32>, tensor<?x5x2xf32>) -> tensor<?x5x4xf32>
  return %0 : tensor<?x5x4xf32>
}

// Final states (rank 2) are not flipped.
// CHECK-LABEL: func.func @bidi_ave(
// CHECK-NOT:     linalg.index
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<?x3xf32>, tensor<?x3xf32>)
// CHECK:           arith.addf
// CHECK:           arith.mulf
func.func @bidi_ave(%f: tensor<?x3xf32>, %b: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = seq.bidirectional ave %f, %b : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// The body runs in an scf.for over time on one step at a time.
// CHECK-LABEL: func.func @time_distributed(
// CHECK:         %[[OUT:.*]] = bufferization.alloc_tensor(%{{.*}}) : tensor<?x5x3xf32>
// CHECK:         scf.for %[[T:.*]] = %c0 to %c5 step %c1 iter_args(%[[ACC:.*]] = %[[OUT]])
// CHECK:           %[[STEP:.*]] = tensor.extract_slice %arg0[0, %[[T]], 0] [%{{.*}}, 1, 4] [1, 1, 1] : tensor<?x5x4xf32> to tensor<?x4xf32>
// CHECK:           linalg.matmul ins(%[[STEP]], %arg1
// CHECK:           arith.shli
// CHECK:           %[[NEW:.*]] = tensor.insert_slice %{{.*}} into %[[ACC]][0, %[[T]], 0] [%{{.*}}, 1, 3]
// CHECK:           scf.yield %[[NEW]]
func.func @time_distributed(%x: tensor<?x5x4xf32>, %w: tensor<4x3xf32>) -> tensor<?x5x3xf32> {
  %0 = seq.time_distributed %x : tensor<?x5x4xf32> -> tensor<?x5x3xf32> {
  ^bb0(%step: tensor<?x4xf32>):
    %1 = seq.dense %step, %w activation(tanh) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    seq.yield %1 : tensor<?x3xf32>
  }
  return %0 : tensor<?x5x3xf32>
}

// Flatten/reshape are collapse/expand (the canonicaliser merges the chain),
// dropout is gone, repeat_vector is a broadcast along the new axis.
// CHECK-LABEL: func.func @shapes(
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0], [1, 2]] : tensor<?x4x3xf32> into tensor<?x12xf32>
// CHECK:         %[[REP:.*]] = linalg.generic {indexing_maps = [#[[$REPIN]], #{{.*}}], {{.*}} ins(%[[FLAT]] : tensor<?x12xf32>) outs(%{{.*}} : tensor<?x5x12xf32>)
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[REP]] {{\[\[}}0], [1], [2, 3]] output_shape [%{{.*}}, 5, 6, 2]
// CHECK:         linalg.generic {{.*}} outs(%[[R]] : tensor<?x5x6x2xf32>)
// CHECK:           math.expm1
func.func @shapes(%x: tensor<?x4x3xf32>) -> tensor<?x5x6x2xf32> {
  %0 = seq.flatten %x : tensor<?x4x3xf32> -> tensor<?x12xf32>
  %1 = seq.reshape %0 [-1, 2] : tensor<?x12xf32> -> tensor<?x6x2xf32>
  %2 = seq.dropout %1 {rate = 0.5 : f32} : tensor<?x6x2xf32>
  %3 = seq.flatten %2 : tensor<?x6x2xf32> -> tensor<?x12xf32>
  %4 = seq.repeat_vector %3 {n = 5 : i64} : tensor<?x12xf32> -> tensor<?x5x12xf32>
  %5 = seq.reshape %4 [5, 6, 2] : tensor<?x5x12xf32> -> tensor<?x5x6x2xf32>
  %6 = seq.activation elu %5 {alpha = 1.0 : f32} : tensor<?x5x6x2xf32>
  return %6 : tensor<?x5x6x2xf32>
}


// RUN: seq-opt --seq-to-linalg --seq-stepwise-projection-row-floats=0 --canonicalize --cse %s | FileCheck %s
// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s --check-prefix=SHORT

// The time loop carries h, c, the gate scratch and the output sequence;
// each step is one matmul for all four gates, accumulating onto the step's
// slice of the input projection, then one generic cell writing h and c in
// place: with sigmoid and tanh, three divisions (c / (1 + e^-f), then
// sigmoid(i) tanh(g) and sigmoid(o) tanh(c) one each) where five
// activations would take five. go_backwards reads step T-1-t and stores it
// at t. h starts at zero, so the first step's gates are its projection
// alone: the matmul is in the branch of the steps after it, marked
// recurrent_product (seq-cpu-kernels alternates its sweeps over the kernel
// from one step to the next).
// CHECK-LABEL: func.func @lstm_backward_sequences(
// CHECK-SAME:      %[[XP:.*]]: tensor<?x?x32xf32>, %[[WR:.*]]: tensor<8x32xf32>)
// CHECK:         %[[T:.*]] = tensor.dim %[[XP]], %c1
// CHECK:         %[[H0:.*]] = linalg.fill {{.*}} -> tensor<?x8xf32>
// CHECK:         %[[C0:.*]] = linalg.fill {{.*}} -> tensor<?x8xf32>
// CHECK:         %[[G0:.*]] = bufferization.alloc_tensor({{.*}}) : tensor<?x32xf32>
// CHECK:         %[[S0:.*]] = bufferization.alloc_tensor({{.*}}) : tensor<?x?x8xf32>
// CHECK:         %[[LOOP:.*]]:4 = scf.for %[[STEP:.*]] = %c0 to %[[T]] step %c1 iter_args(%[[H:.*]] = %[[H0]], %[[C:.*]] = %[[C0]], %[[G:.*]] = %[[G0]], %[[S:.*]] = %[[S0]])
// CHECK:           %[[LAST:.*]] = arith.subi %[[T]], %c1
// CHECK:           %[[REV:.*]] = arith.subi %[[LAST]], %[[STEP]]
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[STEP]], %c0
// CHECK:           %[[X:.*]] = tensor.extract_slice %[[XP]][0, %[[REV]], 0] [{{.*}}, 1, 32]
// CHECK:           %[[GATES:.*]] = scf.if %[[FIRST]] -> (tensor<?x32xf32>) {
// CHECK-NEXT:        %[[ONLY:.*]] = linalg.copy ins(%[[X]] : tensor<?x32xf32>) outs(%[[G]] : tensor<?x32xf32>)
// CHECK-NEXT:        scf.yield %[[ONLY]]
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[PRE:.*]] = linalg.copy ins(%[[X]] : tensor<?x32xf32>) outs(%[[G]] : tensor<?x32xf32>)
// CHECK-NEXT:        %[[SUM:.*]] = linalg.matmul {recurrent_product} ins(%[[H]], %[[WR]] : tensor<?x8xf32>, tensor<8x32xf32>) outs(%[[PRE]] : tensor<?x32xf32>)
// CHECK-NEXT:        scf.yield %[[SUM]]
// CHECK-NEXT:      }
// CHECK-NOT:       linalg.matmul
// CHECK:           %[[CELL:.*]]:2 = linalg.generic {{.*}} outs(%[[H]], %[[C]] : tensor<?x8xf32>, tensor<?x8xf32>)
// CHECK-COUNT-3:     arith.divf
// CHECK-NOT:         arith.divf
// CHECK:           %[[SEQ:.*]] = tensor.insert_slice %[[CELL]]#0 into %[[S]][0, %[[STEP]], 0] [{{.*}}, 1, 8]
// CHECK:           scf.yield %[[CELL]]#0, %[[CELL]]#1, %[[GATES]], %[[SEQ]]
// CHECK:         return %[[LOOP]]#3
func.func @lstm_backward_sequences(%xp: tensor<?x?x32xf32>, %wr: tensor<8x32xf32>) -> tensor<?x?x8xf32> {
  %0 = seq.lstm_recurrence %xp, %wr activation(tanh, sigmoid) {return_sequences, go_backwards} : (tensor<?x?x32xf32>, tensor<8x32xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// reset_after: the recurrent bias is broadcast into the scratch and one
// matmul computes h U + b for z, r and the candidate.
// CHECK-LABEL: func.func @gru_reset_after(
// CHECK-SAME:      %[[XP:.*]]: tensor<?x5x12xf32>, %[[WR:.*]]: tensor<4x12xf32>, %[[RB:.*]]: tensor<12xf32>)
// CHECK:         scf.for {{.*}} = %c0 to %c5 step %c1 iter_args(%[[H:.*]] = %{{.*}}, %[[G:.*]] = %{{.*}})
// CHECK:           %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[RB]] : tensor<12xf32>) outs(%[[G]] : tensor<?x12xf32>)
// CHECK:           linalg.matmul {recurrent_product} ins(%[[H]], %[[WR]] : tensor<?x4xf32>, tensor<4x12xf32>) outs(%[[BIAS]] : tensor<?x12xf32>)
// CHECK-NOT:       linalg.matmul
// CHECK:           linalg.generic {{.*}} outs(%[[H]] : tensor<?x4xf32>)
// CHECK:           scf.yield
func.func @gru_reset_after(%xp: tensor<?x5x12xf32>, %wr: tensor<4x12xf32>, %rb: tensor<12xf32>) -> tensor<?x4xf32> {
  %0 = seq.gru_recurrence %xp, %wr, %rb activation(tanh, sigmoid) {reset_after} : (tensor<?x5x12xf32>, tensor<4x12xf32>, tensor<12xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// Without reset_after the candidate needs (r * h) @ U_h: a second matmul
// on the last u columns of the recurrent kernel.
// CHECK-LABEL: func.func @gru_reset_before(
// CHECK-SAME:      %[[XP:.*]]: tensor<?x5x12xf32>, %[[WR:.*]]: tensor<4x12xf32>)
// CHECK:         scf.for {{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[ZR:.*]] = %{{.*}}, %[[RH:.*]] = %{{.*}}, %[[CAND:.*]] = %{{.*}})
// CHECK:           %[[UZR:.*]] = tensor.extract_slice %[[WR]][0, 0] [4, 8] [1, 1]
// CHECK:           linalg.matmul {recurrent_product} ins(%[[H]], %[[UZR]] : tensor<?x4xf32>, tensor<4x8xf32>)
// CHECK:           %[[R:.*]] = linalg.generic {{.*}} outs(%[[RH]] : tensor<?x4xf32>)
// CHECK:             arith.minimumf
// CHECK:           %[[UH:.*]] = tensor.extract_slice %[[WR]][0, 8] [4, 4] [1, 1]
// CHECK:           linalg.matmul {recurrent_product} ins(%[[R]], %[[UH]] : tensor<?x4xf32>, tensor<4x4xf32>)
// CHECK-NOT:       linalg.matmul
// CHECK:           linalg.generic {{.*}} outs(%[[H]] : tensor<?x4xf32>)
func.func @gru_reset_before(%xp: tensor<?x5x12xf32>, %wr: tensor<4x12xf32>) -> tensor<?x4xf32> {
  %0 = seq.gru_recurrence %xp, %wr activation(tanh, hard_sigmoid_keras2) : (tensor<?x5x12xf32>, tensor<4x12xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @simple_rnn(
// CHECK:         scf.for {{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}})
// CHECK:           %[[PRE:.*]] = scf.if
// CHECK:             linalg.copy {{.*}} outs(%[[P]] : tensor<?x4xf32>)
// CHECK:           } else {
// CHECK:             %[[START:.*]] = linalg.copy {{.*}} outs(%[[P]] : tensor<?x4xf32>)
// CHECK:             linalg.matmul {recurrent_product} ins(%[[H]], %{{.*}}) outs(%[[START]] : tensor<?x4xf32>)
// CHECK:           }
// CHECK:           linalg.generic {{.*}} ins(%[[PRE]] : tensor<?x4xf32>) outs(%[[H]] : tensor<?x4xf32>)
// CHECK:             arith.maximumf
func.func @simple_rnn(%xp: tensor<?x5x4xf32>, %wr: tensor<4x4xf32>) -> tensor<?x4xf32> {
  %0 = seq.simple_rnn_recurrence %xp, %wr activation(relu) : (tensor<?x5x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// The layer-level op. At a batch of 32 rows or more (a branch on the batch
// where it is dynamic) each step computes its own rows of the input
// projection, x_t @ K + b: an LSTM (and a SimpleRNN) into the gates'
// buffer, just before the recurrent matmul into the same buffer (which
// seq-cpu-kernels fuses into one pass; the first step, whose h is zero, has
// the projection alone); with fewer rows the projection is one matmul over
// batch*time rows before the loop, marked streamed_output (seq-cpu-kernels
// may write a large one past the caches), and each step starts from its
// slice. Only where a row of that projection takes 1024 floats or more
// for an LSTM or a SimpleRNN (lstm_layer_fused_rows below), 8192 for a GRU
// (gru_layer_static), or the steps are not known: these tests set the bound
// to 0; by default 6 steps of 16 floats keep the projection before the loop,
// with no branch.
// SHORT-LABEL: func.func @lstm_layer(
// SHORT-NOT:     arith.cmpi sge
// SHORT:         linalg.matmul {streamed_output}
// SHORT:         scf.for
// SHORT-NOT:     scf.for
// SHORT:         return
// CHECK-LABEL: func.func @lstm_layer(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6x3xf32>, %[[K:.*]]: tensor<3x16xf32>, %[[WR:.*]]: tensor<4x16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK:         %[[WIDE:.*]] = arith.cmpi sge, %[[N]], %c32
// CHECK:         %[[OUT:.*]] = scf.if %[[WIDE]] -> (tensor<?x4xf32>) {
// CHECK-NOT:       tensor.collapse_shape
// CHECK:           %[[G0:.*]] = bufferization.alloc_tensor(%[[N]]) : tensor<?x16xf32>
// CHECK-NOT:       bufferization.alloc_tensor
// CHECK:           scf.for %[[T:.*]] = %c0 to %c6 step %c1 iter_args(%[[H:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[G:.*]] = %[[G0]])
// CHECK:             %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK:             scf.if %[[FIRST]] -> (tensor<?x16xf32>) {
// CHECK:               %[[START:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<16xf32>) outs(%[[G]] : tensor<?x16xf32>)
// CHECK:               %[[XT:.*]] = tensor.extract_slice %[[X]][0, %[[T]], 0] [%[[N]], 1, 3] [1, 1, 1] : tensor<?x6x3xf32> to tensor<?x3xf32>
// CHECK:               %[[ROWS:.*]] = linalg.matmul ins(%[[XT]], %[[K]] : tensor<?x3xf32>, tensor<3x16xf32>) outs(%[[START]] : tensor<?x16xf32>)
// CHECK-NOT:           linalg.matmul
// CHECK:               scf.yield %[[ROWS]]
// CHECK:             } else {
// CHECK:               %[[START:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<16xf32>) outs(%[[G]] : tensor<?x16xf32>)
// CHECK:               %[[XT:.*]] = tensor.extract_slice %[[X]][0, %[[T]], 0] [%[[N]], 1, 3] [1, 1, 1] : tensor<?x6x3xf32> to tensor<?x3xf32>
// CHECK:               %[[ROWS:.*]] = linalg.matmul ins(%[[XT]], %[[K]] : tensor<?x3xf32>, tensor<3x16xf32>) outs(%[[START]] : tensor<?x16xf32>)
// CHECK-NOT:           linalg.copy
// CHECK:               %[[GATES:.*]] = linalg.matmul {recurrent_product} ins(%[[H]], %[[WR]] : tensor<?x4xf32>, tensor<4x16xf32>) outs(%[[ROWS]] : tensor<?x16xf32>)
// CHECK:               scf.yield %[[GATES]]
// CHECK:             }
// CHECK:         } else {
// CHECK:           %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x6x3xf32> into tensor<?x3xf32>
// CHECK:           %[[ACC:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<16xf32>)
// CHECK:           %[[PROJ:.*]] = linalg.matmul {streamed_output} ins(%[[ROWS]], %[[K]] : tensor<?x3xf32>, tensor<3x16xf32>) outs(%[[ACC]] : tensor<?x16xf32>)
// CHECK:           %[[XP:.*]] = tensor.expand_shape %[[PROJ]] {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 6, 16]
// CHECK:           scf.for {{.*}} = %c0 to %c6 step %c1
// CHECK:             tensor.extract_slice %[[XP]]
// CHECK:             linalg.matmul {recurrent_product} ins(%{{.*}}, %[[WR]] : tensor<?x4xf32>, tensor<4x16xf32>)
// CHECK-NOT:         linalg.matmul
// CHECK:             scf.yield
// CHECK:         return %[[OUT]]
func.func @lstm_layer(%x: tensor<?x6x3xf32>, %k: tensor<3x16xf32>, %wr: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<?x4xf32> {
  %0 = seq.lstm %x, %k, %wr, %b activation(tanh, sigmoid) : (tensor<?x6x3xf32>, tensor<3x16xf32>, tensor<4x16xf32>, tensor<16xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// 16 steps of 64 floats: by default an LSTM computes them step by step at
// 32 rows, its step one GEMM kernel; a GRU's rows as long stay before the
// loop (below 8192 floats).
// SHORT-LABEL: func.func @lstm_layer_fused_rows(
// SHORT:         arith.cmpi sge, %{{.*}}, %c32
// SHORT:         scf.if
// SHORT:           scf.for
// SHORT:         } else {
// SHORT:           linalg.matmul {streamed_output}
// SHORT:           scf.for
// SHORT-LABEL: func.func @gru_layer_rows(
// SHORT-NOT:     scf.if
// SHORT:         linalg.matmul {streamed_output}
// SHORT:         scf.for
// SHORT-NOT:     scf.for
// SHORT:         return
func.func @lstm_layer_fused_rows(%x: tensor<?x16x3xf32>, %k: tensor<3x64xf32>, %wr: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<?x16xf32> {
  %0 = seq.lstm %x, %k, %wr, %b activation(tanh, sigmoid) : (tensor<?x16x3xf32>, tensor<3x64xf32>, tensor<16x64xf32>, tensor<64xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
func.func @gru_layer_rows(%x: tensor<?x16x3xf32>, %k: tensor<3x72xf32>, %wr: tensor<24x72xf32>, %b: tensor<2x72xf32>) -> tensor<?x24xf32> {
  %0 = seq.gru %x, %k, %wr, %b activation(tanh, sigmoid) {reset_after} : (tensor<?x16x3xf32>, tensor<3x72xf32>, tensor<24x72xf32>, tensor<2x72xf32>) -> tensor<?x24xf32>
  return %0 : tensor<?x24xf32>
}

// A static batch decides without a branch: 64 rows step by step (GRU
// reset_after reads the step's rows in its cell), 4 rows from the
// projection before the loop. By default (SHORT) a GRU's rows of 6 x 12
// floats keep the projection before the loop at 64 rows too.
// SHORT-LABEL: func.func @gru_layer_static(
// SHORT-NOT:     scf.if
// SHORT:         tensor.collapse_shape {{.*}} : tensor<64x6x3xf32> into tensor<384x3xf32>
// SHORT:         linalg.matmul {streamed_output}
// SHORT:         tensor.collapse_shape {{.*}} : tensor<4x6x3xf32> into tensor<24x3xf32>
// SHORT:         linalg.matmul {streamed_output}
// SHORT:         return
// CHECK-LABEL: func.func @gru_layer_static(
// CHECK-NOT:     scf.if {{.*}} -> (tensor<64x4xf32>)
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         scf.for
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x3xf32>, tensor<3x12xf32>)
// CHECK:           linalg.matmul {recurrent_product} ins(%{{.*}}, %{{.*}} : tensor<64x4xf32>, tensor<4x12xf32>)
// CHECK:         tensor.collapse_shape {{.*}} : tensor<4x6x3xf32> into tensor<24x3xf32>
// CHECK:         linalg.matmul {streamed_output}
// CHECK:         scf.for
// CHECK:           linalg.matmul {recurrent_product} ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x12xf32>)
// CHECK-NOT:       linalg.matmul
func.func @gru_layer_static(%x: tensor<64x6x3xf32>, %y: tensor<4x6x3xf32>, %k: tensor<3x12xf32>, %wr: tensor<4x12xf32>, %b: tensor<2x12xf32>) -> (tensor<64x4xf32>, tensor<4x4xf32>) {
  %0 = seq.gru %x, %k, %wr, %b activation(tanh, sigmoid) {reset_after} : (tensor<64x6x3xf32>, tensor<3x12xf32>, tensor<4x12xf32>, tensor<2x12xf32>) -> tensor<64x4xf32>
  %1 = seq.gru %y, %k, %wr, %b activation(tanh, sigmoid) {reset_after} : (tensor<4x6x3xf32>, tensor<3x12xf32>, tensor<4x12xf32>, tensor<2x12xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<64x4xf32>, tensor<4x4xf32>
}

// After fusion a recurrence reads its projection from a seq.linear: the
// recurrence lowers it as its parts (step by step at 32 rows). A linear
// with another user is lowered on its own, before the loop.
// CHECK-LABEL: func.func @projected_by_linear(
// CHECK-SAME:      %[[X:.*]]: tensor<32x6x3xf32>, %[[K:.*]]: tensor<3x4xf32>
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         scf.for
// CHECK:           %[[XT:.*]] = tensor.extract_slice %[[X]]
// CHECK:           linalg.matmul ins(%[[XT]], %[[K]] : tensor<32x3xf32>, tensor<3x4xf32>)
// CHECK:           linalg.matmul {recurrent_product} ins(%{{.*}}, %{{.*}} : tensor<32x4xf32>, tensor<4x4xf32>)
// CHECK:         scf.yield
// CHECK:         tensor.collapse_shape %[[X]]
// CHECK:         linalg.matmul {streamed_output}
// CHECK:         scf.for
// CHECK:           linalg.matmul {recurrent_product} ins(%{{.*}}, %{{.*}} : tensor<32x4xf32>, tensor<4x4xf32>)
// CHECK-NOT:       linalg.matmul
func.func @projected_by_linear(%x: tensor<32x6x3xf32>, %k: tensor<3x4xf32>, %wr: tensor<4x4xf32>) -> (tensor<32x4xf32>, tensor<32x4xf32>, tensor<32x6x4xf32>) {
  %p = seq.linear %x, %k activation(linear) : (tensor<32x6x3xf32>, tensor<3x4xf32>) -> tensor<32x6x4xf32>
  %0 = seq.simple_rnn_recurrence %p, %wr activation(tanh) : (tensor<32x6x4xf32>, tensor<4x4xf32>) -> tensor<32x4xf32>
  %q = seq.linear %x, %k activation(linear) : (tensor<32x6x3xf32>, tensor<3x4xf32>) -> tensor<32x6x4xf32>
  %1 = seq.simple_rnn_recurrence %q, %wr activation(tanh) : (tensor<32x6x4xf32>, tensor<4x4xf32>) -> tensor<32x4xf32>
  return %0, %1, %q : tensor<32x4xf32>, tensor<32x4xf32>, tensor<32x6x4xf32>
}

// A softmax cell activation needs each (B, u) block as a whole: the step
// normalises the candidate row with two reductions over the units (max,
// sum) before mixing it into h.
// CHECK-LABEL: func.func @simple_rnn_softmax_cell(
// CHECK:         scf.for
// CHECK:           linalg.matmul
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:             arith.maximumf
// CHECK:           math.exp
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:             arith.addf
// CHECK:           arith.divf
// CHECK:           scf.yield
func.func @simple_rnn_softmax_cell(%xp: tensor<?x5x4xf32>, %wr: tensor<4x4xf32>) -> tensor<?x4xf32> {
  %0 = seq.simple_rnn_recurrence %xp, %wr activation(softmax) : (tensor<?x5x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// Recurrent cells take the alphas of the activation names: leaky_relu's 0.2
// and elu's 1.0 (a multiplication by one, folded away).
// CHECK-LABEL: func.func @lstm_elu_leaky_cell(
// CHECK:         %[[SLOPE:.*]] = arith.constant 2.000000e-01 : f32
// CHECK:         scf.for
// CHECK:           linalg.generic
// CHECK:             arith.mulf %{{.*}}, %[[SLOPE]]
// CHECK:             math.expm1
func.func @lstm_elu_leaky_cell(%xp: tensor<?x5x16xf32>, %wr: tensor<4x16xf32>) -> tensor<?x4xf32> {
  %0 = seq.lstm_recurrence %xp, %wr activation(elu, leaky_relu) : (tensor<?x5x16xf32>, tensor<4x16xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// With a mask, each step lists the rows that take it (idx, k of them).
// k = 0: the step is skipped (the state yielded unchanged). k = B: the cell
// on the whole batch. Otherwise h, c and the step's projection rows are
// gathered into k-row blocks, the matmul and the cell run on those, and the
// new h and c are scattered back to the listed rows. zero_output_for_mask
// writes zeros into the sequence's slice for the masked rows.
// CHECK-LABEL: func.func @lstm_masked(
// CHECK-SAME:      %[[XP:.*]]: tensor<?x?x32xf32>, %[[WR:.*]]: tensor<8x32xf32>, %[[M:.*]]: tensor<?x?xf32>)
// CHECK:         scf.for %[[STEP:.*]] = {{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}, %[[G:.*]] = %{{.*}}, %[[IDX:.*]] = %{{.*}}, %[[HR:.*]] = %{{.*}}, %[[CR:.*]] = %{{.*}}, %[[PR:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}})
// CHECK:           %[[COL:.*]] = tensor.extract_slice %[[M]][0, %[[STEP]]] [{{.*}}, 1] [1, 1] : tensor<?x?xf32> to tensor<?xf32>
// CHECK:           %[[LIST:.*]]:2 = scf.for %[[ROW:.*]] = {{.*}} iter_args(%[[N:.*]] = %{{.*}}, %[[L:.*]] = %[[IDX]])
// CHECK:             tensor.extract %[[M]][%[[ROW]], %[[STEP]]]
// CHECK:             tensor.insert %[[ROW]] into %[[L]][%[[N]]]
// CHECK:           %[[NONE:.*]] = arith.cmpi eq, %[[LIST]]#0, %c0
// CHECK:           %[[STATE:.*]]:6 = scf.if %[[NONE]]
// CHECK-NEXT:        scf.yield %[[H]], %[[C]], %[[G]], %[[HR]], %[[CR]], %[[PR]]
// CHECK:           } else {
// CHECK:             %[[ALL:.*]] = arith.cmpi eq, %[[LIST]]#0,
// CHECK:             scf.if %[[ALL]]
// CHECK:               linalg.matmul {recurrent_product} ins(%[[H]], %[[WR]]
// CHECK:               linalg.generic {{.*}} outs(%[[H]], %[[C]] : tensor<?x8xf32>, tensor<?x8xf32>)
// CHECK:             } else {
// CHECK:               %[[HK:.*]] = tensor.extract_slice %[[HR]][0, 0] [%[[LIST]]#0, 8]
// CHECK:               %[[HG:.*]] = linalg.generic {{.*}} outs(%[[HK]] : tensor<?x8xf32>)
// CHECK:                 tensor.extract %[[LIST]]#1
// CHECK:                 tensor.extract %[[H]]
// CHECK:               linalg.matmul {recurrent_product} ins(%[[HG]], %[[WR]]
// CHECK:               %[[CELL:.*]]:2 = linalg.generic
// CHECK:               scf.for %[[J:.*]] = %c0 to %[[LIST]]#0 {{.*}} iter_args(%[[HS:.*]] = %[[H]], %[[CS:.*]] = %[[C]])
// CHECK:                 %[[TO:.*]] = tensor.extract %[[LIST]]#1[%[[J]]]
// CHECK:                 %[[ROWH:.*]] = tensor.extract_slice %[[CELL]]#0[%[[J]], 0] [1, 8]
// CHECK:                 tensor.insert_slice %[[ROWH]] into %[[HS]][%[[TO]], 0] [1, 8]
// CHECK:           %[[SLICE:.*]] = tensor.extract_slice %[[S]][0, %[[STEP]], 0]
// CHECK:           %[[ZEROS:.*]] = linalg.fill {{.*}} outs(%[[SLICE]]
// CHECK:           %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[STATE]]#0, %[[COL]] : {{.*}}) outs(%[[ZEROS]]
// CHECK:           tensor.insert_slice %[[OUT]] into %[[S]][0, %[[STEP]], 0]
func.func @lstm_masked(%xp: tensor<?x?x32xf32>, %wr: tensor<8x32xf32>, %m: tensor<?x?xf32>) -> tensor<?x?x8xf32> {
  %0 = seq.lstm_recurrence %xp, %wr mask(%m) activation(tanh, sigmoid) {return_sequences, zero_output_for_mask} : (tensor<?x?x32xf32>, tensor<8x32xf32>, tensor<?x?xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// A stateful LSTM starts from copies of h and c of its initial state (2, B,
// u) and stacks the loop's final h and c into its final state.
// CHECK-LABEL: func.func @lstm_stateful(
// CHECK-SAME:      %[[XP:.*]]: tensor<2x5x32xf32>, %[[WR:.*]]: tensor<8x32xf32>, %[[S0:.*]]: tensor<2x2x8xf32>)
// CHECK-DAG:     %[[H0:.*]] = tensor.extract_slice %[[S0]][0, 0, 0] [1, 2, 8] [1, 1, 1] : tensor<2x2x8xf32> to tensor<2x8xf32>
// CHECK-DAG:     %[[C0:.*]] = tensor.extract_slice %[[S0]][1, 0, 0] [1, 2, 8] [1, 1, 1] : tensor<2x2x8xf32> to tensor<2x8xf32>
// CHECK-DAG:     %[[HI:.*]] = linalg.copy ins(%[[H0]] : tensor<2x8xf32>)
// CHECK-DAG:     %[[CI:.*]] = linalg.copy ins(%[[C0]] : tensor<2x8xf32>)
// Its h is not zero at the first step: every step takes the matmul.
// CHECK:         %[[LOOP:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %[[HI]], %{{.*}} = %[[CI]], %{{.*}} = %{{.*}})
// CHECK-NOT:       scf.if
// CHECK:           linalg.matmul
// CHECK-NOT:       scf.if
// CHECK:         scf.yield
// CHECK:         %[[SH:.*]] = tensor.insert_slice %[[LOOP]]#0 into %{{.*}}[0, 0, 0] [1, 2, 8] [1, 1, 1] : tensor<2x8xf32> into tensor<2x2x8xf32>
// CHECK:         %[[SC:.*]] = tensor.insert_slice %[[LOOP]]#1 into %[[SH]][1, 0, 0] [1, 2, 8] [1, 1, 1] : tensor<2x8xf32> into tensor<2x2x8xf32>
// CHECK:         return %[[LOOP]]#0, %[[SC]]
func.func @lstm_stateful(%xp: tensor<2x5x32xf32>, %wr: tensor<8x32xf32>, %s: tensor<2x2x8xf32>) -> (tensor<2x8xf32>, tensor<2x2x8xf32>) {
  %0, %1 = seq.lstm_recurrence %xp, %wr initial_state(%s) activation(tanh, sigmoid) : (tensor<2x5x32xf32>, tensor<8x32xf32>, tensor<2x2x8xf32>) -> (tensor<2x8xf32>, tensor<2x2x8xf32>)
  return %0, %1 : tensor<2x8xf32>, tensor<2x2x8xf32>
}

// With a mask and an initial state, a row emits zeros until its first
// unmasked step (Keras' previous output starts at zero, not at the state):
// a (B) "seen" flag rides along and gates what the step writes.
// CHECK-LABEL: func.func @gru_stateful_masked(
// CHECK:         scf.for {{.*}} iter_args({{.*}}, %[[SEEN:.*]] = %{{.*}}) -> (
// CHECK:           %[[NOW:.*]] = linalg.generic {{.*}} outs(%[[SEEN]] : tensor<2xf32>)
// CHECK:             arith.maximumf
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %[[NOW]] : tensor<2x4xf32>, tensor<2xf32>)
// CHECK:           scf.yield {{.*}}, %[[NOW]]
func.func @gru_stateful_masked(%xp: tensor<2x5x12xf32>, %wr: tensor<4x12xf32>, %rb: tensor<12xf32>, %m: tensor<2x5xf32>, %s: tensor<1x2x4xf32>) -> (tensor<2x5x4xf32>, tensor<1x2x4xf32>) {
  %0, %1 = seq.gru_recurrence %xp, %wr, %rb mask(%m) initial_state(%s) activation(tanh, sigmoid) {return_sequences, reset_after} : (tensor<2x5x12xf32>, tensor<4x12xf32>, tensor<12xf32>, tensor<2x5xf32>, tensor<1x2x4xf32>) -> (tensor<2x5x4xf32>, tensor<1x2x4xf32>)
  return %0, %1 : tensor<2x5x4xf32>, tensor<1x2x4xf32>
}

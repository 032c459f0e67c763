// RUN: seq-opt %s --seq-fuse-lstm-gates -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s

// The input projection is one GEMM over all (batch, time) rows with the
// bias and no activation; the recurrence gets the recurrent kernel and the
// layer's activations and flags. Both keep the layer's location.
// CHECK-LABEL: func @lstm
// CHECK-NOT: seq.lstm %
// CHECK: %[[P:.*]] = seq.linear %arg0, %[[K:.*]], %[[B:.*]] activation(linear) : (tensor<?x5x3xf32>, tensor<3x8xf32>, tensor<8xf32>) -> tensor<?x5x8xf32> loc("lstm")
// CHECK: %[[Y:.*]] = seq.lstm_recurrence %[[P]], %[[R:.*]] activation(relu, hard_sigmoid_keras2) {go_backwards, return_sequences} : (tensor<?x5x8xf32>, tensor<2x8xf32>) -> tensor<?x5x2xf32> loc("lstm")
// CHECK: return %[[Y]]
func.func @lstm(%x: tensor<?x5x3xf32>) -> tensor<?x5x2xf32> {
  %k = arith.constant dense<1.0> : tensor<3x8xf32>
  %r = arith.constant dense<2.0> : tensor<2x8xf32>
  %b = arith.constant dense<0.5> : tensor<8xf32>
  %0 = seq.lstm %x, %k, %r, %b activation(relu, hard_sigmoid_keras2) {return_sequences, go_backwards} : (tensor<?x5x3xf32>, tensor<3x8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> tensor<?x5x2xf32> loc("lstm")
  return %0 : tensor<?x5x2xf32>
}

// Without bias the projection has none; the last state only.
// CHECK-LABEL: func @lstm_no_bias
// CHECK: %[[P:.*]] = seq.linear %arg0, %{{[^,]*}} activation(linear) : (tensor<2x?x3xf32>, tensor<3x8xf32>) -> tensor<2x?x8xf32>
// CHECK: seq.lstm_recurrence %[[P]], %{{[^ ]*}} activation(tanh, sigmoid) : (tensor<2x?x8xf32>, tensor<2x8xf32>) -> tensor<2x2xf32>
func.func @lstm_no_bias(%x: tensor<2x?x3xf32>) -> tensor<2x2xf32> {
  %k = arith.constant dense<1.0> : tensor<3x8xf32>
  %r = arith.constant dense<2.0> : tensor<2x8xf32>
  %0 = seq.lstm %x, %k, %r activation(tanh, sigmoid) : (tensor<2x?x3xf32>, tensor<3x8xf32>, tensor<2x8xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// Only LSTMs: a GRU is left to --seq-fuse-gru-gates.
// CHECK-LABEL: func @gru_untouched
// CHECK: seq.gru %arg0
// CHECK-NOT: seq.linear
func.func @gru_untouched(%x: tensor<?x5x3xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<1.0> : tensor<3x6xf32>
  %r = arith.constant dense<2.0> : tensor<2x6xf32>
  %0 = seq.gru %x, %k, %r activation(tanh, sigmoid) : (tensor<?x5x3xf32>, tensor<3x6xf32>, tensor<2x6xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

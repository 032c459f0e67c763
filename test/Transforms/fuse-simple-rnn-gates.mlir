// RUN: seq-opt %s --seq-fuse-simple-rnn-gates -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func @simple_rnn
// CHECK: %[[P:.*]] = seq.linear %arg0, %{{.*}}, %{{.*}} activation(linear) : (tensor<?x6x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<?x6x4xf32> loc("rnn")
// CHECK: %[[Y:.*]] = seq.simple_rnn_recurrence %[[P]], %{{[^ ]*}} activation(relu) {return_sequences} : (tensor<?x6x4xf32>, tensor<4x4xf32>) -> tensor<?x6x4xf32> loc("rnn")
// CHECK: return %[[Y]]
func.func @simple_rnn(%x: tensor<?x6x3xf32>) -> tensor<?x6x4xf32> {
  %k = arith.constant dense<1.0> : tensor<3x4xf32>
  %r = arith.constant dense<2.0> : tensor<4x4xf32>
  %b = arith.constant dense<0.5> : tensor<4xf32>
  %0 = seq.simple_rnn %x, %k, %r, %b activation(relu) {return_sequences} : (tensor<?x6x3xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<?x6x4xf32> loc("rnn")
  return %0 : tensor<?x6x4xf32>
}

// CHECK-LABEL: func @simple_rnn_backwards_no_bias
// CHECK: %[[P:.*]] = seq.linear %arg0, %{{[^,]*}} activation(linear) : (tensor<?x6x3xf32>, tensor<3x4xf32>) -> tensor<?x6x4xf32>
// CHECK: seq.simple_rnn_recurrence %[[P]], %{{[^ ]*}} activation(tanh) {go_backwards} : (tensor<?x6x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
func.func @simple_rnn_backwards_no_bias(%x: tensor<?x6x3xf32>) -> tensor<?x4xf32> {
  %k = arith.constant dense<1.0> : tensor<3x4xf32>
  %r = arith.constant dense<2.0> : tensor<4x4xf32>
  %0 = seq.simple_rnn %x, %k, %r activation(tanh) {go_backwards} : (tensor<?x6x3xf32>, tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// An LSTM is not this pass's business.
// CHECK-LABEL: func @lstm_untouched
// CHECK: seq.lstm %arg0
func.func @lstm_untouched(%x: tensor<?x5x3xf32>) -> tensor<?x1xf32> {
  %k = arith.constant dense<1.0> : tensor<3x4xf32>
  %r = arith.constant dense<1.0> : tensor<1x4xf32>
  %0 = seq.lstm %x, %k, %r activation(tanh, sigmoid) : (tensor<?x5x3xf32>, tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

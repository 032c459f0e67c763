// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s

// ConvLSTM1D, same padding, go_backwards, every step returned. The input is
// padded once before the loop; h lives inside a zero border one tap wide on
// each side, so both convolutions of a step run "valid" on loop-carried
// tensors: the input convolution onto the broadcast bias, the recurrent one
// accumulating onto it. The cell reads the four gate blocks straight from
// the gate tensor, writes c in place and h into the border's interior.
// CHECK-LABEL: func.func @conv_lstm_backward_sequences(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?x6x3xf32>, %[[K:.*]]: tensor<3x3x8xf32>, %[[R:.*]]: tensor<3x2x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[T:.*]] = tensor.dim %[[X]], %c1
// CHECK:         %[[XP:.*]] = tensor.insert_slice %[[X]] into %{{.*}}[0, 0, 1, 0] [%{{.*}}, %[[T]], 6, 3] [1, 1, 1, 1] : tensor<?x?x6x3xf32> into tensor<?x?x8x3xf32>
// CHECK:         %[[H0:.*]] = linalg.fill {{.*}} -> tensor<?x8x2xf32>
// CHECK:         %[[C0:.*]] = linalg.fill {{.*}} -> tensor<?x6x2xf32>
// CHECK:         %[[G0:.*]] = bufferization.alloc_tensor(%{{.*}}) : tensor<?x6x8xf32>
// CHECK:         %[[S0:.*]] = bufferization.alloc_tensor(%{{.*}}, %[[T]]) : tensor<?x?x6x2xf32>
// CHECK:         %[[LOOP:.*]]:4 = scf.for %[[S:.*]] = %c0 to %[[T]] step %c1 iter_args(%[[H:.*]] = %[[H0]], %[[C:.*]] = %[[C0]], %[[G:.*]] = %[[G0]], %[[SEQ:.*]] = %[[S0]])
// CHECK:           %[[LAST:.*]] = arith.subi %[[T]], %c1
// CHECK:           %[[STEP:.*]] = arith.subi %[[LAST]], %[[S]]
// CHECK:           %[[FRAME:.*]] = tensor.extract_slice %[[XP]][0, %[[STEP]], 0, 0] [%{{.*}}, 1, 8, 3] [1, 1, 1, 1] : tensor<?x?x8x3xf32> to tensor<?x8x3xf32>
// CHECK:           %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<8xf32>) outs(%[[G]] : tensor<?x6x8xf32>)
// CHECK:           %[[IN:.*]] = linalg.conv_1d_nwc_wcf {{.*}} ins(%[[FRAME]], %[[K]] : {{.*}}) outs(%[[BIAS]] : tensor<?x6x8xf32>)
// CHECK:           %[[GATES:.*]] = linalg.conv_1d_nwc_wcf {{.*}} ins(%[[H]], %[[R]] : {{.*}}) outs(%[[IN]] : tensor<?x6x8xf32>)
// CHECK:           %[[NEWC:.*]] = linalg.generic {{.*}} outs(%[[C]] : tensor<?x6x2xf32>)
// CHECK:           %[[INTERIOR:.*]] = tensor.extract_slice %[[H]][0, 1, 0] [%{{.*}}, 6, 2] [1, 1, 1] : tensor<?x8x2xf32> to tensor<?x6x2xf32>
// CHECK:           %[[O:.*]] = tensor.extract_slice %[[GATES]][0, 0, 6] [%{{.*}}, 6, 2]
// CHECK:           %[[NEWH:.*]] = linalg.generic {{.*}} ins(%[[O]], %[[NEWC]] : {{.*}}) outs(%[[INTERIOR]] : tensor<?x6x2xf32>)
// CHECK:           %[[HB:.*]] = tensor.insert_slice %[[NEWH]] into %[[H]][0, 1, 0] [%{{.*}}, 6, 2] [1, 1, 1]
// CHECK:           %[[SEQ2:.*]] = tensor.insert_slice %[[NEWH]] into %[[SEQ]][0, %[[S]], 0, 0] [%{{.*}}, 1, 6, 2] [1, 1, 1, 1]
// CHECK:           scf.yield %[[HB]], %[[NEWC]], %[[GATES]], %[[SEQ2]]
// CHECK:         return %[[LOOP]]#3
func.func @conv_lstm_backward_sequences(%x: tensor<?x?x6x3xf32>, %k: tensor<3x3x8xf32>, %r: tensor<3x2x8xf32>, %b: tensor<8xf32>) -> tensor<?x?x6x2xf32> {
  %0 = seq.conv_lstm %x, %k, %r, %b padding(same) activation(tanh, sigmoid) {dilation_rate = array<i64: 1>, go_backwards, return_sequences, strides = array<i64: 1>} : (tensor<?x?x6x3xf32>, tensor<3x3x8xf32>, tensor<3x2x8xf32>, tensor<8xf32>) -> tensor<?x?x6x2xf32>
  return %0 : tensor<?x?x6x2xf32>
}

// ConvLSTM2D, valid, strides 2, no bias, last step only: no input padding,
// the gates start at zero, and the result is h's interior after the loop.
// CHECK-LABEL: func.func @conv_lstm2d_last(
// CHECK-NOT:     tensor.insert_slice %arg0
// CHECK:         %[[LOOP:.*]]:3 = scf.for
// CHECK:           %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<?x3x2x8xf32>
// CHECK:           linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} {{.*}} outs(%[[ZERO]] : tensor<?x3x2x8xf32>)
// CHECK:           linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %arg2 : tensor<?x5x3x2xf32>, tensor<3x2x2x8xf32>)
// CHECK:         tensor.extract_slice %[[LOOP]]#0[0, 1, 0, 0] [%{{.*}}, 3, 2, 2] [1, 1, 1, 1] : tensor<?x5x3x2xf32> to tensor<?x3x2x2xf32>
func.func @conv_lstm2d_last(%x: tensor<?x4x7x5x3xf32>, %k: tensor<3x2x3x8xf32>, %r: tensor<3x2x2x8xf32>) -> tensor<?x3x2x2xf32> {
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x7x5x3xf32>, tensor<3x2x3x8xf32>, tensor<3x2x2x8xf32>) -> tensor<?x3x2x2xf32>
  return %0 : tensor<?x3x2x2xf32>
}

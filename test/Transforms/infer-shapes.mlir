// RUN: seq-opt %s --seq-infer-shapes --split-input-file | FileCheck %s

// A static input (as after --input-shape) refines every ? downstream, and
// the signature follows the return.
// CHECK-LABEL: func @seed(%arg0: tensor<2x10x12xf32>) -> tensor<2x1xf32>
// CHECK: seq.lstm {{.*}} -> tensor<2x10x4xf32>
// CHECK: seq.lstm {{.*}} -> tensor<2x4xf32>
// CHECK: seq.dense {{.*}} -> tensor<2x1xf32>
// CHECK: return {{.*}} : tensor<2x1xf32>
func.func @seed(%x: tensor<2x10x12xf32>) -> tensor<?x1xf32> {
  %k = arith.constant dense<1.0> : tensor<12x16xf32>
  %k2 = arith.constant dense<1.0> : tensor<4x16xf32>
  %r = arith.constant dense<1.0> : tensor<4x16xf32>
  %d = arith.constant dense<1.0> : tensor<4x1xf32>
  %0 = seq.lstm %x, %k, %r activation(tanh, sigmoid) {return_sequences} : (tensor<2x10x12xf32>, tensor<12x16xf32>, tensor<4x16xf32>) -> tensor<?x?x4xf32>
  %1 = seq.lstm %0, %k2, %r activation(tanh, sigmoid) : (tensor<?x?x4xf32>, tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<?x4xf32>
  %2 = seq.dense %1, %d activation(linear) : (tensor<?x4xf32>, tensor<4x1xf32>) -> tensor<?x1xf32>
  return %2 : tensor<?x1xf32>
}

// -----

// Conv1D / pooling lengths, reshape's -1, flatten, repeat_vector,
// bidirectional concat and time_distributed bodies.
// CHECK-LABEL: func @shapes(%arg0: tensor<3x10x2xf32>) -> tensor<3x4x5xf32>
// CHECK: seq.conv1d {{.*}} -> tensor<3x8x4xf32>
// CHECK: seq.max_pool1d {{.*}} : tensor<3x8x4xf32> -> tensor<3x4x4xf32>
// CHECK: seq.reshape {{.*}} [-1, 2] : tensor<3x4x4xf32> -> tensor<3x8x2xf32>
// CHECK: seq.flatten {{.*}} : tensor<3x8x2xf32> -> tensor<3x16xf32>
// CHECK: seq.repeat_vector {{.*}} : tensor<3x16xf32> -> tensor<3x4x16xf32>
// CHECK: seq.gru {{.*}} -> tensor<3x4x2xf32>
// CHECK: seq.gru {{.*}} -> tensor<3x4x2xf32>
// CHECK: seq.bidirectional concat {{.*}} -> tensor<3x4x4xf32>
// CHECK: seq.time_distributed {{.*}} : tensor<3x4x4xf32> -> tensor<3x4x5xf32>
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<3x4xf32>):
// CHECK-NEXT: seq.dense {{.*}} -> tensor<3x5xf32>
// CHECK-NEXT: seq.yield {{.*}} : tensor<3x5xf32>
func.func @shapes(%x: tensor<3x10x2xf32>) -> tensor<?x?x5xf32> {
  %c = arith.constant dense<1.0> : tensor<3x2x4xf32>
  %gk = arith.constant dense<1.0> : tensor<16x6xf32>
  %gr = arith.constant dense<1.0> : tensor<2x6xf32>
  %dk = arith.constant dense<1.0> : tensor<4x5xf32>
  %0 = seq.conv1d %x, %c padding(valid) activation(relu) {dilation_rate = 1 : i64, strides = 1 : i64} : (tensor<3x10x2xf32>, tensor<3x2x4xf32>) -> tensor<?x?x4xf32>
  %1 = seq.max_pool1d %0 padding(valid) {pool_size = 2 : i64, strides = 2 : i64} : tensor<?x?x4xf32> -> tensor<?x?x4xf32>
  %2 = seq.reshape %1 [-1, 2] : tensor<?x?x4xf32> -> tensor<?x?x2xf32>
  %3 = seq.flatten %2 : tensor<?x?x2xf32> -> tensor<?x?xf32>
  %4 = seq.repeat_vector %3 {n = 4 : i64} : tensor<?x?xf32> -> tensor<?x4x?xf32>
  %f = seq.gru %4, %gk, %gr activation(tanh, sigmoid) {return_sequences} : (tensor<?x4x?xf32>, tensor<16x6xf32>, tensor<2x6xf32>) -> tensor<?x?x2xf32>
  %b = seq.gru %4, %gk, %gr activation(tanh, sigmoid) {return_sequences, go_backwards} : (tensor<?x4x?xf32>, tensor<16x6xf32>, tensor<2x6xf32>) -> tensor<?x?x2xf32>
  %5 = seq.bidirectional concat %f, %b : (tensor<?x?x2xf32>, tensor<?x?x2xf32>) -> tensor<?x?x?xf32>
  %6 = seq.time_distributed %5 : tensor<?x?x?xf32> -> tensor<?x?x5xf32> {
  ^bb0(%s: tensor<?x?xf32>):
    %d = seq.dense %s, %dk activation(linear) : (tensor<?x?xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
    seq.yield %d : tensor<?x5xf32>
  }
  return %6 : tensor<?x?x5xf32>
}

// -----

// A static size the operands cannot tell (dynamic time here) is kept.
// CHECK-LABEL: func @keeps_known_sizes(%arg0: tensor<?x?x3xf32>) -> tensor<?x7x2xf32>
// CHECK: seq.simple_rnn {{.*}} -> tensor<?x7x2xf32>
func.func @keeps_known_sizes(%x: tensor<?x?x3xf32>) -> tensor<?x7x2xf32> {
  %k = arith.constant dense<1.0> : tensor<3x2xf32>
  %r = arith.constant dense<1.0> : tensor<2x2xf32>
  %0 = seq.simple_rnn %x, %k, %r activation(tanh) {return_sequences} : (tensor<?x?x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<?x7x2xf32>
  return %0 : tensor<?x7x2xf32>
}

// -----

// Image layers: every spatial size follows a static input.
// CHECK-LABEL: func @images(%arg0: tensor<2x3x8x8xf32>) -> tensor<2x3x2xf32>
// CHECK: seq.permute {{.*}} -> tensor<2x8x8x3xf32>
// CHECK: seq.conv2d {{.*}} -> tensor<2x4x4x6xf32>
// CHECK: seq.zero_padding {{.*}} -> tensor<2x6x5x6xf32>
// CHECK: seq.cropping {{.*}} -> tensor<2x5x5x6xf32>
// CHECK: seq.upsampling {{.*}} -> tensor<2x10x5x6xf32>
// CHECK: seq.max_pool2d {{.*}} -> tensor<2x5x2x6xf32>
// CHECK: seq.global_avg_pool2d {{.*}} -> tensor<2x1x1x6xf32>
// CHECK: seq.reshape {{.*}} -> tensor<2x3x2xf32>
func.func @images(%x: tensor<2x3x8x8xf32>) -> tensor<?x3x2xf32> {
  %k = arith.constant dense<1.0> : tensor<3x3x3x6xf32>
  %0 = seq.permute %x [2, 3, 1] : tensor<2x3x8x8xf32> -> tensor<?x?x?x3xf32>
  %1 = seq.conv2d %0, %k padding(same) activation(relu) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x?x?x3xf32>, tensor<3x3x3x6xf32>) -> tensor<?x?x?x6xf32>
  %2 = seq.zero_padding %1 low [1, 1, 0] high [1, 0, 0] : tensor<?x?x?x6xf32> -> tensor<?x?x?x6xf32>
  %3 = seq.cropping %2 low [1, 0, 0] high [0, 0, 0] : tensor<?x?x?x6xf32> -> tensor<?x?x?x6xf32>
  %4 = seq.upsampling nearest %3 [2, 1, 1] : tensor<?x?x?x6xf32> -> tensor<?x?x?x6xf32>
  %5 = seq.max_pool2d %4 padding(valid) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<?x?x?x6xf32> -> tensor<?x?x?x6xf32>
  %6 = seq.global_avg_pool2d %5 {keepdims} : tensor<?x?x?x6xf32> -> tensor<?x1x1x6xf32>
  %7 = seq.reshape %6 [3, 2] : tensor<?x1x1x6xf32> -> tensor<?x3x2xf32>
  return %7 : tensor<?x3x2xf32>
}

// -----

// Transposed convolutions: input size times stride plus the part that does
// not depend on it; the normalizations keep their input's shape.
// CHECK-LABEL: func @conv_transpose_norms(%arg0: tensor<2x4x5x3xf32>) -> tensor<2x9x11x2xf32>
// CHECK: seq.conv_transpose2d {{.*}} -> tensor<2x9x11x2xf32>
// CHECK: seq.group_norm {{.*}} -> tensor<2x9x11x2xf32>
// CHECK: seq.unit_norm {{.*}} : tensor<2x9x11x2xf32>
// CHECK: seq.rms_norm {{.*}} -> tensor<2x9x11x2xf32>
func.func @conv_transpose_norms(%x: tensor<2x4x5x3xf32>) -> tensor<?x?x?x2xf32> {
  %k = arith.constant dense<1.0> : tensor<3x3x2x3xf32>
  %g = arith.constant dense<1.0> : tensor<2xf32>
  %0 = seq.conv_transpose2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x4x5x3xf32>, tensor<3x3x2x3xf32>) -> tensor<?x?x?x2xf32>
  %1 = seq.group_norm %0, %g, %g {epsilon = 1.0e-3 : f32, groups = 1 : i64} : (tensor<?x?x?x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x?x?x2xf32>
  %2 = seq.unit_norm %1 : tensor<?x?x?x2xf32>
  %3 = seq.rms_norm %2, %g {epsilon = 1.0e-6 : f32} : (tensor<?x?x?x2xf32>, tensor<2xf32>) -> tensor<?x?x?x2xf32>
  return %3 : tensor<?x?x?x2xf32>
}

// -----

// A slice's axes after the batch axis are its window sizes, whatever the
// input's lengths.
// CHECK-LABEL: func @slice(%arg0: tensor<2x?x3xf32>) -> tensor<2x1x3xf32>
// CHECK: seq.slice {{.*}} -> tensor<2x1x3xf32>
func.func @slice(%x: tensor<2x?x3xf32>) -> tensor<?x?x3xf32> {
  %0 = seq.slice %x starts [-1, 0] sizes [1, 3] : tensor<2x?x3xf32> -> tensor<?x?x3xf32>
  return %0 : tensor<?x?x3xf32>
}

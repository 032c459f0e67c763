// Every seq op prints and parses back to itself (custom and generic form).
// RUN: seq-opt %s | seq-opt | FileCheck %s
// RUN: seq-opt %s -mlir-print-op-generic | seq-opt | FileCheck %s

// CHECK-LABEL: func @dense
func.func @dense(%x: tensor<?x12xf32>, %k: tensor<12x32xf32>, %b: tensor<32xf32>,
                 %s: tensor<?x10x12xf32>) -> (tensor<?x32xf32>, tensor<?x10x32xf32>, tensor<?x32xf32>) {
  // CHECK: seq.dense %{{.*}}, %{{.*}}, %{{.*}} activation(relu) : (tensor<?x12xf32>, tensor<12x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %0 = seq.dense %x, %k, %b activation(relu) : (tensor<?x12xf32>, tensor<12x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  // CHECK: seq.dense %{{.*}}, %{{.*}} activation(linear) : (tensor<?x10x12xf32>, tensor<12x32xf32>) -> tensor<?x10x32xf32>
  %1 = seq.dense %s, %k activation(linear) : (tensor<?x10x12xf32>, tensor<12x32xf32>) -> tensor<?x10x32xf32>
  // CHECK: seq.dense %{{.*}}, %{{.*}}, %{{.*}} activation(leaky_relu) {alpha = 3.000000e-01 : f32}
  %2 = seq.dense %x, %k, %b activation(leaky_relu) {alpha = 0.3 : f32} : (tensor<?x12xf32>, tensor<12x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  return %0, %1, %2 : tensor<?x32xf32>, tensor<?x10x32xf32>, tensor<?x32xf32>
}

// CHECK-LABEL: func @recurrent
func.func @recurrent(%x: tensor<?x?x12xf32>, %k4: tensor<12x256xf32>, %r4: tensor<64x256xf32>, %b4: tensor<256xf32>,
                     %k3: tensor<12x24xf32>, %r3: tensor<8x24xf32>, %b3: tensor<24xf32>, %b23: tensor<2x24xf32>,
                     %k1: tensor<12x5xf32>, %r1: tensor<5x5xf32>, %b1: tensor<5xf32>)
    -> (tensor<?x64xf32>, tensor<?x?x64xf32>, tensor<?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x5xf32>) {
  // CHECK: seq.lstm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} activation(tanh, sigmoid) : (tensor<?x?x12xf32>, tensor<12x256xf32>, tensor<64x256xf32>, tensor<256xf32>) -> tensor<?x64xf32>
  %0 = seq.lstm %x, %k4, %r4, %b4 activation(tanh, sigmoid) : (tensor<?x?x12xf32>, tensor<12x256xf32>, tensor<64x256xf32>, tensor<256xf32>) -> tensor<?x64xf32>
  // CHECK: seq.lstm %{{.*}}, %{{.*}}, %{{.*}} activation(relu, hard_sigmoid_keras2) {go_backwards, return_sequences}
  %1 = seq.lstm %x, %k4, %r4 activation(relu, hard_sigmoid_keras2) {go_backwards, return_sequences} : (tensor<?x?x12xf32>, tensor<12x256xf32>, tensor<64x256xf32>) -> tensor<?x?x64xf32>
  // CHECK: seq.gru %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} activation(tanh, sigmoid) : (tensor<?x?x12xf32>, tensor<12x24xf32>, tensor<8x24xf32>, tensor<24xf32>) -> tensor<?x8xf32>
  %2 = seq.gru %x, %k3, %r3, %b3 activation(tanh, sigmoid) : (tensor<?x?x12xf32>, tensor<12x24xf32>, tensor<8x24xf32>, tensor<24xf32>) -> tensor<?x8xf32>
  // CHECK: seq.gru %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} activation(tanh, hard_sigmoid_keras3) {reset_after, return_sequences} : (tensor<?x?x12xf32>, tensor<12x24xf32>, tensor<8x24xf32>, tensor<2x24xf32>) -> tensor<?x?x8xf32>
  %3 = seq.gru %x, %k3, %r3, %b23 activation(tanh, hard_sigmoid_keras3) {reset_after, return_sequences} : (tensor<?x?x12xf32>, tensor<12x24xf32>, tensor<8x24xf32>, tensor<2x24xf32>) -> tensor<?x?x8xf32>
  // CHECK: seq.simple_rnn %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} activation(tanh) {return_sequences} : (tensor<?x?x12xf32>, tensor<12x5xf32>, tensor<5x5xf32>, tensor<5xf32>) -> tensor<?x?x5xf32>
  %4 = seq.simple_rnn %x, %k1, %r1, %b1 activation(tanh) {return_sequences} : (tensor<?x?x12xf32>, tensor<12x5xf32>, tensor<5x5xf32>, tensor<5xf32>) -> tensor<?x?x5xf32>
  return %0, %1, %2, %3, %4 : tensor<?x64xf32>, tensor<?x?x64xf32>, tensor<?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x5xf32>
}

// CHECK-LABEL: func @bidirectional
func.func @bidirectional(%f: tensor<?x7x4xf32>, %b: tensor<?x7x4xf32>, %fl: tensor<?x4xf32>, %bl: tensor<?x4xf32>)
    -> (tensor<?x7x8xf32>, tensor<?x7x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  // CHECK: seq.bidirectional concat %{{.*}}, %{{.*}} : (tensor<?x7x4xf32>, tensor<?x7x4xf32>) -> tensor<?x7x8xf32>
  %0 = seq.bidirectional concat %f, %b : (tensor<?x7x4xf32>, tensor<?x7x4xf32>) -> tensor<?x7x8xf32>
  // CHECK: seq.bidirectional sum
  %1 = seq.bidirectional sum %f, %b : (tensor<?x7x4xf32>, tensor<?x7x4xf32>) -> tensor<?x7x4xf32>
  // CHECK: seq.bidirectional mul
  %2 = seq.bidirectional mul %fl, %bl : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: seq.bidirectional ave
  %3 = seq.bidirectional ave %fl, %bl : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0, %1, %2, %3 : tensor<?x7x8xf32>, tensor<?x7x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}

// CHECK-LABEL: func @time_distributed
func.func @time_distributed(%x: tensor<?x7x4xf32>, %k: tensor<4x3xf32>) -> tensor<?x7x3xf32> {
  // CHECK: seq.time_distributed %{{.*}} : tensor<?x7x4xf32> -> tensor<?x7x3xf32> {
  // CHECK-NEXT: ^bb0(%[[STEP:.*]]: tensor<?x4xf32>):
  // CHECK-NEXT: %[[Y:.*]] = seq.dense %[[STEP]], %{{.*}} activation(tanh)
  // CHECK-NEXT: seq.yield %[[Y]] : tensor<?x3xf32>
  %0 = seq.time_distributed %x : tensor<?x7x4xf32> -> tensor<?x7x3xf32> {
  ^bb0(%step: tensor<?x4xf32>):
    %y = seq.dense %step, %k activation(tanh) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    seq.yield %y : tensor<?x3xf32>
  }
  return %0 : tensor<?x7x3xf32>
}

// CHECK-LABEL: func @conv_pool
func.func @conv_pool(%x: tensor<?x9x4xf32>, %k: tensor<3x4x6xf32>, %b: tensor<6xf32>)
    -> (tensor<?x7x6xf32>, tensor<?x5x6xf32>, tensor<?x9x6xf32>, tensor<?x4x4xf32>, tensor<?x9x4xf32>, tensor<?x4xf32>, tensor<?x1x4xf32>) {
  // CHECK: seq.conv1d %{{.*}}, %{{.*}}, %{{.*}} padding(valid) activation(relu) {dilation_rate = 1 : i64, strides = 1 : i64} : (tensor<?x9x4xf32>, tensor<3x4x6xf32>, tensor<6xf32>) -> tensor<?x7x6xf32>
  %0 = seq.conv1d %x, %k, %b padding(valid) activation(relu) {dilation_rate = 1 : i64, strides = 1 : i64} : (tensor<?x9x4xf32>, tensor<3x4x6xf32>, tensor<6xf32>) -> tensor<?x7x6xf32>
  // CHECK: seq.conv1d %{{.*}}, %{{.*}} padding(same) activation(linear) {dilation_rate = 1 : i64, strides = 2 : i64}
  %1 = seq.conv1d %x, %k padding(same) activation(linear) {dilation_rate = 1 : i64, strides = 2 : i64} : (tensor<?x9x4xf32>, tensor<3x4x6xf32>) -> tensor<?x5x6xf32>
  // CHECK: seq.conv1d %{{.*}}, %{{.*}} padding(causal) activation(elu) {alpha = 1.000000e+00 : f32, dilation_rate = 2 : i64, strides = 1 : i64}
  %2 = seq.conv1d %x, %k padding(causal) activation(elu) {alpha = 1.0 : f32, dilation_rate = 2 : i64, strides = 1 : i64} : (tensor<?x9x4xf32>, tensor<3x4x6xf32>) -> tensor<?x9x6xf32>
  // CHECK: seq.max_pool1d %{{.*}} padding(valid) {pool_size = 2 : i64, strides = 2 : i64} : tensor<?x9x4xf32> -> tensor<?x4x4xf32>
  %3 = seq.max_pool1d %x padding(valid) {pool_size = 2 : i64, strides = 2 : i64} : tensor<?x9x4xf32> -> tensor<?x4x4xf32>
  // CHECK: seq.avg_pool1d %{{.*}} padding(same) {pool_size = 2 : i64, strides = 1 : i64} : tensor<?x9x4xf32> -> tensor<?x9x4xf32>
  %4 = seq.avg_pool1d %x padding(same) {pool_size = 2 : i64, strides = 1 : i64} : tensor<?x9x4xf32> -> tensor<?x9x4xf32>
  // CHECK: seq.global_max_pool1d %{{.*}} : tensor<?x9x4xf32> -> tensor<?x4xf32>
  %5 = seq.global_max_pool1d %x : tensor<?x9x4xf32> -> tensor<?x4xf32>
  // CHECK: seq.global_avg_pool1d %{{.*}} {keepdims} : tensor<?x9x4xf32> -> tensor<?x1x4xf32>
  %6 = seq.global_avg_pool1d %x {keepdims} : tensor<?x9x4xf32> -> tensor<?x1x4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<?x7x6xf32>, tensor<?x5x6xf32>, tensor<?x9x6xf32>, tensor<?x4x4xf32>, tensor<?x9x4xf32>, tensor<?x4xf32>, tensor<?x1x4xf32>
}

// CHECK-LABEL: func @conv_pool_nd
func.func @conv_pool_nd(%x: tensor<?x8x7x4xf32>, %k: tensor<3x2x4x6xf32>, %kg: tensor<3x3x2x6xf32>, %b: tensor<6xf32>,
                        %v: tensor<?x4x5x6x2xf32>, %k3: tensor<2x2x2x2x3xf32>)
    -> (tensor<?x6x6x6xf32>, tensor<?x4x7x6xf32>, tensor<?x4x3x4xf32>, tensor<?x8x7x4xf32>, tensor<?x3x4x5x3xf32>,
        tensor<?x2x2x3x2xf32>, tensor<?x4x5x6x2xf32>, tensor<?x4xf32>, tensor<?x1x1x4xf32>, tensor<?x2xf32>, tensor<?x1x1x1x2xf32>) {
  // CHECK: seq.conv2d %{{.*}}, %{{.*}}, %{{.*}} padding(valid) activation(relu) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x8x7x4xf32>, tensor<3x2x4x6xf32>, tensor<6xf32>) -> tensor<?x6x6x6xf32>
  %0 = seq.conv2d %x, %k, %b padding(valid) activation(relu) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x8x7x4xf32>, tensor<3x2x4x6xf32>, tensor<6xf32>) -> tensor<?x6x6x6xf32>
  // CHECK: seq.conv2d %{{.*}}, %{{.*}} padding(same) activation(linear) {dilation_rate = array<i64: 2, 1>, groups = 2 : i64, strides = array<i64: 2, 1>}
  %1 = seq.conv2d %x, %kg padding(same) activation(linear) {dilation_rate = array<i64: 2, 1>, groups = 2 : i64, strides = array<i64: 2, 1>} : (tensor<?x8x7x4xf32>, tensor<3x3x2x6xf32>) -> tensor<?x4x7x6xf32>
  // CHECK: seq.max_pool2d %{{.*}} padding(valid) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<?x8x7x4xf32> -> tensor<?x4x3x4xf32>
  %2 = seq.max_pool2d %x padding(valid) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<?x8x7x4xf32> -> tensor<?x4x3x4xf32>
  // CHECK: seq.avg_pool2d %{{.*}} padding(same) {pool_size = array<i64: 3, 2>, strides = array<i64: 1, 1>} : tensor<?x8x7x4xf32> -> tensor<?x8x7x4xf32>
  %3 = seq.avg_pool2d %x padding(same) {pool_size = array<i64: 3, 2>, strides = array<i64: 1, 1>} : tensor<?x8x7x4xf32> -> tensor<?x8x7x4xf32>
  // CHECK: seq.conv3d %{{.*}}, %{{.*}} padding(valid) activation(tanh) {dilation_rate = array<i64: 1, 1, 1>, strides = array<i64: 1, 1, 1>} : (tensor<?x4x5x6x2xf32>, tensor<2x2x2x2x3xf32>) -> tensor<?x3x4x5x3xf32>
  %4 = seq.conv3d %v, %k3 padding(valid) activation(tanh) {dilation_rate = array<i64: 1, 1, 1>, strides = array<i64: 1, 1, 1>} : (tensor<?x4x5x6x2xf32>, tensor<2x2x2x2x3xf32>) -> tensor<?x3x4x5x3xf32>
  // CHECK: seq.max_pool3d %{{.*}} padding(valid) {pool_size = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>} : tensor<?x4x5x6x2xf32> -> tensor<?x2x2x3x2xf32>
  %5 = seq.max_pool3d %v padding(valid) {pool_size = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>} : tensor<?x4x5x6x2xf32> -> tensor<?x2x2x3x2xf32>
  // CHECK: seq.avg_pool3d %{{.*}} padding(same) {pool_size = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>} : tensor<?x4x5x6x2xf32> -> tensor<?x4x5x6x2xf32>
  %6 = seq.avg_pool3d %v padding(same) {pool_size = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>} : tensor<?x4x5x6x2xf32> -> tensor<?x4x5x6x2xf32>
  // CHECK: seq.global_max_pool2d %{{.*}} : tensor<?x8x7x4xf32> -> tensor<?x4xf32>
  %7 = seq.global_max_pool2d %x : tensor<?x8x7x4xf32> -> tensor<?x4xf32>
  // CHECK: seq.global_avg_pool2d %{{.*}} {keepdims} : tensor<?x8x7x4xf32> -> tensor<?x1x1x4xf32>
  %8 = seq.global_avg_pool2d %x {keepdims} : tensor<?x8x7x4xf32> -> tensor<?x1x1x4xf32>
  // CHECK: seq.global_avg_pool3d %{{.*}} : tensor<?x4x5x6x2xf32> -> tensor<?x2xf32>
  %9 = seq.global_avg_pool3d %v : tensor<?x4x5x6x2xf32> -> tensor<?x2xf32>
  // CHECK: seq.global_max_pool3d %{{.*}} {keepdims} : tensor<?x4x5x6x2xf32> -> tensor<?x1x1x1x2xf32>
  %10 = seq.global_max_pool3d %v {keepdims} : tensor<?x4x5x6x2xf32> -> tensor<?x1x1x1x2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<?x6x6x6xf32>, tensor<?x4x7x6xf32>, tensor<?x4x3x4xf32>, tensor<?x8x7x4xf32>, tensor<?x3x4x5x3xf32>,
        tensor<?x2x2x3x2xf32>, tensor<?x4x5x6x2xf32>, tensor<?x4xf32>, tensor<?x1x1x4xf32>, tensor<?x2xf32>, tensor<?x1x1x1x2xf32>
}

// CHECK-LABEL: func @spatial_shapes
func.func @spatial_shapes(%x: tensor<?x4x5x3xf32>, %s: tensor<?x?x3xf32>)
    -> (tensor<?x6x5x3xf32>, tensor<?x?x3xf32>, tensor<?x3x3x3xf32>, tensor<?x8x5x3xf32>, tensor<?x8x10x3xf32>, tensor<?x5x4x3xf32>) {
  // CHECK: seq.zero_padding %{{.*}} low [1, 0, 0] high [1, 0, 0] : tensor<?x4x5x3xf32> -> tensor<?x6x5x3xf32>
  %0 = seq.zero_padding %x low [1, 0, 0] high [1, 0, 0] : tensor<?x4x5x3xf32> -> tensor<?x6x5x3xf32>
  // CHECK: seq.zero_padding %{{.*}} low [2, 0] high [0, 0] : tensor<?x?x3xf32> -> tensor<?x?x3xf32>
  %1 = seq.zero_padding %s low [2, 0] high [0, 0] : tensor<?x?x3xf32> -> tensor<?x?x3xf32>
  // CHECK: seq.cropping %{{.*}} low [1, 2, 0] high [0, 0, 0] : tensor<?x4x5x3xf32> -> tensor<?x3x3x3xf32>
  %2 = seq.cropping %x low [1, 2, 0] high [0, 0, 0] : tensor<?x4x5x3xf32> -> tensor<?x3x3x3xf32>
  // CHECK: seq.slice %{{.*}} starts [-1, 0] sizes [1, 3] : tensor<?x?x3xf32> -> tensor<?x1x3xf32>
  %s1 = seq.slice %s starts [-1, 0] sizes [1, 3] : tensor<?x?x3xf32> -> tensor<?x1x3xf32>
  // CHECK: seq.slice %{{.*}} starts [1, -3, 0] sizes [2, 2, 3] : tensor<?x4x5x3xf32> -> tensor<?x2x2x3xf32>
  %s2 = seq.slice %x starts [1, -3, 0] sizes [2, 2, 3] : tensor<?x4x5x3xf32> -> tensor<?x2x2x3xf32>
  // CHECK: seq.reverse %{{.*}} axis 1 : tensor<?x?x3xf32>
  %r1 = seq.reverse %s axis 1 : tensor<?x?x3xf32>
  // CHECK: seq.upsampling nearest %{{.*}} [2, 1, 1] : tensor<?x4x5x3xf32> -> tensor<?x8x5x3xf32>
  %3 = seq.upsampling nearest %x [2, 1, 1] : tensor<?x4x5x3xf32> -> tensor<?x8x5x3xf32>
  // CHECK: seq.upsampling bilinear %{{.*}} [2, 2, 1] : tensor<?x4x5x3xf32> -> tensor<?x8x10x3xf32>
  %4 = seq.upsampling bilinear %x [2, 2, 1] : tensor<?x4x5x3xf32> -> tensor<?x8x10x3xf32>
  // CHECK: seq.permute %{{.*}} [2, 1, 3] : tensor<?x4x5x3xf32> -> tensor<?x5x4x3xf32>
  %5 = seq.permute %x [2, 1, 3] : tensor<?x4x5x3xf32> -> tensor<?x5x4x3xf32>
  // CHECK: seq.discretize %{{.*}}, %{{.*}} : (tensor<?x4x5x3xf32>, tensor<3xf32>) -> tensor<?x4x5x3xf32>
  %b = arith.constant dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
  %d = seq.discretize %x, %b : (tensor<?x4x5x3xf32>, tensor<3xf32>) -> tensor<?x4x5x3xf32>
  // CHECK: seq.resize bilinear %{{.*}} [3, 7] : tensor<?x4x5x3xf32> -> tensor<?x3x7x3xf32>
  %6 = seq.resize bilinear %x [3, 7] : tensor<?x4x5x3xf32> -> tensor<?x3x7x3xf32>
  // CHECK: seq.resize nearest %{{.*}} [2, 5] : tensor<?x4x5x3xf32> -> tensor<?x2x5x3xf32>
  %7 = seq.resize nearest %x [2, 5] : tensor<?x4x5x3xf32> -> tensor<?x2x5x3xf32>
  // CHECK: seq.truncate %{{.*}} : tensor<?x4x5x3xf32>
  %t = seq.truncate %x : tensor<?x4x5x3xf32>
  // CHECK: seq.adaptive_avg_pool %{{.*}} [3, 7] : tensor<?x4x5x3xf32> -> tensor<?x3x7x3xf32>
  %8 = seq.adaptive_avg_pool %x [3, 7] : tensor<?x4x5x3xf32> -> tensor<?x3x7x3xf32>
  // CHECK: seq.adaptive_max_pool %{{.*}} [2, 5] : tensor<?x4x5x3xf32> -> tensor<?x2x5x3xf32>
  %9 = seq.adaptive_max_pool %x [2, 5] : tensor<?x4x5x3xf32> -> tensor<?x2x5x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x6x5x3xf32>, tensor<?x?x3xf32>, tensor<?x3x3x3xf32>, tensor<?x8x5x3xf32>, tensor<?x8x10x3xf32>, tensor<?x5x4x3xf32>
}

// CHECK-LABEL: func @normalization
func.func @normalization(%x: tensor<?x7x4xf32>, %p: tensor<4xf32>) -> (tensor<?x7x4xf32>, tensor<?x7x4xf32>, tensor<?x7x4xf32>) {
  // CHECK: seq.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : (tensor<?x7x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x7x4xf32>
  %0 = seq.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-3 : f32} : (tensor<?x7x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x7x4xf32>
  // CHECK: seq.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : (tensor<?x7x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x7x4xf32>
  %1 = seq.layer_norm %x, %p, %p {epsilon = 1.0e-3 : f32} : (tensor<?x7x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x7x4xf32>
  // CHECK: seq.dropout %{{.*}} {rate = 5.000000e-01 : f32} : tensor<?x7x4xf32>
  %2 = seq.dropout %x {rate = 0.5 : f32} : tensor<?x7x4xf32>
  return %0, %1, %2 : tensor<?x7x4xf32>, tensor<?x7x4xf32>, tensor<?x7x4xf32>
}

// CHECK-LABEL: func @shapes
func.func @shapes(%ids: tensor<?x6xi32>, %fids: tensor<?x?xf32>, %table: tensor<10x4xf32>, %x: tensor<?x6x4xf32>, %v: tensor<?x4xf32>)
    -> (tensor<?x6x4xf32>, tensor<?x?x4xf32>, tensor<?x24xf32>, tensor<?x12x2xf32>, tensor<?x3x8xf32>, tensor<?x5x4xf32>) {
  // CHECK: seq.embedding %{{.*}}, %{{.*}} : (tensor<?x6xi32>, tensor<10x4xf32>) -> tensor<?x6x4xf32>
  %0 = seq.embedding %ids, %table : (tensor<?x6xi32>, tensor<10x4xf32>) -> tensor<?x6x4xf32>
  // CHECK: seq.embedding %{{.*}}, %{{.*}} : (tensor<?x?xf32>, tensor<10x4xf32>) -> tensor<?x?x4xf32>
  %1 = seq.embedding %fids, %table : (tensor<?x?xf32>, tensor<10x4xf32>) -> tensor<?x?x4xf32>
  // CHECK: seq.flatten %{{.*}} : tensor<?x6x4xf32> -> tensor<?x24xf32>
  %2 = seq.flatten %x : tensor<?x6x4xf32> -> tensor<?x24xf32>
  // CHECK: seq.reshape %{{.*}} [-1, 2] : tensor<?x6x4xf32> -> tensor<?x12x2xf32>
  %3 = seq.reshape %x [-1, 2] : tensor<?x6x4xf32> -> tensor<?x12x2xf32>
  // CHECK: seq.reshape %{{.*}} [3, 8] : tensor<?x6x4xf32> -> tensor<?x3x8xf32>
  %4 = seq.reshape %x [3, 8] : tensor<?x6x4xf32> -> tensor<?x3x8xf32>
  // CHECK: seq.repeat_vector %{{.*}} {n = 5 : i64} : tensor<?x4xf32> -> tensor<?x5x4xf32>
  %5 = seq.repeat_vector %v {n = 5 : i64} : tensor<?x4xf32> -> tensor<?x5x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x6x4xf32>, tensor<?x?x4xf32>, tensor<?x24xf32>, tensor<?x12x2xf32>, tensor<?x3x8xf32>, tensor<?x5x4xf32>
}

// CHECK-LABEL: func @clip
func.func @clip(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: seq.clip %{{.*}} {max = 2.500000e-01 : f32, min = -5.000000e-01 : f32} : tensor<?x4xf32>
  %0 = seq.clip %x {max = 0.25 : f32, min = -0.5 : f32} : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// CHECK-LABEL: func @activations
func.func @activations(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: seq.activation linear
  %0 = seq.activation linear %x : tensor<?x4xf32>
  // CHECK: seq.activation relu
  %1 = seq.activation relu %0 : tensor<?x4xf32>
  // CHECK: seq.activation tanh
  %2 = seq.activation tanh %1 : tensor<?x4xf32>
  // CHECK: seq.activation sigmoid
  %3 = seq.activation sigmoid %2 : tensor<?x4xf32>
  // CHECK: seq.activation hard_sigmoid_keras2
  %4 = seq.activation hard_sigmoid_keras2 %3 : tensor<?x4xf32>
  // CHECK: seq.activation hard_sigmoid_keras3
  %5 = seq.activation hard_sigmoid_keras3 %4 : tensor<?x4xf32>
  // CHECK: seq.activation softmax
  %6 = seq.activation softmax %5 : tensor<?x4xf32>
  // CHECK: seq.activation elu %{{.*}} {alpha = 1.000000e+00 : f32}
  %7 = seq.activation elu %6 {alpha = 1.0 : f32} : tensor<?x4xf32>
  // CHECK: seq.activation selu
  %8 = seq.activation selu %7 : tensor<?x4xf32>
  // CHECK: seq.activation gelu
  %9 = seq.activation gelu %8 : tensor<?x4xf32>
  // CHECK: seq.activation gelu_tanh
  %10 = seq.activation gelu_tanh %9 : tensor<?x4xf32>
  // CHECK: seq.activation swish
  %11 = seq.activation swish %10 : tensor<?x4xf32>
  // CHECK: seq.activation softplus
  %12 = seq.activation softplus %11 : tensor<?x4xf32>
  // CHECK: seq.activation softsign
  %13 = seq.activation softsign %12 : tensor<?x4xf32>
  // CHECK: seq.activation leaky_relu %{{.*}} {alpha = 2.000000e-01 : f32}
  %14 = seq.activation leaky_relu %13 {alpha = 0.2 : f32} : tensor<?x4xf32>
  // CHECK: seq.activation exponential
  %15 = seq.activation exponential %14 : tensor<?x4xf32>
  return %15 : tensor<?x4xf32>
}

// CHECK-LABEL: func @kernels
func.func @kernels(%x: tensor<?x10x12xf32>, %w: tensor<12x256xf32>, %b: tensor<256xf32>, %p4: tensor<?x10x256xf32>, %r4: tensor<64x256xf32>,
                   %p3: tensor<?x10x24xf32>, %r3: tensor<8x24xf32>, %rb3: tensor<24xf32>, %p1: tensor<?x10x5xf32>, %r1: tensor<5x5xf32>)
    -> (tensor<?x10x256xf32>, tensor<?x64xf32>, tensor<?x10x8xf32>, tensor<?x8xf32>, tensor<?x5xf32>) {
  // CHECK: seq.linear %{{.*}}, %{{.*}}, %{{.*}} activation(linear) : (tensor<?x10x12xf32>, tensor<12x256xf32>, tensor<256xf32>) -> tensor<?x10x256xf32>
  %0 = seq.linear %x, %w, %b activation(linear) : (tensor<?x10x12xf32>, tensor<12x256xf32>, tensor<256xf32>) -> tensor<?x10x256xf32>
  // CHECK: seq.lstm_recurrence %{{.*}}, %{{.*}} activation(tanh, sigmoid) : (tensor<?x10x256xf32>, tensor<64x256xf32>) -> tensor<?x64xf32>
  %1 = seq.lstm_recurrence %p4, %r4 activation(tanh, sigmoid) : (tensor<?x10x256xf32>, tensor<64x256xf32>) -> tensor<?x64xf32>
  // CHECK: seq.gru_recurrence %{{.*}}, %{{.*}}, %{{.*}} activation(tanh, sigmoid) {reset_after, return_sequences} : (tensor<?x10x24xf32>, tensor<8x24xf32>, tensor<24xf32>) -> tensor<?x10x8xf32>
  %2 = seq.gru_recurrence %p3, %r3, %rb3 activation(tanh, sigmoid) {reset_after, return_sequences} : (tensor<?x10x24xf32>, tensor<8x24xf32>, tensor<24xf32>) -> tensor<?x10x8xf32>
  // CHECK: seq.gru_recurrence %{{.*}}, %{{.*}} activation(tanh, sigmoid) {go_backwards} : (tensor<?x10x24xf32>, tensor<8x24xf32>) -> tensor<?x8xf32>
  %3 = seq.gru_recurrence %p3, %r3 activation(tanh, sigmoid) {go_backwards} : (tensor<?x10x24xf32>, tensor<8x24xf32>) -> tensor<?x8xf32>
  // CHECK: seq.simple_rnn_recurrence %{{.*}}, %{{.*}} activation(relu) : (tensor<?x10x5xf32>, tensor<5x5xf32>) -> tensor<?x5xf32>
  %4 = seq.simple_rnn_recurrence %p1, %r1 activation(relu) : (tensor<?x10x5xf32>, tensor<5x5xf32>) -> tensor<?x5xf32>
  return %0, %1, %2, %3, %4 : tensor<?x10x256xf32>, tensor<?x64xf32>, tensor<?x10x8xf32>, tensor<?x8xf32>, tensor<?x5xf32>
}

// An axis of static size 1 broadcasts (operations on tensors: a (batch, 1,
// features) tensor over steps of any length).
// CHECK-LABEL: func @merge_broadcast
func.func @merge_broadcast(%a: tensor<?x?x3xf32>, %b: tensor<?x1x3xf32>, %c: tensor<?x?x1xf32>) -> tensor<?x?x3xf32> {
  // CHECK: seq.merge divide %{{.*}}, %{{.*}} : tensor<?x?x3xf32>, tensor<?x1x3xf32> -> tensor<?x?x3xf32>
  %0 = seq.merge divide %a, %b : tensor<?x?x3xf32>, tensor<?x1x3xf32> -> tensor<?x?x3xf32>
  // CHECK: seq.merge multiply %{{.*}}, %{{.*}} : tensor<?x1x3xf32>, tensor<?x?x1xf32> -> tensor<?x?x3xf32>
  %1 = seq.merge multiply %b, %c : tensor<?x1x3xf32>, tensor<?x?x1xf32> -> tensor<?x?x3xf32>
  %2 = seq.merge add %0, %1 : tensor<?x?x3xf32>, tensor<?x?x3xf32> -> tensor<?x?x3xf32>
  return %2 : tensor<?x?x3xf32>
}

// CHECK-LABEL: func @merges
func.func @merges(%a: tensor<?x5x3xf32>, %b: tensor<?x5x3xf32>, %c: tensor<?x5x2xf32>) -> (tensor<?x5x3xf32>, tensor<?x5x8xf32>) {
  // CHECK: seq.merge average %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x5x3xf32>, tensor<?x5x3xf32>, tensor<?x5x3xf32> -> tensor<?x5x3xf32>
  %0 = seq.merge average %a, %b, %a : tensor<?x5x3xf32>, tensor<?x5x3xf32>, tensor<?x5x3xf32> -> tensor<?x5x3xf32>
  // CHECK: seq.concatenate %{{.*}}, %{{.*}}, %{{.*}} {axis = 2 : i64} : tensor<?x5x3xf32>, tensor<?x5x3xf32>, tensor<?x5x2xf32> -> tensor<?x5x8xf32>
  %1 = seq.concatenate %0, %b, %c {axis = 2 : i64} : tensor<?x5x3xf32>, tensor<?x5x3xf32>, tensor<?x5x2xf32> -> tensor<?x5x8xf32>
  // CHECK: seq.stack %{{.*}}, %{{.*}} : tensor<?x5x3xf32>, tensor<?x5x3xf32> -> tensor<2x?x5x3xf32>
  %2 = seq.stack %a, %b : tensor<?x5x3xf32>, tensor<?x5x3xf32> -> tensor<2x?x5x3xf32>
  // CHECK: seq.unstack %{{.*}}[1] : tensor<2x?x5x3xf32> -> tensor<?x5x3xf32>
  %3 = seq.unstack %2[1] : tensor<2x?x5x3xf32> -> tensor<?x5x3xf32>
  return %0, %1 : tensor<?x5x3xf32>, tensor<?x5x8xf32>
}

// CHECK-LABEL: func @attention
func.func @attention(%a: tensor<?x5x3xf32>, %b: tensor<?x4x3xf32>, %q: tensor<?x5x4x2xf32>,
                     %k: tensor<?x7x2x2xf32>, %v: tensor<?x7x2x6xf32>, %w: tensor<2xf32>,
                     %qm: tensor<?x5xf32>, %km: tensor<?x7xf32>, %am: tensor<?x5x7xf32>)
    -> (tensor<?x5x4xf32>, tensor<?x5x4x6xf32>, tensor<?x5x4x6xf32>) {
  // CHECK: seq.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<?x5x3xf32>, tensor<?x4x3xf32>) -> tensor<?x5x4xf32>
  %0 = seq.matmul %a, %b {transpose_b} : (tensor<?x5x3xf32>, tensor<?x4x3xf32>) -> tensor<?x5x4xf32>
  // CHECK: seq.attention dot %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 5.000000e-01 : f32, window = 3 : i64} : tensor<?x5x4x2xf32>, tensor<?x7x2x2xf32>, tensor<?x7x2x6xf32> -> tensor<?x5x4x6xf32>
  %1 = seq.attention dot %q, %k, %v {scale = 0.5 : f32, causal, window = 3} : tensor<?x5x4x2xf32>, tensor<?x7x2x2xf32>, tensor<?x7x2x6xf32> -> tensor<?x5x4x6xf32>
  // CHECK: seq.attention additive %{{.*}}, %{{.*}}, %{{.*}} feature_scale(%{{.*}} : tensor<2xf32>) {score_weight = 2.000000e+00 : f32} : tensor<?x5x4x2xf32>, tensor<?x7x2x2xf32>, tensor<?x7x2x6xf32> -> tensor<?x5x4x6xf32>
  %2 = seq.attention additive %q, %k, %v feature_scale(%w : tensor<2xf32>) {score_weight = 2.0 : f32} : tensor<?x5x4x2xf32>, tensor<?x7x2x2xf32>, tensor<?x7x2x6xf32> -> tensor<?x5x4x6xf32>
  // CHECK: seq.attention dot %{{.*}}, %{{.*}}, %{{.*}} query_mask(%{{.*}} : tensor<?x5xf32>) key_mask(%{{.*}} : tensor<?x7xf32>) : tensor<?x5x4x2xf32>, tensor<?x7x2x2xf32>, tensor<?x7x2x6xf32> -> tensor<?x5x4x6xf32>
  %3 = seq.attention dot %q, %k, %v query_mask(%qm : tensor<?x5xf32>) key_mask(%km : tensor<?x7xf32>) : tensor<?x5x4x2xf32>, tensor<?x7x2x2xf32>, tensor<?x7x2x6xf32> -> tensor<?x5x4x6xf32>
  // CHECK: seq.attention dot %{{.*}}, %{{.*}}, %{{.*}} attention_mask(%{{.*}} : tensor<?x5x7xf32>) : tensor<?x5x4x2xf32>, tensor<?x7x2x2xf32>, tensor<?x7x2x6xf32> -> tensor<?x5x4x6xf32>
  %4 = seq.attention dot %q, %k, %v attention_mask(%am : tensor<?x5x7xf32>) : tensor<?x5x4x2xf32>, tensor<?x7x2x2xf32>, tensor<?x7x2x6xf32> -> tensor<?x5x4x6xf32>
  return %0, %1, %3 : tensor<?x5x4xf32>, tensor<?x5x4x6xf32>, tensor<?x5x4x6xf32>
}

// CHECK-LABEL: func @stateful
func.func @stateful(%x: tensor<2x10x12xf32>, %k: tensor<12x16xf32>, %r: tensor<4x16xf32>,
                    %s: tensor<2x2x4xf32> {seq.state = "lstm"}) -> (tensor<2x4xf32>, tensor<2x2x4xf32>) {
  // CHECK: seq.lstm %{{.*}}, %{{.*}}, %{{.*}} initial_state(%{{.*}}) activation(tanh, sigmoid) : (tensor<2x10x12xf32>, tensor<12x16xf32>, tensor<4x16xf32>, tensor<2x2x4xf32>) -> (tensor<2x4xf32>, tensor<2x2x4xf32>)
  %y, %final = seq.lstm %x, %k, %r initial_state(%s) activation(tanh, sigmoid) : (tensor<2x10x12xf32>, tensor<12x16xf32>, tensor<4x16xf32>, tensor<2x2x4xf32>) -> (tensor<2x4xf32>, tensor<2x2x4xf32>)
  return %y, %final : tensor<2x4xf32>, tensor<2x2x4xf32>
}

// CHECK-LABEL: func @masking
func.func @masking(%x: tensor<?x10x12xf32>, %ids: tensor<?x10xf32>, %k: tensor<12x16xf32>, %r: tensor<4x16xf32>, %b: tensor<16xf32>,
                   %k3: tensor<12x12xf32>, %r3: tensor<4x12xf32>, %b3: tensor<2x12xf32>, %p: tensor<?x10x12xf32>, %rb: tensor<12xf32>)
    -> (tensor<?x10x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x12xf32>) {
  // CHECK: seq.sequence_mask %{{.*}} {mask_value = -1.000000e+00 : f32} : tensor<?x10x12xf32> -> tensor<?x10xf32>
  %m = seq.sequence_mask %x {mask_value = -1.0 : f32} : tensor<?x10x12xf32> -> tensor<?x10xf32>
  // CHECK: seq.sequence_mask %{{.*}} {mask_value = 0.000000e+00 : f32} : tensor<?x10xf32> -> tensor<?x10xf32>
  %mi = seq.sequence_mask %ids {mask_value = 0.0 : f32} : tensor<?x10xf32> -> tensor<?x10xf32>
  // CHECK: seq.apply_mask %{{.*}}, %{{.*}} : tensor<?x10x12xf32>, tensor<?x10xf32>
  %y = seq.apply_mask %x, %m : tensor<?x10x12xf32>, tensor<?x10xf32>
  // CHECK: seq.lstm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}}) activation(tanh, sigmoid) {return_sequences, zero_output_for_mask}
  %0 = seq.lstm %y, %k, %r, %b mask(%m) activation(tanh, sigmoid) {return_sequences, zero_output_for_mask} : (tensor<?x10x12xf32>, tensor<12x16xf32>, tensor<4x16xf32>, tensor<16xf32>, tensor<?x10xf32>) -> tensor<?x10x4xf32>
  // CHECK: seq.gru %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}}) activation(tanh, sigmoid) {reset_after}
  %1 = seq.gru %y, %k3, %r3, %b3 mask(%mi) activation(tanh, sigmoid) {reset_after} : (tensor<?x10x12xf32>, tensor<12x12xf32>, tensor<4x12xf32>, tensor<2x12xf32>, tensor<?x10xf32>) -> tensor<?x4xf32>
  // CHECK: seq.gru_recurrence %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}}) activation(tanh, sigmoid) {go_backwards, reset_after}
  %2 = seq.gru_recurrence %p, %r3, %rb mask(%m) activation(tanh, sigmoid) {go_backwards, reset_after} : (tensor<?x10x12xf32>, tensor<4x12xf32>, tensor<12xf32>, tensor<?x10xf32>) -> tensor<?x4xf32>
  // CHECK: seq.global_avg_pool1d %{{.*}} mask(%{{.*}} : tensor<?x10xf32>) : tensor<?x10x12xf32> -> tensor<?x12xf32>
  %3 = seq.global_avg_pool1d %y mask(%m : tensor<?x10xf32>) : tensor<?x10x12xf32> -> tensor<?x12xf32>
  return %0, %1, %2, %3 : tensor<?x10x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x12xf32>
}

// Transposed convolutions: the kernel is (k..., filters, channels); the output
// size follows padding and output_padding.
// CHECK-LABEL: func.func @conv_transpose
func.func @conv_transpose(%x1: tensor<?x5x3xf32>, %k1: tensor<3x4x3xf32>, %b1: tensor<4xf32>,
                          %x2: tensor<?x4x5x2xf32>, %k2: tensor<3x2x2x2xf32>,
                          %x3: tensor<?x3x2x3x2xf32>, %k3: tensor<3x3x3x3x2xf32>)
    -> (tensor<?x16x4xf32>, tensor<?x8x10x2xf32>, tensor<?x3x4x5x3xf32>) {
  // CHECK: seq.conv_transpose1d %{{.*}}, %{{.*}}, %{{.*}} padding(valid) activation(relu) {dilation_rate = array<i64: 1>, output_padding = array<i64: 1>, strides = array<i64: 3>} : (tensor<?x5x3xf32>, tensor<3x4x3xf32>, tensor<4xf32>) -> tensor<?x16x4xf32>
  %0 = seq.conv_transpose1d %x1, %k1, %b1 padding(valid) activation(relu) {dilation_rate = array<i64: 1>, output_padding = array<i64: 1>, strides = array<i64: 3>} : (tensor<?x5x3xf32>, tensor<3x4x3xf32>, tensor<4xf32>) -> tensor<?x16x4xf32>
  // CHECK: seq.conv_transpose2d %{{.*}}, %{{.*}} padding(same) activation(linear) {dilation_rate = array<i64: 2, 1>, strides = array<i64: 2, 2>}
  %1 = seq.conv_transpose2d %x2, %k2 padding(same) activation(linear) {dilation_rate = array<i64: 2, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x5x2xf32>, tensor<3x2x2x2xf32>) -> tensor<?x8x10x2xf32>
  // CHECK: seq.conv_transpose3d %{{.*}}, %{{.*}} padding(same) activation(linear) {dilation_rate = array<i64: 1, 1, 1>, output_padding = array<i64: 0, 1, 0>, strides = array<i64: 1, 2, 2>}
  %2 = seq.conv_transpose3d %x3, %k3 padding(same) activation(linear) {dilation_rate = array<i64: 1, 1, 1>, output_padding = array<i64: 0, 1, 0>, strides = array<i64: 1, 2, 2>} : (tensor<?x3x2x3x2xf32>, tensor<3x3x3x3x2xf32>) -> tensor<?x3x4x5x3xf32>
  return %0, %1, %2 : tensor<?x16x4xf32>, tensor<?x8x10x2xf32>, tensor<?x3x4x5x3xf32>
}

// CHECK-LABEL: func.func @group_norm
func.func @group_norm(%x: tensor<?x5x5x6xf32>, %g: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<?x5x5x6xf32> {
  // CHECK: seq.group_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32, groups = 3 : i64} : (tensor<?x5x5x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x5x5x6xf32>
  %0 = seq.group_norm %x, %g, %b {epsilon = 1.0e-3 : f32, groups = 3 : i64} : (tensor<?x5x5x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x5x5x6xf32>
  return %0 : tensor<?x5x5x6xf32>
}

// CHECK-LABEL: func.func @unit_rms_norm
func.func @unit_rms_norm(%x: tensor<?x4x6xf32>, %s: tensor<6xf32>) -> (tensor<?x4x6xf32>, tensor<?x4x6xf32>) {
  // CHECK: seq.unit_norm %{{.*}} : tensor<?x4x6xf32>
  %0 = seq.unit_norm %x : tensor<?x4x6xf32>
  // CHECK: seq.unit_norm %{{.*}} {epsilon = 9.99999982E-15 : f32} : tensor<?x4x6xf32>
  %2 = seq.unit_norm %x {epsilon = 1.0e-14 : f32} : tensor<?x4x6xf32>
  // CHECK: seq.rms_norm %{{.*}}, %{{.*}} {epsilon = 9.99999997E-7 : f32} : (tensor<?x4x6xf32>, tensor<6xf32>) -> tensor<?x4x6xf32>
  %1 = seq.rms_norm %x, %s {epsilon = 1.0e-6 : f32} : (tensor<?x4x6xf32>, tensor<6xf32>) -> tensor<?x4x6xf32>
  return %0, %1 : tensor<?x4x6xf32>, tensor<?x4x6xf32>
}

// CHECK-LABEL: func.func @category_encoding
func.func @category_encoding(%x: tensor<?x3xf32>, %y: tensor<?x1xf32>) -> (tensor<?x5xf32>, tensor<?x5xf32>, tensor<?x3x5xf32>, tensor<?x5xf32>) {
  // CHECK: seq.category_encoding count %{{.*}} {num_tokens = 5 : i64} : tensor<?x3xf32> -> tensor<?x5xf32>
  %0 = seq.category_encoding count %x {num_tokens = 5 : i64} : tensor<?x3xf32> -> tensor<?x5xf32>
  // CHECK: seq.category_encoding multi_hot %{{.*}} {num_tokens = 5 : i64} : tensor<?x3xf32> -> tensor<?x5xf32>
  %1 = seq.category_encoding multi_hot %x {num_tokens = 5 : i64} : tensor<?x3xf32> -> tensor<?x5xf32>
  // CHECK: seq.category_encoding one_hot %{{.*}} {num_tokens = 5 : i64} : tensor<?x3xf32> -> tensor<?x3x5xf32>
  %2 = seq.category_encoding one_hot %x {num_tokens = 5 : i64} : tensor<?x3xf32> -> tensor<?x3x5xf32>
  // CHECK: seq.category_encoding one_hot %{{.*}} {num_tokens = 5 : i64} : tensor<?x1xf32> -> tensor<?x5xf32>
  %3 = seq.category_encoding one_hot %y {num_tokens = 5 : i64} : tensor<?x1xf32> -> tensor<?x5xf32>
  return %0, %1, %2, %3 : tensor<?x5xf32>, tensor<?x5xf32>, tensor<?x3x5xf32>, tensor<?x5xf32>
}

// ConvLSTM2D, same padding, every step returned.
func.func @conv_lstm(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x3x2x8xf32>, %b: tensor<8xf32>) -> tensor<?x4x8x8x2xf32> {
  // CHECK: seq.conv_lstm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} padding(same) activation(tanh, sigmoid) {dilation_rate = array<i64: 1, 1>, go_backwards, return_sequences, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x8xf32>, tensor<8xf32>) -> tensor<?x4x8x8x2xf32>
  %0 = seq.conv_lstm %x, %k, %r, %b padding(same) activation(tanh, sigmoid) {dilation_rate = array<i64: 1, 1>, go_backwards, return_sequences, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x8xf32>, tensor<8xf32>) -> tensor<?x4x8x8x2xf32>
  return %0 : tensor<?x4x8x8x2xf32>
}

// RUN: seq-opt %s --seq-fuse-activation --split-input-file -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func @dense_relu
// CHECK: %[[Y:.*]] = seq.dense %arg0, %{{.*}}, %{{.*}} activation(relu) {{.*}} loc(fused["dense", "act"])
// CHECK-NOT: seq.activation
// CHECK: return %[[Y]]
func.func @dense_relu(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<1.0> : tensor<2x2xf32>
  %b = arith.constant dense<0.5> : tensor<2xf32>
  %0 = seq.dense %x, %k, %b activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32> loc("dense")
  %1 = seq.activation relu %0 : tensor<?x2xf32> loc("act")
  return %1 : tensor<?x2xf32>
}

// -----

// alpha travels with the activation; conv1d keeps its attributes.
// CHECK-LABEL: func @conv_leaky_relu
// CHECK: seq.conv1d %arg0, %{{.*}} padding(same) activation(leaky_relu) {alpha = 2.000000e-01 : f32, dilation_rate = 1 : i64, strides = 2 : i64}
// CHECK-NOT: seq.activation
func.func @conv_leaky_relu(%x: tensor<?x4x2xf32>) -> tensor<?x2x3xf32> {
  %c = arith.constant dense<1.0> : tensor<3x2x3xf32>
  %0 = seq.conv1d %x, %c padding(same) activation(linear) {dilation_rate = 1 : i64, strides = 2 : i64} : (tensor<?x4x2xf32>, tensor<3x2x3xf32>) -> tensor<?x2x3xf32>
  %1 = seq.activation leaky_relu %0 {alpha = 0.2 : f32} : tensor<?x2x3xf32>
  return %1 : tensor<?x2x3xf32>
}

// -----

// Softmax (over the last axis, the GEMM's output columns) is an epilogue too.
// CHECK-LABEL: func @linear_softmax
// CHECK: seq.linear %arg0, %{{.*}} activation(softmax)
// CHECK-NOT: seq.activation
func.func @linear_softmax(%x: tensor<?x3x2xf32>) -> tensor<?x3x4xf32> {
  %k = arith.constant dense<1.0> : tensor<2x4xf32>
  %0 = seq.linear %x, %k activation(linear) : (tensor<?x3x2xf32>, tensor<2x4xf32>) -> tensor<?x3x4xf32>
  %1 = seq.activation softmax %0 : tensor<?x3x4xf32>
  return %1 : tensor<?x3x4xf32>
}

// -----

// Not fused: the producer already has an activation.
// CHECK-LABEL: func @producer_has_activation
// CHECK: %[[D:.*]] = seq.dense %arg0, %{{.*}} activation(relu)
// CHECK: %[[A:.*]] = seq.activation tanh %[[D]]
// CHECK: return %[[A]]
func.func @producer_has_activation(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<1.0> : tensor<2x2xf32>
  %0 = seq.dense %x, %k activation(relu) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %1 = seq.activation tanh %0 : tensor<?x2xf32>
  return %1 : tensor<?x2xf32>
}

// -----

// Not fused: the producer's result is also used without the activation.
// CHECK-LABEL: func @producer_has_other_users
// CHECK: %[[D:.*]] = seq.dense %arg0, %{{.*}} activation(linear)
// CHECK: %[[A:.*]] = seq.activation sigmoid %[[D]]
// CHECK: return %[[D]], %[[A]]
func.func @producer_has_other_users(%x: tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %k = arith.constant dense<1.0> : tensor<2x2xf32>
  %0 = seq.dense %x, %k activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %1 = seq.activation sigmoid %0 : tensor<?x2xf32>
  return %0, %1 : tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// Not fused: the producer has no epilogue (an LSTM), or there is none.
// CHECK-LABEL: func @no_affine_producer
// CHECK: %[[L:.*]] = seq.lstm
// CHECK: seq.activation relu %[[L]]
// CHECK: seq.activation elu %arg1
func.func @no_affine_producer(%x: tensor<?x3x2xf32>, %y: tensor<?x2xf32>) -> (tensor<?x1xf32>, tensor<?x2xf32>) {
  %k = arith.constant dense<1.0> : tensor<2x4xf32>
  %r = arith.constant dense<1.0> : tensor<1x4xf32>
  %0 = seq.lstm %x, %k, %r activation(tanh, sigmoid) : (tensor<?x3x2xf32>, tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<?x1xf32>
  %1 = seq.activation relu %0 : tensor<?x1xf32>
  %2 = seq.activation elu %y {alpha = 1.0 : f32} : tensor<?x2xf32>
  return %1, %2 : tensor<?x1xf32>, tensor<?x2xf32>
}

// -----

// A conv2d/conv3d takes the activation as its epilogue, keeping its attributes.
// CHECK-LABEL: func @conv2d_relu
// CHECK: seq.conv2d %arg0, %{{.*}} padding(valid) activation(relu) {dilation_rate = array<i64: 1, 1>, groups = 2 : i64, strides = array<i64: 1, 1>}
// CHECK-NOT: seq.activation
func.func @conv2d_relu(%x: tensor<?x3x3x2xf32>) -> tensor<?x2x2x2xf32> {
  %k = arith.constant dense<1.0> : tensor<2x2x1x2xf32>
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, groups = 2 : i64, strides = array<i64: 1, 1>} : (tensor<?x3x3x2xf32>, tensor<2x2x1x2xf32>) -> tensor<?x2x2x2xf32>
  %1 = seq.activation relu %0 : tensor<?x2x2x2xf32>
  return %1 : tensor<?x2x2x2xf32>
}

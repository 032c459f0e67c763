// RUN: seq-opt %s --seq-lower-dense -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func @dense
// CHECK-NOT: seq.dense
// CHECK: %[[A:.*]] = seq.linear %arg0, %{{.*}}, %{{.*}} activation(leaky_relu) {alpha = 3.000000e-01 : f32} : (tensor<?x3x2xf32>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32> loc("dense")
// CHECK: %[[B:.*]] = seq.linear %[[A]], %{{.*}} activation(linear) : (tensor<?x3x4xf32>, tensor<4x1xf32>) -> tensor<?x3x1xf32> loc("dense_1")
// CHECK: seq.time_distributed %[[B]]
// CHECK: seq.linear %{{.*}} activation(tanh) {{.*}} loc("inner")
// CHECK-NOT: seq.dense
func.func @dense(%x: tensor<?x3x2xf32>) -> tensor<?x3x2xf32> {
  %k = arith.constant dense<1.0> : tensor<2x4xf32>
  %b = arith.constant dense<0.5> : tensor<4xf32>
  %k1 = arith.constant dense<1.0> : tensor<4x1xf32>
  %k2 = arith.constant dense<1.0> : tensor<1x2xf32>
  %0 = seq.dense %x, %k, %b activation(leaky_relu) {alpha = 0.3 : f32} : (tensor<?x3x2xf32>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32> loc("dense")
  %1 = seq.dense %0, %k1 activation(linear) : (tensor<?x3x4xf32>, tensor<4x1xf32>) -> tensor<?x3x1xf32> loc("dense_1")
  %2 = seq.time_distributed %1 : tensor<?x3x1xf32> -> tensor<?x3x2xf32> {
  ^bb0(%s: tensor<?x1xf32>):
    %d = seq.dense %s, %k2 activation(tanh) : (tensor<?x1xf32>, tensor<1x2xf32>) -> tensor<?x2xf32> loc("inner")
    seq.yield %d : tensor<?x2xf32>
  }
  return %2 : tensor<?x3x2xf32>
}

// Ops other than dense are untouched.
// CHECK-LABEL: func @others
// CHECK: seq.conv1d
// CHECK: seq.activation relu
func.func @others(%x: tensor<?x4x2xf32>) -> tensor<?x4x2xf32> {
  %c = arith.constant dense<1.0> : tensor<1x2x2xf32>
  %0 = seq.conv1d %x, %c padding(valid) activation(linear) {dilation_rate = 1 : i64, strides = 1 : i64} : (tensor<?x4x2xf32>, tensor<1x2x2xf32>) -> tensor<?x4x2xf32>
  %1 = seq.activation relu %0 : tensor<?x4x2xf32>
  return %1 : tensor<?x4x2xf32>
}

// RUN: seq-opt %s --seq-fold-batchnorm --split-input-file | FileCheck %s

// The batch norm: var + eps = [4, 0.25], so scale = gamma / [2, 0.5] = [2, 1]
// and shift = beta - mean * scale = [-1.5, -1].
// Folded into the producer: kernel columns scaled to [[2, 2], [6, 4]], bias
// [1, -1] * scale + shift = [0.5, -2].
// CHECK-LABEL: func @into_dense
// CHECK-NOT: seq.batch_norm
// CHECK-DAG: %[[K:.*]] = arith.constant dense_resource<dense_bn.kernel> : tensor<2x2xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<dense_bn.bias> : tensor<2xf32>
// CHECK: %[[Y:.*]] = seq.dense %arg0, %[[K]], %[[B]] activation(linear)
// CHECK-NOT: seq.batch_norm
// CHECK: return %[[Y]]
func.func @into_dense(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %gamma = arith.constant dense<[4.0, 0.5]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[3.75, 0.0]> : tensor<2xf32>
  %0 = seq.dense %x, %k, %b activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32> loc("dense")
  %1 = seq.batch_norm %0, %gamma, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2xf32> loc("bn")
  return %1 : tensor<?x2xf32>
}
// CHECK: dense_bn.kernel: "0x0400000000000040000000400000C04000008040"
// CHECK: dense_bn.bias: "0x040000000000003F000000C0"

// -----

// A conv1d without bias gets one (the shift); the kernel's last axis
// (filters) is scaled. Strides, dilation and padding stay.
// scale = [2, 1], shift = [-1.5, -1]; kernel (2, 1, 2) = [[[1, 2]], [[3, 4]]].
// CHECK-LABEL: func @into_conv1d_without_bias
// CHECK-DAG: %[[K:.*]] = arith.constant dense_resource<conv_bn.kernel> : tensor<2x1x2xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<conv_bn.bias> : tensor<2xf32>
// CHECK: seq.conv1d %arg0, %[[K]], %[[B]] padding(causal) activation(linear) {dilation_rate = 2 : i64, strides = 1 : i64}
// CHECK-NOT: seq.batch_norm
func.func @into_conv1d_without_bias(%x: tensor<?x6x1xf32>) -> tensor<?x6x2xf32> {
  %k = arith.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xf32>
  %gamma = arith.constant dense<[4.0, 0.5]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[3.75, 0.0]> : tensor<2xf32>
  %0 = seq.conv1d %x, %k padding(causal) activation(linear) {dilation_rate = 2 : i64, strides = 1 : i64} : (tensor<?x6x1xf32>, tensor<2x1x2xf32>) -> tensor<?x6x2xf32> loc("conv")
  %1 = seq.batch_norm %0, %gamma, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<?x6x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x6x2xf32> loc("bn")
  return %1 : tensor<?x6x2xf32>
}
// CHECK: conv_bn.kernel: "0x0400000000000040000000400000C04000008040"
// CHECK: conv_bn.bias: "0x040000000000C0BF000080BF"

// -----

// A transposed convolution's filters are its kernel's second to last axis:
// kernel (1, 2 filters, 2 channels) = [[[1, 2], [3, 4]]] scaled per filter
// by [2, 1] is [[[2, 4], [3, 4]]].
// CHECK-LABEL: func @into_conv_transpose1d
// CHECK-DAG: %[[K:.*]] = arith.constant dense_resource<deconv_bn.kernel> : tensor<1x2x2xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<deconv_bn.bias> : tensor<2xf32>
// CHECK: seq.conv_transpose1d %arg0, %[[K]], %[[B]] padding(valid) activation(linear) {dilation_rate = array<i64: 1>, strides = array<i64: 1>}
// CHECK-NOT: seq.batch_norm
func.func @into_conv_transpose1d(%x: tensor<?x3x2xf32>) -> tensor<?x3x2xf32> {
  %k = arith.constant dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>
  %gamma = arith.constant dense<[4.0, 0.5]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[3.75, 0.0]> : tensor<2xf32>
  %0 = seq.conv_transpose1d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1>, strides = array<i64: 1>} : (tensor<?x3x2xf32>, tensor<1x2x2xf32>) -> tensor<?x3x2xf32> loc("deconv")
  %1 = seq.batch_norm %0, %gamma, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<?x3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x3x2xf32> loc("bn")
  return %1 : tensor<?x3x2xf32>
}
// CHECK: deconv_bn.kernel: "0x0400000000000040000080400000404000008040"
// CHECK: deconv_bn.bias: "0x040000000000C0BF000080BF"

// -----

// Also into seq.linear (kernel level).
// CHECK-LABEL: func @into_linear
// CHECK: seq.linear %arg0, %{{.*}}, %{{.*}} activation(linear)
// CHECK-NOT: seq.batch_norm
func.func @into_linear(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %one = arith.constant dense<1.0> : tensor<2xf32>
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %0 = seq.linear %x, %k activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %1 = seq.batch_norm %0, %one, %zero, %zero, %one {epsilon = 1.0e-3 : f32} : (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %1 : tensor<?x2xf32>
}

// -----

// Not folded: the producer has a non-linear activation (relu then scaling
// is not a scaled relu for negative scales), and nothing affine follows.
// CHECK-LABEL: func @after_relu
// CHECK: %[[D:.*]] = seq.dense %arg0, %{{.*}}, %{{.*}} activation(relu)
// CHECK: %[[N:.*]] = seq.batch_norm %[[D]]
// CHECK: return %[[N]]
func.func @after_relu(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %one = arith.constant dense<1.0> : tensor<2xf32>
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %0 = seq.dense %x, %k, %b activation(relu) : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %1 = seq.batch_norm %0, %one, %zero, %zero, %one {epsilon = 1.0e-3 : f32} : (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %1 : tensor<?x2xf32>
}

// -----

// Not folded: the producer's result has another user.
// CHECK-LABEL: func @producer_has_other_users
// CHECK: %[[D:.*]] = seq.dense %arg0, %{{.*}}, %{{.*}} activation(linear)
// CHECK: %[[N:.*]] = seq.batch_norm %[[D]]
// CHECK: return %[[D]], %[[N]]
func.func @producer_has_other_users(%x: tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %one = arith.constant dense<1.0> : tensor<2xf32>
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %0 = seq.dense %x, %k, %b activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %1 = seq.batch_norm %0, %one, %zero, %zero, %one {epsilon = 1.0e-3 : f32} : (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %0, %1 : tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// No affine producer (the model input), but a dense consumer: its kernel
// rows are scaled by [2, 1] and shift @ kernel = [-1.5*1 - 1*3, -1.5*2 - 1*4]
// = [-4.5, -7] is added to its bias [1, -1], giving [-3.5, -8]. Its relu
// stays.
// CHECK-LABEL: func @into_consumer
// CHECK-DAG: %[[K:.*]] = arith.constant dense_resource<bn_dense.kernel> : tensor<2x2xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<bn_dense.bias> : tensor<2xf32>
// CHECK: %[[Y:.*]] = seq.dense %arg0, %[[K]], %[[B]] activation(relu)
// CHECK-NOT: seq.batch_norm
// CHECK: return %[[Y]]
func.func @into_consumer(%x: tensor<?x5x2xf32>) -> tensor<?x5x2xf32> {
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %gamma = arith.constant dense<[4.0, 0.5]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[3.75, 0.0]> : tensor<2xf32>
  %0 = seq.batch_norm %x, %gamma, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<?x5x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x5x2xf32> loc("bn")
  %1 = seq.dense %0, %k, %b activation(relu) : (tensor<?x5x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x5x2xf32> loc("dense")
  return %1 : tensor<?x5x2xf32>
}
// CHECK: bn_dense.kernel: "0x0400000000000040000080400000404000008040"
// CHECK: bn_dense.bias: "0x04000000000060C0000000C1"

// -----

// Not folded: parameters that are not constants cannot be folded.
// CHECK-LABEL: func @runtime_parameters
// CHECK: seq.batch_norm
func.func @runtime_parameters(%x: tensor<?x2xf32>, %gamma: tensor<2xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %one = arith.constant dense<1.0> : tensor<2xf32>
  %0 = seq.dense %x, %k activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %1 = seq.batch_norm %0, %gamma, %zero, %zero, %one {epsilon = 1.0e-3 : f32} : (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %1 : tensor<?x2xf32>
}

// -----

// Into a grouped conv2d: the kernel's last axis is the filters whatever the
// groups; strides, dilations, groups and padding stay.
// scale = [2, 1], shift = [-1.5, -1]; kernel (1, 1, 1, 2) = [1, 2].
// CHECK-LABEL: func @into_conv2d_groups
// CHECK-DAG: %[[K:.*]] = arith.constant dense_resource<conv_bn.kernel> : tensor<1x1x1x2xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<conv_bn.bias> : tensor<2xf32>
// CHECK: seq.conv2d %arg0, %[[K]], %[[B]] padding(same) activation(linear) {dilation_rate = array<i64: 1, 1>, groups = 2 : i64, strides = array<i64: 2, 1>}
// CHECK-NOT: seq.batch_norm
func.func @into_conv2d_groups(%x: tensor<?x4x4x2xf32>) -> tensor<?x2x4x2xf32> {
  %k = arith.constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>
  %gamma = arith.constant dense<[4.0, 0.5]> : tensor<2xf32>
  %beta = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[3.75, 0.0]> : tensor<2xf32>
  %0 = seq.conv2d %x, %k padding(same) activation(linear) {dilation_rate = array<i64: 1, 1>, groups = 2 : i64, strides = array<i64: 2, 1>} : (tensor<?x4x4x2xf32>, tensor<1x1x1x2xf32>) -> tensor<?x2x4x2xf32> loc("conv")
  %1 = seq.batch_norm %0, %gamma, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<?x2x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x2xf32> loc("bn")
  return %1 : tensor<?x2x4x2xf32>
}
// CHECK: conv_bn.kernel: "0x040000000000004000000040"
// CHECK: conv_bn.bias: "0x040000000000C0BF000080BF"

// -----

// A batch norm in front of a convolution stays: its shift would have to be
// added only where the kernel reads real, not padded, input.
// CHECK-LABEL: func @before_conv3d
// CHECK: seq.batch_norm
// CHECK: seq.conv3d
func.func @before_conv3d(%x: tensor<?x2x2x2x2xf32>) -> tensor<?x2x2x2x1xf32> {
  %k = arith.constant dense<1.0> : tensor<1x1x1x2x1xf32>
  %p = arith.constant dense<1.0> : tensor<2xf32>
  %0 = seq.batch_norm %x, %p, %p, %p, %p {epsilon = 0.25 : f32} : (tensor<?x2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x2x2x2xf32>
  %1 = seq.conv3d %0, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1, 1>, strides = array<i64: 1, 1, 1>} : (tensor<?x2x2x2x2xf32>, tensor<1x1x1x2x1xf32>) -> tensor<?x2x2x2x1xf32>
  return %1 : tensor<?x2x2x2x1xf32>
}

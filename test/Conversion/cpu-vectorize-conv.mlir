// RUN: seq-opt %s --seq-cpu-vectorize-conv --canonicalize | FileCheck %s
//
// The CPU pipeline vectorizes depthwise convolutions and poolings with
// upstream transforms: tiled into output rows of one sample and one kernel
// row, decomposed into their 1-D forms, vectorized. A size that is not
// static leaves the op to convert-linalg-to-loops.

// Convolutions are not this pass's: seq-cpu-kernels turns them, after
// bufferization, into implicit GEMMs (cpu-kernels-conv.mlir).
// CHECK-LABEL: func.func @conv(
// CHECK-NEXT:    linalg.conv_2d_nhwc_hwcf
// CHECK-LABEL: func.func @conv1d(
// CHECK-NEXT:    linalg.conv_1d_nwc_wcf
func.func @conv(%x: tensor<?x6x6x4xf32>, %k: tensor<3x3x4x8xf32>, %init: tensor<?x4x4x8xf32>) -> tensor<?x4x4x8xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %k : tensor<?x6x6x4xf32>, tensor<3x3x4x8xf32>) outs(%init : tensor<?x4x4x8xf32>) -> tensor<?x4x4x8xf32>
  return %0 : tensor<?x4x4x8xf32>
}
func.func @conv1d(%x: tensor<?x18x4xf32>, %k: tensor<3x4x8xf32>, %init: tensor<?x16x8xf32>) -> tensor<?x16x8xf32> {
  %0 = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%x, %k : tensor<?x18x4xf32>, tensor<3x4x8xf32>) outs(%init : tensor<?x16x8xf32>) -> tensor<?x16x8xf32>
  return %0 : tensor<?x16x8xf32>
}

// Pooling: elementwise vector maxima over the window.
// CHECK-LABEL: func.func @pool(
// CHECK-NOT:     linalg.pooling
// CHECK:         vector.transfer_read %arg0{{.*}} : tensor<?x6x6x4xf32>, vector<1x6x4xf32>
// CHECK:         arith.maximumf {{.*}} : vector<1x1x4xf32>
// CHECK:         vector.transfer_write
// CHECK-NOT:     linalg.pooling
func.func @pool(%x: tensor<?x6x6x4xf32>, %init: tensor<?x3x3x4xf32>) -> tensor<?x3x3x4xf32> {
  %w = tensor.empty() : tensor<2x2xf32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<?x6x6x4xf32>, tensor<2x2xf32>) outs(%init : tensor<?x3x3x4xf32>) -> tensor<?x3x3x4xf32>
  return %0 : tensor<?x3x3x4xf32>
}

// A depthwise convolution: tiled and decomposed like a pooling, each kernel
// tap an elementwise vector multiply-add over the channels.
// CHECK-LABEL: func.func @depthwise(
// CHECK-NOT:     linalg.depthwise_conv
// CHECK:         vector.transfer_read %arg0{{.*}} : tensor<?x6x6x8xf32>, vector<1x6x8xf32>
// CHECK:         vector.fma {{.*}} : vector<1x4x8xf32>
// CHECK:         vector.transfer_write
// CHECK-NOT:     linalg.depthwise_conv
func.func @depthwise(%x: tensor<?x6x6x8xf32>, %k: tensor<3x3x8xf32>, %init: tensor<?x4x4x8xf32>) -> tensor<?x4x4x8xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %k : tensor<?x6x6x8xf32>, tensor<3x3x8xf32>) outs(%init : tensor<?x4x4x8xf32>) -> tensor<?x4x4x8xf32>
  return %0 : tensor<?x4x4x8xf32>
}

// 1-D poolings (MaxPooling1D, AveragePooling1D's sum): tiled alike, vector
// maxima / sums over the window.
// CHECK-LABEL: func.func @pool1d(
// CHECK-NOT:     linalg.pooling
// CHECK:         scf.for
// CHECK:         arith.maximumf {{.*}} : vector<
// CHECK:         arith.addf {{.*}} : vector<
// CHECK-NOT:     linalg.pooling
func.func @pool1d(%x: tensor<?x16x4xf32>, %w: tensor<2xf32>, %init: tensor<?x8x4xf32>) -> (tensor<?x8x4xf32>, tensor<?x8x4xf32>) {
  %0 = linalg.pooling_nwc_max {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%x, %w : tensor<?x16x4xf32>, tensor<2xf32>) outs(%init : tensor<?x8x4xf32>) -> tensor<?x8x4xf32>
  %1 = linalg.pooling_nwc_sum {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%x, %w : tensor<?x16x4xf32>, tensor<2xf32>) outs(%init : tensor<?x8x4xf32>) -> tensor<?x8x4xf32>
  return %0, %1 : tensor<?x8x4xf32>, tensor<?x8x4xf32>
}

// A width that is not static leaves the op to convert-linalg-to-loops.
// CHECK-LABEL: func.func @dynamic_width(
// CHECK-NOT:     vector.transfer_read
// CHECK:         linalg.pooling_nhwc_max
func.func @dynamic_width(%x: tensor<?x6x?x4xf32>, %init: tensor<?x3x?x4xf32>) -> tensor<?x3x?x4xf32> {
  %w = tensor.empty() : tensor<2x2xf32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<?x6x?x4xf32>, tensor<2x2xf32>) outs(%init : tensor<?x3x?x4xf32>) -> tensor<?x3x?x4xf32>
  return %0 : tensor<?x3x?x4xf32>
}

// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s
//
// A transposed convolution is the stride-1 convolution of its input spread
// `stride` apart into zeros, with the kernel flipped and its filter and
// channel axes swapped. A depthwise Conv2D (one input channel per group) is
// linalg.depthwise_conv_2d_nhwc_hwc, its input channels repeated once per
// filter of a group first when there are several.

// CHECK-DAG: #[[$FLIP2:.*]] = affine_map<(d0, d1, d2, d3) -> (-d0 + 2, -d1 + 1, d3, d2)>
// CHECK-DAG: #[[$FLIP1:.*]] = affine_map<(d0, d1, d2) -> (-d0 + 2, d2, d1)>
// CHECK-DAG: #[[$REPEAT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3 floordiv 2)>

// Same padding, strides 2: the 3x2 kernel's pads before are 0 and 0, so the
// input starts at span - 1 - pad = (2, 1) of the zeros, every second row and
// column.
// CHECK-LABEL: func.func @conv_transpose2d(
// CHECK-SAME:      %[[X:.*]]: tensor<?x4x5x2xf32>, %[[K:.*]]: tensor<3x2x6x2xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK:         %[[SPREAD:.*]] = tensor.insert_slice %[[X]] into %{{.*}}[0, 2, 1, 0] [%{{.*}}, 4, 5, 2] [1, 2, 2, 1] : tensor<?x4x5x2xf32> into tensor<?x10x11x2xf32>
// CHECK:         %[[ACC:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<6xf32>) outs(%{{.*}} : tensor<?x8x10x6xf32>)
// CHECK:         %[[FLIPPED:.*]] = linalg.generic {indexing_maps = [#[[$FLIP2]], {{.*}}]{{.*}} ins(%[[K]] : tensor<3x2x6x2xf32>) outs(%{{.*}} : tensor<3x2x2x6xf32>)
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[SPREAD]], %[[FLIPPED]] : tensor<?x10x11x2xf32>, tensor<3x2x2x6xf32>) outs(%[[ACC]] : tensor<?x8x10x6xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[CONV]] : tensor<?x8x10x6xf32>)
// CHECK:           arith.maximumf
func.func @conv_transpose2d(%x: tensor<?x4x5x2xf32>, %k: tensor<3x2x6x2xf32>, %b: tensor<6xf32>) -> tensor<?x8x10x6xf32> {
  %0 = seq.conv_transpose2d %x, %k, %b padding(same) activation(relu) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x5x2xf32>, tensor<3x2x6x2xf32>, tensor<6xf32>) -> tensor<?x8x10x6xf32>
  return %0 : tensor<?x8x10x6xf32>
}

// Valid padding with output_padding 1: 16 outputs read 18 spread positions.
// CHECK-LABEL: func.func @conv_transpose1d(
// CHECK-SAME:      %[[X:.*]]: tensor<?x5x3xf32>, %[[K:.*]]: tensor<3x4x3xf32>)
// CHECK:         %[[SPREAD:.*]] = tensor.insert_slice %[[X]] into %{{.*}}[0, 2, 0] [%{{.*}}, 5, 3] [1, 3, 1] : tensor<?x5x3xf32> into tensor<?x18x3xf32>
// CHECK:         %[[FLIPPED:.*]] = linalg.generic {indexing_maps = [#[[$FLIP1]], {{.*}}]{{.*}} ins(%[[K]] : tensor<3x4x3xf32>) outs(%{{.*}} : tensor<3x3x4xf32>)
// CHECK:         linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%[[SPREAD]], %[[FLIPPED]] : tensor<?x18x3xf32>, tensor<3x3x4xf32>) outs(%{{.*}} : tensor<?x16x4xf32>)
func.func @conv_transpose1d(%x: tensor<?x5x3xf32>, %k: tensor<3x4x3xf32>) -> tensor<?x16x4xf32> {
  %0 = seq.conv_transpose1d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1>, output_padding = array<i64: 1>, strides = array<i64: 3>} : (tensor<?x5x3xf32>, tensor<3x4x3xf32>) -> tensor<?x16x4xf32>
  return %0 : tensor<?x16x4xf32>
}

// CHECK-LABEL: func.func @depthwise(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6x6x3xf32>, %[[K:.*]]: tensor<3x3x1x3xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[K]] {{\[}}[0], [1], [2, 3]] : tensor<3x3x1x3xf32> into tensor<3x3x3xf32>
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X]], %[[FLAT]] : tensor<?x6x6x3xf32>, tensor<3x3x3xf32>) outs(%{{.*}} : tensor<?x4x4x3xf32>)
func.func @depthwise(%x: tensor<?x6x6x3xf32>, %k: tensor<3x3x1x3xf32>) -> tensor<?x4x4x3xf32> {
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, groups = 3 : i64, strides = array<i64: 1, 1>} : (tensor<?x6x6x3xf32>, tensor<3x3x1x3xf32>) -> tensor<?x4x4x3xf32>
  return %0 : tensor<?x4x4x3xf32>
}

// depth_multiplier 2: channel c feeds channels 2c and 2c + 1.
// CHECK-LABEL: func.func @depthwise_multiplier(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6x6x3xf32>, %[[K:.*]]: tensor<3x3x1x6xf32>)
// CHECK:         %[[REPEATED:.*]] = linalg.generic {indexing_maps = [#[[$REPEAT]], {{.*}}]{{.*}} ins(%[[X]] : tensor<?x6x6x3xf32>) outs(%{{.*}} : tensor<?x6x6x6xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[K]] {{\[}}[0], [1], [2, 3]] : tensor<3x3x1x6xf32> into tensor<3x3x6xf32>
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[REPEATED]], %[[FLAT]] : tensor<?x6x6x6xf32>, tensor<3x3x6xf32>) outs(%{{.*}} : tensor<?x4x4x6xf32>)
func.func @depthwise_multiplier(%x: tensor<?x6x6x3xf32>, %k: tensor<3x3x1x6xf32>) -> tensor<?x4x4x6xf32> {
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, groups = 3 : i64, strides = array<i64: 1, 1>} : (tensor<?x6x6x3xf32>, tensor<3x3x1x6xf32>) -> tensor<?x4x4x6xf32>
  return %0 : tensor<?x4x4x6xf32>
}

// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s

// A Conv2D of one group with at least 8 input channels is one GEMM: the
// padded input's receptive fields gathered into (b, o1, o2, k1, k2, c) (the
// output position times the stride plus the tap times the dilation), viewed
// as rows of k1 * k2 * c, times the kernel viewed as (k1 * k2 * c, filters),
// onto the broadcast bias, with the activation after it (the CPU backend's
// packed GEMM kernel fuses both).
// CHECK-DAG: #[[GATHER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 + d4 * 2, d5)>
// CHECK-LABEL: func.func @im2col(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6x5x8xf32>, %[[K:.*]]: tensor<3x2x8x4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK:         %[[PADDED:.*]] = tensor.insert_slice %[[X]] into
// CHECK:         %[[PATCHES:.*]] = linalg.generic {indexing_maps = [#[[GATHER]], {{.*}}]{{.*}} ins(%[[PADDED]] : tensor<?x7x7x8xf32>) outs(%{{.*}} : tensor<?x3x5x3x2x8xf32>)
// CHECK:         %[[W:.*]] = tensor.collapse_shape %[[K]] {{\[}}[0, 1, 2], [3]] : tensor<3x2x8x4xf32> into tensor<48x4xf32>
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[PATCHES]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<?x3x5x3x2x8xf32> into tensor<?x48xf32>
// CHECK:         %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<4xf32>)
// CHECK:         %[[GEMM:.*]] = linalg.matmul ins(%[[ROWS]], %[[W]] : tensor<?x48xf32>, tensor<48x4xf32>) outs(%[[BIAS]] : tensor<?x4xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[GEMM]] : tensor<?x4xf32>)
// CHECK:           arith.maximumf
// CHECK:         tensor.expand_shape {{.*}} into tensor<?x3x5x4xf32>
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
func.func @im2col(%x: tensor<?x6x5x8xf32>, %k: tensor<3x2x8x4xf32>, %b: tensor<4xf32>) -> tensor<?x3x5x4xf32> {
  %0 = seq.conv2d %x, %k, %b padding(same) activation(relu) {dilation_rate = array<i64: 1, 2>, strides = array<i64: 2, 1>} : (tensor<?x6x5x8xf32>, tensor<3x2x8x4xf32>, tensor<4xf32>) -> tensor<?x3x5x4xf32>
  return %0 : tensor<?x3x5x4xf32>
}

// With 3 input channels (an RGB image) the gathered rows would be short:
// the named convolution, which seq-cpu-vectorize-conv vectorizes.
// CHECK-LABEL: func.func @rgb(
// CHECK:         linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:     linalg.matmul
func.func @rgb(%x: tensor<?x6x5x3xf32>, %k: tensor<3x3x3x4xf32>) -> tensor<?x4x3x4xf32> {
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x6x5x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x4x3x4xf32>
  return %0 : tensor<?x4x3x4xf32>
}

// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s
//
// Convolutions and poolings become upstream linalg named ops on channels-last
// tensors; "same" padding is an insert_slice into a filled tensor in front.

// The map of nearest upsampling (used by @shapes below).
// CHECK-DAG: #[[$NEAREST:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 2, d2, d3)>

// CHECK-LABEL: func.func @conv2d_same(
// CHECK-SAME:      %[[X:.*]]: tensor<?x8x7x4xf32>, %[[K:.*]]: tensor<3x2x4x6xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK:         %[[PAD:.*]] = tensor.insert_slice %[[X]] into %{{.*}}[0, 0, 0, 0] [%{{.*}}, 8, 7, 4] [1, 1, 1, 1] : tensor<?x8x7x4xf32> into tensor<?x9x8x4xf32>
// CHECK:         %[[ACC:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<6xf32>) outs(%{{.*}} : tensor<?x4x7x6xf32>)
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%[[PAD]], %[[K]] : tensor<?x9x8x4xf32>, tensor<3x2x4x6xf32>) outs(%[[ACC]] : tensor<?x4x7x6xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[CONV]] : tensor<?x4x7x6xf32>)
// CHECK:           arith.maximumf
func.func @conv2d_same(%x: tensor<?x8x7x4xf32>, %k: tensor<3x2x4x6xf32>, %b: tensor<6xf32>) -> tensor<?x4x7x6xf32> {
  %0 = seq.conv2d %x, %k, %b padding(same) activation(relu) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 2, 1>} : (tensor<?x8x7x4xf32>, tensor<3x2x4x6xf32>, tensor<6xf32>) -> tensor<?x4x7x6xf32>
  return %0 : tensor<?x4x7x6xf32>
}

// One window position down whose stride steps over the input's second row:
// the input is cut to the row the window reads (same padding right of it).
// CHECK-LABEL: func.func @conv2d_one_position(
// CHECK-SAME:      %[[X:.*]]: tensor<?x2x4x1xf32>
// CHECK:         %[[ROW:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [%{{.*}}, 1, 4, 1] [1, 1, 1, 1] : tensor<?x2x4x1xf32> to tensor<?x1x4x1xf32>
// CHECK:         %[[PAD:.*]] = tensor.insert_slice %[[ROW]] into %{{.*}}[0, 0, 0, 0] [%{{.*}}, 1, 4, 1] [1, 1, 1, 1] : tensor<?x1x4x1xf32> into tensor<?x1x5x1xf32>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[PAD]], %{{.*}} : tensor<?x1x5x1xf32>, tensor<1x3x1x8xf32>) outs(%{{.*}} : tensor<?x1x2x8xf32>)
func.func @conv2d_one_position(%x: tensor<?x2x4x1xf32>, %k: tensor<1x3x1x8xf32>) -> tensor<?x1x2x8xf32> {
  %0 = seq.conv2d %x, %k padding(same) activation(linear) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x2x4x1xf32>, tensor<1x3x1x8xf32>) -> tensor<?x1x2x8xf32>
  return %0 : tensor<?x1x2x8xf32>
}

// Groups: one named convolution per group on channel and filter slices.
// CHECK-LABEL: func.func @conv2d_groups(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6x6x4xf32>, %[[K:.*]]: tensor<3x3x2x6xf32>)
// CHECK-DAG:     %[[K0:.*]] = tensor.extract_slice %[[K]][0, 0, 0, 0] [3, 3, 2, 3] [1, 1, 1, 1]
// CHECK-DAG:     %[[X0:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [%{{.*}}, 6, 6, 2] [1, 1, 1, 1]
// CHECK:         %[[C0:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X0]], %[[K0]] : tensor<?x6x6x2xf32>, tensor<3x3x2x3xf32>) outs(%{{.*}} : tensor<?x4x4x3xf32>)
// CHECK:         %[[OUT0:.*]] = tensor.insert_slice %[[C0]] into %{{.*}}[0, 0, 0, 0] [%{{.*}}, 4, 4, 3]
// CHECK-DAG:     %[[K1:.*]] = tensor.extract_slice %[[K]][0, 0, 0, 3] [3, 3, 2, 3] [1, 1, 1, 1]
// CHECK-DAG:     %[[X1:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 2] [%{{.*}}, 6, 6, 2] [1, 1, 1, 1]
// CHECK:         %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X1]], %[[K1]] : tensor<?x6x6x2xf32>, tensor<3x3x2x3xf32>)
// CHECK:         tensor.insert_slice %[[C1]] into %[[OUT0]][0, 0, 0, 3] [%{{.*}}, 4, 4, 3]
func.func @conv2d_groups(%x: tensor<?x6x6x4xf32>, %k: tensor<3x3x2x6xf32>) -> tensor<?x4x4x6xf32> {
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, groups = 2 : i64, strides = array<i64: 1, 1>} : (tensor<?x6x6x4xf32>, tensor<3x3x2x6xf32>) -> tensor<?x4x4x6xf32>
  return %0 : tensor<?x4x4x6xf32>
}

// CHECK-LABEL: func.func @conv3d(
// CHECK:         linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<[1, 2, 1]> : tensor<3xi64>} ins(%{{.*}}, %{{.*}} : tensor<?x4x5x6x2xf32>, tensor<2x2x2x2x3xf32>) outs(%{{.*}} : tensor<?x3x2x5x3xf32>)
// CHECK:           arith.shli
func.func @conv3d(%x: tensor<?x4x5x6x2xf32>, %k: tensor<2x2x2x2x3xf32>) -> tensor<?x3x2x5x3xf32> {
  %0 = seq.conv3d %x, %k padding(valid) activation(tanh) {dilation_rate = array<i64: 1, 1, 1>, strides = array<i64: 1, 2, 1>} : (tensor<?x4x5x6x2xf32>, tensor<2x2x2x2x3xf32>) -> tensor<?x3x2x5x3xf32>
  return %0 : tensor<?x3x2x5x3xf32>
}

// Max pooling starts from -inf; "same" average pooling divides each window by
// its count of real elements; "valid" by the window size; global pooling
// reduces the collapsed spatial axes.
// CHECK-LABEL: func.func @pools(
// CHECK:         linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<?x8x7x4xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<?x4x3x4xf32>)
// CHECK:         %[[SUM:.*]] = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<?x10x8x4xf32>, tensor<3x2xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[SUM]] : tensor<?x8x7x4xf32>)
// CHECK:           linalg.index 1
// CHECK:           linalg.index 2
// CHECK:           arith.divf
// CHECK:         %[[SUM3:.*]] = linalg.pooling_ndhwc_sum {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x4x5x6x2xf32>, tensor<2x2x2xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[SUM3]] : tensor<?x2x2x3x2xf32>)
// CHECK:           arith.mulf
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3], [4]] : tensor<?x4x5x6x2xf32> into tensor<?x120x2xf32>
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<?x120x2xf32>)
// CHECK:         tensor.expand_shape %[[MAX]] {{\[\[}}0], [1, 2, 3, 4]] output_shape [%{{.*}}, 1, 1, 1, 2]
func.func @pools(%x: tensor<?x8x7x4xf32>, %v: tensor<?x4x5x6x2xf32>) -> (tensor<?x4x3x4xf32>, tensor<?x8x7x4xf32>, tensor<?x2x2x3x2xf32>, tensor<?x1x1x1x2xf32>, tensor<?x4xf32>) {
  %0 = seq.max_pool2d %x padding(valid) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<?x8x7x4xf32> -> tensor<?x4x3x4xf32>
  %1 = seq.avg_pool2d %x padding(same) {pool_size = array<i64: 3, 2>, strides = array<i64: 1, 1>} : tensor<?x8x7x4xf32> -> tensor<?x8x7x4xf32>
  %2 = seq.avg_pool3d %v padding(valid) {pool_size = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>} : tensor<?x4x5x6x2xf32> -> tensor<?x2x2x3x2xf32>
  %3 = seq.global_max_pool3d %v {keepdims} : tensor<?x4x5x6x2xf32> -> tensor<?x1x1x1x2xf32>
  %4 = seq.global_avg_pool2d %x : tensor<?x8x7x4xf32> -> tensor<?x4xf32>
  return %0, %1, %2, %3, %4 : tensor<?x4x3x4xf32>, tensor<?x8x7x4xf32>, tensor<?x2x2x3x2xf32>, tensor<?x1x1x1x2xf32>, tensor<?x4xf32>
}

// Zero padding and cropping are slices; nearest upsampling reads x[o / s];
// bilinear interpolates one axis at a time; permute is a transpose.
// CHECK-LABEL: func.func @shapes(
// CHECK:         tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 0, 0] [%{{.*}}, 4, 5, 3] [1, 1, 1, 1] : tensor<?x4x5x3xf32> into tensor<?x6x5x3xf32>
// CHECK:         tensor.extract_slice %{{.*}}[0, 1, 2, 0] [%{{.*}}, 3, 3, 3] [1, 1, 1, 1] : tensor<?x4x5x3xf32> to tensor<?x3x3x3xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[$NEAREST]], #{{.*}}]
// CHECK:           math.floor
// CHECK:           math.ceil
// CHECK:           tensor.extract
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<?x4x5x3xf32>) outs(%{{.*}} : tensor<?x5x3x4xf32>) permutation = [0, 2, 3, 1]
func.func @shapes(%x: tensor<?x4x5x3xf32>) -> (tensor<?x6x5x3xf32>, tensor<?x3x3x3xf32>, tensor<?x8x5x3xf32>, tensor<?x8x10x3xf32>, tensor<?x5x3x4xf32>) {
  %0 = seq.zero_padding %x low [1, 0, 0] high [1, 0, 0] : tensor<?x4x5x3xf32> -> tensor<?x6x5x3xf32>
  %1 = seq.cropping %x low [1, 2, 0] high [0, 0, 0] : tensor<?x4x5x3xf32> -> tensor<?x3x3x3xf32>
  %2 = seq.upsampling nearest %x [2, 1, 1] : tensor<?x4x5x3xf32> -> tensor<?x8x5x3xf32>
  %3 = seq.upsampling bilinear %x [2, 2, 1] : tensor<?x4x5x3xf32> -> tensor<?x8x10x3xf32>
  %4 = seq.permute %x [2, 3, 1] : tensor<?x4x5x3xf32> -> tensor<?x5x3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<?x6x5x3xf32>, tensor<?x3x3x3xf32>, tensor<?x8x5x3xf32>, tensor<?x8x10x3xf32>, tensor<?x5x3x4xf32>
}

// A window counted from the end of an axis of unknown length starts at its
// length minus the count; a length too short for the window is reported and
// the result is then zeros (the slice is not read). Static axes slice alone.
// CHECK-LABEL: func.func @slices(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x?x3xf32>, %[[S:[a-z0-9]+]]: tensor<?x4x5x3xf32>
// CHECK:         %[[LEN:.*]] = tensor.dim %[[X]], %c1
// CHECK:         %[[START:.*]] = arith.addi %[[LEN]], %c-2
// CHECK:         %[[SHORT:.*]] = arith.cmpi slt, %[[LEN]], %c2
// CHECK:         scf.if %[[SHORT]] {
// CHECK-NEXT:      func.call @seqc_report_error
// CHECK:         %[[Y:.*]] = scf.if %[[SHORT]] -> (tensor<?x1x3xf32>) {
// CHECK:           linalg.fill
// CHECK:         } else {
// CHECK-NEXT:      %[[W:.*]] = tensor.extract_slice %[[X]][0, %[[START]], 0] [%{{.*}}, 1, 3] [1, 1, 1]
// CHECK-NEXT:      scf.yield %[[W]]
// CHECK:         %[[Z:.*]] = tensor.extract_slice %[[S]][0, 1, 1, 0] [%{{.*}}, 2, 3, 3] [1, 1, 1, 1] : tensor<?x4x5x3xf32> to tensor<?x2x3x3xf32>
// CHECK:         return %[[Y]], %[[Z]]
func.func @slices(%x: tensor<?x?x3xf32>, %s: tensor<?x4x5x3xf32>) -> (tensor<?x1x3xf32>, tensor<?x2x3x3xf32>) {
  %0 = seq.slice %x starts [-2, 0] sizes [1, 3] : tensor<?x?x3xf32> -> tensor<?x1x3xf32>
  %1 = seq.slice %s starts [-3, 1, 0] sizes [2, 3, 3] : tensor<?x4x5x3xf32> -> tensor<?x2x3x3xf32>
  return %0, %1 : tensor<?x1x3xf32>, tensor<?x2x3x3xf32>
}

// seq.reverse: every element reads the input's at n - 1 - i along the axis,
// n known or not.
// CHECK-LABEL: func.func @reverse(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?x3xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %c1
// CHECK:         %[[LAST:.*]] = arith.subi %[[N]], %c1
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} outs(
// CHECK:           %[[I:.*]] = linalg.index 1 : index
// CHECK:           %[[FROM:.*]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK:           tensor.extract %[[X]][%{{.*}}, %[[FROM]], %{{.*}}] : tensor<?x?x3xf32>
func.func @reverse(%x: tensor<?x?x3xf32>) -> tensor<?x?x3xf32> {
  %0 = seq.reverse %x axis 1 : tensor<?x?x3xf32>
  return %0 : tensor<?x?x3xf32>
}

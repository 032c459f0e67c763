// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s

// The convolution maps (used by @conv_causal below).
// PReLU's alpha shared over time (used by @prelu_shared_time below).
// CHECK-DAG: #[[$SHARED:.*]] = affine_map<(d0, d1, d2) -> (0, d2)>

// Leading axes are GEMM rows: collapse, bias broadcast into the
// accumulator, one matmul, the activation in place, expand back.
// CHECK-LABEL: func.func @linear3d(
// CHECK-SAME:      %[[X:.*]]: tensor<?x5x4xf32>, %[[W:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x5x4xf32> into tensor<?x4xf32>
// CHECK:         %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[$BCAST:.*]], #[[$ID2:.*]]], {{.*}} ins(%[[B]] : tensor<3xf32>)
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[ROWS]], %[[W]] : tensor<?x4xf32>, tensor<4x3xf32>) outs(%[[ACC]] : tensor<?x3xf32>)
// CHECK:         %[[ACT:.*]] = linalg.generic {indexing_maps = [#[[$ID2]]], {{.*}} outs(%[[MM]] : tensor<?x3xf32>)
// CHECK:           arith.maximumf
// CHECK:         tensor.expand_shape %[[ACT]] {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 5, 3]
func.func @linear3d(%x: tensor<?x5x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<?x5x3xf32> {
  %0 = seq.linear %x, %w, %b activation(relu) : (tensor<?x5x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x5x3xf32>
  return %0 : tensor<?x5x3xf32>
}

// Softmax: row max, exp(x - max), row sum (reassociable: vectorized), divide.
// CHECK-LABEL: func.func @dense_softmax(
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[MM]]
// CHECK:           arith.maximumf
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[MM]], %[[MAX]]
// CHECK:           math.exp
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EXP]]
// CHECK:           arith.addf {{.*}} fastmath<reassoc>
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : tensor<?xf32>) outs(%[[EXP]] : tensor<?x6xf32>)
// CHECK:           arith.divf
func.func @dense_softmax(%x: tensor<?x4xf32>, %w: tensor<4x6xf32>) -> tensor<?x6xf32> {
  %0 = seq.dense %x, %w activation(softmax) : (tensor<?x4xf32>, tensor<4x6xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// Causal: dilation*(width-1) = 2 zeros on the left, then a valid
// linalg.conv_1d_nwc_wcf with the dilation.
// CHECK-LABEL: func.func @conv_causal(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6x2xf32>, %[[K:.*]]: tensor<2x2x3xf32>
// CHECK:         %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<?x8x2xf32>
// CHECK:         %[[PADDED:.*]] = tensor.insert_slice %[[X]] into %[[ZEROS]][0, 2, 0] [%{{.*}}, 6, 2]
// CHECK:         linalg.conv_1d_nwc_wcf {dilations = dense<2> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%[[PADDED]], %[[K]] : tensor<?x8x2xf32>, tensor<2x2x3xf32>)
func.func @conv_causal(%x: tensor<?x6x2xf32>, %k: tensor<2x2x3xf32>, %b: tensor<3xf32>) -> tensor<?x6x3xf32> {
  %0 = seq.conv1d %x, %k, %b padding(causal) activation(tanh) {dilation_rate = 2 : i64, strides = 1 : i64} : (tensor<?x6x2xf32>, tensor<2x2x3xf32>, tensor<3xf32>) -> tensor<?x6x3xf32>
  return %0 : tensor<?x6x3xf32>
}

// Same, stride 2, T=5, width 3: 3 outputs, one zero on each side.
// CHECK-LABEL: func.func @conv_same_stride(
// CHECK:         %[[PADDED:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 0] [%{{.*}}, 5, 3] [1, 1, 1] : tensor<?x5x3xf32> into tensor<?x7x3xf32>
// CHECK:         linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%[[PADDED]], %{{.*}} : tensor<?x7x3xf32>, tensor<3x3x4xf32>) outs(%{{.*}} : tensor<?x3x4xf32>)
func.func @conv_same_stride(%x: tensor<?x5x3xf32>, %k: tensor<3x3x4xf32>) -> tensor<?x3x4xf32> {
  %0 = seq.conv1d %x, %k padding(same) activation(linear) {dilation_rate = 1 : i64, strides = 2 : i64} : (tensor<?x5x3xf32>, tensor<3x3x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// Max pooling pads with -inf, so padding never wins.
// CHECK-LABEL: func.func @max_same(
// CHECK:         %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[PAD:.*]] = linalg.fill ins(%[[NEG]] : f32) {{.*}} -> tensor<?x6x4xf32>
// CHECK:         %[[PADDED:.*]] = tensor.insert_slice %{{.*}} into %[[PAD]][0, 0, 0] [%{{.*}}, 5, 4]
// CHECK:         %[[WINDOW:.*]] = tensor.empty() : tensor<2xf32>
// CHECK:         linalg.pooling_nwc_max {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%[[PADDED]], %[[WINDOW]] : tensor<?x6x4xf32>, tensor<2xf32>) outs(%{{.*}} : tensor<?x3x4xf32>)
func.func @max_same(%x: tensor<?x5x4xf32>) -> tensor<?x3x4xf32> {
  %0 = seq.max_pool1d %x padding(same) {pool_size = 2 : i64, strides = 2 : i64} : tensor<?x5x4xf32> -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// Average pooling divides each window by its count of real elements.
// CHECK-LABEL: func.func @avg_same(
// CHECK:         %[[SUM:.*]] = linalg.pooling_nwc_sum
// CHECK:         linalg.generic {{.*}} outs(%[[SUM]] : tensor<?x5x3xf32>)
// CHECK:           linalg.index 1
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           arith.sitofp
// CHECK:           arith.divf
func.func @avg_same(%x: tensor<?x5x3xf32>) -> tensor<?x5x3xf32> {
  %0 = seq.avg_pool1d %x padding(same) {pool_size = 2 : i64, strides = 1 : i64} : tensor<?x5x3xf32> -> tensor<?x5x3xf32>
  return %0 : tensor<?x5x3xf32>
}

// CHECK-LABEL: func.func @global_avg_keep(
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<?x?x3xf32>) outs(%{{.*}} : tensor<?x3xf32>)
// CHECK:         %[[T:.*]] = tensor.dim %{{.*}}, %c1
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} outs(%[[SUM]] : tensor<?x3xf32>)
// CHECK:         tensor.expand_shape %[[MEAN]] {{\[\[}}0], [1, 2]] output_shape [%{{.*}}, 1, 3]
func.func @global_avg_keep(%x: tensor<?x?x3xf32>) -> tensor<?x1x3xf32> {
  %0 = seq.global_avg_pool1d %x {keepdims} : tensor<?x?x3xf32> -> tensor<?x1x3xf32>
  return %0 : tensor<?x1x3xf32>
}

// CHECK-LABEL: func.func @global_max(
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:           arith.maximumf
func.func @global_max(%x: tensor<?x5x3xf32>) -> tensor<?x3xf32> {
  %0 = seq.global_max_pool1d %x : tensor<?x5x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}


// Softmax over a middle axis (Keras Softmax(axis=1) on a sequence) reduces
// that axis, not the last.
// CHECK-LABEL: func.func @softmax_time_axis(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK:           arith.maximumf
// CHECK:         math.exp
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK:           arith.addf
// CHECK:         arith.divf
func.func @softmax_time_axis(%x: tensor<?x4x6xf32>) -> tensor<?x4x6xf32> {
  %0 = seq.activation softmax %x {axis = 1 : i64} : tensor<?x4x6xf32>
  return %0 : tensor<?x4x6xf32>
}

// PReLU's alpha is read through a map that pins its shared axes to 0.
// CHECK-LABEL: func.func @prelu_shared_time(
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[$SHARED]], #{{.*}}]
// CHECK:           arith.cmpf olt
// CHECK:           arith.select
func.func @prelu_shared_time(%x: tensor<?x4x6xf32>, %a: tensor<1x6xf32>) -> tensor<?x4x6xf32> {
  %0 = seq.prelu %x, %a : tensor<?x4x6xf32>, tensor<1x6xf32>
  return %0 : tensor<?x4x6xf32>
}

// tf.clip_by_value: the upper bound first, then the lower, by the min/max
// that keep a NaN.
// CHECK-LABEL: func.func @clip(
// CHECK:         linalg.generic
// CHECK:           %[[UPPER:.*]] = arith.minimumf %in, %{{.*}} : f32
// CHECK-NEXT:      arith.maximumf %[[UPPER]], %{{.*}} : f32
func.func @clip(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = seq.clip %x {max = 0.25 : f32, min = -0.5 : f32} : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// Keras' ReLU layer: the threshold select, the clip, the slope below.
// CHECK-LABEL: func.func @relu_layer(
// CHECK:         linalg.generic
// CHECK:           arith.cmpf ogt
// CHECK:           arith.select
// CHECK:           arith.minimumf
// CHECK:           arith.mulf
// CHECK:           arith.subf
func.func @relu_layer(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = seq.relu %x {max_value = 1.5 : f32, negative_slope = 0.1 : f32, threshold = 0.2 : f32} : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

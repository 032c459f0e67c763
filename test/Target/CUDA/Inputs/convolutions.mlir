// Convolutions for emit-conv-cudnn.test: same 3x3 (symmetric), grouped 2x2
// stride 2 on an even size (no padding), same 3x3 stride 2 on 4 (one
// padding row after only: uneven), a Conv3D.
module {
  func.func @predict(%x: tensor<?x8x8x4xf32>) -> tensor<?x1x1x1x2xf32> {
    %k = arith.constant dense<0.5> : tensor<3x3x4x8xf32> loc("same3/kernel")
    %b = arith.constant dense<0.1> : tensor<8xf32> loc("same3/bias")
    %0 = seq.conv2d %x, %k, %b padding(same) activation(relu) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x8x8x4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>) -> tensor<?x8x8x8xf32> loc("same3")
    %k2 = arith.constant dense<0.25> : tensor<2x2x4x6xf32> loc("grouped/kernel")
    %1 = seq.conv2d %0, %k2 padding(same) activation(linear) {dilation_rate = array<i64: 1, 1>, groups = 2 : i64, strides = array<i64: 2, 2>} : (tensor<?x8x8x8xf32>, tensor<2x2x4x6xf32>) -> tensor<?x4x4x6xf32> loc("grouped")
    %k3 = arith.constant dense<0.125> : tensor<3x3x6x4xf32> loc("uneven/kernel")
    %2 = seq.conv2d %1, %k3 padding(same) activation(tanh) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x4x6xf32>, tensor<3x3x6x4xf32>) -> tensor<?x2x2x4xf32> loc("uneven")
    %3 = seq.reshape %2 [2, 2, 2, 2] : tensor<?x2x2x4xf32> -> tensor<?x2x2x2x2xf32> loc("to_volume")
    %k4 = arith.constant dense<0.5> : tensor<2x2x2x2x2xf32> loc("volume/kernel")
    %4 = seq.conv3d %3, %k4 padding(valid) activation(sigmoid) {dilation_rate = array<i64: 1, 1, 1>, strides = array<i64: 1, 1, 1>} : (tensor<?x2x2x2x2xf32>, tensor<2x2x2x2x2xf32>) -> tensor<?x1x1x1x2xf32> loc("volume")
    return %4 : tensor<?x1x1x1x2xf32>
  }
}

// Conv1D layers for emit-conv-cudnn.test, on a dynamic time axis: causal
// width 3 dilation 2 (four zeros, all before), same width 4 stride 2 (the
// padding depends on the length), valid (no padding).
module {
  func.func @predict(%x: tensor<?x?x3xf32>) -> tensor<?x?x2xf32> {
    %k = arith.constant dense<0.5> : tensor<3x3x4xf32> loc("causal/kernel")
    %b = arith.constant dense<0.1> : tensor<4xf32> loc("causal/bias")
    %0 = seq.conv1d %x, %k, %b padding(causal) activation(relu) {dilation_rate = 2 : i64, strides = 1 : i64} : (tensor<?x?x3xf32>, tensor<3x3x4xf32>, tensor<4xf32>) -> tensor<?x?x4xf32> loc("causal")
    %k2 = arith.constant dense<0.25> : tensor<4x4x5xf32> loc("strided/kernel")
    %1 = seq.conv1d %0, %k2 padding(same) activation(linear) {dilation_rate = 1 : i64, strides = 2 : i64} : (tensor<?x?x4xf32>, tensor<4x4x5xf32>) -> tensor<?x?x5xf32> loc("strided")
    %k3 = arith.constant dense<0.125> : tensor<2x5x2xf32> loc("valid/kernel")
    %2 = seq.conv1d %1, %k3 padding(valid) activation(tanh) {dilation_rate = 1 : i64, strides = 1 : i64} : (tensor<?x?x5xf32>, tensor<2x5x2xf32>) -> tensor<?x?x2xf32> loc("valid")
    return %2 : tensor<?x?x2xf32>
  }
}

// The seed model's shape at layer level, written by hand:
// LSTM(64) -> Dropout -> Dense(32, relu) -> Dense(1) on (batch, 10, 12).
module attributes {seq.metadata = {model_name = "seed"}} {
  func.func @predict(%x: tensor<?x10x12xf32>) -> tensor<?x1xf32> {
    %k = arith.constant dense<0.01> : tensor<12x256xf32>
    %r = arith.constant dense<0.02> : tensor<64x256xf32>
    %b = arith.constant dense<0.0> : tensor<256xf32>
    %h = seq.lstm %x, %k, %r, %b activation(tanh, sigmoid) : (tensor<?x10x12xf32>, tensor<12x256xf32>, tensor<64x256xf32>, tensor<256xf32>) -> tensor<?x64xf32> loc("lstm")
    %d = seq.dropout %h {rate = 0.2 : f32} : tensor<?x64xf32> loc("dropout")
    %k1 = arith.constant dense<0.1> : tensor<64x32xf32>
    %b1 = arith.constant dense<0.0> : tensor<32xf32>
    %y1 = seq.dense %d, %k1, %b1 activation(relu) : (tensor<?x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<?x32xf32> loc("dense")
    %k2 = arith.constant dense<0.1> : tensor<32x1xf32>
    %b2 = arith.constant dense<0.0> : tensor<1xf32>
    %y2 = seq.dense %y1, %k2, %b2 activation(linear) : (tensor<?x32xf32>, tensor<32x1xf32>, tensor<1xf32>) -> tensor<?x1xf32> loc("dense_1")
    return %y2 : tensor<?x1xf32>
  }
}

// Eight Dense(256, relu) layers in a chain: each intermediate is dead once
// the next layer has read it.
module attributes {seq.metadata = {model_name = "dense_chain"}} {
  func.func @predict(%x: tensor<?x256xf32>) -> tensor<?x256xf32> {
    %k = arith.constant dense<0.01> : tensor<256x256xf32>
    %b = arith.constant dense<0.1> : tensor<256xf32>
    %d0 = seq.dense %x, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_0")
    %d1 = seq.dense %d0, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_1")
    %d2 = seq.dense %d1, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_2")
    %d3 = seq.dense %d2, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_3")
    %d4 = seq.dense %d3, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_4")
    %d5 = seq.dense %d4, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_5")
    %d6 = seq.dense %d5, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_6")
    %d7 = seq.dense %d6, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_7")
    return %d7 : tensor<?x256xf32>
  }
}

// Eight residual blocks, x + Dense(256, relu)(x): each block's input is
// read twice (by the Dense and by the Add), then dead.
module attributes {seq.metadata = {model_name = "residual_chain"}} {
  func.func @predict(%x: tensor<?x256xf32>) -> tensor<?x256xf32> {
    %k = arith.constant dense<0.01> : tensor<256x256xf32>
    %b = arith.constant dense<0.1> : tensor<256xf32>
    %d0 = seq.dense %x, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_0")
    %r0 = seq.merge add %x, %d0 : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc("add_0")
    %d1 = seq.dense %r0, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_1")
    %r1 = seq.merge add %r0, %d1 : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc("add_1")
    %d2 = seq.dense %r1, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_2")
    %r2 = seq.merge add %r1, %d2 : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc("add_2")
    %d3 = seq.dense %r2, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_3")
    %r3 = seq.merge add %r2, %d3 : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc("add_3")
    %d4 = seq.dense %r3, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_4")
    %r4 = seq.merge add %r3, %d4 : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc("add_4")
    %d5 = seq.dense %r4, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_5")
    %r5 = seq.merge add %r4, %d5 : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc("add_5")
    %d6 = seq.dense %r5, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_6")
    %r6 = seq.merge add %r5, %d6 : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc("add_6")
    %d7 = seq.dense %r6, %k, %b activation(relu) : (tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<?x256xf32> loc("dense_7")
    %r7 = seq.merge add %r6, %d7 : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32> loc("add_7")
    return %r7 : tensor<?x256xf32>
  }
}

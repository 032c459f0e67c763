#loc = loc("/work/wt-fuzz/test/fixtures/simplernn_keras3.keras":0:0)
module attributes {seq.metadata = {format = "keras", keras_version = "3.15.1", layers = "[\22simple_rnn\22,\22simple_rnn_1\22]", model_name = "sequential", source = "simplernn_keras3.keras"}} {
  func.func @predict(%arg0: tensor<?x5x3xf32> loc("/work/wt-fuzz/test/fixtures/simplernn_keras3.keras":0:0)) -> tensor<?x3xf32> {
    %cst = arith.constant dense_resource<simple_rnn.kernel> : tensor<3x4xf32> loc(#loc1)
    %cst_0 = arith.constant dense_resource<simple_rnn.recurrent_kernel> : tensor<4x4xf32> loc(#loc2)
    %cst_1 = arith.constant dense_resource<simple_rnn.bias> : tensor<4xf32> loc(#loc3)
    %0 = seq.simple_rnn %arg0, %cst, %cst_0, %cst_1 activation(tanh) {return_sequences} : (tensor<?x5x3xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<?x5x4xf32> loc(#loc4)
    %cst_2 = arith.constant dense_resource<simple_rnn_1.kernel> : tensor<4x3xf32> loc(#loc5)
    %cst_3 = arith.constant dense_resource<simple_rnn_1.recurrent_kernel> : tensor<3x3xf32> loc(#loc6)
    %cst_4 = arith.constant dense_resource<simple_rnn_1.bias> : tensor<3xf32> loc(#loc7)
    %1 = seq.simple_rnn %0, %cst_2, %cst_3, %cst_4 activation(relu) : (tensor<?x5x4xf32>, tensor<4x3xf32>, tensor<3x3xf32>, tensor<3xf32>) -> tensor<?x3xf32> loc(#loc8)
    return %1 : tensor<?x3xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("simple_rnn/kernel")
#loc2 = loc("simple_rnn/recurrent_kernel")
#loc3 = loc("simple_rnn/bias")
#loc4 = loc("simple_rnn")
#loc5 = loc("simple_rnn_1/kernel")
#loc6 = loc("simple_rnn_1/recurrent_kernel")
#loc7 = loc("simple_rnn_1/bias")
#loc8 = loc("simple_rnn_1")

{-#
  dialect_resources: {
    builtin: {
      simple_rnn.kernel: "0x04000000AB4D24BD11BF8C3EA49AC9BEE254D53EEED0D33C4A6ECB3E16B8BABDADBADCBE7839A33E05327BBECFF9F43ED35CB7BE",
      simple_rnn.recurrent_kernel: "0x0400000038ABBB3DA5055DBEAF09B8BD2D94D9BEA94CE53E26577F3E9D042F3EB3C3663DCBD625BEEF19CCBE0A4999BEB2BDD1BEEAF00DBEDEE9E0BE3E83FFBEB20AD5BE",
      simple_rnn.bias: "0x04000000486C5EBED533B23DC1964BBE00016ABE",
      simple_rnn_1.kernel: "0x040000002F8C403D6794BD3EE5DCA93EF29AFCBD204A63BE466B813D19C4A9BE64558FBE6CB0C5BD15BA2D3E4846A0BE45740D3E",
      simple_rnn_1.recurrent_kernel: "0x04000000EFC4D7BDB9898EBE5D04E4BEA096753E104E4B3EC59790BCA4D59DBD25AEC0BE75E2D1BE",
      simple_rnn_1.bias: "0x040000007A72C23E653F5F3EC6A058BD"
    }
  }
#-}

#loc = loc("/work/wt-fuzz/test/fixtures/dense_3d.h5":0:0)
module attributes {seq.metadata = {backend = "tensorflow", format = "h5", keras_version = "2.21.0", layers = "[\22dense\22,\22dense_1\22]", model_name = "sequential", source = "dense_3d.h5"}} {
  func.func @predict(%arg0: tensor<?x4x3xf32> loc("/work/wt-fuzz/test/fixtures/dense_3d.h5":0:0)) -> tensor<?x4x2xf32> {
    %cst = arith.constant dense_resource<dense.kernel> : tensor<3x5xf32> loc(#loc1)
    %cst_0 = arith.constant dense_resource<dense.bias> : tensor<5xf32> loc(#loc2)
    %0 = seq.dense %arg0, %cst, %cst_0 activation(relu) : (tensor<?x4x3xf32>, tensor<3x5xf32>, tensor<5xf32>) -> tensor<?x4x5xf32> loc(#loc3)
    %cst_1 = arith.constant dense_resource<dense_1.kernel> : tensor<5x2xf32> loc(#loc4)
    %cst_2 = arith.constant dense_resource<dense_1.bias> : tensor<2xf32> loc(#loc5)
    %1 = seq.dense %0, %cst_1, %cst_2 activation(linear) : (tensor<?x4x5xf32>, tensor<5x2xf32>, tensor<2xf32>) -> tensor<?x4x2xf32> loc(#loc6)
    return %1 : tensor<?x4x2xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("dense/kernel")
#loc2 = loc("dense/bias")
#loc3 = loc("dense")
#loc4 = loc("dense_1/kernel")
#loc5 = loc("dense_1/bias")
#loc6 = loc("dense_1")

{-#
  dialect_resources: {
    builtin: {
      dense.kernel: "0x0400000032DDFB3E9A45173EE614653D39C8B93DE140F3BC2CA9F5BE47EFDA3E918565BEA0C21E3ED1B22E3EAEA52FBE7D74E4BE514915BCA78F623D7D63EABE",
      dense.bias: "0x040000000F3BF83E9CAB993E033F593D3DAECBBE5D3F0E3E",
      dense_1.kernel: "0x040000006015383EED6E823E124EED3E000AF7BE73B1563E8D1B6F3E0CCDE9BE292284BE0B5ECBBE0B2E393E",
      dense_1.bias: "0x040000002E85753E2FD4BE3E"
    }
  }
#-}

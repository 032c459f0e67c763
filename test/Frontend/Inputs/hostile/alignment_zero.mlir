// A dense_resource blob whose alignment header is 0: MLIR's parser aborts
// on it, so seqc refuses it first.
module {
  func.func @predict(%arg0: tensor<?x2xf32>) -> tensor<?x1xf32> {
    %k = arith.constant dense_resource<k> : tensor<2x1xf32>
    %b = arith.constant dense_resource<b> : tensor<1xf32>
    %0 = seq.dense %arg0, %k, %b activation(linear) : (tensor<?x2xf32>, tensor<2x1xf32>, tensor<1xf32>) -> tensor<?x1xf32>
    return %0 : tensor<?x1xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      k: "0x000000000000803F00000040",
      b: "0x040000000000803F"
    }
  }
#-}

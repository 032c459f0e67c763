// Valid seq IR whose shapes only contradict once refined: the flatten
// forgets the batch of 2, the dense claims 3.
func.func @predict(%x: tensor<2x4xf32>) -> tensor<3x1xf32> {
  %k = arith.constant dense<1.0> : tensor<4x1xf32>
  %0 = seq.activation relu %x : tensor<2x4xf32> loc("act")
  %1 = seq.flatten %0 : tensor<2x4xf32> -> tensor<?x4xf32> loc("flatten")
  %2 = seq.dense %1, %k activation(linear) : (tensor<?x4xf32>, tensor<4x1xf32>) -> tensor<3x1xf32> loc("dense_out")
  return %2 : tensor<3x1xf32>
}

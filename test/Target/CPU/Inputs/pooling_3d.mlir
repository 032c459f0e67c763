// 3-D poolings (no upstream decomposition to vectorize; the pooling kernel
// of seq-cpu-kernels compiles them).
func.func @predict(%x: tensor<?x5x6x7x20xf32> {seq.input = "x"}) -> (tensor<?x2x3x3x20xf32> {seq.output = "y"}) {
  %0 = seq.max_pool3d %x padding(valid) {pool_size = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>} : tensor<?x5x6x7x20xf32> -> tensor<?x2x3x3x20xf32>
  %1 = seq.avg_pool3d %0 padding(same) {pool_size = array<i64: 2, 3, 2>, strides = array<i64: 1, 1, 1>} : tensor<?x2x3x3x20xf32> -> tensor<?x2x3x3x20xf32>
  return %1 : tensor<?x2x3x3x20xf32>
}

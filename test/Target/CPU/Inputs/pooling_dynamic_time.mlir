// 1-D poolings over a time axis of unknown size (compiled by the pooling
// kernel of seq-cpu-kernels, not by upstream vectorization).
func.func @predict(%x: tensor<?x?x20xf32> {seq.input = "x"}) -> (tensor<?x?x20xf32> {seq.output = "y"}) {
  %0 = seq.max_pool1d %x padding(same) {pool_size = 3 : i64, strides = 2 : i64} : tensor<?x?x20xf32> -> tensor<?x?x20xf32>
  %1 = seq.avg_pool1d %0 padding(same) {pool_size = 2 : i64, strides = 1 : i64} : tensor<?x?x20xf32> -> tensor<?x?x20xf32>
  return %1 : tensor<?x?x20xf32>
}

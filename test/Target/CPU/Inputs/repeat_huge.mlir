// RepeatVector with n = 2^31 - 1: its output (batch, n, 4) needs 32 GiB per
// sample, more than a test machine can allocate.
module attributes {seq.metadata = {model_name = "repeat_huge"}} {
  func.func @predict(%x: tensor<?x4xf32>) -> tensor<?x2147483647x4xf32> {
    %0 = seq.repeat_vector %x {n = 2147483647 : i64} : tensor<?x4xf32> -> tensor<?x2147483647x4xf32> loc("repeat_vector")
    return %0 : tensor<?x2147483647x4xf32>
  }
}

// RUN: seq-opt --seq-to-linalg --split-input-file --verify-diagnostics %s

func.func @softmax_cell(%xp: tensor<?x5x4xf32>, %wr: tensor<4x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{softmax as a recurrent cell activation is not supported by the CPU backend}}
  %0 = seq.simple_rnn_recurrence %xp, %wr activation(softmax) : (tensor<?x5x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

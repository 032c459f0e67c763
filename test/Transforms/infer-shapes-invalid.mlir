// RUN: seq-opt %s --seq-infer-shapes --split-input-file -verify-diagnostics

// Once the activation's batch is known (2), the dense's claimed batch 3 is
// a contradiction.
func.func @contradiction(%x: tensor<2x4xf32>) -> tensor<3x1xf32> {
  %k = arith.constant dense<1.0> : tensor<4x1xf32>
  %0 = seq.activation relu %x : tensor<2x4xf32>
  %1 = seq.flatten %0 : tensor<2x4xf32> -> tensor<?x4xf32>
  // expected-error @+1 {{result shape (3, 1) contradicts the (2, 1) its operands give}}
  %2 = seq.dense %1, %k activation(linear) : (tensor<?x4xf32>, tensor<4x1xf32>) -> tensor<3x1xf32>
  return %2 : tensor<3x1xf32>
}

// -----

// With the time axis known, 5 x 3 values per sample do not split into
// rows of 2.
func.func @bad_reshape(%x: tensor<?x5x3xf32>) -> tensor<?x?x2xf32> {
  %0 = seq.dropout %x {rate = 0.5 : f32} : tensor<?x5x3xf32>
  %1 = seq.flatten %0 : tensor<?x5x3xf32> -> tensor<?x?xf32>
  // expected-error @+1 {{cannot reshape (15) (15 values per sample) into (-1, 2)}}
  %2 = seq.reshape %1 [-1, 2] : tensor<?x?xf32> -> tensor<?x?x2xf32>
  return %2 : tensor<?x?x2xf32>
}

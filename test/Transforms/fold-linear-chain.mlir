// RUN: seq-opt %s --seq-fold-linear-chain --split-input-file | FileCheck %s

// W1 @ W2 = [[3, 2, 0], [7, 4, 2]]; b1 @ W2 + b2 = [0.5, -1, 4]. The folded
// op keeps the second op's activation.
// CHECK-LABEL: func @two_dense
// CHECK-DAG: %[[K:.*]] = arith.constant dense_resource<first_second.kernel> : tensor<2x3xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<first_second.bias> : tensor<3xf32>
// CHECK: %[[Y:.*]] = seq.dense %arg0, %[[K]], %[[B]] activation(relu) : (tensor<?x5x2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x5x3xf32>
// CHECK-NEXT: return %[[Y]]
func.func @two_dense(%x: tensor<?x5x2xf32>) -> tensor<?x5x3xf32> {
  %k1 = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b1 = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %k2 = arith.constant dense<[[1.0, 0.0, 2.0], [1.0, 1.0, -1.0]]> : tensor<2x3xf32>
  %b2 = arith.constant dense<[0.5, 0.0, 1.0]> : tensor<3xf32>
  %0 = seq.dense %x, %k1, %b1 activation(linear) : (tensor<?x5x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x5x2xf32> loc("first")
  %1 = seq.dense %0, %k2, %b2 activation(relu) : (tensor<?x5x2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x5x3xf32> loc("second")
  return %1 : tensor<?x5x3xf32>
}
// CHECK: first_second.kernel: "0x040000000000404000000040000000000000E0400000804000000040"
// CHECK: first_second.bias: "0x040000000000003F000080BF00008040"

// -----

// Three in a row fold into one; without biases there is no bias. A dense
// followed by a linear becomes a linear (the second op's kind).
// CHECK-LABEL: func @chain_of_three_without_bias
// CHECK: %[[Y:.*]] = seq.linear %arg0, %{{.*}} activation(tanh) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
// CHECK-NEXT: return %[[Y]]
func.func @chain_of_three_without_bias(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = seq.dense %x, %k activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %1 = seq.dense %0, %k activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %2 = seq.linear %1, %k activation(tanh) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  return %2 : tensor<?x2xf32>
}

// -----

// Not folded: the first dense has a non-linear activation.
// CHECK-LABEL: func @first_is_relu
// CHECK: %[[A:.*]] = seq.dense %arg0, %{{.*}}, %{{.*}} activation(relu)
// CHECK: %[[B:.*]] = seq.dense %[[A]], %{{.*}}, %{{.*}} activation(linear)
// CHECK: return %[[B]]
func.func @first_is_relu(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %0 = seq.dense %x, %k, %b activation(relu) : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %1 = seq.dense %0, %k, %b activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %1 : tensor<?x2xf32>
}

// -----

// Not folded: the first dense has another user.
// CHECK-LABEL: func @first_has_other_users
// CHECK: %[[A:.*]] = seq.dense %arg0
// CHECK: %[[B:.*]] = seq.dense %[[A]]
// CHECK: return %[[A]], %[[B]]
func.func @first_has_other_users(%x: tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = seq.dense %x, %k activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %1 = seq.dense %0, %k activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  return %0, %1 : tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// Not folded: a bottleneck 8 -> 1 -> 8 would become an 8x8 GEMM (64
// multiply-adds per row instead of 16).
// CHECK-LABEL: func @bottleneck
// CHECK: %[[A:.*]] = seq.dense %arg0, %{{.*}} : (tensor<?x8xf32>, tensor<8x1xf32>) -> tensor<?x1xf32>
// CHECK: seq.dense %[[A]], %{{.*}} : (tensor<?x1xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
func.func @bottleneck(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %k1 = arith.constant dense<1.0> : tensor<8x1xf32>
  %k2 = arith.constant dense<1.0> : tensor<1x8xf32>
  %0 = seq.dense %x, %k1 activation(linear) : (tensor<?x8xf32>, tensor<8x1xf32>) -> tensor<?x1xf32>
  %1 = seq.dense %0, %k2 activation(linear) : (tensor<?x1xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// Not folded: a conv1d is not part of a chain (only dense / linear are).
// CHECK-LABEL: func @conv_then_dense
// CHECK: seq.conv1d
// CHECK: seq.dense
func.func @conv_then_dense(%x: tensor<?x4x2xf32>) -> tensor<?x4x2xf32> {
  %c = arith.constant dense<1.0> : tensor<1x2x2xf32>
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = seq.conv1d %x, %c padding(valid) activation(linear) {dilation_rate = 1 : i64, strides = 1 : i64} : (tensor<?x4x2xf32>, tensor<1x2x2xf32>) -> tensor<?x4x2xf32>
  %1 = seq.dense %0, %k activation(linear) : (tensor<?x4x2xf32>, tensor<2x2xf32>) -> tensor<?x4x2xf32>
  return %1 : tensor<?x4x2xf32>
}

// -----

// An Embedding then an affine op without activation: one Embedding of the
// projected table E @ W + b = [[3.5, 2, 1], [7.5, 4, 3], [-0.5, -1, 2]].
// CHECK-LABEL: func @embedding_then_linear
// CHECK: %[[T:.*]] = arith.constant dense_resource<emb_proj.embeddings_projected> : tensor<3x3xf32>
// CHECK: %[[Y:.*]] = seq.embedding %arg0, %[[T]] : (tensor<?x5xf32>, tensor<3x3xf32>) -> tensor<?x5x3xf32>
// CHECK-NEXT: return %[[Y]]
func.func @embedding_then_linear(%ids: tensor<?x5xf32>) -> tensor<?x5x3xf32> {
  %e = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [0.0, -1.0]]> : tensor<3x2xf32>
  %k = arith.constant dense<[[1.0, 0.0, 2.0], [1.0, 1.0, -1.0]]> : tensor<2x3xf32>
  %b = arith.constant dense<[0.5, 0.0, 1.0]> : tensor<3xf32>
  %0 = seq.embedding %ids, %e : (tensor<?x5xf32>, tensor<3x2xf32>) -> tensor<?x5x2xf32> loc("emb")
  %1 = seq.linear %0, %k, %b activation(linear) : (tensor<?x5x2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x5x3xf32> loc("proj")
  return %1 : tensor<?x5x3xf32>
}
// CHECK: emb_proj.embeddings_projected: "0x0400000000006040000000400000803F0000F0400000804000004040000000BF000080BF00000040"

// -----

// Not folded: an activation after the projection, an Embedding with another
// user, a projected table above 2^22 floats that is larger than the
// Embedding's own.
// CHECK-LABEL: func @embedding_not_folded
// CHECK: %[[A:.*]] = seq.embedding
// CHECK: seq.dense %[[A]], {{.*}} activation(relu)
// CHECK: %[[B:.*]] = seq.embedding
// CHECK: seq.linear %[[B]]
// CHECK: %[[C:.*]] = seq.embedding
// CHECK: seq.linear %[[C]]
func.func @embedding_not_folded(%ids: tensor<?x5xf32>) -> (tensor<?x5x3xf32>, tensor<?x5x3xf32>, tensor<?x5x2xf32>, tensor<?x5x1024xf32>) {
  %e = arith.constant dense<1.0> : tensor<3x2xf32>
  %k = arith.constant dense<1.0> : tensor<2x3xf32>
  %0 = seq.embedding %ids, %e : (tensor<?x5xf32>, tensor<3x2xf32>) -> tensor<?x5x2xf32>
  %1 = seq.dense %0, %k activation(relu) : (tensor<?x5x2xf32>, tensor<2x3xf32>) -> tensor<?x5x3xf32>
  %2 = seq.embedding %ids, %e : (tensor<?x5xf32>, tensor<3x2xf32>) -> tensor<?x5x2xf32>
  %3 = seq.linear %2, %k activation(linear) : (tensor<?x5x2xf32>, tensor<2x3xf32>) -> tensor<?x5x3xf32>
  %big = arith.constant dense<1.0> : tensor<5000x8xf32>
  %wide = arith.constant dense<1.0> : tensor<8x1024xf32>
  %4 = seq.embedding %ids, %big : (tensor<?x5xf32>, tensor<5000x8xf32>) -> tensor<?x5x8xf32>
  %5 = seq.linear %4, %wide activation(linear) : (tensor<?x5x8xf32>, tensor<8x1024xf32>) -> tensor<?x5x1024xf32>
  return %1, %3, %2, %5 : tensor<?x5x3xf32>, tensor<?x5x3xf32>, tensor<?x5x2xf32>, tensor<?x5x1024xf32>
}

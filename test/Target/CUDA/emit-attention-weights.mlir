// Attention scores (return_attention_scores: seq.attention with weights):
// the attention kernel writes the softmax weights (batch, heads, tq, tk)
// instead of the output (y is null).
// RUN: seq-compile %s --target=cuda --emit=cuda | FileCheck %s

module {
  func.func @predict(%x: tensor<?x5x4xf32>) -> tensor<?x1x5x5xf32> {
    %q = seq.reshape %x [-1, 1, 4] : tensor<?x5x4xf32> -> tensor<?x5x1x4xf32> loc("heads")
    %w = seq.attention dot %q, %q, %q {scale = 0.5 : f32, weights} : tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32> -> tensor<?x1x5x5xf32> loc("mha")
    return %w : tensor<?x1x5x5xf32>
  }
}

// CHECK: // v2: mha attention weights
// CHECK-NEXT: D.v2[0] = D.v1[0];
// CHECK-NEXT: D.v2[1] = D.v1[2];
// CHECK-NEXT: D.v2[2] = D.v1[1];
// CHECK-NEXT: D.v2[3] = D.v1[1];
// CHECK-LABEL: static int seqc_forward(seqc_layers *m, const seqc_dims &D) {
// CHECK: seqc::attention(m->stream, m->v0, m->v0, m->v0, nullptr, seqc::AttentionMasks{nullptr, nullptr, nullptr}, nullptr, m->v2, seqc::AttentionShape{

// An attention_mask (batch, tq, tk) goes to the attention kernel beside the
// query and key masks: where it is 0, query step i does not see key step j.
// RUN: seq-compile %s --target=cuda --emit=cuda | FileCheck %s

module {
  func.func @predict(%x: tensor<?x5x4xf32>) -> tensor<?x5x1x4xf32> {
    %m = seq.matmul %x, %x {transpose_b} : (tensor<?x5x4xf32>, tensor<?x5x4xf32>) -> tensor<?x5x5xf32> loc("scores")
    %q = seq.reshape %x [-1, 1, 4] : tensor<?x5x4xf32> -> tensor<?x5x1x4xf32> loc("heads")
    %y = seq.attention dot %q, %q, %q attention_mask(%m : tensor<?x5x5xf32>) {scale = 0.5 : f32} : tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32> -> tensor<?x5x1x4xf32> loc("mha")
    return %y : tensor<?x5x1x4xf32>
  }
}

// CHECK: // Layers:
// CHECK: //   mha: seq.attention, dot attention, 1 heads, attention mask -> v3
// CHECK-LABEL: static int seqc_forward(seqc_layers *m, const seqc_dims &D) {
// CHECK: seqc::attention(m->stream, m->v0, m->v0, m->v0, nullptr, seqc::AttentionMasks{nullptr, nullptr, m->v1}, m->v3, nullptr, seqc::AttentionShape{

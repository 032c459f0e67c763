// Attention scores (return_attention_scores: seq.attention with weights) are
// refused by the CUDA emitter, one line naming the layer, nothing written;
// the CPU engines return them.
// RUN: not seq-compile %s --target=cuda --emit=cuda -o %t.cu 2>&1 | FileCheck %s
// RUN: not ls %t.cu
// CHECK: seq-compile: error: {{.*}}layer 'mha'{{.*}}the CUDA backend does not return attention scores yet (return_attention_scores); use the CPU backend (--target=cpu)

module {
  func.func @predict(%x: tensor<?x5x4xf32>) -> tensor<?x1x5x5xf32> {
    %q = seq.reshape %x [-1, 1, 4] : tensor<?x5x4xf32> -> tensor<?x5x1x4xf32> loc("heads")
    %w = seq.attention dot %q, %q, %q {scale = 0.5 : f32, weights} : tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32> -> tensor<?x1x5x5xf32> loc("mha")
    return %w : tensor<?x1x5x5xf32>
  }
}

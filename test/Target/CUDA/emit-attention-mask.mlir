// An attention_mask is refused by the CUDA emitter, one line naming the
// layer, nothing written; the CPU engines apply it.
// RUN: not seq-compile %s --target=cuda --emit=cuda -o %t.cu 2>&1 | FileCheck %s
// RUN: not ls %t.cu
// CHECK: seq-compile: error: {{.*}}layer 'mha'{{.*}}the CUDA backend does not apply an attention_mask yet; use the CPU backend (--target=cpu)

module {
  func.func @predict(%x: tensor<?x5x4xf32>) -> tensor<?x5x1x4xf32> {
    %m = seq.matmul %x, %x {transpose_b} : (tensor<?x5x4xf32>, tensor<?x5x4xf32>) -> tensor<?x5x5xf32> loc("scores")
    %q = seq.reshape %x [-1, 1, 4] : tensor<?x5x4xf32> -> tensor<?x5x1x4xf32> loc("heads")
    %y = seq.attention dot %q, %q, %q attention_mask(%m : tensor<?x5x5xf32>) {scale = 0.5 : f32} : tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32> -> tensor<?x5x1x4xf32> loc("mha")
    return %y : tensor<?x5x1x4xf32>
  }
}

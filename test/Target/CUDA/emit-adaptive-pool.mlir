// Adaptive pooling on CUDA: one launch of seqc::adaptive_pool_axis per axis
// whose size changes, the first spatial axis first, each into its own
// buffer. (Checked numerically by sim-fixtures.test.)
// RUN: seq-compile %s --target=cuda --emit=cuda --cuda-skip-fusion | FileCheck %s

module {
  func.func @predict(%x: tensor<?x7x5x3xf32>) -> tensor<?x3x4x3xf32> {
    %0 = seq.adaptive_avg_pool %x [3, 2] : tensor<?x7x5x3xf32> -> tensor<?x3x2x3xf32> loc("avg")
    %1 = seq.adaptive_max_pool %0 [3, 4] : tensor<?x3x2x3xf32> -> tensor<?x3x4x3xf32> loc("max")
    return %1 : tensor<?x3x4x3xf32>
  }
}

// CHECK: avg: seq.adaptive_avg_pool, adaptive average pooling of axis 1 to 3 -> v1
// CHECK: avg: seq.adaptive_avg_pool, adaptive average pooling of axis 2 to 2 -> v2
// CHECK: max: seq.adaptive_max_pool, adaptive max pooling of axis 2 to 4 -> v3
// CHECK: (seqc::adaptive_pool_axis(m->stream, m->v0, m->v1, D.v0[0], (int)D.v0[1], 3, D.v0[2] * D.v0[3], false)));
// CHECK: (seqc::adaptive_pool_axis(m->stream, m->v1, m->v2, D.v1[0] * D.v1[1], (int)D.v1[2], 2, D.v1[3], false)));
// CHECK: (seqc::adaptive_pool_axis(m->stream, m->v2, m->v3, D.v2[0] * D.v2[1], (int)D.v2[2], 4, D.v2[3], true)));

// Resizing on CUDA: one launch of seqc::resize_axis per axis whose size
// changes, the last spatial axis first, each into its own buffer. (Checked
// numerically by sim-fixtures.test.)
// RUN: seq-compile %s --target=cuda --emit=cuda --cuda-skip-fusion | FileCheck %s

module {
  func.func @predict(%x: tensor<?x4x5x3xf32>) -> tensor<?x2x7x3xf32> {
    %0 = seq.resize bilinear %x [3, 7] : tensor<?x4x5x3xf32> -> tensor<?x3x7x3xf32> loc("up")
    %1 = seq.resize nearest %0 [2, 7] : tensor<?x3x7x3xf32> -> tensor<?x2x7x3xf32> loc("down")
    return %1 : tensor<?x2x7x3xf32>
  }
}

// CHECK: up: seq.resize, linear resize of axis 2 to 7 -> v1
// CHECK: up: seq.resize, linear resize of axis 1 to 3 -> v2
// CHECK: down: seq.resize, nearest resize of axis 1 to 2 -> v3
// CHECK: (seqc::resize_axis(m->stream, m->v0, m->v1, D.v0[0] * D.v0[1], (int)D.v0[2], 7, D.v0[3], true)));
// CHECK: (seqc::resize_axis(m->stream, m->v1, m->v2, D.v1[0], (int)D.v1[1], 3, D.v1[2] * D.v1[3], true)));
// CHECK: (seqc::resize_axis(m->stream, m->v2, m->v3, D.v2[0], (int)D.v2[1], 2, D.v2[2] * D.v2[3], false)));

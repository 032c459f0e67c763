// seq.reverse on CUDA: one reverse_axis launch over (outer, length, inner),
// the length of an axis of unknown length read per call. (Checked
// numerically by sim-fixtures.test: reverse_keras2, flip_keras3.)
// RUN: seq-compile %s --target=cuda --emit=cuda --cuda-skip-fusion | FileCheck %s

// CHECK:     //   flip: seq.reverse, reverse axis 1 -> v1
// CHECK:     //   flip2: seq.reverse, reverse axis 2 -> v2
// CHECK:     seqc::reverse_axis(m->stream, m->v0, m->v1, D.v0[0], D.v0[1], D.v0[2])
// CHECK:     seqc::reverse_axis(m->stream, m->v1, m->v2, D.v1[0] * D.v1[1], D.v1[2], 1)
module {
  func.func @predict(%x: tensor<?x?x3xf32>) -> tensor<?x?x3xf32> {
    %0 = seq.reverse %x axis 1 : tensor<?x?x3xf32> loc("flip")
    %1 = seq.reverse %0 axis 2 : tensor<?x?x3xf32> loc("flip2")
    return %1 : tensor<?x?x3xf32>
  }
}

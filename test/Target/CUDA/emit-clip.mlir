// seq.clip on CUDA: one launch of the kernel library's clip over every
// element, its bounds as float literals. (Checked numerically by
// sim-fixtures.test: functional_ops_clip_keras2/3.)
// RUN: seq-compile %s --target=cuda --emit=cuda --cuda-skip-fusion | FileCheck %s

// CHECK:     //   clip: seq.clip, clip -> v1
// CHECK:     seqc::clip(m->stream, m->v0, m->v1, {{.*}}, -0.5f, 0.25f)
module {
  func.func @predict(%x: tensor<?x5x4xf32>) -> tensor<?x5x4xf32> {
    %0 = seq.clip %x {max = 0.25 : f32, min = -0.5 : f32} : tensor<?x5x4xf32> loc("clip")
    return %0 : tensor<?x5x4xf32>
  }
}

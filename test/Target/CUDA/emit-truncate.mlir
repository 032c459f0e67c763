// An input Keras casts to an integer dtype: one launch of seqc::truncate
// into its own buffer. (Checked numerically by sim-fixtures.test.)
// RUN: seq-compile %s --target=cuda --emit=cuda --cuda-skip-fusion | FileCheck %s

module {
  func.func @predict(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
    %0 = seq.truncate %x : tensor<?x3xf32> loc("input/cast")
    return %0 : tensor<?x3xf32>
  }
}

// CHECK: input_cast: seq.truncate, rounded toward zero -> v1
// CHECK: (seqc::truncate(m->stream, m->v0, m->v1, D.v0[0] * D.v0[1])));

// seq.slice on CUDA: a window of fixed size counted from the end of an axis
// of unknown length is one shift_copy whose offset is computed per call from
// that length, which is checked first to hold the window (the create/run
// error names the layer). (Checked numerically by sim-fixtures.test:
// functional_ops_last_step_keras2/3.)
// RUN: seq-compile %s --target=cuda --emit=cuda --cuda-skip-fusion | FileCheck %s

// CHECK:     //   window: seq.slice, slice, starts [-3, 0], sizes [2, 3] -> v1
// CHECK:     D.v1[0] = D.v0[0];
// CHECK-NEXT: D.v1[1] = 2;
// CHECK-NEXT: D.v1[2] = 3;
// CHECK-NEXT: if (D.v0[1] < 3)
// CHECK-NEXT:   return (const char *)seqc_str_0;
// CHECK:     seqc::shift_copy(m->stream, m->v0, m->v1, {{.*}}, seqc::Shape5{3, {(int64_t)0, (int64_t)-(D.v0[1] - 3), (int64_t)0, 1, 1}})
module {
  func.func @predict(%x: tensor<?x?x3xf32>) -> tensor<?x2x3xf32> {
    %0 = seq.slice %x starts [-3, 0] sizes [2, 3] : tensor<?x?x3xf32> -> tensor<?x2x3xf32> loc("window")
    return %0 : tensor<?x2x3xf32>
  }
}

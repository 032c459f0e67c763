// Bidirectional: the backward direction runs with go_backwards; the merge
// flips its sequence back in time.
// RUN: seq-compile %s --target=cuda --emit=cuda | FileCheck %s

module {
  func.func @predict(%x: tensor<?x5x3xf32>) -> tensor<?x5x4xf32> {
    %k = arith.constant dense<0.125> : tensor<3x4xf32> loc("bi/forward/kernel")
    %p = seq.linear %x, %k activation(linear) : (tensor<?x5x3xf32>, tensor<3x4xf32>) -> tensor<?x5x4xf32> loc("bi/forward")
    %r = arith.constant dense<0.0625> : tensor<4x4xf32> loc("bi/forward/recurrent_kernel")
    %f = seq.simple_rnn_recurrence %p, %r activation(tanh) {return_sequences} : (tensor<?x5x4xf32>, tensor<4x4xf32>) -> tensor<?x5x4xf32> loc("bi/forward")
    %k2 = arith.constant dense<-0.125> : tensor<3x4xf32> loc("bi/backward/kernel")
    %p2 = seq.linear %x, %k2 activation(linear) : (tensor<?x5x3xf32>, tensor<3x4xf32>) -> tensor<?x5x4xf32> loc("bi/backward")
    %r2 = arith.constant dense<-0.0625> : tensor<4x4xf32> loc("bi/backward/recurrent_kernel")
    %b = seq.simple_rnn_recurrence %p2, %r2 activation(tanh) {return_sequences, go_backwards} : (tensor<?x5x4xf32>, tensor<4x4xf32>) -> tensor<?x5x4xf32> loc("bi/backward")
    %y = seq.bidirectional ave %f, %b : (tensor<?x5x4xf32>, tensor<?x5x4xf32>) -> tensor<?x5x4xf32> loc("bi")
    return %y : tensor<?x5x4xf32>
  }
}

// CHECK: //   bi: seq.bidirectional, merge ave (backward flipped back in time) -> v[[Y:[0-9]+]]
// CHECK-LABEL: static int seqc_forward(seqc_layers *m, const seqc_dims &D) {
// CHECK: a.go_backwards = 0;
// CHECK: a.go_backwards = 1;
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::bidirectional<seqc::Merge::Ave>(m->stream, m->v{{[0-9]+}}, m->v{{[0-9]+}}, m->v[[Y]], D.v{{[0-9]+}}[0], D.v{{[0-9]+}}[1], (int)D.v{{[0-9]+}}[2], (int)D.v{{[0-9]+}}[2])));

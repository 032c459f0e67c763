// seq.gru_recurrence in both reset modes. reset_after adds the recurrent
// bias inside the kernel; reset_before needs r * h of every unit before the
// candidate, so the kernel gets the z and r*h exchange buffers.
// RUN: seq-compile %s --target=cuda --emit=cuda | FileCheck %s

module {
  func.func @predict(%x: tensor<?x4x2xf32>) -> tensor<?x5xf32> {
    %k = arith.constant dense<0.125> : tensor<2x15xf32> loc("after/kernel")
    %b = arith.constant dense<0.25> : tensor<15xf32> loc("after/input_bias")
    %p = seq.linear %x, %k, %b activation(linear) : (tensor<?x4x2xf32>, tensor<2x15xf32>, tensor<15xf32>) -> tensor<?x4x15xf32> loc("after")
    %r = arith.constant dense<0.0625> : tensor<5x15xf32> loc("after/recurrent_kernel")
    %rb = arith.constant dense<0.5> : tensor<15xf32> loc("after/recurrent_bias")
    %h = seq.gru_recurrence %p, %r, %rb activation(tanh, sigmoid) {return_sequences, reset_after} : (tensor<?x4x15xf32>, tensor<5x15xf32>, tensor<15xf32>) -> tensor<?x4x5xf32> loc("after")
    %k2 = arith.constant dense<-0.125> : tensor<5x15xf32> loc("before/kernel")
    %p2 = seq.linear %h, %k2 activation(linear) : (tensor<?x4x5xf32>, tensor<5x15xf32>) -> tensor<?x4x15xf32> loc("before")
    %r2 = arith.constant dense<-0.0625> : tensor<5x15xf32> loc("before/recurrent_kernel")
    %y = seq.gru_recurrence %p2, %r2 activation(tanh, hard_sigmoid_keras2) {go_backwards} : (tensor<?x4x15xf32>, tensor<5x15xf32>) -> tensor<?x5xf32> loc("before")
    return %y : tensor<?x5xf32>
  }
}

// CHECK: //   after: seq.gru_recurrence, persistent recurrence, 5 units, return_sequences
// CHECK: //   before: seq.gru_recurrence, persistent recurrence, 5 units, go_backwards

// CHECK: SEQC_CREATE_TRY({{seqc_str_[0-9]+}}, (seqc::plan_model_recurrence<seqc::Cell::GruResetAfter, seqc::Act::Tanh, seqc::Act::Sigmoid, 5>(&m->plan_v2)));
// CHECK: SEQC_CREATE_TRY({{seqc_str_[0-9]+}}, (seqc::plan_model_recurrence<seqc::Cell::GruResetBefore, seqc::Act::Tanh, seqc::Act::HardSigmoidKeras2, 5>(&m->plan_v5)));

// CHECK-LABEL: static int seqc_forward(seqc_layers *m, const seqc_dims &D) {
// CHECK: a.u = m->w + weights::after_recurrent_kernel;
// CHECK-NEXT: a.rbias = m->w + weights::after_recurrent_bias;
// CHECK-NEXT: a.out = m->v2;
// CHECK-NEXT: a.h = m->v3;
// CHECK-NEXT: a.c = nullptr;
// CHECK-NEXT: a.z = nullptr;
// CHECK-NEXT: a.rh = nullptr;
// CHECK: a.return_sequences = 1;
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::linear<seqc::Act::Linear>(m->stream, m->v2, m->w + weights::before_kernel, nullptr, m->v4, D.v2[0] * D.v2[1], 15, 5, 0.0f)));
// CHECK: a.rbias = nullptr;
// CHECK-NEXT: a.out = m->v5;
// CHECK-NEXT: a.h = m->v6;
// CHECK-NEXT: a.c = nullptr;
// CHECK-NEXT: a.z = m->v7;
// CHECK-NEXT: a.rh = m->v8;
// CHECK: a.go_backwards = 1;
// CHECK-NEXT: a.return_sequences = 0;

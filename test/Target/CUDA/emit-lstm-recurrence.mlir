// seq.lstm_recurrence: the input projection is one GEMM over all steps; the
// time loop is one persistent cooperative kernel planned at create.
// RUN: seq-compile %s --target=cuda --emit=cuda | FileCheck %s

module attributes {seq.metadata = {source = "lstm.mlir"}} {
  func.func @predict(%x: tensor<?x6x3xf32>) -> tensor<?x6x8xf32> {
    %k = arith.constant dense<0.125> : tensor<3x32xf32> loc("enc/kernel")
    %b = arith.constant dense<0.25> : tensor<32xf32> loc("enc/bias")
    %p = seq.linear %x, %k, %b activation(linear) : (tensor<?x6x3xf32>, tensor<3x32xf32>, tensor<32xf32>) -> tensor<?x6x32xf32> loc("enc")
    %r = arith.constant dense<0.0625> : tensor<8x32xf32> loc("enc/recurrent_kernel")
    %h = seq.lstm_recurrence %p, %r activation(tanh, hard_sigmoid_keras3) {return_sequences, go_backwards} : (tensor<?x6x32xf32>, tensor<8x32xf32>) -> tensor<?x6x8xf32> loc("enc")
    return %h : tensor<?x6x8xf32>
  }
}

// CHECK: //   enc: seq.linear, GEMM (?x6, 3) x (3, 32) + bias, linear -> v1
// CHECK-NEXT: //   enc: seq.lstm_recurrence, persistent recurrence, 8 units, go_backwards, return_sequences

// CHECK: template <Cell C, Act A, Act R, class W>
// CHECK-NEXT: __global__ void __launch_bounds__(kRecThreads) recurrence_kernel(RecurrenceArgs p) {

// CHECK-LABEL: struct seqc_dims {
// CHECK: int64_t v2[3]; // enc output
// CHECK-NEXT: int64_t v3[3]; // enc h (double-buffered)
// CHECK-NEXT: int64_t v4[2]; // enc cell state

// CHECK: D.v2[0] = D.v1[0];
// CHECK-NEXT: D.v2[1] = D.v1[1];
// CHECK-NEXT: D.v2[2] = 8;
// CHECK: D.v3[0] = 2;

// CHECK: seqc::RecurrencePlan plan_v2; // enc
// CHECK: SEQC_CREATE_TRY({{seqc_str_[0-9]+}}, (seqc::plan_model_recurrence<seqc::Cell::Lstm, seqc::Act::Tanh, seqc::Act::HardSigmoidKeras3, 8>(&m->plan_v2)));

// CHECK-LABEL: static int seqc_forward(seqc_layers *m, const seqc_dims &D) {
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::linear<seqc::Act::Linear>(m->stream, m->v0, m->w + weights::enc_kernel, m->w + weights::enc_bias, m->v1, D.v0[0] * D.v0[1], 32, 3, 0.0f)));
// CHECK: seqc::RecurrenceArgs a{};
// CHECK-NEXT: a.xproj = m->v1;
// CHECK-NEXT: a.u = m->w + weights::enc_recurrent_kernel;
// CHECK-NEXT: a.rbias = nullptr;
// CHECK-NEXT: a.out = m->v2;
// CHECK-NEXT: a.h = m->v3;
// CHECK-NEXT: a.c = m->v4;
// CHECK-NEXT: a.z = nullptr;
// CHECK-NEXT: a.rh = nullptr;
// CHECK-NEXT: a.batch = (int)D.v1[0];
// CHECK-NEXT: a.steps = (int)D.v1[1];
// CHECK-NEXT: a.units = 8;
// CHECK-NEXT: a.go_backwards = 1;
// CHECK-NEXT: a.return_sequences = 1;
// CHECK-NEXT: a.mask = nullptr;
// CHECK-NEXT: a.zero_output_for_mask = 0;
// CHECK-NEXT: a.h0 = nullptr;
// CHECK-NEXT: a.state_out = nullptr;
// CHECK-NEXT: a.alpha = 0.0f;
// CHECK-NEXT: a.recurrent_alpha = 0.0f;
// CHECK-NEXT: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::run_recurrence(m->stream, m->plan_v2, a)));

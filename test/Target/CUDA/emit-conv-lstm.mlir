// ConvLSTM: one direct convolution over every step's input (batch * steps
// frames, bias included), h and c zeroed, then per step the recurrent
// convolution of h ("same", stride 1, no bias) and the pointwise cell, which
// reads step T-1-s with go_backwards and stores the output at s.
// RUN: seq-compile %s --target=cuda --emit=cuda | FileCheck %s

module {
  func.func @predict(%x: tensor<?x4x6x3xf32>) -> tensor<?x4x6x2xf32> {
    %k = arith.constant dense<0.5> : tensor<3x3x8xf32> loc("cl/kernel")
    %r = arith.constant dense<0.25> : tensor<3x2x8xf32> loc("cl/recurrent_kernel")
    %b = arith.constant dense<0.125> : tensor<8xf32> loc("cl/bias")
    %0 = seq.conv_lstm %x, %k, %r, %b padding(same) activation(tanh, hard_sigmoid_keras3) {dilation_rate = array<i64: 1>, go_backwards, return_sequences, strides = array<i64: 1>} : (tensor<?x4x6x3xf32>, tensor<3x3x8xf32>, tensor<3x2x8xf32>, tensor<8xf32>) -> tensor<?x4x6x2xf32> loc("cl")
    return %0 : tensor<?x4x6x2xf32>
  }
}

// CHECK: // v1: cl input convolution of every step
// CHECK-NEXT: D.v1[0] = D.v0[0];
// CHECK-NEXT: D.v1[1] = D.v0[1];
// CHECK-NEXT: D.v1[2] = seqc::window1d(D.v0[2], 3, 1, seqc::Padding::Same).length;
// CHECK-NEXT: D.v1[3] = 8;
// CHECK: // v2: cl h
// CHECK: // v5: cl output

// CHECK-LABEL: static int seqc_forward(seqc_layers *m, const seqc_dims &D) {
// CHECK: seqc::conv_nd<seqc::Act::Linear>(m->stream, m->v0, m->w + weights::cl_kernel, m->w + weights::cl_bias, m->v1, D.v0[0] * D.v0[1], seqc::Sizes3{1, {(int)D.v0[2], 1, 1}}, 3, seqc::Sizes3{1, {(int)3, 1, 1}}, 8, 1, {{.*}}, seqc::Padding::Same, 0.0f)
// CHECK-NEXT: cudaMemsetAsync(m->v2, 0,
// CHECK-NEXT: cudaMemsetAsync(m->v3, 0,
// CHECK-NEXT: for (int64_t s = 0; s < D.v0[1]; ++s) {
// CHECK-NEXT: seqc::conv_nd<seqc::Act::Linear>(m->stream, m->v2, m->w + weights::cl_recurrent_kernel, nullptr, m->v4, D.v0[0], seqc::Sizes3{1, {(int)D.v2[1], 1, 1}}, 2, seqc::Sizes3{1, {(int)3, 1, 1}}, 8, 1, {{.*}}, seqc::Padding::Same, 0.0f)
// CHECK: a.out = m->v5;
// CHECK: a.t = (int)(D.v0[1] - 1 - s);
// CHECK: seqc::conv_lstm_cell<seqc::Act::Tanh, seqc::Act::HardSigmoidKeras3>(m->stream, a)
// CHECK-NEXT: }

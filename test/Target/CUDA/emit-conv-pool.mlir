// Conv1D (direct kernel) and the 1-D pools: output lengths are computed per
// call with Keras' window rules, and checked against the window size.
// RUN: seq-compile %s --target=cuda --emit=cuda | FileCheck %s

module {
  func.func @predict(%x: tensor<?x9x3xf32>) -> tensor<?x1x4xf32> {
    %k = arith.constant dense<0.125> : tensor<3x3x4xf32> loc("conv/kernel")
    %b = arith.constant dense<0.25> : tensor<4xf32> loc("conv/bias")
    %c = seq.conv1d %x, %k, %b padding(causal) activation(tanh) {dilation_rate = 2 : i64, strides = 1 : i64} : (tensor<?x9x3xf32>, tensor<3x3x4xf32>, tensor<4xf32>) -> tensor<?x9x4xf32> loc("conv")
    %m = seq.max_pool1d %c padding(same) {pool_size = 2 : i64, strides = 2 : i64} : tensor<?x9x4xf32> -> tensor<?x5x4xf32> loc("max")
    %a = seq.avg_pool1d %m padding(valid) {pool_size = 2 : i64, strides = 1 : i64} : tensor<?x5x4xf32> -> tensor<?x4x4xf32> loc("avg")
    %g = seq.global_max_pool1d %a {keepdims} : tensor<?x4x4xf32> -> tensor<?x1x4xf32> loc("gmax")
    return %g : tensor<?x1x4xf32>
  }
}

// CHECK: D.v1[0] = D.v0[0];
// CHECK-NEXT: D.v1[1] = seqc::window1d(D.v0[1], 5, 1, seqc::Padding::Causal).length;
// CHECK-NEXT: D.v1[2] = 4;
// CHECK-NEXT: if (D.v1[1] < 1)
// CHECK-NEXT: return (const char *){{seqc_str_[0-9]+}};
// CHECK: D.v2[1] = seqc::window1d(D.v1[1], 2, 2, seqc::Padding::Same).length;
// CHECK: D.v3[1] = seqc::window1d(D.v2[1], 2, 1, seqc::Padding::Valid).length;
// CHECK: // v4: gmax output
// CHECK-NEXT: D.v4[0] = D.v3[0];
// CHECK-NEXT: D.v4[1] = 1;
// CHECK-NEXT: D.v4[2] = D.v3[2];

// CHECK-LABEL: static int seqc_forward(seqc_layers *m, const seqc_dims &D) {
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::conv1d<seqc::Act::Tanh>(m->stream, m->v0, m->w + weights::conv_kernel, m->w + weights::conv_bias, m->v1, D.v0[0], D.v0[1], 3, 3, 4, 1, 2, seqc::Padding::Causal, 0.0f)));
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::pool1d<true>(m->stream, m->v1, m->v2, D.v1[0], D.v1[1], (int)D.v1[2], 2, 2, seqc::Padding::Same)));
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::pool1d<false>(m->stream, m->v2, m->v3, D.v2[0], D.v2[1], (int)D.v2[2], 2, 1, seqc::Padding::Valid)));
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::global_pool1d<true>(m->stream, m->v3, nullptr, m->v4, D.v3[0], D.v3[1], (int)D.v3[2])));

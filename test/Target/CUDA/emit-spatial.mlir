// Conv2D/3D, the 2-D/3-D poolings and the shape layers on CUDA: output sizes
// are computed per call with Keras' window rules (and checked), each op is one
// launch of the kernel library's spatial kernels; bilinear upsampling runs one
// axis at a time. (Checked numerically by sim-fixtures.test.)
// RUN: seq-compile %s --target=cuda --emit=cuda --cuda-skip-fusion | FileCheck %s

module {
  func.func @predict(%x: tensor<?x3x6x5xf32>) -> tensor<?x4x6x8xf32> {
    %k = arith.constant dense<0.125> : tensor<3x3x1x4xf32> loc("conv/kernel")
    %b = arith.constant dense<0.25> : tensor<4xf32> loc("conv/bias")
    %0 = seq.permute %x [2, 3, 1] : tensor<?x3x6x5xf32> -> tensor<?x6x5x3xf32> loc("conv/channels_last")
    %p = seq.zero_padding %0 low [0, 0, 1] high [0, 0, 0] : tensor<?x6x5x3xf32> -> tensor<?x6x5x4xf32> loc("pad")
    %1 = seq.conv2d %p, %k, %b padding(same) activation(relu) {dilation_rate = array<i64: 1, 2>, groups = 4 : i64, strides = array<i64: 2, 1>} : (tensor<?x6x5x4xf32>, tensor<3x3x1x4xf32>, tensor<4xf32>) -> tensor<?x3x5x4xf32> loc("conv")
    %2 = seq.avg_pool2d %1 padding(same) {pool_size = array<i64: 2, 2>, strides = array<i64: 1, 1>} : tensor<?x3x5x4xf32> -> tensor<?x3x5x4xf32> loc("pool")
    %3 = seq.cropping %2 low [0, 1, 0] high [0, 0, 0] : tensor<?x3x5x4xf32> -> tensor<?x3x4x4xf32> loc("crop")
    %4 = seq.upsampling bilinear %3 [2, 2, 1] : tensor<?x3x4x4xf32> -> tensor<?x6x8x4xf32> loc("up")
    %5 = seq.permute %4 [3, 1, 2] : tensor<?x6x8x4xf32> -> tensor<?x4x6x8xf32> loc("back")
    return %5 : tensor<?x4x6x8xf32>
  }
}

// CHECK: // v2: pad output
// CHECK: D.v2[3] = D.v1[3] + 1;
// CHECK: // v3: conv output
// CHECK-NEXT: D.v3[0] = D.v2[0];
// CHECK-NEXT: D.v3[1] = seqc::window1d(D.v2[1], 3, 2, seqc::Padding::Same).length;
// CHECK-NEXT: D.v3[2] = seqc::window1d(D.v2[2], 5, 1, seqc::Padding::Same).length;
// CHECK-NEXT: D.v3[3] = 4;
// CHECK-NEXT: if (D.v3[1] < 1)
// CHECK: // v5: crop output
// CHECK: D.v5[2] = D.v4[2] - 1;
// CHECK-NOT: if (D.v5[1] < 1)
// CHECK: if (D.v5[2] < 1)
// CHECK: D.v6[1] = D.v5[1] * 2;
// CHECK: D.v7[2] = D.v6[2] * 2;
// CHECK: // v8: back output
// CHECK-NEXT: D.v8[0] = D.v7[0];
// CHECK-NEXT: D.v8[1] = D.v7[3];
// CHECK-NEXT: D.v8[2] = D.v7[1];
// CHECK-NEXT: D.v8[3] = D.v7[2];

// CHECK-LABEL: static int seqc_forward(seqc_layers *m, const seqc_dims &D) {
// CHECK: (seqc::permute(m->stream, m->v0, m->v1, {{.*}}, seqc::Shape5{4, {(int64_t)0, (int64_t)2, (int64_t)3, (int64_t)1, 1}})));
// CHECK: (seqc::shift_copy(m->stream, m->v1, m->v2, {{.*}}, seqc::Shape5{4, {(int64_t)0, (int64_t)0, (int64_t)0, (int64_t)1, 1}})));
// CHECK: (seqc::conv_nd<seqc::Act::Relu>(m->stream, m->v2, m->w + weights::conv_kernel, m->w + weights::conv_bias, m->v3, D.v2[0], seqc::Sizes3{2, {(int)D.v2[1], (int)D.v2[2], 1}}, 4, seqc::Sizes3{2, {(int)3, (int)3, 1}}, 4, 4, seqc::Sizes3{2, {(int)2, (int)1, 1}}, seqc::Sizes3{2, {(int)1, (int)2, 1}}, seqc::Padding::Same, 0.0f)));
// CHECK: (seqc::pool_nd<false>(m->stream, m->v3, m->v4, D.v3[0], seqc::Sizes3{2, {(int)D.v3[1], (int)D.v3[2], 1}}, (int)D.v3[3], seqc::Sizes3{2, {(int)2, (int)2, 1}}, seqc::Sizes3{2, {(int)1, (int)1, 1}}, seqc::Padding::Same)));
// CHECK: (seqc::shift_copy(m->stream, m->v4, m->v5, {{.*}}, seqc::Shape5{4, {(int64_t)0, (int64_t)0, (int64_t)-1, (int64_t)0, 1}})));
// CHECK: (seqc::upsample_linear(m->stream, m->v5, m->v6, D.v5[0], (int)D.v5[1], D.v5[2] * D.v5[3], 2)));
// CHECK: (seqc::upsample_linear(m->stream, m->v6, m->v7, D.v6[0] * D.v6[1], (int)D.v6[2], D.v6[3], 2)));
// CHECK: (seqc::permute(m->stream, m->v7, m->v8, {{.*}}, seqc::Shape5{4, {(int64_t)0, (int64_t)3, (int64_t)1, (int64_t)2, 1}})));

// A transposed convolution on CUDA: output sizes are computed per call (input
// size times stride plus seq's constant part), and one launch of the kernel
// library's gathering conv_transpose_nd reads, for every output, the inputs
// and taps that reach it. (Checked numerically by sim-fixtures.test.)
// RUN: seq-compile %s --target=cuda --emit=cuda --cuda-skip-fusion | FileCheck %s

module {
  func.func @predict(%x: tensor<?x4x5x2xf32>) -> tensor<?x8x9x3xf32> {
    %k = arith.constant dense<0.125> : tensor<3x2x3x2xf32> loc("deconv/kernel")
    %b = arith.constant dense<0.25> : tensor<3xf32> loc("deconv/bias")
    %0 = seq.conv_transpose2d %x, %k, %b padding(same) activation(relu) {dilation_rate = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x4x5x2xf32>, tensor<3x2x3x2xf32>, tensor<3xf32>) -> tensor<?x8x9x3xf32> loc("deconv")
    return %0 : tensor<?x8x9x3xf32>
  }
}

// CHECK: deconv: seq.conv_transpose2d, transposed convolution, kernel 3x2, same, relu -> v1
// CHECK: // v1: deconv output
// CHECK-NEXT: D.v1[0] = D.v0[0];
// CHECK-NEXT: D.v1[1] = (D.v0[1] * 2 + 0);
// CHECK-NEXT: D.v1[2] = (D.v0[2] * 2 - 1);
// CHECK-NEXT: D.v1[3] = 3;
// CHECK: seqc::conv_transpose_nd<seqc::Act::Relu>(m->stream, m->v0, m->w + weights::deconv_kernel, m->w + weights::deconv_bias, m->v1, D.v0[0], seqc::Sizes3{2, {(int)D.v0[1], (int)D.v0[2], 1}}, 2, seqc::Sizes3{2, {(int)3, (int)2, 1}}, 3, seqc::Sizes3{2, {(int)2, (int)2, 1}}, seqc::Sizes3{2, {(int)1, (int)1, 1}}, seqc::Sizes3{2, {(int)D.v1[1], (int)D.v1[2], 1}}, seqc::Sizes3{2, {(int)0, (int)0, 1}}, 0.0f)

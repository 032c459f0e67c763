// Every activation works inside a recurrent cell. The cell takes the alphas
// of the activation names (elu 1, leaky_relu 0.2); a softmax cell is the
// same kernel template, which then plans one block for all units.
// RUN: seq-compile %s --target=cuda --emit=cuda | FileCheck %s
// The emitted source builds under the CPU simulation and for the GPU.
// RUN: seq-compile %s --target=cuda --emit=cuda -o %t.cu
// RUN: %host_cxx -std=c++17 -fsyntax-only -w -DSEQC_CPU_SIMULATION -include %cuda_kernels/seqc_cuda_sim.h -x c++ %t.cu

// CHECK: seqc::plan_model_recurrence<seqc::Cell::Lstm, seqc::Act::Elu, seqc::Act::LeakyRelu, {{[0-9]+}}>
// CHECK: seqc::plan_model_recurrence<seqc::Cell::GruResetAfter, seqc::Act::Softmax, seqc::Act::LogSoftmax, {{[0-9]+}}>
// CHECK: a.alpha = 1.0f;
// CHECK-NEXT: a.recurrent_alpha = 0.200000003f;
// CHECK: a.alpha = 0.0f;
// CHECK-NEXT: a.recurrent_alpha = 0.0f;

module {
  func.func @predict(%x: tensor<?x?x3xf32>) -> tensor<?x4xf32> {
    %k = arith.constant dense<0.125> : tensor<3x16xf32> loc("lstm/kernel")
    %p = seq.linear %x, %k activation(linear) : (tensor<?x?x3xf32>, tensor<3x16xf32>) -> tensor<?x?x16xf32> loc("lstm")
    %r = arith.constant dense<0.0625> : tensor<4x16xf32> loc("lstm/recurrent_kernel")
    %h = seq.lstm_recurrence %p, %r activation(elu, leaky_relu) {return_sequences} : (tensor<?x?x16xf32>, tensor<4x16xf32>) -> tensor<?x?x4xf32> loc("lstm")
    %k2 = arith.constant dense<0.25> : tensor<4x12xf32> loc("gru/kernel")
    %p2 = seq.linear %h, %k2 activation(linear) : (tensor<?x?x4xf32>, tensor<4x12xf32>) -> tensor<?x?x12xf32> loc("gru")
    %r2 = arith.constant dense<0.5> : tensor<4x12xf32> loc("gru/recurrent_kernel")
    %rb2 = arith.constant dense<0.125> : tensor<12xf32> loc("gru/recurrent_bias")
    %g = seq.gru_recurrence %p2, %r2, %rb2 activation(softmax, log_softmax) {reset_after} : (tensor<?x?x12xf32>, tensor<4x12xf32>, tensor<12xf32>) -> tensor<?x4xf32> loc("gru")
    return %g : tensor<?x4xf32>
  }
}

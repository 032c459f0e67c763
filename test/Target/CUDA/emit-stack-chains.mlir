// Which recurrences the CUDA emitter stacks: a chain with the same cell and
// activations, each layer feeding the next only through its input
// projection, with nothing else emitted between them. Here l0 -> l1 is cut
// by an unrelated GEMM ("side") emitted between them, and l1 -> l2 by l2's
// other activation: only l2 -> l3 becomes one stacked launch.
// RUN: seq-compile %s --target=cuda --emit=cuda | FileCheck %s

module {
  func.func @predict(%x: tensor<?x4x2xf32>) -> tensor<?x4x8xf32> {
    %k0 = arith.constant dense<0.125> : tensor<2x16xf32> loc("l0/kernel")
    %p0 = seq.linear %x, %k0 activation(linear) : (tensor<?x4x2xf32>, tensor<2x16xf32>) -> tensor<?x4x16xf32> loc("l0")
    %r0 = arith.constant dense<0.0625> : tensor<4x16xf32> loc("l0/recurrent_kernel")
    %h0 = seq.lstm_recurrence %p0, %r0 activation(tanh, sigmoid) {return_sequences} : (tensor<?x4x16xf32>, tensor<4x16xf32>) -> tensor<?x4x4xf32> loc("l0")
    %ks = arith.constant dense<0.5> : tensor<2x4xf32> loc("side/kernel")
    %side = seq.linear %x, %ks activation(linear) : (tensor<?x4x2xf32>, tensor<2x4xf32>) -> tensor<?x4x4xf32> loc("side")
    %k1 = arith.constant dense<0.25> : tensor<4x16xf32> loc("l1/kernel")
    %p1 = seq.linear %h0, %k1 activation(linear) : (tensor<?x4x4xf32>, tensor<4x16xf32>) -> tensor<?x4x16xf32> loc("l1")
    %r1 = arith.constant dense<-0.0625> : tensor<4x16xf32> loc("l1/recurrent_kernel")
    %h1 = seq.lstm_recurrence %p1, %r1 activation(tanh, sigmoid) {return_sequences} : (tensor<?x4x16xf32>, tensor<4x16xf32>) -> tensor<?x4x4xf32> loc("l1")
    %k2 = arith.constant dense<0.3125> : tensor<4x16xf32> loc("l2/kernel")
    %p2 = seq.linear %h1, %k2 activation(linear) : (tensor<?x4x4xf32>, tensor<4x16xf32>) -> tensor<?x4x16xf32> loc("l2")
    %r2 = arith.constant dense<0.125> : tensor<4x16xf32> loc("l2/recurrent_kernel")
    %h2 = seq.lstm_recurrence %p2, %r2 activation(relu, sigmoid) {return_sequences} : (tensor<?x4x16xf32>, tensor<4x16xf32>) -> tensor<?x4x4xf32> loc("l2")
    %k3 = arith.constant dense<0.375> : tensor<4x16xf32> loc("l3/kernel")
    %b3 = arith.constant dense<0.5> : tensor<16xf32> loc("l3/bias")
    %p3 = seq.linear %h2, %k3, %b3 activation(linear) : (tensor<?x4x4xf32>, tensor<4x16xf32>, tensor<16xf32>) -> tensor<?x4x16xf32> loc("l3")
    %r3 = arith.constant dense<0.1875> : tensor<4x16xf32> loc("l3/recurrent_kernel")
    %h3 = seq.lstm_recurrence %p3, %r3 activation(relu, sigmoid) {return_sequences} : (tensor<?x4x16xf32>, tensor<4x16xf32>) -> tensor<?x4x4xf32> loc("l3")
    %y = seq.bidirectional concat %h3, %side : (tensor<?x4x4xf32>, tensor<?x4x4xf32>) -> tensor<?x4x8xf32> loc("merge")
    return %y : tensor<?x4x8xf32>
  }
}

// CHECK: //   l0: seq.lstm_recurrence, persistent recurrence, 4 units, return_sequences
// CHECK-NOT: stacked recurrences
// CHECK: //   l1: seq.lstm_recurrence, persistent recurrence, 4 units, return_sequences
// CHECK-NOT: stacked recurrences
// CHECK: //   l2: seq.lstm_recurrence, persistent recurrence, 4 units, return_sequences
// CHECK-NOT: stacked recurrences
// CHECK: //   l3: seq.lstm_recurrence, persistent recurrence, 4 units, return_sequences
// CHECK-NEXT: //   l2: seq.lstm_recurrence, stacked recurrences l2, l3: one launch
// CHECK-NOT: stacked recurrences
// CHECK-LABEL: static const char *seqc_create_layers(seqc_layers *m, const seqc_dims &Dmax) {
// CHECK: const int units[] = {4, 4}, inputs[] = {0, 4};
// CHECK-NEXT: seqc::plan_stack<seqc::Cell::Lstm, seqc::Act::Relu, seqc::Act::Sigmoid>(2,
// CHECK-NOT: seqc::plan_stack<
// CHECK-LABEL: static int seqc_forward(seqc_layers *m, const seqc_dims &D) {
// CHECK: seqc::run_recurrence(m->stream, m->plan_v{{[0-9]+}}, a)
// CHECK: // side: seq.linear
// CHECK: seqc::run_recurrence(
// CHECK: if (m->stack_v{{[0-9]+}}.blocks) {
// CHECK: s.layer[1].w = m->w + weights::l3_kernel;
// CHECK-NEXT: s.layer[1].bias = m->w + weights::l3_bias;
// CHECK: } else {
// CHECK: // l3: seq.linear
// CHECK: seqc::run_recurrence(m->stream, m->plan_v{{[0-9]+}}, a)));
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: // merge: seq.bidirectional

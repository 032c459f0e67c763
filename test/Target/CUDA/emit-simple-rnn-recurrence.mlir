// seq.simple_rnn_recurrence: one gate, no recurrent activation.
// RUN: seq-compile %s --target=cuda --emit=cuda | FileCheck %s

module {
  func.func @predict(%x: tensor<?x?x3xf32>) -> tensor<?x4xf32> {
    %k = arith.constant dense<0.125> : tensor<3x4xf32> loc("rnn/kernel")
    %p = seq.linear %x, %k activation(linear) : (tensor<?x?x3xf32>, tensor<3x4xf32>) -> tensor<?x?x4xf32> loc("rnn")
    %r = arith.constant dense<0.0625> : tensor<4x4xf32> loc("rnn/recurrent_kernel")
    %h = seq.simple_rnn_recurrence %p, %r activation(relu) : (tensor<?x?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32> loc("rnn")
    return %h : tensor<?x4xf32>
  }
}

// A dynamic time axis: shapes follow the steps of each call, bounded at create.
// CHECK: D.v0[0] = batch;
// CHECK-NEXT: D.v0[1] = steps[0];
// CHECK: SEQC_CREATE_TRY({{seqc_str_[0-9]+}}, (seqc::plan_model_recurrence<seqc::Cell::SimpleRnn, seqc::Act::Relu, seqc::Act::Sigmoid, 4>(&m->plan_v2)));
// CHECK: a.c = nullptr;
// CHECK: a.units = 4;
// CHECK: a.return_sequences = 0;
// CHECK: d.default_max_seq_len = 512;
// CHECK-NEXT: d.dynamic_time = true;

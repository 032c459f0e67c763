// Embedding checks its ids on the device and names the bad one after the
// run; Flatten and Reshape alias their input's memory; RepeatVector copies;
// an Activation layer is its own elementwise (or softmax row) pass.
// RUN: seq-compile %s --target=cuda --emit=cuda --cuda-skip-fusion | FileCheck %s

module {
  func.func @predict(%ids: tensor<?x4xf32>) -> tensor<?x3x8xf32> {
    %t = arith.constant dense<0.5> : tensor<10x6xf32> loc("emb/embeddings")
    %e = seq.embedding %ids, %t : (tensor<?x4xf32>, tensor<10x6xf32>) -> tensor<?x4x6xf32> loc("emb")
    %f = seq.flatten %e : tensor<?x4x6xf32> -> tensor<?x24xf32> loc("flat")
    %r = seq.reshape %f [-1, 8] : tensor<?x24xf32> -> tensor<?x3x8xf32> loc("shape")
    %s = seq.activation softmax %r : tensor<?x3x8xf32> loc("probs")
    %g = seq.global_avg_pool1d %s : tensor<?x3x8xf32> -> tensor<?x8xf32> loc("mean")
    %v = seq.repeat_vector %g {n = 3 : i64} : tensor<?x8xf32> -> tensor<?x3x8xf32> loc("repeat")
    return %v : tensor<?x3x8xf32>
  }
}

// CHECK: // v2: flat output (aliases v1)
// CHECK-NEXT: D.v2[0] = D.v1[0];
// CHECK-NEXT: D.v2[1] = D.v1[1] * D.v1[2];
// CHECK-NEXT: // v3: shape output (aliases v1)
// CHECK-NEXT: D.v3[0] = D.v2[0];
// CHECK-NEXT: D.v3[1] = (D.v2[1]) / 8;
// CHECK-NEXT: D.v3[2] = 8;
// CHECK-NEXT: if ((D.v2[1]) % 8 != 0)
// CHECK-NEXT: return (const char *){{seqc_str_[0-9]+}};

// Aliases get no memory of their own; the Embedding's ids are checked after
// a call (the runtime's seqc_check_embedding_ids names the layer).
// CHECK-LABEL: static const seqc_buffer_shape seqc_buffers[] = {
// CHECK-NEXT: {SEQC_DIMS_AT(v0), 2}, // v0: model input
// CHECK-NEXT: {SEQC_DIMS_AT(v1), 3}, // v1: emb output
// CHECK-NEXT: {SEQC_DIMS_AT(v4), 3}, // v4: probs output
// CHECK: static const seqc_embedding seqc_embeddings[] = {
// CHECK-NEXT: {{[{]}}{{seqc_str_[0-9]+}}, 0, 10}, // v0

// CHECK-LABEL: static int seqc_forward(seqc_layers *m, const seqc_dims &D) {
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::embedding(m->stream, m->v0, m->w + weights::emb_embeddings, m->v1, D.v0[0] * D.v0[1], 10, 6, m->bad_ids + 0)));
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::activation<seqc::Act::Softmax>(m->stream, m->v1, m->v4, D.v3[0] * D.v3[1] * D.v3[2], (int)D.v3[2], 0.0f)));
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::global_pool1d<false>(m->stream, m->v4, nullptr, m->v5
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::repeat_vector(m->stream, m->v5, m->v6, D.v5[0], 3, (int)D.v5[1])));

// Discretization and CategoryEncoding on CUDA: one thread per output
// element; the boundaries are a weight. (Checked numerically by
// sim-fixtures.test.)
// RUN: seq-compile %s --target=cuda --emit=cuda --cuda-skip-fusion | FileCheck %s

module {
  func.func @predict(%x: tensor<?x3xf32>) -> tensor<?x3x5xf32> {
    %b = arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32> loc("bins/bin_boundaries")
    %0 = seq.discretize %x, %b : (tensor<?x3xf32>, tensor<4xf32>) -> tensor<?x3xf32> loc("bins")
    %1 = seq.category_encoding one_hot %0 {num_tokens = 5 : i64} : tensor<?x3xf32> -> tensor<?x3x5xf32> loc("encode")
    return %1 : tensor<?x3x5xf32>
  }
}

// CHECK: bins: seq.discretize, bucket indices over 4 boundaries -> v1
// CHECK: encode: seq.category_encoding, one_hot encoding of 5 tokens -> v2
// CHECK: (seqc::discretize(m->stream, m->v0, {{.*}}, m->v1, D.v0[0] * D.v0[1], 4)));
// CHECK: (seqc::category_encoding(m->stream, m->v1, m->v2, D.v1[0], (int)D.v1[1], 5, true, false)));

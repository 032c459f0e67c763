// GroupNormalization, UnitNormalization and RMSNormalization on CUDA: one
// warp per (sample, group) or per last-axis row. (Checked numerically by
// sim-fixtures.test.)
// RUN: seq-compile %s --target=cuda --emit=cuda --cuda-skip-fusion | FileCheck %s

module {
  func.func @predict(%x: tensor<?x5x6xf32>) -> tensor<?x5x6xf32> {
    %g = arith.constant dense<1.5> : tensor<6xf32> loc("gn/gamma")
    %b = arith.constant dense<0.25> : tensor<6xf32> loc("gn/beta")
    %s = arith.constant dense<0.5> : tensor<6xf32> loc("rms/scale")
    %0 = seq.group_norm %x, %g, %b {epsilon = 1.0e-3 : f32, groups = 3 : i64} : (tensor<?x5x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x5x6xf32> loc("gn")
    %1 = seq.unit_norm %0 : tensor<?x5x6xf32> loc("unit")
    %2 = seq.rms_norm %1, %s {epsilon = 1.0e-2 : f32} : (tensor<?x5x6xf32>, tensor<6xf32>) -> tensor<?x5x6xf32> loc("rms")
    %3 = seq.unit_norm %2 {epsilon = 1.0e-14 : f32} : tensor<?x5x6xf32> loc("normalize")
    return %3 : tensor<?x5x6xf32>
  }
}

// CHECK: gn: seq.group_norm, group normalization, 3 groups -> v1
// CHECK: unit: seq.unit_norm, unit normalization over the last axis -> v2
// CHECK: rms: seq.rms_norm, RMS normalization over the last axis -> v3
// CHECK: seqc::group_norm(m->stream, m->v0, m->w + weights::gn_gamma, m->w + weights::gn_beta, m->v1, D.v0[0], D.v0[1], (int)D.v0[2], 3, 0.00100000005f)
// CHECK: seqc::rms_norm(m->stream, m->v1, nullptr, m->v2, D.v1[0] * D.v1[1], (int)D.v1[2], 9.99999996e-13f, true)
// CHECK: seqc::rms_norm(m->stream, m->v2, m->w + weights::rms_scale, m->v3, D.v2[0] * D.v2[1], (int)D.v2[2], 0.00999999978f, false)
// CHECK: seqc::rms_norm(m->stream, m->v3, nullptr, m->v4, D.v3[0] * D.v3[1], (int)D.v3[2], 9.99999982e-15f, true)

// LayerNormalization over the last axis, and a BatchNormalization that the
// fusion cannot fold (nothing linear before it).
// RUN: seq-compile %s --target=cuda --emit=cuda | FileCheck %s

module {
  func.func @predict(%x: tensor<?x5x3xf32>) -> tensor<?x5x3xf32> {
    %g = arith.constant dense<1.5> : tensor<3xf32> loc("bn/gamma")
    %b = arith.constant dense<0.25> : tensor<3xf32> loc("bn/beta")
    %m = arith.constant dense<0.125> : tensor<3xf32> loc("bn/moving_mean")
    %v = arith.constant dense<2.0> : tensor<3xf32> loc("bn/moving_variance")
    %n = seq.batch_norm %x, %g, %b, %m, %v {epsilon = 1.000000e-03 : f32} : (tensor<?x5x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x5x3xf32> loc("bn")
    %lg = arith.constant dense<0.75> : tensor<3xf32> loc("ln/gamma")
    %lb = arith.constant dense<-0.25> : tensor<3xf32> loc("ln/beta")
    %y = seq.layer_norm %n, %lg, %lb {epsilon = 1.000000e-05 : f32} : (tensor<?x5x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x5x3xf32> loc("ln")
    return %y : tensor<?x5x3xf32>
  }
}

// CHECK-LABEL: static int seqc_forward(
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::batch_norm(m->stream, m->v0, m->w + weights::bn_gamma, m->w + weights::bn_beta, m->w + weights::bn_moving_mean, m->w + weights::bn_moving_variance, m->v1, D.v0[0] * D.v0[1] * D.v0[2], 3, 0.00100000005f)));
// CHECK: SEQC_TRY({{seqc_str_[0-9]+}}, (seqc::layer_norm(m->stream, m->v1, m->w + weights::ln_gamma, m->w + weights::ln_beta, m->v2, D.v1[0] * D.v1[1], (int)D.v1[2], 9.99999975e-06f)));

// RUN: seq-opt %s --seq-fuse-gru-gates --split-input-file -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s
// Resource blobs are printed only without -mlir-print-local-scope:
// RUN: seq-opt %s --seq-fuse-gru-gates --split-input-file | FileCheck %s --check-prefix=VALUES

// reset_after = false: the whole (3u) bias is in the input projection and
// the recurrence has no recurrent bias.
// CHECK-LABEL: func @reset_before
// CHECK: %[[P:.*]] = seq.linear %arg0, %{{.*}}, %{{.*}} activation(linear) : (tensor<?x5x3xf32>, tensor<3x6xf32>, tensor<6xf32>) -> tensor<?x5x6xf32> loc("gru")
// CHECK: %[[Y:.*]] = seq.gru_recurrence %[[P]], %{{[^ ,]*}} activation(tanh, sigmoid) {go_backwards} : (tensor<?x5x6xf32>, tensor<2x6xf32>) -> tensor<?x2xf32> loc("gru")
// CHECK: return %[[Y]]
func.func @reset_before(%x: tensor<?x5x3xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<1.0> : tensor<3x6xf32>
  %r = arith.constant dense<2.0> : tensor<2x6xf32>
  %b = arith.constant dense<0.5> : tensor<6xf32>
  %0 = seq.gru %x, %k, %r, %b activation(tanh, sigmoid) {go_backwards} : (tensor<?x5x3xf32>, tensor<3x6xf32>, tensor<2x6xf32>, tensor<6xf32>) -> tensor<?x2xf32> loc("gru")
  return %0 : tensor<?x2xf32>
}

// -----

// reset_after = true: bias row 0 [1..6] goes into the input projection,
// row 1 [7..12] becomes the recurrent bias (split at compile time).
// CHECK-LABEL: func @reset_after
// CHECK-DAG: %[[IB:.*]] = arith.constant dense_resource<gru.input_bias> : tensor<6xf32>
// CHECK-DAG: %[[RB:.*]] = arith.constant dense_resource<gru.recurrent_bias> : tensor<6xf32>
// CHECK: %[[P:.*]] = seq.linear %arg0, %{{.*}}, %[[IB]] activation(linear) : (tensor<?x5x3xf32>, tensor<3x6xf32>, tensor<6xf32>) -> tensor<?x5x6xf32>
// CHECK: %[[Y:.*]] = seq.gru_recurrence %[[P]], %{{.*}}, %[[RB]] activation(tanh, sigmoid) {reset_after, return_sequences} : (tensor<?x5x6xf32>, tensor<2x6xf32>, tensor<6xf32>) -> tensor<?x5x2xf32>
// CHECK: return %[[Y]]
// VALUES: gru.input_bias: "0x040000000000803F0000004000004040000080400000A0400000C040"
// VALUES: gru.recurrent_bias: "0x040000000000E0400000004100001041000020410000304100004041"
func.func @reset_after(%x: tensor<?x5x3xf32>) -> tensor<?x5x2xf32> {
  %k = arith.constant dense<1.0> : tensor<3x6xf32>
  %r = arith.constant dense<2.0> : tensor<2x6xf32>
  %b = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [7.0, 8.0, 9.0, 10.0, 11.0, 12.0]]> : tensor<2x6xf32>
  %0 = seq.gru %x, %k, %r, %b activation(tanh, sigmoid) {reset_after, return_sequences} : (tensor<?x5x3xf32>, tensor<3x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<?x5x2xf32> loc("gru")
  return %0 : tensor<?x5x2xf32>
}

// -----

// reset_after without bias: no input bias, a zero recurrent bias (the
// recurrence requires one with reset_after).
// CHECK-LABEL: func @reset_after_no_bias
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<6xf32>
// CHECK: %[[P:.*]] = seq.linear %arg0, %{{[^,]*}} activation(linear) : (tensor<?x5x3xf32>, tensor<3x6xf32>) -> tensor<?x5x6xf32>
// CHECK: seq.gru_recurrence %[[P]], %{{.*}}, %[[Z]] activation(tanh, hard_sigmoid_keras3) {reset_after}
func.func @reset_after_no_bias(%x: tensor<?x5x3xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<1.0> : tensor<3x6xf32>
  %r = arith.constant dense<2.0> : tensor<2x6xf32>
  %0 = seq.gru %x, %k, %r activation(tanh, hard_sigmoid_keras3) {reset_after} : (tensor<?x5x3xf32>, tensor<3x6xf32>, tensor<2x6xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// Not fused: a reset_after bias that is not a constant cannot be split.
// CHECK-LABEL: func @runtime_bias
// CHECK: seq.gru %arg0
// CHECK-NOT: seq.gru_recurrence
func.func @runtime_bias(%x: tensor<?x5x3xf32>, %b: tensor<2x6xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense<1.0> : tensor<3x6xf32>
  %r = arith.constant dense<2.0> : tensor<2x6xf32>
  %0 = seq.gru %x, %k, %r, %b activation(tanh, sigmoid) {reset_after} : (tensor<?x5x3xf32>, tensor<3x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// Bidirectional needs nothing special: its two directions are two GRUs,
// each fused on its own; the merge stays.
// CHECK-LABEL: func @bidirectional
// CHECK: %[[PF:.*]] = seq.linear %arg0
// CHECK: %[[F:.*]] = seq.gru_recurrence %[[PF]], {{.*}} {return_sequences} {{.*}} loc("forward_gru")
// CHECK: %[[PB:.*]] = seq.linear %arg0
// CHECK: %[[B:.*]] = seq.gru_recurrence %[[PB]], {{.*}} {go_backwards, return_sequences} {{.*}} loc("backward_gru")
// CHECK: seq.bidirectional ave %[[F]], %[[B]]
// CHECK-NOT: seq.gru %
func.func @bidirectional(%x: tensor<?x5x3xf32>) -> tensor<?x5x2xf32> {
  %k = arith.constant dense<1.0> : tensor<3x6xf32>
  %r = arith.constant dense<2.0> : tensor<2x6xf32>
  %b = arith.constant dense<0.5> : tensor<6xf32>
  %0 = seq.gru %x, %k, %r, %b activation(tanh, sigmoid) {return_sequences} : (tensor<?x5x3xf32>, tensor<3x6xf32>, tensor<2x6xf32>, tensor<6xf32>) -> tensor<?x5x2xf32> loc("forward_gru")
  %1 = seq.gru %x, %k, %r, %b activation(tanh, sigmoid) {return_sequences, go_backwards} : (tensor<?x5x3xf32>, tensor<3x6xf32>, tensor<2x6xf32>, tensor<6xf32>) -> tensor<?x5x2xf32> loc("backward_gru")
  %2 = seq.bidirectional ave %0, %1 : (tensor<?x5x2xf32>, tensor<?x5x2xf32>) -> tensor<?x5x2xf32>
  return %2 : tensor<?x5x2xf32>
}

// RUN: seq-opt %s --seq-canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func @linear_activation
// CHECK-NOT: seq.activation linear
// CHECK: %[[R:.*]] = seq.activation relu %arg0
// CHECK: return %[[R]]
func.func @linear_activation(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = seq.activation linear %x : tensor<?x4xf32>
  %1 = seq.activation relu %0 : tensor<?x4xf32>
  %2 = seq.activation linear %1 : tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @reshape_of_reshape
// CHECK: %[[R:.*]] = seq.reshape %arg0 [3, 4] : tensor<?x2x6xf32> -> tensor<?x3x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<?x2x6xf32>) -> tensor<?x3x4xf32> {
  %0 = seq.reshape %x [12] : tensor<?x2x6xf32> -> tensor<?x12xf32>
  %1 = seq.reshape %0 [3, 4] : tensor<?x12xf32> -> tensor<?x3x4xf32>
  return %1 : tensor<?x3x4xf32>
}

// -----

// A single reshape, or a reshape whose inner one has another user, stays
// (the latter becomes two reshapes of the input).
// CHECK-LABEL: func @reshapes_kept
// CHECK-DAG: %[[A:.*]] = seq.reshape %arg0 [12]
// CHECK-DAG: %[[B:.*]] = seq.reshape %arg0 [-1, 4]
// CHECK: return %[[A]], %[[B]]
func.func @reshapes_kept(%x: tensor<?x2x6xf32>) -> (tensor<?x12xf32>, tensor<?x3x4xf32>) {
  %0 = seq.reshape %x [12] : tensor<?x2x6xf32> -> tensor<?x12xf32>
  %1 = seq.reshape %0 [-1, 4] : tensor<?x12xf32> -> tensor<?x3x4xf32>
  return %0, %1 : tensor<?x12xf32>, tensor<?x3x4xf32>
}

// -----

// TimeDistributed(Dense): the dense applies to the 3-D input directly; a
// weight defined inside the body is hoisted.
// CHECK-LABEL: func @time_distributed_dense
// CHECK-NOT: seq.time_distributed
// CHECK-DAG: %[[K:.*]] = arith.constant dense<1.000000e+00> : tensor<4x3xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<5.000000e-01> : tensor<3xf32>
// CHECK: %[[Y:.*]] = seq.dense %arg0, %[[K]], %[[B]] activation(tanh) : (tensor<?x5x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x5x3xf32>
// CHECK-NEXT: return %[[Y]]
func.func @time_distributed_dense(%x: tensor<?x5x4xf32>) -> tensor<?x5x3xf32> {
  %k = arith.constant dense<1.0> : tensor<4x3xf32>
  %0 = seq.time_distributed %x : tensor<?x5x4xf32> -> tensor<?x5x3xf32> {
  ^bb0(%s: tensor<?x4xf32>):
    %b = arith.constant dense<0.5> : tensor<3xf32>
    %d = seq.dense %s, %k, %b activation(tanh) : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    seq.yield %d : tensor<?x3xf32>
  }
  return %0 : tensor<?x5x3xf32>
}

// -----

// A body with more than one layer stays a time_distributed.
// CHECK-LABEL: func @time_distributed_kept
// CHECK: seq.time_distributed
// CHECK: seq.dense
// CHECK: seq.activation relu
// CHECK: seq.yield
func.func @time_distributed_kept(%x: tensor<?x5x4xf32>) -> tensor<?x5x3xf32> {
  %k = arith.constant dense<1.0> : tensor<4x3xf32>
  %0 = seq.time_distributed %x : tensor<?x5x4xf32> -> tensor<?x5x3xf32> {
  ^bb0(%s: tensor<?x4xf32>):
    %d = seq.dense %s, %k activation(linear) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %a = seq.activation relu %d : tensor<?x3xf32>
    seq.yield %a : tensor<?x3xf32>
  }
  return %0 : tensor<?x5x3xf32>
}

// -----

// channels_first conv -> channels_first pool: the transposes in between cancel.
// CHECK-LABEL: func @permute_pairs
// CHECK-NEXT: %[[Q:.*]] = seq.permute %arg0 [3, 1, 2] : tensor<?x3x4x5xf32> -> tensor<?x5x3x4xf32>
// CHECK-NEXT: return %arg0, %[[Q]]
func.func @permute_pairs(%x: tensor<?x3x4x5xf32>) -> (tensor<?x3x4x5xf32>, tensor<?x5x3x4xf32>) {
  %0 = seq.permute %x [2, 3, 1] : tensor<?x3x4x5xf32> -> tensor<?x4x5x3xf32>
  %1 = seq.permute %0 [3, 1, 2] : tensor<?x4x5x3xf32> -> tensor<?x3x4x5xf32>
  %2 = seq.permute %0 [2, 3, 1] : tensor<?x4x5x3xf32> -> tensor<?x5x3x4xf32>
  return %1, %2 : tensor<?x3x4x5xf32>, tensor<?x5x3x4xf32>
}

// -----

// Two permutes compose into one.
// CHECK-LABEL: func @permute_compose
// CHECK-NEXT: %[[P:.*]] = seq.permute %arg0 [3, 1, 2] : tensor<?x3x4x5xf32> -> tensor<?x5x3x4xf32>
// CHECK-NEXT: return %[[P]]
func.func @permute_compose(%x: tensor<?x3x4x5xf32>) -> tensor<?x5x3x4xf32> {
  %0 = seq.permute %x [2, 3, 1] : tensor<?x3x4x5xf32> -> tensor<?x4x5x3xf32>
  %1 = seq.permute %0 [2, 3, 1] : tensor<?x4x5x3xf32> -> tensor<?x5x3x4xf32>
  return %1 : tensor<?x5x3x4xf32>
}

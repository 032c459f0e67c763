// RUN: seq-opt %s --seq-strip-dropout | FileCheck %s

// CHECK-LABEL: func @chain
// CHECK-NOT: seq.dropout
// CHECK: %[[A:.*]] = seq.activation relu %arg0
// CHECK-NEXT: %[[B:.*]] = seq.activation tanh %[[A]]
// CHECK-NEXT: return %[[B]]
func.func @chain(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = seq.dropout %x {rate = 0.5 : f32} : tensor<?x4xf32>
  %1 = seq.activation relu %0 : tensor<?x4xf32>
  %2 = seq.dropout %1 {rate = 0.1 : f32} : tensor<?x4xf32>
  %3 = seq.activation tanh %2 : tensor<?x4xf32>
  return %3 : tensor<?x4xf32>
}

// Inside a TimeDistributed body too.
// CHECK-LABEL: func @nested
// CHECK-NOT: seq.dropout
// CHECK: seq.yield %arg1
func.func @nested(%x: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  %0 = seq.time_distributed %x : tensor<?x3x4xf32> -> tensor<?x3x4xf32> {
  ^bb0(%s: tensor<?x4xf32>):
    %d = seq.dropout %s {rate = 0.5 : f32} : tensor<?x4xf32>
    seq.yield %d : tensor<?x4xf32>
  }
  return %0 : tensor<?x3x4xf32>
}

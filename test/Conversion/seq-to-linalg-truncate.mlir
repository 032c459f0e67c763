// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s
//
// seq.truncate (Keras' cast of a model input to an integer dtype) is one
// elementwise math.trunc.

// CHECK-LABEL: func.func @truncate(
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<?x3xf32>) outs(%{{.*}} : tensor<?x3xf32>)
// CHECK:           %[[T:.*]] = math.trunc %{{.*}} : f32
// CHECK:           linalg.yield %[[T]] : f32
func.func @truncate(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = seq.truncate %x : tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

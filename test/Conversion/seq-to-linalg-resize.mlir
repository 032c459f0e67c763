// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s
//
// seq.resize interpolates one axis at a time, the last spatial axis first
// (as TensorFlow's kernels do), with scale = in / out as a float32 constant;
// an axis that keeps its size is not touched.

// Bilinear: width 5 -> 7 (scale 5/7), then height 4 -> 3 (scale 4/3).
// CHECK-LABEL: func.func @bilinear(
// CHECK-DAG:     %[[SH:.*]] = arith.constant 1.33333337 : f32
// CHECK-DAG:     %[[SW:.*]] = arith.constant 0.714285731 : f32
// CHECK:         %[[W:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x4x7x3xf32>)
// CHECK:           arith.mulf %{{.*}}, %[[SW]] : f32
// CHECK:           math.floor
// CHECK:           math.ceil
// CHECK:           tensor.extract
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<?x3x7x3xf32>)
// CHECK:           arith.mulf %{{.*}}, %[[SH]] : f32
// CHECK:           tensor.extract %[[W]]
func.func @bilinear(%x: tensor<?x4x5x3xf32>) -> tensor<?x3x7x3xf32> {
  %0 = seq.resize bilinear %x [3, 7] : tensor<?x4x5x3xf32> -> tensor<?x3x7x3xf32>
  return %0 : tensor<?x3x7x3xf32>
}

// Nearest: only the height changes (4 -> 2, scale 2): min(floor((o + 0.5) * 2), 3).
// CHECK-LABEL: func.func @nearest(
// CHECK-DAG:     %[[S:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<?x2x5x3xf32>)
// CHECK:           arith.mulf %{{.*}}, %[[S]] : f32
// CHECK:           math.floor
// CHECK-NOT:       math.ceil
// CHECK:           arith.minsi
// CHECK:           tensor.extract
// CHECK-NOT:     linalg.generic
func.func @nearest(%x: tensor<?x4x5x3xf32>) -> tensor<?x2x5x3xf32> {
  %0 = seq.resize nearest %x [2, 5] : tensor<?x4x5x3xf32> -> tensor<?x2x5x3xf32>
  return %0 : tensor<?x2x5x3xf32>
}

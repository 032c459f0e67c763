// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s
//
// The adaptive poolings reduce one axis at a time, the first spatial axis
// first: a linalg.generic whose last loop runs over the largest window's
// taps (a shape-only operand gives it its extent), output t reading
// x[floor(t*L/n) + tap] while that is below ceil((t+1)*L/n); the average
// then divides each output by its window's size. An axis that keeps its
// size is not touched.

// 9 -> 5 along time: windows of 2 and 3 (taps 3), starts t*9/5, ends
// (t*9 + 9 + 4)/5.
// CHECK-LABEL: func.func @average(
// CHECK-SAME:      %[[X:.*]]: tensor<?x9x4xf32>
// CHECK-DAG:     %[[C9:.*]] = arith.constant 9 : index
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[TAPS:.*]] = tensor.empty() : tensor<3xf32>
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]{{.*}} ins(%[[TAPS]] : tensor<3xf32>) outs(%{{.*}} : tensor<?x5x4xf32>)
// CHECK:           %[[T:.*]] = linalg.index 1 : index
// CHECK:           %[[TAP:.*]] = linalg.index 3 : index
// CHECK:           %[[START:.*]] = arith.divui %{{.*}}, %[[C5]] : index
// CHECK:           %[[END:.*]] = arith.divui %{{.*}}, %[[C5]] : index
// CHECK:           %[[AT:.*]] = arith.addi %[[START]], %[[TAP]] : index
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[AT]], %[[END]] : index
// CHECK:           %[[CLAMPED:.*]] = arith.minui %[[AT]], %[[C8]] : index
// CHECK:           %[[V:.*]] = tensor.extract %[[X]][%{{.*}}, %[[CLAMPED]], %{{.*}}]
// CHECK:           %[[ADD:.*]] = arith.addf %{{.*}}, %[[V]] : f32
// CHECK:           arith.select %[[IN]], %[[ADD]], %{{.*}} : f32
// CHECK:         linalg.generic {{.*}} outs(%[[SUM]] : tensor<?x5x4xf32>)
// CHECK:           arith.subi
// CHECK:           arith.sitofp
// CHECK:           arith.divf
// CHECK:         return
func.func @average(%x: tensor<?x9x4xf32>) -> tensor<?x5x4xf32> {
  %0 = seq.adaptive_avg_pool %x [5] : tensor<?x9x4xf32> -> tensor<?x5x4xf32>
  return %0 : tensor<?x5x4xf32>
}

// Max, rows 7 -> 3 then columns 5 -> 2 (the column pass reads the row
// pass' result); no division.
// CHECK-LABEL: func.func @max(
// CHECK-DAG:     %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[NEG]] : f32) outs(%{{.*}} : tensor<?x3x5x3xf32>)
// CHECK:         %[[ROWS:.*]] = linalg.generic {{.*}} outs(%[[INIT]] : tensor<?x3x5x3xf32>)
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<?x3x2x3xf32>)
// CHECK:           tensor.extract %[[ROWS]]
// CHECK:           arith.maximumf
// CHECK-NOT:     arith.divf
// CHECK:         return
func.func @max(%x: tensor<?x7x5x3xf32>) -> tensor<?x3x2x3xf32> {
  %0 = seq.adaptive_max_pool %x [3, 2] : tensor<?x7x5x3xf32> -> tensor<?x3x2x3xf32>
  return %0 : tensor<?x3x2x3xf32>
}

// An axis that keeps its size is left alone: only the columns are pooled.
// CHECK-LABEL: func.func @one_axis(
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @one_axis(%x: tensor<?x7x5x3xf32>) -> tensor<?x7x2x3xf32> {
  %0 = seq.adaptive_max_pool %x [7, 2] : tensor<?x7x5x3xf32> -> tensor<?x7x2x3xf32>
  return %0 : tensor<?x7x2x3xf32>
}

// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s

// The map of an input that broadcasts its axis 1 (@broadcast below).
// CHECK: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>

// An elementwise merge of three inputs is one linalg.generic, combined left
// to right; Average divides the sum by the count at the end.
// CHECK-LABEL: func.func @average(
// CHECK-SAME:      %[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<?x4xf32>, %[[C:.*]]: tensor<?x4xf32>)
// CHECK:         %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %[[B]], %[[C]] : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>)
// CHECK:           %[[AB:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[ABC:.*]] = arith.addf %[[AB]], %{{.*}} : f32
// CHECK:           arith.divf %[[ABC]], %[[THREE]] : f32
func.func @average(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>, %c: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = seq.merge average %a, %b, %c : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @subtract_minimum(
// CHECK:         arith.subf
// CHECK:         arith.minimumf
func.func @subtract_minimum(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = seq.merge subtract %a, %b : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %1 = seq.merge minimum %0, %b : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// An input's axis of static size 1 broadcasts: its map reads index 0 there;
// the result's size comes from the other input.
// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME:      %[[A:.*]]: tensor<?x?x3xf32>, %[[B:.*]]: tensor<?x1x3xf32>)
// CHECK:         %[[T:.*]] = tensor.dim %[[A]], %c1
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%{{.*}}, %[[T]]) : tensor<?x?x3xf32>
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[ROW]], #{{.*}}]{{.*}} ins(%[[A]], %[[B]] : tensor<?x?x3xf32>, tensor<?x1x3xf32>) outs(%[[EMPTY]]
// CHECK:           arith.divf
func.func @broadcast(%a: tensor<?x?x3xf32>, %b: tensor<?x1x3xf32>) -> tensor<?x?x3xf32> {
  %0 = seq.merge divide %a, %b : tensor<?x?x3xf32>, tensor<?x1x3xf32> -> tensor<?x?x3xf32>
  return %0 : tensor<?x?x3xf32>
}

// Concatenation inserts each input into its slice of the result; the
// offsets along the axis follow the inputs' sizes (dynamic ones added up).
// CHECK-LABEL: func.func @concatenate(
// CHECK-SAME:      %[[X:.*]]: tensor<?x5x3xf32>, %[[Y:.*]]: tensor<?x5x2xf32>)
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%{{.*}}) : tensor<?x5x5xf32>
// CHECK:         %[[FIRST:.*]] = tensor.insert_slice %[[X]] into %[[EMPTY]][0, 0, 0] [%{{.*}}, 5, 3] [1, 1, 1]
// CHECK:         tensor.insert_slice %[[Y]] into %[[FIRST]][0, 0, 3] [%{{.*}}, 5, 2] [1, 1, 1]
func.func @concatenate(%x: tensor<?x5x3xf32>, %y: tensor<?x5x2xf32>) -> tensor<?x5x5xf32> {
  %0 = seq.concatenate %x, %y {axis = 2 : i64} : tensor<?x5x3xf32>, tensor<?x5x2xf32> -> tensor<?x5x5xf32>
  return %0 : tensor<?x5x5xf32>
}

// Along a dynamic axis the size and the second offset are computed.
// CHECK-LABEL: func.func @concatenate_time(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?x3xf32>, %[[Y:.*]]: tensor<?x?x3xf32>)
// CHECK:         %[[T1:.*]] = tensor.dim %[[X]], %c1
// CHECK:         %[[T2:.*]] = tensor.dim %[[Y]], %c1
// CHECK:         %[[T:.*]] = arith.addi %[[T1]], %[[T2]] : index
// CHECK:         tensor.insert_slice %[[Y]] into %{{.*}}[0, %[[T1]], 0]
func.func @concatenate_time(%x: tensor<?x?x3xf32>, %y: tensor<?x?x3xf32>) -> tensor<?x?x3xf32> {
  %0 = seq.concatenate %x, %y {axis = 1 : i64} : tensor<?x?x3xf32>, tensor<?x?x3xf32> -> tensor<?x?x3xf32>
  return %0 : tensor<?x?x3xf32>
}

// A stack inserts each input into its slice along the new leading axis.
// CHECK-LABEL: func.func @stack(
// CHECK-SAME:      %[[H:.*]]: tensor<?x4xf32>, %[[C:.*]]: tensor<?x4xf32>)
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%{{.*}}) : tensor<2x?x4xf32>
// CHECK:         %[[FIRST:.*]] = tensor.insert_slice %[[H]] into %[[EMPTY]][0, 0, 0] [1, %{{.*}}, 4] [1, 1, 1]
// CHECK:         tensor.insert_slice %[[C]] into %[[FIRST]][1, 0, 0] [1, %{{.*}}, 4] [1, 1, 1]
func.func @stack(%h: tensor<?x4xf32>, %c: tensor<?x4xf32>) -> tensor<2x?x4xf32> {
  %0 = seq.stack %h, %c : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<2x?x4xf32>
  return %0 : tensor<2x?x4xf32>
}

// One state out of a final state: a rank-reducing slice.
// CHECK-LABEL: func.func @unstack
// CHECK:         tensor.extract_slice %{{.*}}[1, 0, 0] [1, %{{.*}}, 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<?x4xf32>
func.func @unstack(%s: tensor<2x?x4xf32>) -> tensor<?x4xf32> {
  %0 = seq.unstack %s[1] : tensor<2x?x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

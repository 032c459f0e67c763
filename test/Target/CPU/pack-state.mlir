// RUN: seq-opt --seq-cpu-prepare-entry --allow-unregistered-dialect %s | FileCheck %s

// A stateful @predict's per-layer states become one flat argument and one
// flat result, in argument order, so that its C interface is always
// (input, state) -> (output, state).
// CHECK-LABEL: func.func @predict(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32> {bufferization.writable = false},
// CHECK-SAME:      %[[S:.*]]: tensor<22xf32> {bufferization.writable = false})
// CHECK-SAME:      -> (tensor<2x4xf32>, tensor<22xf32>) attributes {llvm.emit_c_interface}
// CHECK-DAG:     %[[A:.*]] = tensor.extract_slice %[[S]][0] [16] [1] : tensor<22xf32> to tensor<16xf32>
// CHECK-DAG:     %[[A3:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1, 2]] output_shape [2, 2, 4] : tensor<16xf32> into tensor<2x2x4xf32>
// CHECK-DAG:     %[[B:.*]] = tensor.extract_slice %[[S]][16] [6] [1] : tensor<22xf32> to tensor<6xf32>
// CHECK-DAG:     %[[B3:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1, 2]] output_shape [1, 2, 3] : tensor<6xf32> into tensor<1x2x3xf32>
// CHECK:         %[[Y:.*]] = "test.step"(%[[X]], %[[A3]], %[[B3]])
// CHECK:         %[[FA:.*]] = tensor.collapse_shape %[[A3]] {{\[\[}}0, 1, 2]] : tensor<2x2x4xf32> into tensor<16xf32>
// CHECK:         %[[P:.*]] = tensor.insert_slice %[[FA]] into %{{.*}}[0] [16] [1] : tensor<16xf32> into tensor<22xf32>
// CHECK:         %[[FB:.*]] = tensor.collapse_shape %[[B3]] {{\[\[}}0, 1, 2]] : tensor<1x2x3xf32> into tensor<6xf32>
// CHECK:         %[[Q:.*]] = tensor.insert_slice %[[FB]] into %[[P]][16] [6] [1] : tensor<6xf32> into tensor<22xf32>
// CHECK:         return %[[Y]], %[[Q]] : tensor<2x4xf32>, tensor<22xf32>
func.func @predict(%x: tensor<2x3xf32>, %a: tensor<2x2x4xf32> {seq.state = "lstm"},
                   %b: tensor<1x2x3xf32> {seq.state = "gru"})
    -> (tensor<2x4xf32>, tensor<2x2x4xf32>, tensor<1x2x3xf32>) {
  %y = "test.step"(%x, %a, %b) : (tensor<2x3xf32>, tensor<2x2x4xf32>, tensor<1x2x3xf32>) -> tensor<2x4xf32>
  return %y, %a, %b : tensor<2x4xf32>, tensor<2x2x4xf32>, tensor<1x2x3xf32>
}

// A stateless @predict keeps its signature.
// CHECK-LABEL: func.func @other(
// CHECK-SAME:      tensor<2x3xf32> {bufferization.writable = false}) -> tensor<2x3xf32>
func.func @other(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}

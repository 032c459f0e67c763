// RUN: seq-opt --seq-to-linalg --canonicalize --cse %s | FileCheck %s
//
// seq.discretize is a reduction over the boundaries counting !(x < b)
// (cmpf uge: a NaN lands in the last bucket); seq.category_encoding compares
// each id with the token index: summed (count), maximised (multi_hot) or one
// row per id (one_hot).

// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[$IDS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$ALL:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @discretize(
// CHECK:         linalg.generic {indexing_maps = [#[[$X]], #[[$B]], #[[$X]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK:           arith.cmpf uge
// CHECK:           arith.addf
func.func @discretize(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %b = arith.constant dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
  %0 = seq.discretize %x, %b : (tensor<?x4xf32>, tensor<3xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @encodings(
// CHECK:         linalg.generic {indexing_maps = [#[[$IDS]], #[[$X]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<?x3xf32>) outs(%{{.*}} : tensor<?x5xf32>)
// CHECK:           arith.cmpf oeq
// CHECK:           arith.addf
// CHECK:         linalg.generic {indexing_maps = [#[[$IDS]], #[[$X]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<?x3xf32>) outs(%{{.*}} : tensor<?x5xf32>)
// CHECK:           arith.cmpf oeq
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {indexing_maps = [#[[$X]], #[[$ALL]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<?x3xf32>) outs(%{{.*}} : tensor<?x3x5xf32>)
// CHECK:           arith.cmpf oeq
func.func @encodings(%x: tensor<?x3xf32>) -> (tensor<?x5xf32>, tensor<?x5xf32>, tensor<?x3x5xf32>) {
  %0 = seq.category_encoding count %x {num_tokens = 5 : i64} : tensor<?x3xf32> -> tensor<?x5xf32>
  %1 = seq.category_encoding multi_hot %x {num_tokens = 5 : i64} : tensor<?x3xf32> -> tensor<?x5xf32>
  %2 = seq.category_encoding one_hot %x {num_tokens = 5 : i64} : tensor<?x3xf32> -> tensor<?x3x5xf32>
  return %0, %1, %2 : tensor<?x5xf32>, tensor<?x5xf32>, tensor<?x3x5xf32>
}

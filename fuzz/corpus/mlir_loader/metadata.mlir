// Model metadata is a module attribute and survives a round trip, as do
// layer names as locations.
// RUN: seq-opt %s -mlir-print-debuginfo | seq-opt -mlir-print-debuginfo | FileCheck %s

// CHECK: module attributes {seq.metadata = {keras_version = "2.15.0", model_name = "seed", owner = "ml-team"}}
module attributes {seq.metadata = {keras_version = "2.15.0", model_name = "seed", owner = "ml-team"}} {
  func.func @predict(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
    // CHECK: seq.activation relu {{.*}} loc(#[[LOC:.*]])
    %0 = seq.activation relu %x : tensor<?x4xf32> loc("activation_1")
    return %0 : tensor<?x4xf32>
  }
}
// CHECK: #[[LOC]] = loc("activation_1")

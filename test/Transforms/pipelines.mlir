// RUN: seq-opt %s --seq-fuse | FileCheck %s
// The CUDA backend's MLIR passes are seq-fuse (seq-cpu-pipeline, the whole
// CPU lowering, is tested in test/Conversion/cpu-pipeline.test).
// RUN: seq-opt %s --seq-fuse > %t.fuse.mlir
// RUN: seq-opt %s --seq-cuda-pipeline > %t.cuda.mlir
// RUN: diff %t.fuse.mlir %t.cuda.mlir
// RUN: seq-opt --help | FileCheck %s --check-prefix=HELP
// HELP-DAG: --seq-fuse
// HELP-DAG: --seq-cpu-pipeline
// HELP-DAG: --seq-cuda-pipeline

// Every pass has a part: the dropout goes; the LSTM splits into its input
// GEMM and its recurrence; the batch norm folds into the dense before it,
// and that dense into the LSTM's input GEMM; inside the TimeDistributed the
// two denses fold into one with the relu as epilogue, and the
// TimeDistributed then becomes that dense on the sequence; the static input
// refines every shape.
// CHECK-LABEL: func @model(%arg0: tensor<4x6x3xf32>) -> tensor<4x6x2xf32>
// CHECK-NOT: seq.dropout
// CHECK-NOT: seq.batch_norm
// CHECK-NOT: seq.dense
// CHECK-NOT: seq.activation
// CHECK: %[[P:.*]] = seq.linear %arg0, %{{.*}}, %{{.*}} activation(linear) : (tensor<4x6x3xf32>, tensor<3x8xf32>, tensor<8xf32>) -> tensor<4x6x8xf32>
// CHECK-NEXT: %[[H:.*]] = seq.lstm_recurrence %[[P]], %{{.*}} activation(tanh, sigmoid) {return_sequences} : (tensor<4x6x8xf32>, tensor<2x8xf32>) -> tensor<4x6x2xf32>
// CHECK-NEXT: %[[Y:.*]] = seq.linear %[[H]], %{{.*}}, %{{.*}} activation(relu) : (tensor<4x6x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<4x6x2xf32>
// CHECK-NEXT: return %[[Y]]
func.func @model(%x: tensor<4x6x3xf32>) -> tensor<?x?x2xf32> {
  %k0 = arith.constant dense<0.5> : tensor<3x3xf32>
  %b0 = arith.constant dense<0.1> : tensor<3xf32>
  %one = arith.constant dense<1.0> : tensor<3xf32>
  %zero = arith.constant dense<0.0> : tensor<3xf32>
  %k = arith.constant dense<1.0> : tensor<3x8xf32>
  %r = arith.constant dense<2.0> : tensor<2x8xf32>
  %b = arith.constant dense<0.5> : tensor<8xf32>
  %k1 = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %k2 = arith.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %b2 = arith.constant dense<0.5> : tensor<2xf32>
  %0 = seq.dense %x, %k0, %b0 activation(linear) : (tensor<4x6x3xf32>, tensor<3x3xf32>, tensor<3xf32>) -> tensor<?x?x3xf32>
  %1 = seq.batch_norm %0, %one, %zero, %zero, %one {epsilon = 1.0e-3 : f32} : (tensor<?x?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x?x3xf32>
  %2 = seq.dropout %1 {rate = 0.5 : f32} : tensor<?x?x3xf32>
  %3 = seq.lstm %2, %k, %r, %b activation(tanh, sigmoid) {return_sequences} : (tensor<?x?x3xf32>, tensor<3x8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> tensor<?x?x2xf32>
  %4 = seq.time_distributed %3 : tensor<?x?x2xf32> -> tensor<?x?x2xf32> {
  ^bb0(%s: tensor<?x2xf32>):
    %d1 = seq.dense %s, %k1 activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
    %d2 = seq.dense %d1, %k2, %b2 activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
    %a = seq.activation relu %d2 : tensor<?x2xf32>
    seq.yield %a : tensor<?x2xf32>
  }
  return %4 : tensor<?x?x2xf32>
}

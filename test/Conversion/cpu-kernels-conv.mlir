// seq-cpu-kernels: a named convolution on buffers becomes the GEMM's
// register-blocked vector FMAs as an implicit GEMM. C's rows are the output
// positions, B the kernel seen as (taps * channels, filters), and each row's
// A values are read in place from the input at position * stride + tap *
// dilation (no gathered copy): a loop over the taps, then over the channels.
// RUN: seq-opt %s --seq-cpu-kernels | FileCheck %s
// RUN: seq-opt %s --seq-cpu-kernels=vector-bits=256 | FileCheck %s --check-prefix=AVX2

// A constant kernel is packed like a 2-D weight (3 * 3 * 8 rows of the one
// 16-column tail panel); the bias broadcast before becomes the
// accumulators' start and the ReLU after runs on them before the store,
// past the free of the padded input between them. The output lines are 16
// wide: a block's 16 rows (C one vector wide) lie on one line, so only the
// first row's position is computed from the row number; the others are its
// neighbours.
// CHECK: memref.global "private" constant @k2_packed : memref<1152xf32>
// CHECK-LABEL: func.func @conv2d(
// CHECK-SAME:      %[[X:.*]]: memref<?x6x18x8xf32>, %[[BIAS:.*]]: memref<16xf32>, %[[C:.*]]: memref<?x4x16x16xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         %[[P:.*]] = memref.get_global @k2_packed : memref<1152xf32>
// CHECK:         scf.for
// CHECK:           scf.for %[[ROW:.*]] =
// CHECK:             %[[POS:.*]]:3 = affine.delinearize_index %[[ROW]] into (4, 16) : index, index, index
// CHECK-NOT:         affine.delinearize_index %{{.*}} into (4, 16)
// CHECK:             vector.load %[[BIAS]]
// CHECK:             scf.for %[[TAP:.*]] = %{{.*}} to %c9{{.*}} step %c1{{.*}} iter_args(
// CHECK:               %[[T:.*]]:2 = affine.delinearize_index %[[TAP]] into (3, 3) : index, index
// CHECK:               scf.for %[[CH:.*]] = %{{.*}} to %c8{{.*}} step %c1{{.*}} iter_args(
// CHECK:                 vector.load %[[P]][%{{.*}}] : memref<1152xf32>, vector<16xf32>
// CHECK:                 %[[H:.*]] = arith.addi %[[POS]]#1, %[[T]]#0 : index
// CHECK:                 %[[W:.*]] = arith.addi %[[POS]]#2, %[[T]]#1 : index
// CHECK:                 memref.load %[[X]][%[[POS]]#0, %[[H]], %[[W]], %[[CH]]] : memref<?x6x18x8xf32>
// CHECK-COUNT-16:        vector.fma
// CHECK:             arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:             vector.store %{{.*}}, %[[C]][%[[POS]]#0, %[[POS]]#1, %[[POS]]#2, %{{.*}}] : memref<?x4x16x16xf32>, vector<16xf32>
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK:         memref.dealloc %[[X]]
// CHECK-NOT:     linalg.generic
// CHECK:         return
// AVX2-LABEL: func.func @conv2d(
// AVX2: vector.fma {{.*}} : vector<8xf32>
// AVX2-NOT: vector<16xf32>
// AVX2-LABEL: func.func @strided(
memref.global "private" constant @k2 : memref<3x3x8x16xf32> = dense<0.5>
func.func @conv2d(%x: memref<?x6x18x8xf32>, %bias: memref<16xf32>, %c: memref<?x4x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %k = memref.get_global @k2 : memref<3x3x8x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<16xf32>) outs(%c : memref<?x4x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %k : memref<?x6x18x8xf32>, memref<3x3x8x16xf32>) outs(%c : memref<?x4x16x16xf32>)
  memref.dealloc %x : memref<?x6x18x8xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%c : memref<?x4x16x16xf32>) {
  ^bb0(%out: f32):
    %r = arith.maximumf %out, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// Strides and dilations: the row's first input position is its output
// position times the stride, a tap's offset its index times the dilation.
// Lines of 3 outputs do not hold a block: every row's position is computed.
// 40 channels of 9 taps (360) are two slices of the reduction of about equal
// depth, taps 0-4 and 5-8, the second starting from what the first stored.
// CHECK-LABEL: func.func @strided(
// CHECK-SAME:      %[[X:.*]]: memref<?x9x9x40xf32>, %{{.*}}: memref<40x3x3x40xf32>, %[[C:.*]]: memref<?x3x3x40xf32>)
// CHECK-COUNT-8: affine.delinearize_index %{{.*}} into (3, 3) : index, index, index
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c5{{.*}} step %c1{{.*}}
// CHECK:           %[[T:.*]]:2 = affine.delinearize_index %{{.*}} into (3, 3) : index, index
// CHECK:           arith.muli %[[T]]#0, %c2{{.*}}
// CHECK:           arith.muli %[[T]]#1, %c2{{.*}}
// CHECK:         scf.for %{{.*}} = %c5{{.*}} to %c9{{.*}} step %c1{{.*}}
memref.global "private" constant @k3 : memref<3x3x40x40xf32> = dense<0.25>
func.func @strided(%x: memref<?x9x9x40xf32>, %unused: memref<40x3x3x40xf32>, %c: memref<?x3x3x40xf32>) {
  %k = memref.get_global @k3 : memref<3x3x40x40xf32>
  linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %k : memref<?x9x9x40xf32>, memref<3x3x40x40xf32>) outs(%c : memref<?x3x3x40xf32>)
  return
}

// A kernel that is not a constant is read in place at (tap, channel,
// filters); a Conv1D's time axis may be dynamic.
// CHECK-LABEL: func.func @conv1d_operand(
// CHECK-SAME:      %[[X:.*]]: memref<?x?x4xf32>, %[[K:.*]]: memref<3x4x20xf32>, %[[C:.*]]: memref<?x?x20xf32>)
// CHECK:         memref.dim %[[C]], %c1
// CHECK:         scf.for %[[TAP:.*]] = %c0{{.*}} to %c3{{.*}} step %c1{{.*}}
// CHECK:           scf.for %[[CH:.*]] = %c0{{.*}} to %c4{{.*}} step %c1{{.*}}
// CHECK:             vector.load %[[K]][%[[TAP]], %[[CH]], %{{.*}}] : memref<3x4x20xf32>, vector<16xf32>
// CHECK:             vector.maskedload %[[K]][%[[TAP]], %[[CH]], %{{.*}}]
// CHECK-NOT:     linalg.conv_1d_nwc_wcf
func.func @conv1d_operand(%x: memref<?x?x4xf32>, %k: memref<3x4x20xf32>, %c: memref<?x?x20xf32>) {
  linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%x, %k : memref<?x?x4xf32>, memref<3x4x20xf32>) outs(%c : memref<?x?x20xf32>)
  return
}

// A 3-D convolution: three spatial axes of the output and of the window.
// CHECK-LABEL: func.func @conv3d(
// CHECK:         affine.delinearize_index %{{.*}} into (2, 2, 4) : index, index, index, index
// CHECK:         affine.delinearize_index %{{.*}} into (2, 2, 2) : index, index, index
// CHECK:         vector.fma
// CHECK-NOT:     linalg.conv_3d_ndhwc_dhwcf
memref.global "private" constant @k4 : memref<2x2x2x8x32xf32> = dense<1.0>
func.func @conv3d(%x: memref<?x3x3x5x8xf32>, %c: memref<?x2x2x4x32xf32>) {
  %k = memref.get_global @k4 : memref<2x2x2x8x32xf32>
  linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%x, %k : memref<?x3x3x5x8xf32>, memref<2x2x2x8x32xf32>) outs(%c : memref<?x2x2x4x32xf32>)
  return
}

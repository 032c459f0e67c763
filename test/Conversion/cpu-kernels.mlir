// seq-cpu-kernels: an f32 matmul on buffers becomes register-blocked vector
// FMAs shaped for the target's vectors; a constant weight is read from a copy
// packed into 32-column panels at compile time, and the op that set C just
// before (a bias broadcast, a copy, a fill) becomes where the accumulators
// start instead of a pass of its own.
// RUN: seq-opt %s --seq-cpu-kernels --seq-alternate-sweep-bytes=0 | FileCheck %s
// RUN: seq-opt %s --seq-cpu-kernels | FileCheck %s --check-prefix=SMALL
// RUN: seq-opt %s --seq-cpu-kernels --seq-prefetch-panels-bytes=0 --canonicalize --cse \
// RUN:   | FileCheck %s --check-prefix=PREFETCH
// RUN: seq-opt %s --seq-cpu-kernels --canonicalize --cse | FileCheck %s --check-prefix=FUSED
// RUN: seq-opt %s --seq-cpu-kernels=vector-bits=256 | FileCheck %s --check-prefix=AVX2
// RUN: not seq-opt %s --seq-cpu-kernels=vector-bits=100 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: seq-cpu-kernels: vector-bits must be 128, 256 or 512, not 100

// K = 2, N = 36: one full panel (columns 0-31, rows of 32), then the
// 4-column tail rounded up to rows of 16, zero-padded.
// CHECK: memref.global "private" constant @w : memref<2x36xf32>
// CHECK-NEXT: memref.global "private" constant @w_packed : memref<96xf32> = dense<[0.000000e+00, 1.000000e+00,
// CHECK-SAME: 3.100000e+01, 1.000000e+02, 1.010000e+02,
// CHECK-SAME: 1.310000e+02, 3.200000e+01, 3.300000e+01, 3.400000e+01, 3.500000e+01, 0.000000e+00,
// CHECK-SAME: 0.000000e+00, 1.320000e+02, 1.330000e+02, 1.340000e+02, 1.350000e+02, 0.000000e+00,
memref.global "private" constant @w : memref<2x36xf32> = dense<[
  [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0,
   16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0,
   32.0, 33.0, 34.0, 35.0],
  [100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0,
   116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0, 129.0, 130.0, 131.0,
   132.0, 133.0, 134.0, 135.0]]>

// The bias broadcast is gone: each block's accumulators start as the bias.
// CHECK-LABEL: func.func @bias_then_weight(
// CHECK-SAME: %[[A:.*]]: memref<?x2xf32>, %[[BIAS:.*]]: memref<36xf32>, %[[C:.*]]: memref<?x36xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[P:.*]] = memref.get_global @w_packed : memref<96xf32>
// CHECK: vector.load %[[BIAS]][%{{.*}}] : memref<36xf32>, vector<16xf32>
// CHECK: scf.for
// CHECK: vector.load %[[P]][%{{.*}}] : memref<96xf32>, vector<16xf32>
// CHECK: memref.load %[[A]]
// CHECK: vector.fma {{.*}} : vector<16xf32>
// The tail's last vector stores 4 of its 16 lanes.
// CHECK: vector.constant_mask [4] : vector<16xi1>
// CHECK: vector.maskedstore %[[C]]
// CHECK-NOT: linalg.matmul
// AVX2-LABEL: func.func @bias_then_weight(
// AVX2: vector.fma {{.*}} : vector<8xf32>
// AVX2-NOT: vector<16xf32>
// AVX2-LABEL: func.func @copy_then_operand(
func.func @bias_then_weight(%a: memref<?x2xf32>, %bias: memref<36xf32>, %c: memref<?x36xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<36xf32>) outs(%c : memref<?x36xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %w = memref.get_global @w : memref<2x36xf32>
  linalg.matmul ins(%a, %w : memref<?x2xf32>, memref<2x36xf32>) outs(%c : memref<?x36xf32>)
  return
}

// B is not a constant: read in place, its last vector masked. The copy into
// C is gone: the accumulators start from its source.
// CHECK-LABEL: func.func @copy_then_operand(
// CHECK-SAME: %[[A:.*]]: memref<?x8xf32>, %[[B:.*]]: memref<8x20xf32>, %[[S:.*]]: memref<?x20xf32, strided<[40, 1]>>, %[[C:.*]]: memref<?x20xf32>)
// CHECK-NOT: linalg.copy
// CHECK: vector.load %[[S]]
// CHECK: vector.maskedload %[[B]]
// CHECK: vector.fma
// CHECK-NOT: linalg.matmul
func.func @copy_then_operand(%a: memref<?x8xf32>, %b: memref<8x20xf32>,
                             %s: memref<?x20xf32, strided<[40, 1]>>, %c: memref<?x20xf32>) {
  linalg.copy ins(%s : memref<?x20xf32, strided<[40, 1]>>) outs(%c : memref<?x20xf32>)
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x20xf32>) outs(%c : memref<?x20xf32>)
  return
}

// An activation that rewrites C in place right after the matmul is applied
// to the accumulators before they are stored, its scalar ops as vector ops.
// CHECK-LABEL: func.func @relu_after(
// CHECK: vector.fma
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: vector.store
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @relu_after(%a: memref<?x8xf32>, %b: memref<8x16xf32>, %c: memref<?x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x16xf32>) outs(%c : memref<?x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]} outs(%c : memref<?x16xf32>) {
  ^bb0(%out: f32):
    %r = arith.maximumf %out, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// A fill is a splat start. Something else between the fill and the matmul
// that writes memory keeps the fill.
// CHECK-LABEL: func.func @fill_then_operand(
// CHECK-NOT: linalg.fill
// CHECK: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK-LABEL: func.func @fill_not_adjacent(
// CHECK: linalg.fill
// CHECK: memref.store
func.func @fill_then_operand(%a: memref<?x8xf32>, %b: memref<8x16xf32>, %c: memref<?x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x16xf32>)
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x16xf32>) outs(%c : memref<?x16xf32>)
  return
}
func.func @fill_not_adjacent(%a: memref<?x8xf32>, %b: memref<8x16xf32>, %c: memref<?x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %i = arith.constant 0 : index
  linalg.fill ins(%zero : f32) outs(%c : memref<?x16xf32>)
  memref.store %zero, %a[%i, %i] : memref<?x8xf32>
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x16xf32>) outs(%c : memref<?x16xf32>)
  return
}

// A convolution kernel (kh, kw, C, F) seen as (kh * kw * C, F) through
// memref.collapse_shape is the same row-major data: packed like a 2-D weight.
// CHECK: memref.global "private" constant @conv_w_packed : memref<32xf32>
// CHECK-LABEL: func.func @collapsed_kernel(
// CHECK: memref.get_global @conv_w_packed : memref<32xf32>
// CHECK: vector.fma
// CHECK-NOT: linalg.matmul
memref.global "private" constant @conv_w : memref<1x2x1x16xf32> = dense<1.0>
func.func @collapsed_kernel(%a: memref<?x2xf32>, %c: memref<?x16xf32>) {
  %w = memref.get_global @conv_w : memref<1x2x1x16xf32>
  %w2 = memref.collapse_shape %w [[0, 1, 2], [3]] : memref<1x2x1x16xf32> into memref<2x16xf32>
  linalg.matmul ins(%a, %w2 : memref<?x2xf32>, memref<2x16xf32>) outs(%c : memref<?x16xf32>)
  return
}

// A fill or copy whose buffers share contiguous trailing axes runs over them
// as one axis (LLVM vectorizes the long unit-stride loop): a whole buffer is
// one run; a copy into the interior of a padded buffer keeps the rows apart.
// CHECK-LABEL: func.func @flat_moves(
// CHECK: %[[ALL:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3]] : memref<?x4x4x16xf32> into memref<?xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ALL]] : memref<?xf32>)
// CHECK-DAG: %[[SRC:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<?x4x4x16xf32> into memref<?x4x64xf32>
// CHECK-DAG: %[[DST:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<?x4x4x16xf32, strided<[576, 96, 16, 1], offset: 112>> into memref<?x4x64xf32, strided<[576, 96, 1], offset: 112>>
// CHECK: linalg.copy ins(%[[SRC]] : {{.*}}) outs(%[[DST]] : {{.*}})
func.func @flat_moves(%a: memref<?x4x4x16xf32>, %padded: memref<?x6x6x16xf32>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%a : memref<?x4x4x16xf32>)
  %n = memref.dim %a, %c0 : memref<?x4x4x16xf32>
  %inner = memref.subview %padded[0, 1, 1, 0] [%n, 4, 4, 16] [1, 1, 1, 1] : memref<?x6x6x16xf32> to memref<?x4x4x16xf32, strided<[576, 96, 16, 1], offset: 112>>
  memref.copy %a, %inner : memref<?x4x4x16xf32> to memref<?x4x4x16xf32, strided<[576, 96, 16, 1], offset: 112>>
  return
}

// A matmul marked streamed_output (a recurrence's input projection) runs its
// loops twice under one branch: C of at least 16 MiB (rows x 48 columns x 4
// bytes) that starts at a vector-aligned address is stored non-temporally,
// a smaller or unaligned one as usual. (Only when N is whole vectors.)
// CHECK-LABEL: func.func @streamed_projection(
// CHECK-SAME: %[[A:.*]]: memref<?x2xf32>, %[[BIAS:.*]]: memref<48xf32>, %[[C:.*]]: memref<?x48xf32>)
// CHECK: %[[BYTES:.*]] = arith.muli %{{.*}}, %c192
// CHECK: %[[LARGE:.*]] = arith.cmpi sge, %[[BYTES]], %c16777216
// CHECK: memref.extract_aligned_pointer_as_index %[[C]]
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq
// CHECK: %[[STREAM:.*]] = arith.andi %[[LARGE]], %[[ALIGNED]]
// CHECK: scf.if %[[STREAM]] {
// CHECK:   vector.store %{{.*}}, %[[C]][%{{.*}}] {alignment = 64 : i64, nontemporal = true}
// The rows left over (as one block, or one at a time) store alike.
// CHECK:   scf.if
// CHECK:     vector.store %{{.*}}, %[[C]][%{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK:   } else {
// CHECK:     vector.store %{{.*}}, %[[C]][%{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK: } else {
// CHECK-NOT: nontemporal
// CHECK:   vector.store %{{.*}}, %[[C]][%{{.*}}] : memref<?x48xf32>, vector<16xf32>
// CHECK: }
// CHECK-NOT: nontemporal
// CHECK: return
memref.global "private" constant @w48 : memref<2x48xf32> = dense<1.0>
func.func @streamed_projection(%a: memref<?x2xf32>, %bias: memref<48xf32>, %c: memref<?x48xf32>) {
  %w = memref.get_global @w48 : memref<2x48xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<48xf32>) outs(%c : memref<?x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.matmul {streamed_output} ins(%a, %w : memref<?x2xf32>, memref<2x48xf32>) outs(%c : memref<?x48xf32>)
  return
}

// Rows left over from the 8-row blocks: half a block or more (here m mod 8
// >= 4) run as one more block whose rows past the last one repeat it (they
// compute and store its values again), so B is read once, not once per row;
// fewer go one row at a time.
// CHECK-LABEL: func.func @leftover_rows(
// CHECK-SAME: %[[A:.*]]: memref<?x2xf32>, %[[C:.*]]: memref<?x32xf32>)
// CHECK: %[[M:.*]] = memref.dim %[[C]], %c0
// CHECK: %[[MAIN:.*]] = arith.muli %{{.*}}, %c8
// CHECK: %[[LEFT:.*]] = arith.subi %[[M]], %[[MAIN]]
// CHECK: %[[MANY:.*]] = arith.cmpi sge, %[[LEFT]], %c4
// CHECK: scf.if %[[MANY]] {
// CHECK:   %[[LAST:.*]] = arith.subi %[[M]], %c1
// CHECK:   %[[ROW0:.*]] = arith.minsi %[[MAIN]], %[[LAST]]
// CHECK:   %[[NEXT:.*]] = arith.addi %[[MAIN]], %c1
// CHECK:   arith.minsi %[[NEXT]], %[[LAST]]
// CHECK-COUNT-6: arith.minsi %{{.*}}, %[[LAST]]
// CHECK:   vector.load %[[C]][%[[ROW0]],
// CHECK:   vector.fma
// CHECK:   vector.store %{{.*}}, %[[C]][%[[ROW0]],
// CHECK: } else {
// CHECK:   scf.for %[[I:.*]] = %[[MAIN]] to %[[M]]
// CHECK:     memref.load %[[A]][%[[I]],
memref.global "private" constant @w2 : memref<2x32xf32> = dense<1.0>
func.func @leftover_rows(%a: memref<?x2xf32>, %c: memref<?x32xf32>) {
  %w = memref.get_global @w2 : memref<2x32xf32>
  linalg.matmul ins(%a, %w : memref<?x2xf32>, memref<2x32xf32>) outs(%c : memref<?x32xf32>)
  return
}

// A row taken alone (a batch-1 GEMV) sweeps B's groups of 4 panels (128
// columns) forward or backward: backward when its sweep is odd, counting
// the rows before it in this GEMM and, for a matmul marked
// recurrent_product, the iterations of the loop around it before this one
// ((t - lower) / step). Group p (its first panel, 0 or 4 of 8) is then 4 -
// p. So consecutive sweeps start where the last one
// ended, in the cache. Each group computes its columns whole, so both
// orders give the same values.
// CHECK-LABEL: func.func @alternating_sweeps(
// CHECK-SAME: %[[H:.*]]: memref<?x2xf32>, %[[C:.*]]: memref<?x256xf32>, %[[STEPS:.*]]: index)
// CHECK: scf.for %[[T:.*]] = %[[LO:.*]] to %[[STEPS]] step %[[STEP:[^ ]*]] {
// CHECK:   %[[SINCE:.*]] = arith.subi %[[T]], %[[LO]]
// CHECK:   %[[DONE:.*]] = arith.divui %[[SINCE]], %[[STEP]]
// CHECK:   %[[PARITY:.*]] = arith.andi %[[DONE]], %[[ONE:.*]] : index
// CHECK:   } else {
// CHECK:     scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK:       %[[SWEEP:.*]] = arith.addi %[[PARITY]], %[[I]]
// CHECK:       %[[ODD:.*]] = arith.andi %[[SWEEP]], %{{.*}}
// CHECK:       %[[BACKWARD:.*]] = arith.cmpi ne, %[[ODD]], %{{.*}}
// CHECK:       scf.for %[[P:.*]] = %{{.*}} to %c8{{.*}} step %c4{{.*}} {
// CHECK:         %[[MIRROR:.*]] = arith.subi %c4{{.*}}, %[[P]]
// CHECK:         %[[GROUP:.*]] = arith.select %[[BACKWARD]], %[[MIRROR]], %[[P]]
// CHECK:         arith.muli %[[GROUP]], %c64
// Unmarked, a GEMM's rows alternate among themselves only. By default only
// a weight of 512 KiB or more is swept both ways (a smaller one fits in
// half of the L2 cache whichever way it goes); the tests set the bound to 0.
// SMALL-LABEL: func.func @alternating_sweeps(
// SMALL-NOT: arith.select
// SMALL-LABEL: func.func @rows_alternate(
// SMALL-NOT: arith.select
// SMALL-NOT: memref.prefetch
// CHECK-LABEL: func.func @rows_alternate(
// CHECK-NOT: arith.divui %{{.*}}, %c1
// CHECK: } else {
// CHECK:   scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK:     %[[ODD:.*]] = arith.andi %[[I]], %{{.*}}
// CHECK:     %[[BACKWARD:.*]] = arith.cmpi ne, %[[ODD]], %{{.*}}
// CHECK:     arith.select %[[BACKWARD]]
// A packed weight of 512 KiB or more (here of any size: the bound is 0)
// comes from the L3 cache at each pass: the register blocks of a chunk of
// rows prefetch the next panel's slice into the L2 cache (locality 2), each
// block its share (block * depth * 32 / blocks floats on), 32 / blocks floats
// further at each step of the reduction; the last panel (at 448) its own.
// Rows taken alone read B whole and prefetch nothing.
// PREFETCH-LABEL: func.func @rows_alternate(
// PREFETCH: %[[PACKED:.*]] = memref.get_global @w256_packed
// PREFETCH: scf.for %[[I0C:.*]] = %c0 to %{{.*}} step %c128 {
// PREFETCH:   %[[END:.*]] = arith.minsi
// PREFETCH:   %[[SPAN:.*]] = arith.subi %[[END]], %[[I0C]]
// PREFETCH:   %[[BLOCKS:.*]] = arith.divui %[[SPAN]], %c8
// PREFETCH:   %[[STEP:.*]] = arith.divui %c32, %[[BLOCKS]]
// PREFETCH:   scf.for %[[P:.*]] = %c0 to %c8 step %c1 {
// PREFETCH:     %[[BASE:.*]] = arith.muli %[[P]], %c64
// PREFETCH:     scf.for %[[I0:.*]] = %[[I0C]] to %[[END]] step %c8 {
// PREFETCH:       %[[SINCE:.*]] = arith.subi %[[I0]], %[[I0C]]
// PREFETCH:       %[[BLOCK:.*]] = arith.divui %[[SINCE]], %c8
// PREFETCH:       %[[AHEAD:.*]] = arith.addi %[[BASE]], %c64
// PREFETCH:       %[[NEXT:.*]] = arith.minsi %[[AHEAD]], %c448
// PREFETCH:       %[[FLOATS:.*]] = arith.muli %[[BLOCK]], %c64
// PREFETCH:       %[[SHARE:.*]] = arith.divui %[[FLOATS]], %[[BLOCKS]]
// PREFETCH:       %[[ORIGIN:.*]] = arith.addi %[[NEXT]], %[[SHARE]]
// PREFETCH:       scf.for %[[K:.*]] = %c0 to %c2 step %c1 iter_args(
// PREFETCH:         %[[FROM:.*]] = arith.muli %[[K]], %[[STEP]]
// PREFETCH:         %[[AT:.*]] = arith.addi %[[ORIGIN]], %[[FROM]]
// PREFETCH:         memref.prefetch %[[PACKED]][%[[AT]]], read, locality<2>, data
// PREFETCH-NOT: memref.prefetch
// PREFETCH: return
memref.global "private" constant @w256 : memref<2x256xf32> = dense<1.0>
func.func @alternating_sweeps(%h: memref<?x2xf32>, %c: memref<?x256xf32>, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @w256 : memref<2x256xf32>
  scf.for %t = %c0 to %steps step %c1 {
    linalg.matmul {recurrent_product} ins(%h, %w : memref<?x2xf32>, memref<2x256xf32>) outs(%c : memref<?x256xf32>)
  }
  return
}
func.func @rows_alternate(%a: memref<?x2xf32>, %c: memref<?x256xf32>) {
  %w = memref.get_global @w256 : memref<2x256xf32>
  linalg.matmul ins(%a, %w : memref<?x2xf32>, memref<2x256xf32>) outs(%c : memref<?x256xf32>)
  return
}

// A matmul into C right after another one into the same C, both on packed
// weights (a recurrence's step at a large batch: x_t @ Kx + b, then + h @
// Kh), is one kernel: each block's accumulators start as the first one's
// start (the bias), run its k loop (over @wx's panels: the tail panel at
// 32 * 3), then the second's, and are stored once; rows left over, as one
// block or one at a time, likewise. The order of the FMAs on each column
// is the two matmuls' one after the other: the same bits.
// FUSED-LABEL: func.func @leading_product(
// FUSED-SAME: %[[X:.*]]: memref<?x3xf32>, %[[H:.*]]: memref<?x2xf32>, %[[BIAS:.*]]: memref<36xf32>, %[[C:.*]]: memref<?x36xf32>)
// FUSED-NOT: linalg.
// FUSED: %[[WP:.*]] = memref.get_global @w_packed
// FUSED: %[[WXP:.*]] = memref.get_global @wx_packed
// FUSED: scf.for
// FUSED:   scf.for %[[I0:.*]] =
// FUSED:     %[[B0:.*]] = vector.load %[[BIAS]][%c0]
// FUSED:     %[[XS:.*]]:16 = scf.for %[[K:.*]] = %c0 to %c3 step %c1 iter_args(%{{.*}} = %[[B0]],
// FUSED:       vector.load %[[WXP]]
// FUSED:       memref.load %[[X]][%[[I0]], %[[K]]]
// FUSED:     %[[HS:.*]]:16 = scf.for %[[K2:.*]] = %c0 to %c2 step %c1 iter_args(%{{.*}} = %[[XS]]#0,
// FUSED:       vector.load %[[WP]]
// FUSED:       memref.load %[[H]][%[[I0]], %[[K2]]]
// FUSED:     vector.store %[[HS]]#0, %[[C]][%[[I0]], %c0]
// FUSED:   scf.for %[[I0:.*]] =
// FUSED:     %[[TAIL:.*]]:8 = scf.for %[[K:.*]] = %c0 to %c3 step %c1
// FUSED:       %[[AT:.*]] = arith.muli %[[K]], %c16
// FUSED:       %[[TAILK:.*]] = arith.addi %[[AT]], %c96
// FUSED:       vector.load %[[WXP]][%[[TAILK]]]
// FUSED:     scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%{{.*}} = %[[TAIL]]#0,
// FUSED:       vector.load %[[WP]]
// FUSED: scf.if
// FUSED:   scf.for %{{.*}} = %c0 to %c3 step %c1
// FUSED:   scf.for %{{.*}} = %c0 to %c2 step %c1
// FUSED: } else {
// FUSED:   scf.for
// FUSED:     scf.for %{{.*}} = %c0 to %c3 step %c1
// FUSED:       vector.load %[[WXP]]
// FUSED:     scf.for %{{.*}} = %c0 to %c2 step %c1
// FUSED:       vector.load %[[WP]]
// FUSED-NOT: linalg.
// FUSED: return
memref.global "private" constant @wx : memref<3x36xf32> = dense<2.0>
func.func @leading_product(%x: memref<?x3xf32>, %h: memref<?x2xf32>, %bias: memref<36xf32>, %c: memref<?x36xf32>) {
  %wx = memref.get_global @wx : memref<3x36xf32>
  %w = memref.get_global @w : memref<2x36xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<36xf32>) outs(%c : memref<?x36xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.matmul ins(%x, %wx : memref<?x3xf32>, memref<3x36xf32>) outs(%c : memref<?x36xf32>)
  linalg.matmul {recurrent_product} ins(%h, %w : memref<?x2xf32>, memref<2x36xf32>) outs(%c : memref<?x36xf32>)
  return
}

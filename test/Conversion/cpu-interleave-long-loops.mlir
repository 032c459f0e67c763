// RUN: seq-opt %s --seq-cpu-interleave-long-loops="min-ops=4" -split-input-file | FileCheck %s
// RUN: seq-opt %s --seq-cpu-interleave-long-loops="min-ops=4 lanes=8 count=2" -split-input-file | FileCheck %s --check-prefix=AVX2
// seq-cpu-interleave-long-loops: an innermost scalar loop with a long body
// asks LLVM's vectorizer for several vectors side by side (here 4 ops are
// "long"; the pipeline's threshold is 48, which the recurrent cells pass).

// 64 iterations are 4 vectors of 16 lanes (8 of 8: the count, 2).
// CHECK-DAG:  #[[FOUR:.*]] = #llvm.loop_interleave<count = 4 : i32>
// CHECK-DAG:  #[[ANN:.*]] = #llvm.loop_annotation<interleave = #[[FOUR]]>
// CHECK-LABEL: func.func @long_body
// CHECK:      scf.for
// CHECK:      } {loop_annotation = #[[ANN]]}
// AVX2-DAG:   #[[TWO:.*]] = #llvm.loop_interleave<count = 2 : i32>
// AVX2-DAG:   #[[ANN2:.*]] = #llvm.loop_annotation<interleave = #[[TWO]]>
// AVX2-LABEL: func.func @long_body
// AVX2:       } {loop_annotation = #[[ANN2]]}
func.func @long_body(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %x : f32
    %z = arith.addf %y, %x : f32
    %w = arith.divf %z, %y : f32
    %e = math.exp %w : f32
    memref.store %e, %a[%i] : memref<64xf32>
  }
  return
}

// -----

// 32 iterations are 2 vectors: as many interleaved, not 4 (the vector loop
// would never run). Of unknown length: the full count.
// CHECK-DAG:  #[[TWO:.*]] = #llvm.loop_interleave<count = 2 : i32>
// CHECK-DAG:  #[[FOUR:.*]] = #llvm.loop_interleave<count = 4 : i32>
// CHECK-DAG:  #[[ANN2:.*]] = #llvm.loop_annotation<interleave = #[[TWO]]>
// CHECK-DAG:  #[[ANN4:.*]] = #llvm.loop_annotation<interleave = #[[FOUR]]>
// CHECK-LABEL: func.func @trip_counts
// CHECK:      } {loop_annotation = #[[ANN2]]}
// CHECK:      } {loop_annotation = #[[ANN4]]}
func.func @trip_counts(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c32 step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = arith.mulf %x, %x : f32
    %z = arith.addf %y, %x : f32
    %w = arith.divf %z, %y : f32
    %e = math.exp %w : f32
    memref.store %e, %a[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = arith.mulf %x, %x : f32
    %z = arith.addf %y, %x : f32
    %w = arith.divf %z, %y : f32
    %e = math.exp %w : f32
    memref.store %e, %a[%i] : memref<?xf32>
  }
  return
}

// -----

// Left alone: a loop of one vector, a short body, a loop around a loop,
// a body of vector code.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:  loop_annotation
func.func @left_alone(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = arith.mulf %x, %x : f32
    %z = arith.addf %y, %x : f32
    %w = arith.divf %z, %y : f32
    %e = math.exp %w : f32
    memref.store %e, %a[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %a[%i] : memref<?xf32>
  }
  scf.for %j = %c0 to %n step %c1 {
    %s = memref.load %a[%j] : memref<?xf32>
    %t = arith.mulf %s, %s : f32
    %u = arith.addf %t, %s : f32
    %v = arith.divf %u, %t : f32
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %a[%j] : memref<?xf32>
    }
  }
  scf.for %i = %c0 to %n step %c16 {
    %x = vector.load %a[%i] : memref<?xf32>, vector<16xf32>
    %y = arith.mulf %x, %x : vector<16xf32>
    %z = arith.addf %y, %x : vector<16xf32>
    %w = arith.divf %z, %y : vector<16xf32>
    %e = math.exp %w : vector<16xf32>
    vector.store %e, %a[%i] : memref<?xf32>, vector<16xf32>
  }
  return
}

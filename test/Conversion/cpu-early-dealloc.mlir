// RUN: seq-opt %s --seq-cpu-early-dealloc -split-input-file | FileCheck %s
// seq-cpu-early-dealloc: a buffer is freed right after its last use, so the
// arena can give its bytes to the buffers allocated after it.

// CHECK-LABEL: func.func @chain
// CHECK:      %[[A:.*]] = memref.alloc
// CHECK:      linalg.fill {{.*}} outs(%[[A]]
// CHECK:      %[[B:.*]] = memref.alloc
// CHECK:      linalg.copy ins(%[[A]] {{.*}} outs(%[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK:      %[[C:.*]] = memref.alloc
// CHECK:      return %[[B]]
func.func @chain(%n: index) -> memref<?xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<?xf32>)
  %b = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%a : memref<?xf32>) outs(%b : memref<?xf32>)
  %c = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<?xf32>)
  linalg.copy ins(%c : memref<?xf32>) outs(%b : memref<?xf32>)
  memref.dealloc %a : memref<?xf32>
  memref.dealloc %c : memref<?xf32>
  return %b : memref<?xf32>
}

// -----

// The deallocation pipeline frees the base of extract_strided_metadata: its
// last use is the allocation's, through every view of it.
// CHECK-LABEL: func.func @base_of_a_view
// CHECK:      %[[A:.*]] = memref.alloc
// CHECK:      %[[BASE:[a-z_0-9]+]], {{.*}} = memref.extract_strided_metadata %[[A]]
// CHECK:      %[[V:.*]] = memref.subview %[[A]]
// CHECK:      linalg.copy ins(%[[V]] {{.*}} outs(%arg1
// CHECK-NEXT: memref.dealloc %[[BASE]]
// CHECK-NEXT: linalg.fill
func.func @base_of_a_view(%n: index, %out: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8xf32>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %a : memref<8xf32> -> memref<f32>, index, index, index
  linalg.fill ins(%zero : f32) outs(%a : memref<8xf32>)
  %v = memref.subview %a[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  linalg.copy ins(%v : memref<4xf32, strided<[1], offset: 2>>) outs(%out : memref<4xf32>)
  linalg.fill ins(%zero : f32) outs(%out : memref<4xf32>)
  memref.dealloc %base : memref<f32>
  return
}

// -----

// A use inside a loop: the buffer lives until the loop is done, and a
// buffer the loop carries out lives as long as the loop's result.
// CHECK-LABEL: func.func @loop
// CHECK:      %[[A:.*]] = memref.alloc
// CHECK:      %[[R:.*]] = scf.for
// CHECK:      }
// CHECK-NEXT: linalg.copy ins(%[[R]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: linalg.fill
func.func @loop(%n: index, %out: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %a) -> (memref<8xf32>) {
    linalg.fill ins(%zero : f32) outs(%it : memref<8xf32>)
    scf.yield %it : memref<8xf32>
  }
  linalg.copy ins(%r : memref<8xf32>) outs(%out : memref<8xf32>)
  linalg.fill ins(%zero : f32) outs(%out : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// Under a condition, or for a buffer of another block: stays.
// CHECK-LABEL: func.func @conditional
// CHECK:      scf.if
// CHECK-NEXT:   memref.dealloc
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @conditional(%cond: i1, %out: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<8xf32>)
  linalg.copy ins(%a : memref<8xf32>) outs(%out : memref<8xf32>)
  linalg.fill ins(%zero : f32) outs(%out : memref<8xf32>)
  scf.if %cond {
    memref.dealloc %a : memref<8xf32>
  }
  return
}

// seq-cpu-math-approximation: exp, erfc (and the others of its list) become
// polynomials of arith and math.fma on scalars and vectors alike (no libm
// call left to vectorize around); ops outside the list stay.
// RUN: seq-opt %s --seq-cpu-math-approximation | FileCheck %s

// CHECK-LABEL: func.func @exp(
// CHECK-NOT: math.exp
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK: return
func.func @exp(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.exp %x : vector<16xf32>
  return %y : vector<16xf32>
}

// CHECK-LABEL: func.func @erfc(
// CHECK-NOT: math.erfc
// CHECK: math.fma {{.*}} : f32
// CHECK: return
func.func @erfc(%x: f32) -> f32 {
  %y = math.erfc %x : f32
  return %y : f32
}

// CHECK-LABEL: func.func @sqrt_stays(
// CHECK: math.sqrt
func.func @sqrt_stays(%x: f32) -> f32 {
  %y = math.sqrt %x : f32
  return %y : f32
}

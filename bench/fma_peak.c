/* Measured FP32 peak of one core: 24 independent chains of 512-bit FMAs
 * (enough to cover the FMA latency on both pipes), 2*16 FLOP each.
 * Prints GFLOP/s. Built by run_cpu_bench.py with -O2 -mavx512f -mfma. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  enum { kChains = 24 };
  __m512 acc[kChains];
  __m512 a = _mm512_set1_ps(1.0000001f), b = _mm512_set1_ps(0.9999999f);
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm512_set1_ps((float)i);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    long iterations = 20000000;
    double t0 = now();
    for (long n = 0; n < iterations; ++n) {
#pragma GCC unroll 24
      for (int i = 0; i < kChains; ++i)
        acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    double seconds = now() - t0;
    double gflops = 2.0 * 16 * kChains * iterations / seconds / 1e9;
    if (gflops > best)
      best = gflops;
  }
  float sink = 0;
  for (int i = 0; i < kChains; ++i)
    sink += _mm512_reduce_add_ps(acc[i]);
  printf("%.1f\n", best);
  return sink == 12345.0f;
}

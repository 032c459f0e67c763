/* A probe of a schedule seqc does not build yet (docs/benchmarks.md, "The
 * same workloads on AMD Zen 4"): an LSTM(U)'s 100 steps at batch 1 on F
 * input features, its gate pre-activations computed two ways with the same
 * arithmetic in the same order (the two print the same check value):
 *   0  as seqc does: the input projection X @ Kx + b for all steps in 8-row
 *      register blocks before the loop, then per step the recurrent GEMV
 *      h @ Kh over groups of 4 panels, starting from the step's projection;
 *   1  overlapped: the projection of the next 8 steps computed during the
 *      8 steps before them, an eighth of its columns per step, one vector
 *      of 8 rows inside the k loop of each group of the GEMV (the GEMV
 *      waits on its L2 reads with half of the FMA issue idle; the
 *      projection reads Kx from L1, 8 rows to a vector).
 * The cell is a stand-in (h = gates / 1000): it is the same in both. The
 * check value sums the projection and h after the last step
 * (test/Target/CPU/overlap-probe.test: equal in both).
 *   cc -O3 -march=native -DU=128 -DF=128 bench/overlap_probe.c -o probe
 *   ./probe 0; ./probe 1        (prints microseconds, best of 200) */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef U
#define U 128
#endif
#ifndef F
#define F 128
#endif
#define T 100
#define G (4 * U)            /* gate columns */
#define GROUPS (G / 128)     /* GEMV groups of 4 panels of 32 columns */
#define STEP_VECTORS (G / 128) /* projection vectors per step: G / 16 / 8 */

static float *Kh, *Kx, *X, *P, *bias, *h, *gates;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Column `col` of a (K, G) weight packed in panels of 32 columns. */
static const float *panel(const float *packed, int k, int col) {
  return packed + (size_t)(col / 32) * k * 32 + col % 32;
}

static int clampRow(int r) { return r < T ? r : T - 1; }

/* P[r0 .. r0+8, col .. col+16*vectors] = X @ Kx + b (rows past T repeat T-1). */
static void projectionBlock(int r0, int col, int vectors) {
  for (int v = 0; v < vectors; ++v) {
    const float *b = panel(Kx, F, col + 16 * v);
    __m512 acc[8];
    for (int r = 0; r < 8; ++r)
      acc[r] = _mm512_loadu_ps(bias + col + 16 * v);
    for (int k = 0; k < F; ++k) {
      __m512 bv = _mm512_load_ps(b + k * 32);
#pragma GCC unroll 8
      for (int r = 0; r < 8; ++r)
        acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(X[clampRow(r0 + r) * F + k]), bv, acc[r]);
    }
    for (int r = 0; r < 8; ++r)
      _mm512_storeu_ps(P + clampRow(r0 + r) * G + col + 16 * v, acc[r]);
  }
}

#define GEMV_K(k)                                                              \
  do {                                                                         \
    __m512 a = _mm512_set1_ps(h[k]);                                           \
    _Pragma("GCC unroll 4") for (int q = 0; q < 4; ++q) {                      \
      acc[2 * q] = _mm512_fmadd_ps(a, _mm512_load_ps(p[q] + (k) * 32), acc[2 * q]); \
      acc[2 * q + 1] =                                                         \
          _mm512_fmadd_ps(a, _mm512_load_ps(p[q] + (k) * 32 + 16), acc[2 * q + 1]); \
    }                                                                          \
  } while (0)

#define PROJECTION_K(k)                                                        \
  do {                                                                         \
    __m512 bv = _mm512_load_ps(b + (k) * 32);                                  \
    _Pragma("GCC unroll 8") for (int r = 0; r < 8; ++r) pa[r] =                \
        _mm512_fmadd_ps(_mm512_set1_ps(X[rows[r] + (k)]), bv, pa[r]);          \
  } while (0)

/* Group g of step t's GEMV; with r0 >= 0, also the projection vector at
 * `col` of rows r0 .. r0+8 in the same k loop. */
static void group(int t, int g, int r0, int col) {
  __m512 acc[8], pa[8];
  const float *p[4], *b = r0 >= 0 ? panel(Kx, F, col) : NULL;
  int rows[8];
#pragma GCC unroll 8
  for (int v = 0; v < 8; ++v)
    acc[v] = _mm512_loadu_ps(P + t * G + g * 128 + 16 * v);
  for (int q = 0; q < 4; ++q)
    p[q] = panel(Kh, U, g * 128 + 32 * q);
  int k = 0;
  if (r0 >= 0) {
    for (int r = 0; r < 8; ++r) {
      rows[r] = clampRow(r0 + r) * F;
      pa[r] = _mm512_loadu_ps(bias + col);
    }
    for (; k < U && k < F; ++k) {
      GEMV_K(k);
      PROJECTION_K(k);
    }
    for (int j = k; j < F; ++j)
      PROJECTION_K(j);
    for (int r = 0; r < 8; ++r)
      _mm512_storeu_ps(P + rows[r] / F * G + col, pa[r]);
  }
  for (; k < U; ++k)
    GEMV_K(k);
#pragma GCC unroll 8
  for (int v = 0; v < 8; ++v)
    _mm512_storeu_ps(gates + g * 128 + 16 * v, acc[v]);
}

static void cell(void) {
  for (int i = 0; i < U; ++i)
    h[i] = gates[i] * 1e-3f;
}

int main(int argc, char **argv) {
  int overlapped = argc > 1 && atoi(argv[1]) == 1;
  Kh = aligned_alloc(64, (size_t)U * G * 4);
  Kx = aligned_alloc(64, (size_t)F * G * 4);
  X = aligned_alloc(64, T * F * 4);
  P = aligned_alloc(64, (size_t)T * G * 4);
  bias = aligned_alloc(64, G * 4);
  h = aligned_alloc(64, U * 4);
  gates = aligned_alloc(64, G * 4);
  for (size_t i = 0; i < (size_t)U * G; ++i)
    Kh[i] = 1e-3f * (i % 13);
  for (size_t i = 0; i < (size_t)F * G; ++i)
    Kx[i] = 1e-3f * (i % 11);
  for (int i = 0; i < T * F; ++i)
    X[i] = 1e-2f * (i % 7);
  for (int i = 0; i < G; ++i)
    bias[i] = 0.1f;
  double best = 1e9;
  for (int round = 0; round < 200; ++round) {
    memset(h, 0, U * 4);
    double start = now();
    if (!overlapped) {
      for (int r0 = 0; r0 < T; r0 += 8)
        projectionBlock(r0, 0, G / 16);
      for (int t = 0; t < T; ++t) {
        for (int g = 0; g < GROUPS; ++g)
          group(t, g, -1, 0);
        cell();
      }
    } else {
      projectionBlock(0, 0, G / 16);
      for (int t = 0; t < T; ++t) {
        int next = 8 * (t / 8 + 1), first = (t % 8) * STEP_VECTORS;
        for (int g = 0; g < GROUPS; ++g)
          group(t, g, next < T ? next : -1, (first + g) * 16);
        cell();
      }
    }
    double elapsed = now() - start;
    if (elapsed < best)
      best = elapsed;
  }
  double check = 0;
  for (int i = 0; i < T * G; ++i)
    check += P[i];
  for (int i = 0; i < U; ++i)
    check += h[i];
  printf("LSTM(%d) on %d features, batch 1, %s: %.1f us (check %.17g)\n", U, F,
         overlapped ? "overlapped" : "projection first", best * 1e6, check);
  return 0;
}

/* Read bandwidth of one core from a buffer of BYTES (default 1 MiB, the
 * recurrent kernel of an LSTM(256)) that stays in its cache: the buffer is
 * summed with 512-bit loads into 8 independent accumulators, over and over.
 * Prints GB/s (the best of 5 repetitions). The floor of a batch-1 LSTM step,
 * which reads its recurrent kernel once, is that kernel's bytes / this.
 *   l2_bandwidth [BYTES]     (built by run_lstm_bench.py with -O2 -mavx512f) */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (1u << 20);
  size_t n = bytes / sizeof(float) / 128 * 128;
  float *buffer = aligned_alloc(64, n * sizeof(float));
  if (!buffer || n == 0)
    return 1;
  for (size_t i = 0; i < n; ++i)
    buffer[i] = (float)(i & 7);
  __m512 acc[8];
  for (int j = 0; j < 8; ++j)
    acc[j] = _mm512_setzero_ps();
  double best = 0;
  long passes = (long)(4e9 / (double)(n * sizeof(float))) + 1;
  for (int rep = 0; rep < 5; ++rep) {
    double t0 = now();
    for (long p = 0; p < passes; ++p)
      for (size_t i = 0; i < n; i += 128)
        for (int j = 0; j < 8; ++j)
          acc[j] = _mm512_add_ps(acc[j], _mm512_load_ps(buffer + i + 16 * j));
    double gbps = (double)passes * n * sizeof(float) / (now() - t0) / 1e9;
    if (gbps > best)
      best = gbps;
  }
  float sink = 0;
  for (int j = 0; j < 8; ++j)
    sink += _mm512_reduce_add_ps(acc[j]);
  printf("%.1f\n", best);
  free(buffer);
  return sink == 12345.0f;
}

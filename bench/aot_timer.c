/* Latency of a seqc AOT library: one instance, one random input, repeated
 * seqc_model_run until MIN_SECONDS have passed. Prints a JSON line with the
 * median and the 10th/90th percentiles in microseconds.
 *   aot_timer BATCH SEQ_LEN MIN_SECONDS   (built against the model's header) */
#include SEQC_MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 4)
    return fprintf(stderr, "usage: aot_timer BATCH SEQ_LEN MIN_SECONDS\n"), 2;
  long long batch = atoll(argv[1]), seqLen = atoll(argv[2]);
  double minSeconds = atof(argv[3]);
  seqc_model *m = seqc_model_create_sized(batch, seqLen > 0 ? seqLen : 1);
  if (!m)
    return fprintf(stderr, "aot_timer: create failed\n"), 1;
  long long in = seqc_model_input_size(m, batch, seqLen);
  long long out = seqc_model_output_size(m, batch, seqLen);
  float *x = malloc(sizeof(float) * (in > 0 ? in : 1));
  float *y = malloc(sizeof(float) * (out > 0 ? out : 1));
  if (in < 0 || out < 0 || !x || !y)
    return fprintf(stderr, "aot_timer: bad shape\n"), 1;
  srand(42);
  for (long long i = 0; i < in; ++i)
    x[i] = (float)rand() / RAND_MAX * 2 - 1;
  if (seqc_model_run(m, x, batch, seqLen, y) != SEQC_OK)
    return fprintf(stderr, "aot_timer: %s\n", seqc_last_error(m)), 1;
  enum { kMaxSamples = 200000 };
  static double samples[kMaxSamples];
  int n = 0;
  double start = now_us();
  while (n < kMaxSamples && now_us() - start < minSeconds * 1e6) {
    double t0 = now_us();
    seqc_model_run(m, x, batch, seqLen, y);
    samples[n++] = now_us() - t0;
  }
  qsort(samples, n, sizeof samples[0], by_value);
  printf("{\"engine\":\"aot\",\"batch\":%lld,\"seq_len\":%lld,\"iterations\":%d,"
         "\"median_us\":%.3f,\"p10_us\":%.3f,\"p90_us\":%.3f}\n",
         batch, seqLen, n, samples[n / 2], samples[n / 10], samples[n * 9 / 10]);
  seqc_model_destroy(m);
  free(x);
  free(y);
  return 0;
}

/* Eight threads, each with its own instance, run the same inputs many
 * times; every result must be bit-identical to a single-threaded run.
 *   threads  (linked with a seqc library for seed_build_dynamic) */
#include SEQC_MODEL_HEADER

#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { kThreads = 8, kRuns = 200, kBatch = 4, kSeq = 15, kFeatures = 12 };

static float input[kBatch * kSeq * kFeatures];
static float reference[kBatch];
static int mismatches[kThreads];

static void *work(void *arg) {
  int t = (int)(long)arg;
  seqc_model *m = seqc_model_create_sized(kBatch, kSeq);
  if (!m) {
    mismatches[t] = -1;
    return NULL;
  }
  float out[kBatch];
  for (int i = 0; i < kRuns; ++i) {
    if (seqc_model_run(m, input, kBatch, kSeq, out) != SEQC_OK ||
        memcmp(out, reference, sizeof out) != 0)
      ++mismatches[t];
  }
  seqc_model_destroy(m);
  return NULL;
}

int main(void) {
  for (int i = 0; i < kBatch * kSeq * kFeatures; ++i)
    input[i] = (float)((i * 53 % 97) - 48) / 48.0f;
  seqc_model *m = seqc_model_create_sized(kBatch, kSeq);
  if (!m || seqc_model_run(m, input, kBatch, kSeq, reference) != SEQC_OK)
    return fprintf(stderr, "reference run failed\n"), 1;
  seqc_model_destroy(m);
  pthread_t threads[kThreads];
  for (long t = 0; t < kThreads; ++t)
    pthread_create(&threads[t], NULL, work, (void *)t);
  int bad = 0;
  for (int t = 0; t < kThreads; ++t) {
    pthread_join(threads[t], NULL);
    bad += mismatches[t] != 0;
  }
  printf("%d threads x %d runs: %s\n", kThreads, kRuns,
         bad ? "MISMATCH" : "identical to the single-threaded result");
  return bad != 0;
}

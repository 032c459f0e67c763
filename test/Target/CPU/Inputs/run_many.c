/* Creates an instance, runs it N times (argv[1]) with varying shapes and
 * destroys it: the workload for valgrind / LeakSanitizer. With THREADS, the
 * instance is seqc_model_create_threaded's (its threads stopped by destroy).
 *   run_many N [THREADS]  (linked with a seqc library for seed_build_dynamic) */
#include SEQC_MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>

enum { kMaxBatch = 4, kMaxSeq = 12, kFeatures = 12 };

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 200;
  static float input[kMaxBatch * kMaxSeq * kFeatures];
  float output[kMaxBatch];
  for (int i = 0; i < kMaxBatch * kMaxSeq * kFeatures; ++i)
    input[i] = (float)(i % 17) / 17.0f - 0.5f;
  seqc_model *m = argc > 2 ? seqc_model_create_threaded(kMaxBatch, kMaxSeq, atoi(argv[2]))
                           : seqc_model_create_sized(kMaxBatch, kMaxSeq);
  if (!m)
    return 1;
  int failures = 0;
  for (int i = 0; i < runs; ++i)
    failures += seqc_model_run(m, input, 1 + i % kMaxBatch, 1 + i % kMaxSeq,
                               output) != SEQC_OK;
  seqc_model_destroy(m);
  printf("%d runs, %d failed\n", runs, failures);
  return failures != 0;
}

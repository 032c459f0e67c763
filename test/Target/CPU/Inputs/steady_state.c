/* Proves that seqc_model_run allocates nothing and that memory does not grow:
 * counts every malloc-family call made during 1000 runs (this program
 * defines malloc & co., which the library's calls bind to, and forwards to
 * glibc), then runs 10,000 more and compares the resident set size from
 * /proc/self/statm. Batch and sequence length vary below the instance's
 * bounds. Prints one line per check; exit code 1 if either fails.
 * With THREADS, the instance is seqc_model_create_threaded's with that
 * many threads (its workers wait on a condition variable, allocating
 * nothing either).
 *   steady_state [THREADS]  (linked with a seqc library for seed_build_dynamic) */
#define _GNU_SOURCE
#include SEQC_MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static volatile long allocations;

void *malloc(size_t n) { ++allocations; return __libc_malloc(n); }
void *calloc(size_t c, size_t n) { ++allocations; return __libc_calloc(c, n); }
void *realloc(void *p, size_t n) { ++allocations; return __libc_realloc(p, n); }
void *aligned_alloc(size_t a, size_t n) { ++allocations; return __libc_memalign(a, n); }
void *memalign(size_t a, size_t n) { ++allocations; return __libc_memalign(a, n); }
int posix_memalign(void **p, size_t a, size_t n) {
  ++allocations;
  *p = __libc_memalign(a, n);
  return *p ? 0 : 12;
}
void free(void *p) { __libc_free(p); }

static long resident_pages(void) {
  char buf[128] = {0};
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, resident = -1;
  if (f && fgets(buf, sizeof buf, f))
    sscanf(buf, "%ld %ld", &size, &resident);
  if (f)
    fclose(f);
  return resident;
}

enum { kMaxBatch = 8, kMaxSeq = 20, kFeatures = 12 };

int main(int argc, char **argv) {
  static float input[kMaxBatch * kMaxSeq * kFeatures];
  static float output[kMaxBatch * 64];
  for (int i = 0; i < kMaxBatch * kMaxSeq * kFeatures; ++i)
    input[i] = (float)((i * 37 % 101) - 50) / 50.0f;
  seqc_model *m = argc > 1 ? seqc_model_create_threaded(kMaxBatch, kMaxSeq, atoi(argv[1]))
                           : seqc_model_create_sized(kMaxBatch, kMaxSeq);
  if (!m)
    return fprintf(stderr, "create failed\n"), 1;
  int failures = 0;
  /* Warm up: every shape once, so that each code path has been paged in. */
  for (int i = 0; i < kMaxBatch * kMaxSeq; ++i)
    failures += seqc_model_run(m, input, 1 + i % kMaxBatch, 1 + i / kMaxBatch,
                               output) != SEQC_OK;
  long before = allocations;
  for (int i = 0; i < 1000; ++i)
    failures += seqc_model_run(m, input, 1 + i % kMaxBatch, 1 + i % kMaxSeq,
                               output) != SEQC_OK;
  long during = allocations - before;
  /* The first call pages in the code of fopen/sscanf/fclose itself. */
  resident_pages();
  long rssBefore = resident_pages();
  for (int i = 0; i < 10000; ++i)
    failures += seqc_model_run(m, input, 1 + i % kMaxBatch, 1 + i % kMaxSeq,
                               output) != SEQC_OK;
  long rssAfter = resident_pages();
  if (argc > 1)
    printf("threads: %d\n", seqc_model_threads(m));
  seqc_model_destroy(m);
  printf("failed runs: %d\n", failures);
  printf("allocations during 1000 runs: %ld\n", during);
  printf("resident set growth over 10000 runs: %ld pages\n", rssAfter - rssBefore);
  return failures || during || rssAfter != rssBefore;
}

/* Which code of a portable seqc library runs on this CPU (see
 * lib/Target/CPU/AotCompiler.cpp): a portable library holds the model
 * compiled for x86-64-v3 (AVX2, FMA) and for x86-64-v4 (AVX-512), and its
 * seqc_model_predict calls seqc_cpu_has_avx512() to pick one. The answer is
 * the CPU's (and the operating system's: AVX-512 state enabled), asked once;
 * SEQC_CPU=x86-64-v3 in the environment forces the AVX2 code. */
#include <stdlib.h>
#include <string.h>

#define SEQC_HIDDEN __attribute__((visibility("hidden")))

static int detect(void) {
  const char *forced = getenv("SEQC_CPU");
  if (forced && strcmp(forced, "x86-64-v3") == 0)
    return 0;
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
#else
  return 0;
#endif
}

SEQC_HIDDEN int seqc_cpu_has_avx512(void) {
  /* -1: not asked yet. Threads that race here all store the same answer. */
  static int answer = -1;
  int known = __atomic_load_n(&answer, __ATOMIC_RELAXED);
  if (known < 0) {
    known = detect();
    __atomic_store_n(&answer, known, __ATOMIC_RELAXED);
  }
  return known;
}

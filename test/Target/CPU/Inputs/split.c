/* Splitting a call's batch across an instance's threads
 * (seqc_model_create_threaded): for any stateless model (every input and
 * output with the batch as axis 0), every batch in 0, 1, 2, 3, 7 and the
 * instance's bound (a stateful model: its own batch) gives, with 2 and 3 threads and with one per core,
 * output bitwise identical to one thread's; with BAD_ROW >= 0, an
 * out-of-range id at row 0 and at that row (an Embedding model; the two in
 * different chunks) fail the call as on one thread (the count over all
 * rows), and the next call succeeds.
 *   split ids|floats MAX_BATCH SEQ_LEN BAD_ROW   (linked with a seqc library)
 * Prints one line per check; exit code 1 if any fails. */
#define _POSIX_C_SOURCE 200809L
#include SEQC_MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kMaxPorts = 16 };

static int64_t seq_lens[kMaxPorts];
static float *inputs[kMaxPorts], *outputs[kMaxPorts], *expected[kMaxPorts];
static int64_t out_floats[kMaxPorts];

/* Runs `batch` rows on `m` into outputs[]; SEQC_OK or the error code. */
static int run(seqc_model *m, int64_t batch) {
  seqc_model_reset_state(m); /* a stateful model's calls start alike */
  for (int k = 0; k < seqc_model_output_count(); ++k) {
    out_floats[k] = seqc_model_output_size_of(m, k, batch, seq_lens);
    memset(outputs[k], 0xff, (size_t)(out_floats[k] > 0 ? out_floats[k] : 0) * sizeof(float));
  }
  return seqc_model_run_all(m, (const float *const *)inputs, batch, seq_lens,
                            outputs);
}

int main(int argc, char **argv) {
  if (argc != 5)
    return fprintf(stderr, "usage: split ids|floats MAX_BATCH SEQ_LEN BAD_ROW\n"), 2;
  int ids = strcmp(argv[1], "ids") == 0;
  int64_t max_batch = atoll(argv[2]), seq_len = atoll(argv[3]);
  int64_t bad_row = atoll(argv[4]);
  int failures = 0;
  seqc_model *one = seqc_model_create_threaded(max_batch, seq_len, 1);
  if (!one)
    return fprintf(stderr, "create: %s\n", seqc_last_error(NULL)), 1;
  max_batch = seqc_model_max_batch(one); /* a stateful model's own */
  for (int k = 0; k < seqc_model_input_count(); ++k) {
    int dynamic = seqc_model_input_rank_of(k) >= 2 && seqc_model_input_dim_of(k, 1) < 0;
    seq_lens[k] = dynamic ? seq_len : 0;
    int64_t n = seqc_model_input_size_of(one, k, max_batch, seq_lens[k]);
    inputs[k] = malloc((size_t)n * sizeof(float));
    unsigned state = 12345u + 77u * (unsigned)k;
    for (int64_t i = 0; i < n; ++i) {
      state = state * 1664525u + 1013904223u;
      inputs[k][i] = ids ? (float)(state >> 29) /* 0..7 */
                         : (float)((int)(state >> 9) % 2001 - 1000) / 1000.0f;
    }
  }
  for (int k = 0; k < seqc_model_output_count(); ++k) {
    int64_t n = seqc_model_output_size_of(one, k, max_batch, seq_lens);
    outputs[k] = malloc((size_t)n * sizeof(float) + 1);
    expected[k] = malloc((size_t)n * sizeof(float) + 1);
  }
  int64_t batches[] = {0, 1, 2, 3, 7, max_batch};
  int threads[] = {2, 3, 0};
  for (int t = 0; t < 3; ++t) {
    seqc_model *m = seqc_model_create_threaded(max_batch, seq_len, threads[t]);
    if (!m) {
      printf("threads %d: create failed: %s\n", threads[t], seqc_last_error(NULL));
      ++failures;
      continue;
    }
    int same = 1, errors = 0;
    for (int b = 0; b < 6; ++b) {
      int64_t batch = batches[b];
      if (batch > max_batch ||
          (seqc_model_state_size() > 0 && batch != 0 && batch != max_batch))
        continue;
      errors += run(one, batch) != SEQC_OK;
      for (int k = 0; k < seqc_model_output_count(); ++k)
        memcpy(expected[k], outputs[k], (size_t)out_floats[k] * sizeof(float));
      errors += run(m, batch) != SEQC_OK;
      for (int k = 0; k < seqc_model_output_count(); ++k)
        same &= memcmp(expected[k], outputs[k], (size_t)out_floats[k] * sizeof(float)) == 0;
    }
    char name[16] = "auto";
    if (threads[t])
      snprintf(name, sizeof name, "%d", threads[t]);
    printf("threads %s: %s%s\n", name,
           same && !errors ? "bitwise identical to 1 thread" : "DIFFERENT",
           errors ? " (a run failed)" : "");
    if (threads[t])
      printf("  pool of %d\n", seqc_model_threads(m));
    failures += !same || errors;
    if (bad_row >= 0 && bad_row < max_batch) {
      /* The first id of rows 0 and bad_row out of range. */
      int64_t row = seqc_model_input_size_of(one, 0, 1, seq_lens[0]);
      float saved = inputs[0][bad_row * row], saved0 = inputs[0][0];
      inputs[0][bad_row * row] = 1000;
      inputs[0][0] = -1;
      int rc = run(m, max_batch);
      char message[512];
      snprintf(message, sizeof message, "%s", seqc_last_error(m));
      int rc1 = run(one, max_batch);
      int same_error = rc == rc1 && strcmp(message, seqc_last_error(one)) == 0;
      printf("  bad id at row %lld: %d %s%s\n", (long long)bad_row, rc, message,
             same_error ? "" : " (NOT as on 1 thread)");
      failures += !same_error || rc != SEQC_ERROR_INPUT;
      inputs[0][bad_row * row] = saved;
      inputs[0][0] = saved0;
      rc = run(m, max_batch);
      printf("  next call: %d \"%s\"\n", rc, seqc_last_error(m));
      failures += rc != SEQC_OK;
    }
    if (threads[t] == 2) {
      /* A forked child has none of the pool's threads: its calls run on
       * the calling thread (no hang), and so does its destroy. */
      fflush(stdout);
      pid_t child = fork();
      if (child == 0) {
        int rc = run(m, max_batch);
        seqc_model_destroy(m);
        _exit(rc);
      }
      int status = -1;
      waitpid(child, &status, 0);
      printf("  forked child: %s\n",
             WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ran" : "FAILED");
      failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    seqc_model_destroy(m);
  }
  seqc_model_destroy(one);
  printf("failures: %d\n", failures);
  return failures != 0;
}

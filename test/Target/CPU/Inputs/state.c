/* Exercises the state API of a library built from stateful_lstm_keras3
 * (fixed batch 2, input (2, 4, 3), LSTM(5) -> LSTM(4) -> Dense(2)). */
#include SEQC_MODEL_HEADER

#include <stdio.h>
#include <string.h>

enum { kIn = 2 * 4 * 3, kOut = 2 * 2 };

static const char *same(const float *a, const float *b, int n) {
  return memcmp(a, b, n * sizeof(float)) == 0 ? "same" : "different";
}

int main(void) {
  int64_t size = seqc_model_state_size();
  printf("state: %lld floats in %d slots\n", (long long)size, seqc_model_state_count());
  for (int i = 0; i < seqc_model_state_count(); ++i)
    printf("slot %d: %s at %lld\n", i, seqc_model_state_layer(i),
           (long long)seqc_model_state_offset(i));
  printf("end at %lld\n", (long long)seqc_model_state_offset(seqc_model_state_count()));
  seqc_model *m = seqc_model_create();
  if (!m)
    return 1;
  printf("batch bound: %lld\n", (long long)seqc_model_max_batch(m));
  float x[kIn], y1[kOut], y2[kOut], y3[kOut], y4[kOut], y5[kOut];
  for (int i = 0; i < kIn; ++i)
    x[i] = (float)((i * 7) % 11) / 11.0f - 0.5f;
  float state[64], zeros[64] = {0};
  seqc_model_get_state(m, state);
  printf("new instance: %s state\n", memcmp(state, zeros, size * sizeof(float)) ? "nonzero" : "zero");
  printf("run: %d\n", seqc_model_run(m, x, 2, 4, y1));
  printf("run: %d\n", seqc_model_run(m, x, 2, 0, y2));
  printf("the same input again: %s output\n", same(y1, y2, kOut));
  printf("reset: %d\n", seqc_model_reset_state(m));
  seqc_model_run(m, x, 2, 4, y3);
  printf("after reset: %s output as the first call\n", same(y1, y3, kOut));
  seqc_model_get_state(m, state);
  seqc_model_run(m, x, 2, 4, y4);
  printf("set: %d\n", seqc_model_set_state(m, state));
  seqc_model_run(m, x, 2, 4, y5);
  printf("after set: %s output as from that state\n", same(y4, y5, kOut));
  float before[64], after[64];
  seqc_model_get_state(m, before);
  int rc = seqc_model_run(m, x, 1, 4, y5);
  printf("batch 1: %d %s\n", rc, seqc_last_error(m));
  printf("output size for batch 1: %lld\n", (long long)seqc_model_output_size(m, 1, 4));
  rc = seqc_model_set_state(m, NULL);
  printf("null state: %d %s\n", rc, seqc_last_error(m));
  seqc_model_get_state(m, after);
  printf("failed calls keep the state: %s\n", same(before, after, (int)size));
  seqc_model_destroy(m);
  return 0;
}

/* Exercises the C API of a library built from embedding_lstm (ids (?, 5),
 * vocabulary 10, output (?, 2)). */
#include SEQC_MODEL_HEADER

#include <stdio.h>

int main(void) {
  printf("input rank %d: %lld %lld\n", seqc_model_input_rank(),
         (long long)seqc_model_input_dim(0), (long long)seqc_model_input_dim(1));
  printf("output rank %d: %lld %lld\n", seqc_model_output_rank(),
         (long long)seqc_model_output_dim(0), (long long)seqc_model_output_dim(1));
  seqc_model *m = seqc_model_create_sized(3, 0);
  if (!m)
    return 1;
  printf("bounds: batch %lld, seq_len %lld\n", (long long)seqc_model_max_batch(m),
         (long long)seqc_model_max_seq_len(m));
  printf("metadata: %s\n", seqc_model_metadata_json());
  float ids[4 * 5] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 1, 2, 2, 3};
  float out[4 * 2];
  printf("run: %d\n", seqc_model_run(m, ids, 3, 5, out));
  printf("sizes: in %lld, out %lld\n", (long long)seqc_model_input_size(m, 3, 0),
         (long long)seqc_model_output_size(m, 3, 0));
  int rc = seqc_model_run(m, ids, 4, 5, out);
  printf("too large a batch: %d %s\n", rc, seqc_last_error(m));
  rc = seqc_model_run(m, ids, 1, 6, out);
  printf("wrong seq_len: %d %s\n", rc, seqc_last_error(m));
  printf("null input: %d\n", seqc_model_run(m, 0, 1, 5, out));
  ids[3] = 10;
  rc = seqc_model_run(m, ids, 1, 5, out);
  printf("bad id: %d %s\n", rc, seqc_last_error(m));
  ids[3] = 4;
  rc = seqc_model_run(m, ids, 1, 5, out);
  printf("run after an error: %d \"%s\"\n", rc, seqc_last_error(m));
  seqc_model_destroy(m);
  return 0;
}

/* Prints the working memory of a library made by seq-compile, created for
 * max_batch rows (argv[1]), and checks that a call at that batch runs. */
#include SEQC_MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int64_t batch = argc > 1 ? atoll(argv[1]) : 1;
  seqc_model *m = seqc_model_create_sized(batch, 0);
  if (!m) {
    fprintf(stderr, "create failed: %s\n", seqc_last_error(NULL));
    return 1;
  }
  float *x = calloc((size_t)seqc_model_input_size(m, batch, 0), sizeof(float));
  float *y = calloc((size_t)seqc_model_output_size(m, batch, 0), sizeof(float));
  int rc = seqc_model_run(m, x, batch, 0, y);
  printf("run: %s\n", rc == SEQC_OK ? "ok" : seqc_last_error(m));
  printf("working memory: %.2f MiB\n", seqc_model_working_bytes(m) / 1048576.0);
  seqc_model_destroy(m);
  free(x);
  free(y);
  return rc;
}

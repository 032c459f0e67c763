/* Prints what a library built from a hostile model (Inputs/hostile.mlir)
 * returns: its metadata bytes exactly, a run, and create with absurd bounds,
 * which must fail cleanly (NULL, an error message), never crash. */
#include SEQC_MODEL_HEADER

#include <stdio.h>
#include <string.h>

int main(void) {
  const char *json = seqc_model_metadata_json();
  fwrite(json, 1, strlen(json), stdout);
  printf("\n");
  seqc_model *m = seqc_model_create();
  float x[8] = {-1, 2, -3, 4, 5, -6, 7, -8}, y[8];
  int rc = m ? seqc_model_run(m, x, 2, 0, y) : -1;
  printf("run: %d %g %g %g %g\n", rc, y[0], y[1], y[2], y[3]);
  seqc_model_destroy(m);
  /* max_batch * 4 floats * 4 bytes overflows int64 (and size_t). */
  seqc_model *huge = seqc_model_create_sized(1LL << 62, 0);
  printf("create_sized(2^62): %s: %s\n", huge ? "an instance" : "NULL",
         seqc_last_error(NULL));
  seqc_model_destroy(huge);
  huge = seqc_model_create_sized(1LL << 40, 0);
  printf("create_sized(2^40): %s: %s\n", huge ? "an instance" : "NULL",
         seqc_last_error(NULL));
  seqc_model_destroy(huge);
  return 0;
}

/* Runs a library of a model with several inputs and outputs through
 * seqc_model_run_all: argv = in_0.npy ... in_k.npy out_dir. Prints the
 * ports by name and shape, writes each output as out_dir/<name>.npy, and
 * checks that seqc_model_run refuses the model. */
#include SEQC_MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A float32 C-order .npy: its data and shape (rank <= 8). */
static float *read_npy(const char *path, int64_t *shape, int *rank) {
  FILE *f = fopen(path, "rb");
  unsigned char head[10];
  if (!f || fread(head, 1, 10, f) != 10)
    return NULL;
  size_t len = head[8] | (head[9] << 8);
  char *dict = calloc(len + 1, 1);
  if (fread(dict, 1, len, f) != len)
    return NULL;
  char *p = strstr(dict, "'shape': (") + 10;
  int64_t count = 1;
  *rank = 0;
  while (*p != ')') {
    shape[(*rank)++] = strtoll(p, &p, 10);
    count *= shape[*rank - 1];
    while (*p == ',' || *p == ' ')
      ++p;
  }
  free(dict);
  float *data = malloc((size_t)count * sizeof(float) + 1);
  if (fread(data, sizeof(float), (size_t)count, f) != (size_t)count)
    return NULL;
  fclose(f);
  return data;
}

static void write_npy(const char *path, const float *data, const int64_t *shape,
                      int rank) {
  char dict[128], shape_text[96] = "";
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    char dim[24];
    snprintf(dim, sizeof dim, "%lld,%s", (long long)shape[i], i + 1 < rank ? " " : "");
    strcat(shape_text, dim);
    count *= shape[i];
  }
  int n = snprintf(dict, sizeof dict,
                   "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }", shape_text);
  int total = 10 + n + 1, pad = (64 - total % 64) % 64;
  FILE *f = fopen(path, "wb");
  unsigned short len = (unsigned short)(n + pad + 1);
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  fputc(len & 0xff, f);
  fputc(len >> 8, f);
  fwrite(dict, 1, (size_t)n, f);
  for (int i = 0; i < pad; ++i)
    fputc(' ', f);
  fputc('\n', f);
  fwrite(data, sizeof(float), (size_t)count, f);
  fclose(f);
}

int main(int argc, char **argv) {
  int inputs = seqc_model_input_count(), outputs = seqc_model_output_count();
  if (argc != inputs + 2)
    return 2;
  printf("%d inputs, %d outputs\n", inputs, outputs);
  const float *in[16];
  int64_t seq_lens[16], batch = 0;
  for (int k = 0; k < inputs; ++k) {
    int64_t shape[8];
    int rank;
    in[k] = read_npy(argv[1 + k], shape, &rank);
    batch = shape[0];
    seq_lens[k] = rank >= 2 ? shape[1] : 0;
    printf("input %d: %s rank %d, axis 1 %lld\n", k, seqc_model_input_name(k),
           seqc_model_input_rank_of(k), (long long)seqc_model_input_dim_of(k, 1));
  }
  seqc_model *m = seqc_model_create();
  if (!m)
    return 3;
  float *out[16];
  int64_t sizes[16];
  for (int k = 0; k < outputs; ++k) {
    sizes[k] = seqc_model_output_size_of(m, k, batch, seq_lens);
    out[k] = malloc((size_t)sizes[k] * sizeof(float));
    printf("output %d: %s, %lld floats\n", k, seqc_model_output_name(k), (long long)sizes[k]);
  }
  printf("names out of range: %s %s\n", seqc_model_input_name(inputs) ? "set" : "NULL",
         seqc_model_output_name(-1) ? "set" : "NULL");
  int rc = seqc_model_run_all(m, in, batch, seq_lens, out);
  printf("run_all: %d %s\n", rc, seqc_last_error(m));
  for (int k = 0; k < outputs; ++k) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.npy", argv[argc - 1], seqc_model_output_name(k));
    int64_t shape[8];
    int rank = seqc_model_output_rank_of(k);
    if (seqc_model_output_shape_of(m, k, batch, seq_lens, shape) != SEQC_OK)
      return 4;
    write_npy(path, out[k], shape, rank);
  }
  /* A time axis past the instance's bound is refused, naming the input. */
  int64_t too_long[16];
  memcpy(too_long, seq_lens, sizeof too_long);
  too_long[inputs - 1] = seqc_model_max_seq_len(m) + 1;
  rc = seqc_model_run_all(m, in, batch, too_long, out);
  printf("too long: %d %s\n", rc, seqc_last_error(m));
  rc = seqc_model_run(m, in[0], batch, seq_lens[0], out[0]);
  printf("run: %d %s\n", rc, seqc_last_error(m));
  seqc_model_destroy(m);
  return 0;
}

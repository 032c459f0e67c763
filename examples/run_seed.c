/* Runs the seed model, compiled ahead of time by seqc, on an .npy input and
 * prints its outputs (and writes them to an .npy file when asked).
 *
 *   seq-compile test/fixtures/seed_build.h5 -o libseed.so   # + libseed.h
 *   cc -std=c11 -I. examples/run_seed.c -L. -lseed -Wl,-rpath,"$PWD" -o run_seed
 *   ./run_seed test/fixtures/seed_build.input.npy [outputs.npy]
 *
 * Any model works: compile with -DSEQC_MODEL_HEADER='"libother.h"'. The
 * input must be a float32, C-order .npy whose shape fits the model. */
#ifndef SEQC_MODEL_HEADER
#define SEQC_MODEL_HEADER "libseed.h"
#endif
#include SEQC_MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxRank = 8 };

typedef struct {
  int rank;
  int64_t shape[kMaxRank];
  float *data;
} Array;

static int64_t elements(const Array *a) {
  int64_t n = 1;
  for (int i = 0; i < a->rank; ++i)
    n *= a->shape[i];
  return n;
}

/* Reads a little-endian float32 C-order .npy (format version 1, 2 or 3). */
static int read_npy(const char *path, Array *a) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return fprintf(stderr, "run_seed: cannot open %s\n", path), -1;
  unsigned char magic[8];
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return fprintf(stderr, "run_seed: %s is not an .npy file\n", path), -1;
  }
  unsigned char len[4] = {0};
  size_t lenBytes = magic[6] == 1 ? 2 : 4;
  if (fread(len, 1, lenBytes, f) != lenBytes) {
    fclose(f);
    return -1;
  }
  size_t headerLen = len[0] | len[1] << 8 | (size_t)len[2] << 16 | (size_t)len[3] << 24;
  char *header = (char *)calloc(headerLen + 1, 1);
  if (!header || fread(header, 1, headerLen, f) != headerLen) {
    free(header);
    fclose(f);
    return -1;
  }
  int ok = strstr(header, "'descr': '<f4'") && strstr(header, "'fortran_order': False");
  const char *shape = strstr(header, "'shape': (");
  a->rank = 0;
  if (ok && shape) {
    const char *p = shape + strlen("'shape': (");
    while (*p && *p != ')' && a->rank < kMaxRank) {
      char *end;
      long long v = strtoll(p, &end, 10);
      if (end == p)
        break;
      a->shape[a->rank++] = v;
      p = end;
      while (*p == ',' || *p == ' ')
        ++p;
    }
  }
  free(header);
  if (!ok || !shape) {
    fclose(f);
    return fprintf(stderr, "run_seed: %s must be float32 in C order\n", path), -1;
  }
  int64_t n = elements(a);
  a->data = (float *)malloc((size_t)(n ? n : 1) * sizeof(float));
  size_t got = a->data ? fread(a->data, sizeof(float), (size_t)n, f) : 0;
  fclose(f);
  if (got != (size_t)n)
    return fprintf(stderr, "run_seed: %s is truncated\n", path), -1;
  return 0;
}

static int write_npy(const char *path, const Array *a) {
  char header[256];
  int pos = snprintf(header, sizeof header,
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (");
  for (int i = 0; i < a->rank; ++i)
    pos += snprintf(header + pos, sizeof header - pos, "%lld%s",
                    (long long)a->shape[i], a->rank == 1 || i + 1 < a->rank ? ", " : "");
  pos += snprintf(header + pos, sizeof header - pos, "), }");
  /* Magic (6) + version (2) + length (2) + header + '\n', padded to 64. */
  int total = (10 + pos + 1 + 63) / 64 * 64;
  while (10 + pos + 1 < total)
    header[pos++] = ' ';
  header[pos++] = '\n';
  FILE *f = fopen(path, "wb");
  if (!f)
    return fprintf(stderr, "run_seed: cannot write %s\n", path), -1;
  unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                              (unsigned char)(pos & 0xff), (unsigned char)(pos >> 8)};
  int ok = fwrite(prefix, 1, 10, f) == 10 && fwrite(header, 1, pos, f) == (size_t)pos &&
           fwrite(a->data, sizeof(float), (size_t)elements(a), f) == (size_t)elements(a);
  return fclose(f) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s input.npy [outputs.npy]\n", argv[0]);
    return 2;
  }
  Array x;
  if (read_npy(argv[1], &x) != 0)
    return 1;
  if (x.rank != seqc_model_input_rank()) {
    fprintf(stderr, "run_seed: the input has rank %d, the model takes %d\n",
            x.rank, seqc_model_input_rank());
    return 1;
  }
  int64_t batch = x.shape[0];
  int64_t seqLen = x.rank >= 2 ? x.shape[1] : 0;
  seqc_model *model = seqc_model_create_sized(batch, seqLen > 0 ? seqLen : 1);
  if (!model)
    return fprintf(stderr, "run_seed: cannot create the model\n"), 1;

  Array y = {seqc_model_output_rank(), {0}, NULL};
  int64_t size = seqc_model_output_size(model, batch, seqLen);
  y.data = (float *)malloc((size_t)(size > 0 ? size : 1) * sizeof(float));
  if (size < 0 || !y.data ||
      seqc_model_run(model, x.data, batch, seqLen, y.data) != SEQC_OK) {
    fprintf(stderr, "run_seed: %s\n", seqc_last_error(model));
    return 1;
  }
  int64_t known = 1;
  for (int i = 0; i < y.rank; ++i) {
    y.shape[i] = seqc_model_output_dim(i);
    if (i > 0 && y.shape[i] > 0)
      known *= y.shape[i];
  }
  y.shape[0] = batch;
  for (int i = 1; i < y.rank; ++i)
    if (y.shape[i] < 0) /* a dynamic time axis */
      y.shape[i] = batch ? size / (batch * known) : 0;

  int64_t row = batch ? size / batch : 0;
  for (int64_t b = 0; b < batch; ++b) {
    printf("sample %lld:", (long long)b);
    for (int64_t j = 0; j < row; ++j)
      printf(" %.6f", y.data[b * row + j]);
    printf("\n");
  }
  int rc = argc == 3 ? (write_npy(argv[2], &y) != 0) : 0;
  seqc_model_destroy(model);
  free(x.data);
  free(y.data);
  return rc;
}

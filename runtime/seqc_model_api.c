/* The C API of a seqc AOT library (declared in the generated header, see
 * seqc_model.h.in). Compiled into every shared library / object together
 * with the model's code and seqc_model_info.h, which seq-compile generates:
 *   SEQC_INPUT_RANK, SEQC_OUTPUT_RANK, seqc_input_dims, seqc_output_dims
 *   (-1 = dynamic), seqc_metadata (JSON), seqc_error_sites,
 *   SEQC_ERROR_SITE_COUNT, SEQC_DEFAULT_MAX_BATCH, SEQC_DEFAULT_MAX_SEQ_LEN. */
#include "seqc_arena.h"
#include "seqc_model_info.h"
#include "seqc_model_public.h" /* the generated header, for its prototypes */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEQC_API __attribute__((visibility("default")))

typedef struct {
  float *allocated, *aligned;
  int64_t offset;
  int64_t sizes[SEQC_INPUT_RANK];
  int64_t strides[SEQC_INPUT_RANK];
} seqc_input_descriptor;

typedef struct {
  float *allocated, *aligned;
  int64_t offset;
  int64_t sizes[SEQC_OUTPUT_RANK];
  int64_t strides[SEQC_OUTPUT_RANK];
} seqc_output_descriptor;

/* The compiled model (llvm.emit_c_interface of func.func @predict). */
void _mlir_ciface_predict(seqc_output_descriptor *result,
                          seqc_input_descriptor *input);

/* What the compiled code calls for memory and runtime errors. */
void *_mlir_memref_to_llvm_alloc(size_t size) { return seqc_arena_alloc(size); }
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  return seqc_arena_aligned_alloc(alignment, size);
}
void _mlir_memref_to_llvm_free(void *ptr) { seqc_arena_free(ptr); }
void seqc_report_error(int32_t site, int64_t count) {
  seqc_arena_report_error(site, count);
}

struct seqc_model {
  seqc_arena arena;
  int64_t max_batch, max_seq_len;
  /* One sample of zeros, for output shape probes of a dynamic time axis. */
  float *probe_input;
  int64_t probe_seq_len;
  int64_t probe_dims[SEQC_OUTPUT_RANK];
  char error[512];
};

static int time_is_dynamic(void) {
  return SEQC_INPUT_RANK >= 2 && seqc_input_dims[1] < 0;
}

static int output_has_dynamic_axis(void) {
  for (int i = 1; i < SEQC_OUTPUT_RANK; ++i)
    if (seqc_output_dims[i] < 0)
      return 1;
  return 0;
}

/* Input sizes for a batch and a resolved seq_len. */
static void input_sizes(int64_t batch, int64_t seq_len,
                        int64_t sizes[SEQC_INPUT_RANK]) {
  for (int i = 0; i < SEQC_INPUT_RANK; ++i)
    sizes[i] = seqc_input_dims[i];
  sizes[0] = batch;
  if (time_is_dynamic())
    sizes[1] = seq_len;
}

static int64_t sample_floats(int64_t seq_len) {
  int64_t sizes[SEQC_INPUT_RANK];
  input_sizes(1, seq_len, sizes);
  int64_t n = 1;
  for (int i = 1; i < SEQC_INPUT_RANK; ++i)
    n *= sizes[i];
  return n;
}

/* The length of input axis 1 for this call, or -1 when it is not allowed. */
static int64_t resolve_seq_len(const seqc_model *m, int64_t seq_len) {
  if (!time_is_dynamic())
    return seq_len == 0 || (SEQC_INPUT_RANK >= 2 && seq_len == seqc_input_dims[1])
               ? (SEQC_INPUT_RANK >= 2 ? seqc_input_dims[1] : 0)
               : -1;
  return seq_len >= 1 && seq_len <= m->max_seq_len ? seq_len : -1;
}

static int fail(seqc_model *m, int code, const char *message) {
  snprintf(m->error, sizeof m->error, "%s", message);
  return code;
}

/* Copies a strided result row-major into `output`. */
static void copy_output(const seqc_output_descriptor *d, float *output) {
  int64_t index[SEQC_OUTPUT_RANK] = {0};
  int64_t total = 1;
  for (int i = 0; i < SEQC_OUTPUT_RANK; ++i)
    total *= d->sizes[i];
  const float *base = d->aligned + d->offset;
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t offset = 0;
    for (int i = 0; i < SEQC_OUTPUT_RANK; ++i)
      offset += index[i] * d->strides[i];
    output[flat] = base[offset];
    for (int i = SEQC_OUTPUT_RANK - 1; i >= 0; --i) {
      if (++index[i] < d->sizes[i])
        break;
      index[i] = 0;
    }
  }
}

/* One call of the compiled model; `output` and `dims` may be NULL. */
static int invoke(seqc_model *m, const float *input, int64_t batch,
                  int64_t seq_len, float *output, int64_t *dims) {
  seqc_input_descriptor in;
  input_sizes(batch, seq_len, in.sizes);
  int64_t stride = 1;
  for (int i = SEQC_INPUT_RANK - 1; i >= 0; --i) {
    in.strides[i] = stride;
    stride *= in.sizes[i];
  }
  in.allocated = in.aligned = (float *)input; /* never written */
  in.offset = 0;
  seqc_output_descriptor out;
  seqc_arena_begin(&m->arena);
  _mlir_ciface_predict(&out, &in);
  int rc = SEQC_OK;
  if (m->arena.error_site >= 0) {
    const char *what = m->arena.error_site < SEQC_ERROR_SITE_COUNT
                           ? seqc_error_sites[m->arena.error_site]
                           : "runtime error";
    snprintf(m->error, sizeof m->error, "%s (%lld values); check the input",
             what, (long long)m->arena.error_count);
    rc = SEQC_ERROR_INPUT;
  } else {
    if (output)
      copy_output(&out, output);
    if (dims)
      memcpy(dims, out.sizes, sizeof out.sizes);
  }
  seqc_arena_end(&m->arena);
  return rc;
}

SEQC_API seqc_model *seqc_model_create_sized(int64_t max_batch,
                                             int64_t max_seq_len) {
  if (max_batch < 1)
    return NULL;
  if (!time_is_dynamic())
    max_seq_len = SEQC_INPUT_RANK >= 2 ? seqc_input_dims[1] : 0;
  else if (max_seq_len < 1)
    return NULL;
  seqc_model *m = (seqc_model *)calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->max_batch = max_batch;
  m->max_seq_len = max_seq_len;
  m->probe_seq_len = -1;
  size_t floats = (size_t)(max_batch * sample_floats(max_seq_len));
  float *zeros = (float *)calloc(floats ? floats : 1, sizeof(float));
  if (output_has_dynamic_axis())
    m->probe_input = (float *)calloc((size_t)sample_floats(max_seq_len) + 1,
                                     sizeof(float));
  if (!zeros || (output_has_dynamic_axis() && !m->probe_input)) {
    free(zeros);
    free(m->probe_input);
    free(m);
    return NULL;
  }
  /* Sizing run at the largest shape: the arena learns what a call needs.
   * The second run touches the arena's pages, so that calls do not fault. */
  invoke(m, zeros, max_batch, max_seq_len, NULL, NULL);
  int ok = seqc_arena_reserve(&m->arena, m->arena.needed) == 0;
  if (ok)
    invoke(m, zeros, max_batch, max_seq_len, NULL, NULL);
  free(zeros);
  if (!ok) {
    seqc_model_destroy(m);
    return NULL;
  }
  m->error[0] = 0;
  return m;
}

SEQC_API seqc_model *seqc_model_create(void) {
  return seqc_model_create_sized(SEQC_DEFAULT_MAX_BATCH,
                                 SEQC_DEFAULT_MAX_SEQ_LEN);
}

SEQC_API void seqc_model_destroy(seqc_model *m) {
  if (!m)
    return;
  seqc_arena_release(&m->arena);
  free(m->probe_input);
  free(m);
}

SEQC_API int seqc_model_run(seqc_model *m, const float *input, int64_t batch,
                            int64_t seq_len, float *output) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  /* An empty batch touches no data, so its pointers may be NULL. */
  if (batch != 0 && (!input || !output))
    return fail(m, SEQC_ERROR_ARGUMENT, "seqc_model_run: input and output "
                                        "must not be NULL");
  if (batch < 0 || batch > m->max_batch) {
    snprintf(m->error, sizeof m->error,
             "seqc_model_run: batch %lld is outside [0, %lld] of this "
             "instance (seqc_model_create_sized sets the bound)",
             (long long)batch, (long long)m->max_batch);
    return SEQC_ERROR_SHAPE;
  }
  int64_t length = resolve_seq_len(m, seq_len);
  if (length < 0) {
    if (time_is_dynamic())
      snprintf(m->error, sizeof m->error,
               "seqc_model_run: seq_len %lld is outside [1, %lld] of this "
               "instance (seqc_model_create_sized sets the bound)",
               (long long)seq_len, (long long)m->max_seq_len);
    else
      snprintf(m->error, sizeof m->error,
               "seqc_model_run: seq_len %lld does not match the model's fixed "
               "length %lld (pass it or 0)",
               (long long)seq_len,
               (long long)(SEQC_INPUT_RANK >= 2 ? seqc_input_dims[1] : 0));
    return SEQC_ERROR_SHAPE;
  }
  m->error[0] = 0;
  if (batch == 0)
    return SEQC_OK;
  return invoke(m, input, batch, length, output, NULL);
}

SEQC_API const char *seqc_last_error(seqc_model *m) {
  return m ? m->error : "seqc_last_error: no model";
}

SEQC_API int64_t seqc_model_input_size(seqc_model *m, int64_t batch,
                                       int64_t seq_len) {
  int64_t length = m ? resolve_seq_len(m, seq_len) : -1;
  if (length < 0 || batch < 0 || batch > m->max_batch)
    return -1;
  return batch * sample_floats(length);
}

SEQC_API int64_t seqc_model_output_size(seqc_model *m, int64_t batch,
                                        int64_t seq_len) {
  int64_t length = m ? resolve_seq_len(m, seq_len) : -1;
  if (length < 0 || batch < 0 || batch > m->max_batch)
    return -1;
  int64_t n = batch;
  if (!output_has_dynamic_axis()) {
    for (int i = 1; i < SEQC_OUTPUT_RANK; ++i)
      n *= seqc_output_dims[i];
    return n;
  }
  /* The output's time axis follows the input's: ask the model once. */
  if (m->probe_seq_len != length) {
    if (invoke(m, m->probe_input, 1, length, NULL, m->probe_dims) != SEQC_OK)
      return -1;
    m->probe_seq_len = length;
  }
  for (int i = 1; i < SEQC_OUTPUT_RANK; ++i)
    n *= m->probe_dims[i];
  return n;
}

SEQC_API int64_t seqc_model_max_batch(seqc_model *m) {
  return m ? m->max_batch : -1;
}
SEQC_API int64_t seqc_model_max_seq_len(seqc_model *m) {
  return m ? m->max_seq_len : -1;
}

SEQC_API int seqc_model_input_rank(void) { return SEQC_INPUT_RANK; }
SEQC_API int64_t seqc_model_input_dim(int i) {
  return i >= 0 && i < SEQC_INPUT_RANK ? seqc_input_dims[i] : 0;
}
SEQC_API int seqc_model_output_rank(void) { return SEQC_OUTPUT_RANK; }
SEQC_API int64_t seqc_model_output_dim(int i) {
  return i >= 0 && i < SEQC_OUTPUT_RANK ? seqc_output_dims[i] : 0;
}
SEQC_API const char *seqc_model_metadata_json(void) { return seqc_metadata; }

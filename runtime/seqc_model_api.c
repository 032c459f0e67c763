/* The C API of a seqc AOT library (declared in the generated header, see
 * seqc_model.h.in). Compiled ONCE, when seqc is built, together with
 * seqc_arena.c into one relocatable support object that seq-compile links
 * next to each model's code: no C source is compiled per model, and nothing
 * here depends on the model. What does is data that seq-compile emits as
 * LLVM globals into the model's object (lib/Target/CPU/AotCompiler.cpp,
 * addModelData), under the fixed names declared below. */
#include "seqc_arena.h"
#include "seqc_model_public.h" /* the header template, for its prototypes */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEQC_API __attribute__((visibility("default")))
#define SEQC_DATA extern __attribute__((visibility("hidden")))

/* The largest input / output rank a library supports (seq-compile refuses
 * a model above it); keep equal to seq::cpu::kMaxAotRank. */
#define SEQC_MAX_RANK 8
/* The most inputs, and the most outputs, of a model; keep equal to
 * seq::cpu::kMaxAotPorts. */
#define SEQC_MAX_PORTS 16

/* ---- The model's data (emitted by seq-compile into model.o). ---- */
/* Inputs and outputs: their count, each one's rank, all their dimensions
 * one port after the other (-1 = dynamic), each one's Keras name. */
SEQC_DATA const int32_t seqc_input_count, seqc_output_count;
SEQC_DATA const int32_t seqc_input_ranks[], seqc_output_ranks[];
SEQC_DATA const int64_t seqc_input_dims[], seqc_output_dims[];
SEQC_DATA const char *const seqc_input_names[], *const seqc_output_names[];
/* The metadata JSON, NUL-terminated. */
SEQC_DATA const char seqc_metadata[];
/* What seqc_report_error(site, ...) means. */
SEQC_DATA const int32_t seqc_error_site_count;
SEQC_DATA const char *const seqc_error_sites[];
SEQC_DATA const int64_t seqc_default_max_batch, seqc_default_max_seq_len;
/* The state of a stateful model: seqc_state_count slots, slot i at float
 * seqc_state_offsets[i] of the flat state, seqc_state_offsets[count] floats
 * in all; the Keras layer of each slot. */
SEQC_DATA const int32_t seqc_state_count;
SEQC_DATA const int64_t seqc_state_offsets[];
SEQC_DATA const char *const seqc_state_layers[];

/* A memref descriptor as int64 words: allocated pointer, aligned pointer,
 * offset, sizes[rank], strides[rank]. */
#define SEQC_DESCRIPTOR_WORDS (3 + 2 * SEQC_MAX_RANK)
typedef int64_t seqc_descriptor[SEQC_DESCRIPTOR_WORDS];
static int64_t *desc_sizes(int64_t *d) { return d + 3; }
static int64_t *desc_strides(int64_t *d, int rank) { return d + 3 + rank; }

/* The compiled model (AotCompiler.cpp and LoweredModel.cpp,
 * addPredictEntry): `inputs` points to one descriptor per input; `results`
 * receives one descriptor per output, then a stateful model's new state's;
 * `state` is unused for a stateless model. */
void seqc_model_predict(void *results, void **inputs, void *state);

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
  /* The flat state of a stateful model (NULL when stateless). */
  float *state;
  /* Zeros for one probe batch of the largest input, for output shape probes
   * of a dynamic time axis (read-only: every input reads it). */
  float *probe_input;
  int64_t probe_seq_lens[SEQC_MAX_PORTS];
  int probe_valid;
  int64_t probe_dims[SEQC_MAX_PORTS][SEQC_MAX_RANK];
  char error[512];
};

/* Why the last seqc_model_create[_sized] on this thread failed. */
static _Thread_local char create_error[512];

static int64_t state_size(void) { return seqc_state_offsets[seqc_state_count]; }

/* Port k's rank and dimensions. */
static int in_rank(int k) { return seqc_input_ranks[k]; }
static int out_rank(int k) { return seqc_output_ranks[k]; }
static const int64_t *in_dims(int k) {
  const int64_t *d = seqc_input_dims;
  for (int i = 0; i < k; ++i)
    d += seqc_input_ranks[i];
  return d;
}
static const int64_t *out_dims(int k) {
  const int64_t *d = seqc_output_dims;
  for (int i = 0; i < k; ++i)
    d += seqc_output_ranks[i];
  return d;
}

/* The batch of a model whose batch is fixed (a stateful one), else -1. */
static int64_t fixed_batch(void) { return in_dims(0)[0]; }

/* The batch of the output shape probe. */
static int64_t probe_batch(void) { return fixed_batch() >= 0 ? fixed_batch() : 1; }

static int time_is_dynamic(int k) { return in_rank(k) >= 2 && in_dims(k)[1] < 0; }
static int any_time_is_dynamic(void) {
  for (int k = 0; k < seqc_input_count; ++k)
    if (time_is_dynamic(k))
      return 1;
  return 0;
}
/* Input k's fixed length of axis 1 (0 without one). */
static int64_t fixed_length(int k) { return in_rank(k) >= 2 ? in_dims(k)[1] : 0; }

static int output_has_dynamic_axis(void) {
  for (int k = 0; k < seqc_output_count; ++k)
    for (int i = 1; i < out_rank(k); ++i)
      if (out_dims(k)[i] < 0)
        return 1;
  return 0;
}

/* a * b, or -1 when either is negative or the product overflows. */
static int64_t checked_mul(int64_t a, int64_t b) {
  int64_t p;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &p))
    return -1;
  return p;
}

/* Input k's sizes for a batch and a resolved seq_len. */
static void input_sizes(int k, int64_t batch, int64_t seq_len, int64_t *sizes) {
  for (int i = 0; i < in_rank(k); ++i)
    sizes[i] = in_dims(k)[i];
  sizes[0] = batch;
  if (time_is_dynamic(k))
    sizes[1] = seq_len;
}

/* Floats of one sample of input k, or -1 when that overflows. */
static int64_t sample_floats(int k, int64_t seq_len) {
  int64_t sizes[SEQC_MAX_RANK];
  input_sizes(k, 1, seq_len, sizes);
  int64_t n = 1;
  for (int i = 1; i < in_rank(k); ++i)
    n = checked_mul(n, sizes[i]);
  return n;
}

/* The length of input k's axis 1 for this call, or -1 when it is not
 * allowed. */
static int64_t resolve_seq_len(const seqc_model *m, int k, int64_t seq_len) {
  if (!time_is_dynamic(k))
    return seq_len == 0 || (in_rank(k) >= 2 && seq_len == fixed_length(k))
               ? fixed_length(k)
               : -1;
  return seq_len >= 1 && seq_len <= m->max_seq_len ? seq_len : -1;
}

static int fail(seqc_model *m, int code, const char *message) {
  snprintf(m->error, sizeof m->error, "%s", message);
  return code;
}

/* Copies a strided result of `rank` row-major into `output`. */
static void copy_output(int64_t *d, int rank, float *output) {
  int64_t index[SEQC_MAX_RANK] = {0};
  int64_t total = 1;
  const int64_t *sizes = desc_sizes(d), *strides = desc_strides(d, rank);
  for (int i = 0; i < rank; ++i)
    total *= sizes[i];
  const float *base = (const float *)(intptr_t)d[1] + d[2];
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i)
      offset += index[i] * strides[i];
    output[flat] = base[offset];
    for (int i = rank - 1; i >= 0; --i) {
      if (++index[i] < sizes[i])
        break;
      index[i] = 0;
    }
  }
}

/* The arguments seqc_arena_run passes through to seqc_model_predict. */
struct predict_call {
  void **inputs;
  void *state;
};
static void call_predict(void *results, void *call) {
  struct predict_call *c = (struct predict_call *)call;
  seqc_model_predict(results, c->inputs, c->state);
}

/* One call of the compiled model on every input (`seq_lens` resolved);
 * `outputs` and `dims` may be NULL. A stateful model reads m->state and,
 * with `update_state`, keeps the state the call leaves (a successful call
 * only). */
static int invoke(seqc_model *m, const float *const *inputs, int64_t batch,
                  const int64_t *seq_lens, float *const *outputs,
                  int64_t (*dims)[SEQC_MAX_RANK], int update_state) {
  seqc_descriptor in[SEQC_MAX_PORTS], state;
  void *in_pointers[SEQC_MAX_PORTS];
  /* The outputs' descriptors, then a stateful model's 1-D state. */
  int64_t results[SEQC_MAX_PORTS * SEQC_DESCRIPTOR_WORDS + 5];
  for (int k = 0; k < seqc_input_count; ++k) {
    int rank = in_rank(k);
    input_sizes(k, batch, seq_lens[k], desc_sizes(in[k]));
    int64_t stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      desc_strides(in[k], rank)[i] = stride;
      stride *= desc_sizes(in[k])[i];
    }
    in[k][0] = in[k][1] = (int64_t)(intptr_t)inputs[k]; /* never written */
    in[k][2] = 0;
    in_pointers[k] = in[k];
  }
  state[0] = state[1] = (int64_t)(intptr_t)m->state; /* never written */
  state[2] = 0;
  state[3] = state_size();
  state[4] = 1;
  struct predict_call call = {in_pointers, state};
  int rc = SEQC_OK;
  if (seqc_arena_run(&m->arena, call_predict, results, &call) != 0) {
    snprintf(m->error, sizeof m->error,
             "out of memory: the model could not allocate %zu bytes of "
             "working memory",
             m->arena.failed_size);
    rc = SEQC_ERROR_MEMORY;
  } else if (m->arena.error_site >= 0) {
    const char *what = m->arena.error_site < seqc_error_site_count
                           ? seqc_error_sites[m->arena.error_site]
                           : "runtime error";
    snprintf(m->error, sizeof m->error, "%s (%lld values); check the input",
             what, (long long)m->arena.error_count);
    rc = SEQC_ERROR_INPUT;
  } else {
    int64_t *d = results;
    for (int k = 0; k < seqc_output_count; ++k) {
      if (outputs)
        copy_output(d, out_rank(k), outputs[k]);
      if (dims)
        memcpy(dims[k], desc_sizes(d), out_rank(k) * sizeof(int64_t));
      d += 3 + 2 * out_rank(k);
    }
    if (m->state && update_state)
      memcpy(m->state, (const float *)(intptr_t)d[1] + d[2],
             (size_t)state_size() * sizeof(float));
  }
  seqc_arena_end(&m->arena);
  return rc;
}

/* invoke with every input reading `zeros` at max_seq_len. */
static int invoke_zeros(seqc_model *m, const float *zeros, int64_t batch,
                        int64_t seq_len, int64_t (*dims)[SEQC_MAX_RANK]) {
  const float *inputs[SEQC_MAX_PORTS];
  int64_t seq_lens[SEQC_MAX_PORTS];
  for (int k = 0; k < seqc_input_count; ++k) {
    inputs[k] = zeros;
    seq_lens[k] = time_is_dynamic(k) ? seq_len : fixed_length(k);
  }
  return invoke(m, inputs, batch, seq_lens, NULL, dims, 0);
}

static seqc_model *create_failed(seqc_model *m, const char *message) {
  snprintf(create_error, sizeof create_error, "%s", message);
  seqc_model_destroy(m);
  return NULL;
}

/* Floats of `batch` samples of the largest input, or -1 on overflow. */
static int64_t largest_input_floats(int64_t batch, int64_t seq_len) {
  int64_t largest = 0;
  for (int k = 0; k < seqc_input_count; ++k) {
    int64_t n = checked_mul(batch, sample_floats(k, seq_len));
    if (n < 0)
      return -1;
    if (n > largest)
      largest = n;
  }
  return largest;
}

SEQC_API seqc_model *seqc_model_create_sized(int64_t max_batch,
                                             int64_t max_seq_len) {
  if (max_batch < 1)
    return create_failed(NULL, "seqc_model_create_sized: max_batch must be "
                               "at least 1");
  /* A fixed batch (a stateful model's) is the only one it runs. */
  if (fixed_batch() >= 0)
    max_batch = fixed_batch();
  if (!any_time_is_dynamic())
    max_seq_len = fixed_length(0);
  else if (max_seq_len < 1)
    return create_failed(NULL, "seqc_model_create_sized: max_seq_len must "
                               "be at least 1");
  /* The input of the sizing run, in bytes; too large is out of memory. */
  int64_t floats = largest_input_floats(max_batch, max_seq_len);
  int64_t bytes = checked_mul(floats < 1 ? 1 : floats, (int64_t)sizeof(float));
  int64_t probe_floats = largest_input_floats(probe_batch(), max_seq_len);
  if (floats < 0 || bytes < 0 || probe_floats < 0 || (uint64_t)bytes > SIZE_MAX)
    return create_failed(NULL, "out of memory: seqc_model_create_sized: the "
                               "bounds are too large");
  seqc_model *m = (seqc_model *)calloc(1, sizeof *m);
  if (!m)
    return create_failed(NULL, "out of memory");
  m->max_batch = max_batch;
  m->max_seq_len = max_seq_len;
  if (state_size() > 0) {
    m->state = (float *)calloc((size_t)state_size(), sizeof(float));
    if (!m->state)
      return create_failed(m, "out of memory: cannot allocate the model's "
                              "state");
  }
  float *zeros = (float *)calloc((size_t)bytes, 1);
  if (!zeros)
    return create_failed(m, "out of memory: cannot allocate the input of the "
                            "sizing run");
  if (output_has_dynamic_axis()) {
    m->probe_input = (float *)calloc((size_t)probe_floats + 1, sizeof(float));
    if (!m->probe_input) {
      free(zeros);
      return create_failed(m, "out of memory");
    }
  }
  /* Sizing run at the largest shape: the arena learns what a call needs.
   * The second run touches the arena's pages, so that calls do not fault. */
  int rc = invoke_zeros(m, zeros, max_batch, max_seq_len, NULL);
  if (rc != SEQC_ERROR_MEMORY) {
    if (seqc_arena_reserve(&m->arena, m->arena.needed) != 0) {
      snprintf(m->error, sizeof m->error,
               "out of memory: cannot allocate the %zu bytes of working memory "
               "the model needs",
               m->arena.needed);
      rc = SEQC_ERROR_MEMORY;
    } else {
      rc = invoke_zeros(m, zeros, max_batch, max_seq_len, NULL);
    }
  }
  free(zeros);
  if (rc == SEQC_ERROR_MEMORY) {
    char message[sizeof m->error];
    memcpy(message, m->error, sizeof message);
    return create_failed(m, message);
  }
  m->error[0] = 0;
  return m;
}

SEQC_API seqc_model *seqc_model_create(void) {
  return seqc_model_create_sized(seqc_default_max_batch,
                                 seqc_default_max_seq_len);
}

SEQC_API void seqc_model_destroy(seqc_model *m) {
  if (!m)
    return;
  seqc_arena_release(&m->arena);
  free(m->probe_input);
  free(m->state);
  free(m);
}

/* Checks a call's batch and resolves each input's seq_len into `lengths`
 * (`seq_lens` NULL: all 0). SEQC_OK or an error code with m->error set. */
static int check_call(seqc_model *m, const char *what, int64_t batch,
                      const int64_t *seq_lens, int64_t *lengths) {
  if (fixed_batch() >= 0 && batch != 0 && batch != fixed_batch()) {
    snprintf(m->error, sizeof m->error,
             "%s: batch %lld, but the model runs only the batch of %lld it "
             "was built with (its layers keep a state per row)",
             what, (long long)batch, (long long)fixed_batch());
    return SEQC_ERROR_SHAPE;
  }
  if (batch < 0 || batch > m->max_batch) {
    snprintf(m->error, sizeof m->error,
             "%s: batch %lld is outside [0, %lld] of this instance "
             "(seqc_model_create_sized sets the bound)",
             what, (long long)batch, (long long)m->max_batch);
    return SEQC_ERROR_SHAPE;
  }
  for (int k = 0; k < seqc_input_count; ++k) {
    int64_t seq_len = seq_lens ? seq_lens[k] : 0;
    lengths[k] = resolve_seq_len(m, k, seq_len);
    if (lengths[k] >= 0)
      continue;
    char which[64] = "";
    if (seqc_input_count > 1)
      snprintf(which, sizeof which, " of input %d", k);
    if (time_is_dynamic(k))
      snprintf(m->error, sizeof m->error,
               "%s: seq_len %lld%s is outside [1, %lld] of this instance "
               "(seqc_model_create_sized sets the bound)",
               what, (long long)seq_len, which, (long long)m->max_seq_len);
    else
      snprintf(m->error, sizeof m->error,
               "%s: seq_len %lld%s does not match the model's fixed length "
               "%lld (pass it or 0)",
               what, (long long)seq_len, which, (long long)fixed_length(k));
    return SEQC_ERROR_SHAPE;
  }
  return SEQC_OK;
}

SEQC_API int seqc_model_run_all(seqc_model *m, const float *const *inputs,
                                int64_t batch, const int64_t *seq_lens,
                                float *const *outputs) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  /* An empty batch touches no data, so its pointers may be NULL. */
  if (batch != 0) {
    int null = !inputs || !outputs;
    for (int k = 0; !null && k < seqc_input_count; ++k)
      null = !inputs[k];
    for (int k = 0; !null && k < seqc_output_count; ++k)
      null = !outputs[k];
    if (null)
      return fail(m, SEQC_ERROR_ARGUMENT, "seqc_model_run_all: inputs and "
                                          "outputs must not be NULL");
  }
  int64_t lengths[SEQC_MAX_PORTS];
  int rc = check_call(m, "seqc_model_run_all", batch, seq_lens, lengths);
  if (rc != SEQC_OK)
    return rc;
  m->error[0] = 0;
  if (batch == 0)
    return SEQC_OK;
  return invoke(m, inputs, batch, lengths, outputs, NULL, 1);
}

/* Whether the single-port functions apply; else sets the error. */
static int single_port(seqc_model *m, const char *what) {
  if (seqc_input_count == 1 && seqc_output_count == 1)
    return 1;
  snprintf(m->error, sizeof m->error,
           "%s: the model has %d inputs and %d outputs; use "
           "seqc_model_run_all",
           what, (int)seqc_input_count, (int)seqc_output_count);
  return 0;
}

SEQC_API int seqc_model_run(seqc_model *m, const float *input, int64_t batch,
                            int64_t seq_len, float *output) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  if (!single_port(m, "seqc_model_run"))
    return SEQC_ERROR_ARGUMENT;
  if (batch != 0 && (!input || !output))
    return fail(m, SEQC_ERROR_ARGUMENT, "seqc_model_run: input and output "
                                        "must not be NULL");
  int64_t lengths[1];
  int rc = check_call(m, "seqc_model_run", batch, &seq_len, lengths);
  if (rc != SEQC_OK)
    return rc;
  m->error[0] = 0;
  if (batch == 0)
    return SEQC_OK;
  return invoke(m, &input, batch, lengths, &output, NULL, 1);
}

SEQC_API const char *seqc_last_error(seqc_model *m) {
  if (m)
    return m->error;
  return create_error[0] ? create_error : "seqc_last_error: no model";
}

SEQC_API int64_t seqc_model_input_size_of(seqc_model *m, int k, int64_t batch,
                                          int64_t seq_len) {
  if (!m || k < 0 || k >= seqc_input_count)
    return -1;
  int64_t length = resolve_seq_len(m, k, seq_len);
  if (length < 0 || batch < 0 || batch > m->max_batch)
    return -1;
  return checked_mul(batch, sample_floats(k, length));
}

SEQC_API int64_t seqc_model_output_size_of(seqc_model *m, int k, int64_t batch,
                                           const int64_t *seq_lens) {
  if (!m || k < 0 || k >= seqc_output_count || batch < 0 || batch > m->max_batch)
    return -1;
  if (fixed_batch() >= 0 && batch != 0 && batch != fixed_batch())
    return -1;
  int64_t lengths[SEQC_MAX_PORTS];
  for (int i = 0; i < seqc_input_count; ++i)
    if ((lengths[i] = resolve_seq_len(m, i, seq_lens ? seq_lens[i] : 0)) < 0)
      return -1;
  int64_t n = batch;
  if (!output_has_dynamic_axis()) {
    for (int i = 1; i < out_rank(k); ++i)
      n = checked_mul(n, out_dims(k)[i]);
    return n;
  }
  /* An output's time axis follows the inputs': ask the model once. */
  int same = m->probe_valid;
  for (int i = 0; same && i < seqc_input_count; ++i)
    same = m->probe_seq_lens[i] == lengths[i];
  if (!same) {
    const float *inputs[SEQC_MAX_PORTS];
    for (int i = 0; i < seqc_input_count; ++i)
      inputs[i] = m->probe_input;
    m->probe_valid = 0;
    if (invoke(m, inputs, probe_batch(), lengths, NULL, m->probe_dims, 0) != SEQC_OK)
      return -1;
    memcpy(m->probe_seq_lens, lengths, sizeof lengths);
    m->probe_valid = 1;
  }
  for (int i = 1; i < out_rank(k); ++i)
    n = checked_mul(n, m->probe_dims[k][i]);
  return n;
}

SEQC_API int64_t seqc_model_input_size(seqc_model *m, int64_t batch,
                                       int64_t seq_len) {
  return seqc_model_input_size_of(m, 0, batch, seq_len);
}

SEQC_API int64_t seqc_model_output_size(seqc_model *m, int64_t batch,
                                        int64_t seq_len) {
  int64_t seq_lens[SEQC_MAX_PORTS];
  for (int k = 0; k < seqc_input_count; ++k)
    seq_lens[k] = time_is_dynamic(k) || seqc_input_count == 1 ? seq_len : 0;
  return seqc_model_output_size_of(m, 0, batch, seq_lens);
}

SEQC_API int64_t seqc_model_max_batch(seqc_model *m) {
  return m ? m->max_batch : -1;
}
SEQC_API int64_t seqc_model_max_seq_len(seqc_model *m) {
  return m ? m->max_seq_len : -1;
}

SEQC_API int seqc_model_input_count(void) { return seqc_input_count; }
SEQC_API int seqc_model_output_count(void) { return seqc_output_count; }
SEQC_API const char *seqc_model_input_name(int k) {
  return k >= 0 && k < seqc_input_count ? seqc_input_names[k] : NULL;
}
SEQC_API const char *seqc_model_output_name(int k) {
  return k >= 0 && k < seqc_output_count ? seqc_output_names[k] : NULL;
}
SEQC_API int seqc_model_input_rank_of(int k) {
  return k >= 0 && k < seqc_input_count ? in_rank(k) : 0;
}
SEQC_API int64_t seqc_model_input_dim_of(int k, int i) {
  return k >= 0 && k < seqc_input_count && i >= 0 && i < in_rank(k) ? in_dims(k)[i]
                                                                    : 0;
}
SEQC_API int seqc_model_output_rank_of(int k) {
  return k >= 0 && k < seqc_output_count ? out_rank(k) : 0;
}
SEQC_API int64_t seqc_model_output_dim_of(int k, int i) {
  return k >= 0 && k < seqc_output_count && i >= 0 && i < out_rank(k)
             ? out_dims(k)[i]
             : 0;
}
SEQC_API int seqc_model_input_rank(void) { return seqc_model_input_rank_of(0); }
SEQC_API int64_t seqc_model_input_dim(int i) { return seqc_model_input_dim_of(0, i); }
SEQC_API int seqc_model_output_rank(void) { return seqc_model_output_rank_of(0); }
SEQC_API int64_t seqc_model_output_dim(int i) {
  return seqc_model_output_dim_of(0, i);
}
SEQC_API const char *seqc_model_metadata_json(void) { return seqc_metadata; }

SEQC_API int64_t seqc_model_state_size(void) { return state_size(); }
SEQC_API int seqc_model_state_count(void) { return seqc_state_count; }
SEQC_API const char *seqc_model_state_layer(int i) {
  return i >= 0 && i < seqc_state_count ? seqc_state_layers[i] : NULL;
}
SEQC_API int64_t seqc_model_state_offset(int i) {
  return i >= 0 && i <= seqc_state_count ? seqc_state_offsets[i] : -1;
}

/* Copies the state between an instance (`m->state`) and the caller; `what`
 * names the API function in messages. */
static int copy_state(seqc_model *m, float *to, const float *from, const char *what) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  if (state_size() > 0) {
    if (!to || !from) {
      snprintf(m->error, sizeof m->error, "%s: state must not be NULL", what);
      return SEQC_ERROR_ARGUMENT;
    }
    memcpy(to, from, (size_t)state_size() * sizeof(float));
  }
  m->error[0] = 0;
  return SEQC_OK;
}

SEQC_API int seqc_model_get_state(seqc_model *m, float *state) {
  return copy_state(m, state, m ? m->state : NULL, "seqc_model_get_state");
}

SEQC_API int seqc_model_set_state(seqc_model *m, const float *state) {
  return copy_state(m, m ? m->state : NULL, state, "seqc_model_set_state");
}

SEQC_API int seqc_model_reset_state(seqc_model *m) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  if (state_size() > 0)
    memset(m->state, 0, (size_t)state_size() * sizeof(float));
  m->error[0] = 0;
  return SEQC_OK;
}

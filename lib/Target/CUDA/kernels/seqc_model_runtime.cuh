// ===== seqc CUDA model runtime =============================================
// The C API of every CUDA model library (runtime/seqc_model.h.in, the same
// as the CPU backend's), copied verbatim into every .cu after the model's
// data and before its layers' code. It is the same text for every model:
// what differs is what the generated part defines before it,
//   SEQC_BUILT_FOR_ARCHS, SEQC_DEFAULT_MAX_BATCH, SEQC_DEFAULT_MAX_SEQ_LEN,
//   SEQC_DYNAMIC_TIME, SEQC_STATIC_BATCH, SEQC_INPUT_COUNT, SEQC_OUTPUT_COUNT,
//   SEQC_STATE_SIZE, SEQC_STATE_COUNT, SEQC_USES_CUDNN, SEQC_EMBEDDING_COUNT;
//   SEQC_BUFFERS(X): X(name, rank) for each buffer of the arena;
//   SEQC_INPUT_BUFFERS(X), SEQC_OUTPUT_BUFFERS(X): X(k, storage, name, rank)
//     for port k (its memory is buffer `storage`, its shape D.name);
//   SEQC_EMBEDDINGS(X): X(i, layer name bytes, ids buffer, vocabulary size);
//   weights::total, seqc_weight_data, struct seqc_dims, seqc_compute_dims,
//   the port tables (seqc_input_names, _dims, _ranks, _steps; seqc_output_*),
//   seqc_state_offsets, seqc_state_layers, seqc_metadata and struct
//   seqc_layers (the layers' plans and cuDNN descriptors),
// and what it defines after it: seqc_create_layers, seqc_forward and
// seqc_destroy_layers (declared below).
// ===========================================================================
#include <algorithm>
#include <cstdarg>
#include <mutex>
#include <new>

#define SEQC_API extern "C" __attribute__((visibility("default")))
// Return codes, as in every seqc library (runtime/seqc_model.h.in).
enum { SEQC_OK = 0, SEQC_ERROR_ARGUMENT = 1, SEQC_ERROR_SHAPE = 2, SEQC_ERROR_INPUT = 3,
       SEQC_ERROR_DEVICE = 4 /* a CUDA or cuDNN failure */ };

#define SEQC_BUFFER_FIELD(name, rank) float *name = nullptr; int64_t cap_##name = 0;
struct seqc_model : seqc_layers {
  std::mutex mutex; // one run at a time: buffers and stream are shared
  cudaStream_t stream = nullptr;
  float *arena = nullptr; // every buffer, allocated once
  float *w = nullptr;     // every weight
  unsigned long long *bad_ids = nullptr; // Embedding: first bad id index + 1
  int64_t max_batch = 0, max_seq_len = 0; // the bounds memory was allocated for
  int device = -1; // the GPU current on the thread that created the model
  // Stateful layers' state (SEQC_STATE_SIZE floats): what a call starts from, and
  // what it leaves, copied to `state` when the call succeeds.
  float *state = nullptr, *state_next = nullptr;
  seqc::CallGraphs graphs; // a call's launches as one CUDA graph per input shape
#if SEQC_USES_CUDNN
  cudnnHandle_t cudnn = nullptr;
#endif
  SEQC_BUFFERS(SEQC_BUFFER_FIELD)
  char error[1024] = {0};
};
#undef SEQC_BUFFER_FIELD

// The layers' part, which the generated code after this defines: their
// plans and descriptors (with every buffer's largest shape), one call's
// launches (returns 0, or nonzero after writing m->error), and their
// clean-up.
static const char *seqc_create_layers(seqc_model *m, const seqc_dims &Dmax);
static int seqc_forward(seqc_model *m, const seqc_dims &D);
static void seqc_destroy_layers(seqc_model *m);

// Makes `device` current on the calling thread for one API call and gives the
// caller back its own current device afterwards.
struct seqc_device_scope {
  int previous = -1;
  cudaError_t error = cudaSuccess;
  explicit seqc_device_scope(int device) {
    if (device < 0 || (error = cudaGetDevice(&previous)) != cudaSuccess)
      return;
    if (previous == device)
      previous = -1;
    else if ((error = cudaSetDevice(device)) != cudaSuccess)
      previous = -1;
  }
  ~seqc_device_scope() {
    if (previous >= 0)
      cudaSetDevice(previous);
  }
};

static thread_local char seqc_create_error[1024];

static const char *seqc_format(char *buffer, const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, 1024, format, args);
  va_end(args);
  return buffer;
}

// `layer` names a byte array (seqc_str_N) holding the layer's name.
#define SEQC_TRY(layer, expr)                                                   \
  do {                                                                        \
    cudaError_t seqc_err = (expr);                                            \
    if (seqc_err != cudaSuccess) {                                            \
      seqc_format(m->error, "layer '%s': CUDA error: %s", (const char *)(layer), \
                  cudaGetErrorString(seqc_err));                              \
      return 1;                                                               \
    }                                                                         \
  } while (0)
#define SEQC_TRY_MSG(layer, expr)                                               \
  do {                                                                        \
    if (const char *seqc_msg = (expr)) {                                      \
      seqc_format(m->error, "layer '%s': %s", (const char *)(layer), seqc_msg); \
      return 1;                                                               \
    }                                                                         \
  } while (0)
#define SEQC_CREATE_TRY(layer, expr)                                            \
  do {                                                                        \
    cudaError_t seqc_err = (expr);                                            \
    if (seqc_err == cudaErrorNotSupported)                                    \
      return seqc_format(m->error, "layer '%s': this GPU cannot run cooperative " \
                         "kernels, which the fused recurrence needs: build with " \
                         "--rnn-backend=cudnn", (const char *)(layer)); \
    if (seqc_err != cudaSuccess)                                              \
      return seqc_format(m->error, "layer '%s': %s", (const char *)(layer), \
                         cudaGetErrorString(seqc_err));                       \
  } while (0)
#define SEQC_CREATE_CUDNN(layer, expr)                                          \
  do {                                                                        \
    if (const char *seqc_msg = (expr))                                        \
      return seqc_format(m->error, "layer '%s': cuDNN: %s", \
                         (const char *)(layer), seqc_msg);                    \
  } while (0)

static int64_t seqc_numel(const int64_t *dims, int rank) {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i)
    n *= dims[i];
  return n;
}

/// Floats of input / output k in shapes D, and its memory.
#define SEQC_PORT_NUMEL(port, storage, name, rank)                              \
  if (k == port)                                                                \
    return seqc_numel(D.name, rank);
#define SEQC_PORT_MEMORY(port, storage, name, rank)                             \
  if (k == port)                                                                \
    return m->storage;
static int64_t seqc_input_numel(const seqc_dims &D, int k) {
  SEQC_INPUT_BUFFERS(SEQC_PORT_NUMEL)
  return -1;
}
static int64_t seqc_output_numel(const seqc_dims &D, int k) {
  SEQC_OUTPUT_BUFFERS(SEQC_PORT_NUMEL)
  return -1;
}
static float *seqc_input_buffer(seqc_model *m, int k) {
  SEQC_INPUT_BUFFERS(SEQC_PORT_MEMORY)
  return nullptr;
}
static const float *seqc_output_buffer(seqc_model *m, int k) {
  SEQC_OUTPUT_BUFFERS(SEQC_PORT_MEMORY)
  return nullptr;
}
#undef SEQC_PORT_NUMEL
#undef SEQC_PORT_MEMORY

/// Checks that the driver, a GPU and kernels for it are there, then
/// allocates every buffer for the instance's bounds, uploads the weights and
/// sets up the layers.
static const char *seqc_create(seqc_model *m) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorInsufficientDriver) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    if (driver == 0)
      return seqc_format(m->error,
                         "no NVIDIA driver found (libcuda.so.1): this library needs a "
                         "driver for CUDA %d.%d or newer and a GPU (see seq-compile --doctor)",
                         CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    return seqc_format(m->error,
                       "the NVIDIA driver supports CUDA %d.%d, but this library needs a "
                       "driver for CUDA %d.%d or newer (it was built with CUDA %d.%d): "
                       "update the driver (see seq-compile --doctor)",
                       driver / 1000, driver % 1000 / 10, CUDART_VERSION / 1000,
                       CUDART_VERSION % 1000 / 10, CUDART_VERSION / 1000,
                       CUDART_VERSION % 1000 / 10);
  }
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
    return seqc_format(m->error, "no CUDA GPU found (see seq-compile --doctor)");
  if (err != cudaSuccess)
    return seqc_format(m->error, "cannot initialise CUDA: %s (see seq-compile --doctor)",
                       cudaGetErrorString(err));
  if ((err = cudaGetDevice(&m->device)) != cudaSuccess)
    return seqc_format(m->error, "cannot read the current CUDA device: %s",
                       cudaGetErrorString(err));
  if ((err = cudaStreamCreateWithFlags(&m->stream, cudaStreamNonBlocking)) != cudaSuccess)
    return seqc_format(m->error, "cannot create a CUDA stream: %s", cudaGetErrorString(err));
  if ((err = seqc::probe(m->stream)) != cudaSuccess) {
    int device = 0, major = 0, minor = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction)
      return seqc_format(m->error,
                         "this library has no kernels for the GPU (compute capability "
                         "%d.%d); it was built for " SEQC_BUILT_FOR_ARCHS
                         ": rebuild with --cuda-arch=sm_%d%d",
                         major, minor, major, minor);
    return seqc_format(m->error, "cannot run a kernel on the GPU: %s", cudaGetErrorString(err));
  }
#if SEQC_USES_CUDNN
  size_t cudnn_version = cudnnGetVersion();
  if (cudnn_version / 10000 != CUDNN_MAJOR)
    return seqc_format(m->error,
                       "cuDNN %zu.%zu.%zu found, but this library needs cuDNN %d (built "
                       "against %d.%d.%d)",
                       cudnn_version / 10000, cudnn_version % 10000 / 100,
                       cudnn_version % 100, CUDNN_MAJOR, CUDNN_MAJOR, CUDNN_MINOR,
                       CUDNN_PATCHLEVEL);
  if (cudnnStatus_t s = cudnnCreate(&m->cudnn))
    return seqc_format(m->error, "cannot initialise cuDNN: %s", cudnnGetErrorString(s));
  if (cudnnStatus_t s = cudnnSetStream(m->cudnn, m->stream))
    return seqc_format(m->error, "cuDNN: %s", cudnnGetErrorString(s));
#endif
  seqc_dims Dmax;
  int64_t max_steps[SEQC_INPUT_COUNT];
  for (int k = 0; k < SEQC_INPUT_COUNT; ++k)
    max_steps[k] = seqc_input_steps[k] < 0 ? m->max_seq_len : seqc_input_steps[k];
  if (const char *e = seqc_compute_dims(m->max_batch, max_steps, &Dmax))
    return seqc_format(m->error, "%s", e);
  // Each buffer's place in the arena, 64 floats aligned.
  size_t total = 0;
#define SEQC_PLACE(name, rank)                                                  \
  m->cap_##name = seqc_numel(Dmax.name, rank);                                  \
  const size_t at_##name = total;                                               \
  total += (size_t)(m->cap_##name + 63) / 64 * 64;
  SEQC_BUFFERS(SEQC_PLACE)
#undef SEQC_PLACE
  if ((err = cudaMalloc(&m->arena, std::max<size_t>(total, 1) * sizeof(float))) != cudaSuccess)
    return seqc_format(m->error, "cannot allocate %zu bytes of device memory: %s",
                       total * sizeof(float), cudaGetErrorString(err));
#define SEQC_POINT(name, rank) m->name = m->arena + at_##name;
  SEQC_BUFFERS(SEQC_POINT)
#undef SEQC_POINT
  if (SEQC_STATE_SIZE &&
      ((err = cudaMalloc(&m->state, 2 * SEQC_STATE_SIZE * sizeof(float))) != cudaSuccess ||
       (err = cudaMemsetAsync(m->state, 0, SEQC_STATE_SIZE * sizeof(float), m->stream)) !=
           cudaSuccess))
    return seqc_format(m->error, "cannot allocate the model's state on the GPU: %s",
                       cudaGetErrorString(err));
  m->state_next = m->state + SEQC_STATE_SIZE;
  if ((err = cudaMalloc(&m->w, std::max<size_t>(weights::total, 1) * sizeof(float))) != cudaSuccess ||
      (err = cudaMemcpyAsync(m->w, seqc_weight_data, weights::total * sizeof(float),
                             cudaMemcpyHostToDevice, m->stream)) != cudaSuccess)
    return seqc_format(m->error, "cannot copy the weights to the GPU: %s", cudaGetErrorString(err));
  if ((err = cudaMalloc(&m->bad_ids, std::max(SEQC_EMBEDDING_COUNT, 1) *
                                         sizeof(unsigned long long))) != cudaSuccess)
    return seqc_format(m->error, "cannot allocate device memory: %s", cudaGetErrorString(err));
  if (const char *e = seqc_create_layers(m, Dmax))
    return e;
  if ((err = cudaStreamSynchronize(m->stream)) != cudaSuccess)
    return seqc_format(m->error, "CUDA error while setting up the model: %s", cudaGetErrorString(err));
  return nullptr;
}

SEQC_API void seqc_model_destroy(seqc_model *m) {
  if (!m)
    return;
  seqc_device_scope device(m->device);
  if (m->stream)
    cudaStreamSynchronize(m->stream);
  seqc::destroy_graphs(m->graphs);
  seqc_destroy_layers(m);
#if SEQC_USES_CUDNN
  if (m->cudnn)
    cudnnDestroy(m->cudnn);
#endif
  for (void *p : {(void *)m->arena, (void *)m->w, (void *)m->bad_ids, (void *)m->state})
    if (p)
      cudaFree(p);
  if (m->stream)
    cudaStreamDestroy(m->stream);
  delete m;
}

SEQC_API seqc_model *seqc_model_create_sized(int64_t max_batch, int64_t max_seq_len) {
  if (max_batch < 1 || (SEQC_DYNAMIC_TIME && max_seq_len < 1)) {
    seqc_format(seqc_create_error, "seqc_model_create_sized: the bounds must be at least 1");
    return nullptr;
  }
  seqc_model *m = new (std::nothrow) seqc_model();
  if (!m) {
    seqc_format(seqc_create_error, "out of host memory");
    return nullptr;
  }
  m->max_batch = SEQC_STATIC_BATCH ? SEQC_STATIC_BATCH : max_batch;
  m->max_seq_len = SEQC_DYNAMIC_TIME ? max_seq_len : SEQC_DEFAULT_MAX_SEQ_LEN;
  if (const char *e = seqc_create(m)) {
    seqc_format(seqc_create_error, "%s", e);
    seqc_model_destroy(m);
    return nullptr;
  }
  return m;
}

SEQC_API seqc_model *seqc_model_create(void) {
  return seqc_model_create_sized(SEQC_DEFAULT_MAX_BATCH, SEQC_DEFAULT_MAX_SEQ_LEN);
}

SEQC_API const char *seqc_last_error(seqc_model *m) {
  return m ? m->error : seqc_create_error;
}

SEQC_API const char *seqc_model_metadata_json(void) {
  return (const char *)seqc_metadata;
}
SEQC_API int seqc_model_input_count(void) { return SEQC_INPUT_COUNT; }
SEQC_API int seqc_model_output_count(void) { return SEQC_OUTPUT_COUNT; }
SEQC_API const char *seqc_model_input_name(int k) {
  return k >= 0 && k < SEQC_INPUT_COUNT ? (const char *)seqc_input_names[k] : nullptr;
}
SEQC_API const char *seqc_model_output_name(int k) {
  return k >= 0 && k < SEQC_OUTPUT_COUNT ? (const char *)seqc_output_names[k] : nullptr;
}
SEQC_API int seqc_model_input_rank_of(int k) {
  return k >= 0 && k < SEQC_INPUT_COUNT ? seqc_input_ranks[k] : 0;
}
SEQC_API int64_t seqc_model_input_dim_of(int k, int i) {
  return k >= 0 && k < SEQC_INPUT_COUNT && i >= 0 && i < seqc_input_ranks[k]
             ? seqc_input_dims[k][i] : 0;
}
SEQC_API int seqc_model_output_rank_of(int k) {
  return k >= 0 && k < SEQC_OUTPUT_COUNT ? seqc_output_ranks[k] : 0;
}
SEQC_API int64_t seqc_model_output_dim_of(int k, int i) {
  return k >= 0 && k < SEQC_OUTPUT_COUNT && i >= 0 && i < seqc_output_ranks[k]
             ? seqc_output_dims[k][i] : 0;
}
SEQC_API int seqc_model_input_rank(void) { return seqc_model_input_rank_of(0); }
SEQC_API int64_t seqc_model_input_dim(int i) { return seqc_model_input_dim_of(0, i); }
SEQC_API int seqc_model_output_rank(void) { return seqc_model_output_rank_of(0); }
SEQC_API int64_t seqc_model_output_dim(int i) { return seqc_model_output_dim_of(0, i); }
SEQC_API int64_t seqc_model_max_batch(seqc_model *m) { return m ? m->max_batch : -1; }
SEQC_API int64_t seqc_model_max_seq_len(seqc_model *m) { return m ? m->max_seq_len : -1; }

/// Checks the batch and every input's seq_len (seq_lens[k]; NULL: 0 for
/// each) against the instance and computes every shape.
static int seqc_shapes_for(seqc_model *m, int64_t batch, const int64_t *seq_lens,
                           seqc_dims *d) {
  if (batch < 0) {
    seqc_format(m->error, "batch and seq_len must not be negative");
    return SEQC_ERROR_ARGUMENT;
  }
  if (batch < 1 || batch > m->max_batch) {
    seqc_format(m->error, "batch %lld is outside [1, %lld], what this instance was created "
                "for (seqc_model_create_sized)", (long long)batch, (long long)m->max_batch);
    return SEQC_ERROR_SHAPE;
  }
  if (SEQC_STATIC_BATCH && batch != SEQC_STATIC_BATCH) {
    seqc_format(m->error, "the model has a fixed batch of %d, got %lld", SEQC_STATIC_BATCH,
                (long long)batch);
    return SEQC_ERROR_SHAPE;
  }
  int64_t steps[SEQC_INPUT_COUNT];
  for (int k = 0; k < SEQC_INPUT_COUNT; ++k) {
    char input[32] = ""; // which input, when there are several
    if (SEQC_INPUT_COUNT > 1)
      std::snprintf(input, sizeof input, "input %d: ", k);
    const int64_t seq_len = seq_lens ? seq_lens[k] : 0;
    if (seq_len < 0) {
      seqc_format(m->error, "%sbatch and seq_len must not be negative", input);
      return SEQC_ERROR_ARGUMENT;
    }
    if (seqc_input_steps[k] >= 0) {
      if (seq_len != 0 && seq_len != seqc_input_steps[k]) {
        seqc_format(m->error, "%sseq_len %lld does not match the input's fixed axis 1 of "
                    "size %lld (pass 0 or %lld)", input, (long long)seq_len,
                    (long long)seqc_input_steps[k], (long long)seqc_input_steps[k]);
        return SEQC_ERROR_SHAPE;
      }
      steps[k] = seqc_input_steps[k];
    } else if (seq_len < 1 || seq_len > m->max_seq_len) {
      seqc_format(m->error, "%sseq_len %lld is outside [1, %lld], what this instance was "
                  "created for (seqc_model_create_sized)", input, (long long)seq_len,
                  (long long)m->max_seq_len);
      return SEQC_ERROR_SHAPE;
    } else {
      steps[k] = seq_len;
    }
  }
  if (const char *e = seqc_compute_dims(batch, steps, d)) {
    seqc_format(m->error, "%s", e);
    return SEQC_ERROR_SHAPE;
  }
#define SEQC_CHECK_CAPACITY(name, rank)                                         \
  if (seqc_numel(d->name, rank) > m->cap_##name) {                              \
    seqc_format(m->error, "buffer " #name " needs more memory than was allocated at create"); \
    return SEQC_ERROR_SHAPE;                                                    \
  }
  SEQC_BUFFERS(SEQC_CHECK_CAPACITY)
#undef SEQC_CHECK_CAPACITY
  return SEQC_OK;
}

SEQC_API int64_t seqc_model_input_size_of(seqc_model *m, int k, int64_t batch,
                                         int64_t seq_len) {
  if (!m || k < 0 || k >= SEQC_INPUT_COUNT)
    return -1;
  std::lock_guard<std::mutex> lock(m->mutex);
  // The other inputs' lengths do not change input k's size.
  int64_t seq_lens[SEQC_INPUT_COUNT];
  for (int i = 0; i < SEQC_INPUT_COUNT; ++i)
    seq_lens[i] = i == k ? seq_len : seqc_input_steps[i] < 0 ? 1 : 0;
  seqc_dims D;
  if (seqc_shapes_for(m, batch, seq_lens, &D) != SEQC_OK)
    return -1;
  return seqc_input_numel(D, k);
}

SEQC_API int64_t seqc_model_output_size_of(seqc_model *m, int k, int64_t batch,
                                          const int64_t *seq_lens) {
  if (!m || k < 0 || k >= SEQC_OUTPUT_COUNT)
    return -1;
  std::lock_guard<std::mutex> lock(m->mutex);
  seqc_dims D;
  if (seqc_shapes_for(m, batch, seq_lens, &D) != SEQC_OK)
    return -1;
  return seqc_output_numel(D, k);
}

SEQC_API int64_t seqc_model_input_size(seqc_model *m, int64_t batch, int64_t seq_len) {
  return seqc_model_input_size_of(m, 0, batch, seq_len);
}

SEQC_API int64_t seqc_model_output_size(seqc_model *m, int64_t batch, int64_t seq_len) {
  int64_t seq_lens[SEQC_INPUT_COUNT];
  for (int k = 0; k < SEQC_INPUT_COUNT; ++k)
    seq_lens[k] = seqc_input_steps[k] < 0 || SEQC_INPUT_COUNT == 1 ? seq_len : 0;
  return seqc_model_output_size_of(m, 0, batch, seq_lens);
}

/// After a call: an Embedding that met an id outside its table (the kernel
/// wrote the first such id's index + 1) fails the call, naming the layer.
static int seqc_check_embedding_ids(seqc_model *m) {
#if SEQC_EMBEDDING_COUNT
  unsigned long long bad[SEQC_EMBEDDING_COUNT];
  cudaError_t err;
  if ((err = cudaMemcpyAsync(bad, m->bad_ids, sizeof(bad), cudaMemcpyDeviceToHost,
                             m->stream)) != cudaSuccess ||
      (err = cudaStreamSynchronize(m->stream)) != cudaSuccess) {
    seqc_format(m->error, "CUDA error: %s", cudaGetErrorString(err));
    return SEQC_ERROR_DEVICE;
  }
  auto check = [&](int i, const unsigned char *layer, const float *ids, int vocabulary) {
    if (!bad[i])
      return (int)SEQC_OK;
    float id = 0.0f;
    cudaError_t err;
    if ((err = cudaMemcpyAsync(&id, ids + (bad[i] - 1), sizeof(float), cudaMemcpyDeviceToHost,
                               m->stream)) != cudaSuccess ||
        (err = cudaStreamSynchronize(m->stream)) != cudaSuccess) {
      seqc_format(m->error, "CUDA error: %s", cudaGetErrorString(err));
      return (int)SEQC_ERROR_DEVICE;
    }
    if (std::trunc(id) != id)
      seqc_format(m->error, "layer '%s': embedding id %.9g is not an integer",
                  (const char *)layer, id);
    else
      seqc_format(m->error, "layer '%s': embedding id %.9g out of range [0, %d)",
                  (const char *)layer, id, vocabulary);
    return (int)SEQC_ERROR_INPUT;
  };
#define SEQC_CHECK_IDS(i, layer, ids, vocabulary)                               \
  if (int rc = check(i, layer, m->ids, vocabulary))                             \
    return rc;
  SEQC_EMBEDDINGS(SEQC_CHECK_IDS)
#undef SEQC_CHECK_IDS
#else
  (void)m;
#endif
  return SEQC_OK;
}

/// One call on non-null ports, with the lock held and batch >= 1.
static int seqc_run_ports(seqc_model *m, const float *const *inputs, int64_t batch,
                          const int64_t *seq_lens, float *const *outputs) {
  seqc_dims D;
  if (int rc = seqc_shapes_for(m, batch, seq_lens, &D))
    return rc;
  seqc_device_scope device(m->device);
  if (device.error != cudaSuccess) {
    seqc_format(m->error, "cannot make GPU %d current: %s", m->device,
                cudaGetErrorString(device.error));
    return SEQC_ERROR_DEVICE;
  }
  cudaError_t err = cudaSuccess;
  for (int k = 0; k < SEQC_INPUT_COUNT && err == cudaSuccess; ++k)
    err = cudaMemcpyAsync(seqc_input_buffer(m, k), inputs[k],
                          seqc_input_numel(D, k) * sizeof(float), cudaMemcpyHostToDevice,
                          m->stream);
  if (SEQC_EMBEDDING_COUNT && err == cudaSuccess)
    err = cudaMemsetAsync(m->bad_ids, 0, SEQC_EMBEDDING_COUNT * sizeof(unsigned long long),
                          m->stream);
  if (err != cudaSuccess) {
    seqc_format(m->error, "cannot copy the input to the GPU: %s", cudaGetErrorString(err));
    return SEQC_ERROR_DEVICE;
  }
  if (seqc::run_graphed(m->stream, m->graphs, &D, sizeof D,
                        [&] { return seqc_forward(m, D); }) != 0) {
    if (m->graphs.error != cudaSuccess)
      seqc_format(m->error, "cannot launch the model's CUDA graph: %s",
                  cudaGetErrorString(m->graphs.error));
    cudaStreamSynchronize(m->stream);
    return SEQC_ERROR_DEVICE;
  }
  for (int k = 0; k < SEQC_OUTPUT_COUNT && err == cudaSuccess; ++k)
    err = cudaMemcpyAsync(outputs[k], seqc_output_buffer(m, k),
                          seqc_output_numel(D, k) * sizeof(float), cudaMemcpyDeviceToHost,
                          m->stream);
  if (SEQC_STATE_SIZE && err == cudaSuccess)
    err = cudaMemcpyAsync(m->state, m->state_next, SEQC_STATE_SIZE * sizeof(float),
                          cudaMemcpyDeviceToDevice, m->stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(m->stream);
  if (err != cudaSuccess) {
    seqc_format(m->error, "CUDA error while running the model: %s", cudaGetErrorString(err));
    return SEQC_ERROR_DEVICE;
  }
  return seqc_check_embedding_ids(m);
}

SEQC_API int seqc_model_run(seqc_model *m, const float *input, int64_t batch, int64_t seq_len,
                            float *output) {
  if (!m) {
    seqc_format(seqc_create_error, "seqc_model_run: the model is NULL");
    return SEQC_ERROR_ARGUMENT;
  }
  std::lock_guard<std::mutex> lock(m->mutex);
  m->error[0] = 0;
  if (SEQC_INPUT_COUNT != 1 || SEQC_OUTPUT_COUNT != 1) {
    seqc_format(m->error, "seqc_model_run: the model has %d inputs and %d outputs: run it "
                "with seqc_model_run_all", SEQC_INPUT_COUNT, SEQC_OUTPUT_COUNT);
    return SEQC_ERROR_ARGUMENT;
  }
  if (batch == 0)  // an empty batch reads and writes nothing, as on the CPU
    return SEQC_OK;
  if (!input || !output) {
    seqc_format(m->error, "seqc_model_run: input and output must not be NULL");
    return SEQC_ERROR_ARGUMENT;
  }
  return seqc_run_ports(m, &input, batch, &seq_len, &output);
}

SEQC_API int seqc_model_run_all(seqc_model *m, const float *const *inputs, int64_t batch,
                                const int64_t *seq_lens, float *const *outputs) {
  if (!m) {
    seqc_format(seqc_create_error, "seqc_model_run_all: the model is NULL");
    return SEQC_ERROR_ARGUMENT;
  }
  std::lock_guard<std::mutex> lock(m->mutex);
  m->error[0] = 0;
  if (batch == 0)
    return SEQC_OK;
  if (!inputs || !outputs) {
    seqc_format(m->error, "seqc_model_run_all: inputs and outputs must not be NULL");
    return SEQC_ERROR_ARGUMENT;
  }
  for (int k = 0; k < SEQC_INPUT_COUNT; ++k)
    if (!inputs[k] || (seqc_input_steps[k] < 0 && !seq_lens)) {
      seqc_format(m->error, inputs[k] ? "seqc_model_run_all: seq_lens must not be NULL: "
                                        "input %d's time axis is dynamic"
                                      : "seqc_model_run_all: inputs[%d] is NULL", k);
      return SEQC_ERROR_ARGUMENT;
    }
  for (int k = 0; k < SEQC_OUTPUT_COUNT; ++k)
    if (!outputs[k]) {
      seqc_format(m->error, "seqc_model_run_all: outputs[%d] is NULL", k);
      return SEQC_ERROR_ARGUMENT;
    }
  return seqc_run_ports(m, inputs, batch, seq_lens, outputs);
}

// The state of the stateful layers (none for a stateless model).
SEQC_API int64_t seqc_model_state_size(void) { return SEQC_STATE_SIZE; }
SEQC_API int seqc_model_state_count(void) { return SEQC_STATE_COUNT; }
SEQC_API const char *seqc_model_state_layer(int i) {
  return i >= 0 && i < SEQC_STATE_COUNT ? (const char *)seqc_state_layers[i] : nullptr;
}
SEQC_API int64_t seqc_model_state_offset(int i) {
  return i >= 0 && i <= SEQC_STATE_COUNT ? seqc_state_offsets[i] : -1;
}

/// Copies the state to (to_device) or from the GPU, or zeroes it (host null).
static int seqc_state_transfer(seqc_model *m, float *host, bool to_device) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  std::lock_guard<std::mutex> lock(m->mutex);
  m->error[0] = 0;
  if (!SEQC_STATE_SIZE)
    return SEQC_OK;
  seqc_device_scope device(m->device);
  cudaError_t err = device.error;
  if (err == cudaSuccess)
    err = !host ? cudaMemsetAsync(m->state, 0, SEQC_STATE_SIZE * sizeof(float), m->stream)
          : cudaMemcpyAsync(to_device ? m->state : host, to_device ? host : m->state,
                            SEQC_STATE_SIZE * sizeof(float),
                            to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                            m->stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(m->stream);
  if (err != cudaSuccess) {
    seqc_format(m->error, "cannot copy the model's state: %s", cudaGetErrorString(err));
    return SEQC_ERROR_DEVICE;
  }
  return SEQC_OK;
}

SEQC_API int seqc_model_get_state(seqc_model *m, float *state) {
  if (m && SEQC_STATE_SIZE && !state) {
    seqc_format(m->error, "seqc_model_get_state: state must not be NULL");
    return SEQC_ERROR_ARGUMENT;
  }
  return seqc_state_transfer(m, state, false);
}
SEQC_API int seqc_model_set_state(seqc_model *m, const float *state) {
  if (m && SEQC_STATE_SIZE && !state) {
    seqc_format(m->error, "seqc_model_set_state: state must not be NULL");
    return SEQC_ERROR_ARGUMENT;
  }
  return seqc_state_transfer(m, const_cast<float *>(state), true);
}
SEQC_API int seqc_model_reset_state(seqc_model *m) {
  return seqc_state_transfer(m, nullptr, true);
}

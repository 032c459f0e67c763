// ===== seqc CUDA model runtime =============================================
// The C API of every CUDA model library (runtime/seqc_model.h.in, the same
// as the CPU backend's) over the model's description (seqc_model_interface.h),
// which the model's generated code defines as `seqc_this_model`. The same
// code for every model: seq-compile compiles it once (seq-compile
// --emit=cuda-runtime writes it as a source) and links it with each model's
// code built with -DSEQC_RUNTIME_LINKED; an emitted .cu without that macro
// holds it too, so that the file stands alone.
// ===========================================================================
#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

#define SEQC_API extern "C" __attribute__((visibility("default")))

extern "C" __attribute__((visibility("hidden"))) const seqc_model_description seqc_this_model;

struct seqc_model {
  std::mutex mutex; // one run at a time: buffers and stream are shared
  seqc_instance *layers = nullptr; // the model's part, which the layers' code works on
  float *arena = nullptr;          // every buffer, allocated once
  std::vector<float *> buffers;    // each buffer's place in the arena
  std::vector<int64_t> capacity;   // and how many floats it has
  // Room for one call (its shapes, its inputs' lengths, its Embedding
  // checks), allocated at create: a call allocates nothing.
  std::vector<int64_t> dims, steps;
  std::vector<unsigned long long> bad_ids;
  int64_t max_batch = 0, max_seq_len = 0; // the bounds memory was allocated for
  int device = -1; // the GPU current on the thread that created the model
  seqc::CallGraphs graphs; // a call's launches as one CUDA graph per input shape
  char *error() { return layers->error; }
};

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

static int64_t seqc_numel(const int64_t *dims, int rank) {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i)
    n *= dims[i];
  return n;
}

/// Floats of a port in the shapes `dims`.
static int64_t seqc_port_numel(const seqc_port &port, const int64_t *dims) {
  return seqc_numel(dims + port.dims_at, port.rank);
}

/// Axis 1's length of input k when the caller leaves it open: what the
/// instance allows (dynamic) or the model's.
static int64_t seqc_max_steps(const seqc_model *m, int k) {
  return seqc_this_model.inputs[k].steps < 0 ? m->max_seq_len : seqc_this_model.inputs[k].steps;
}

/// Checks that the driver, a GPU and kernels for it are there, then
/// allocates every buffer for the instance's bounds, uploads the weights and
/// sets up the layers.
static const char *seqc_create(seqc_model *m) {
  const seqc_model_description &S = seqc_this_model;
  seqc_instance *L = m->layers;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorInsufficientDriver) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    if (driver == 0)
      return seqc_format(L->error,
                         "no NVIDIA driver found (libcuda.so.1): this library needs a "
                         "driver for CUDA %d.%d or newer and a GPU (see seq-compile --doctor)",
                         CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    return seqc_format(L->error,
                       "the NVIDIA driver supports CUDA %d.%d, but this library needs a "
                       "driver for CUDA %d.%d or newer (it was built with CUDA %d.%d): "
                       "update the driver (see seq-compile --doctor)",
                       driver / 1000, driver % 1000 / 10, CUDART_VERSION / 1000,
                       CUDART_VERSION % 1000 / 10, CUDART_VERSION / 1000,
                       CUDART_VERSION % 1000 / 10);
  }
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
    return seqc_format(L->error, "no CUDA GPU found (see seq-compile --doctor)");
  if (err != cudaSuccess)
    return seqc_format(L->error, "cannot initialise CUDA: %s (see seq-compile --doctor)",
                       cudaGetErrorString(err));
  if ((err = cudaGetDevice(&m->device)) != cudaSuccess)
    return seqc_format(L->error, "cannot read the current CUDA device: %s",
                       cudaGetErrorString(err));
  if ((err = cudaStreamCreateWithFlags(&L->stream, cudaStreamNonBlocking)) != cudaSuccess)
    return seqc_format(L->error, "cannot create a CUDA stream: %s", cudaGetErrorString(err));
  if ((err = S.probe(L->stream)) != cudaSuccess) {
    int device = 0, major = 0, minor = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction)
      return seqc_format(L->error,
                         "this library has no kernels for the GPU (compute capability "
                         "%d.%d); it was built for %s: rebuild with --cuda-arch=sm_%d%d",
                         major, minor, S.built_for_archs, major, minor);
    return seqc_format(L->error, "cannot run a kernel on the GPU: %s", cudaGetErrorString(err));
  }
  if (S.open_cudnn)
    if (const char *e = S.open_cudnn(L->stream, &L->cudnn, L->error))
      return e;
  std::vector<int64_t> max_steps(S.input_count);
  for (int k = 0; k < S.input_count; ++k)
    max_steps[k] = seqc_max_steps(m, k);
  m->dims.assign(S.dims_count, 0);
  m->steps.assign(S.input_count, 0);
  m->bad_ids.assign(S.embedding_count, 0);
  std::vector<int64_t> dims_max(S.dims_count);
  if (const char *e = S.compute_dims(m->max_batch, max_steps.data(), dims_max.data()))
    return seqc_format(L->error, "%s", e);
  // Each buffer's place in the arena, 64 floats aligned.
  m->capacity.resize(S.buffer_count);
  std::vector<size_t> at(S.buffer_count);
  size_t total = 0;
  for (int b = 0; b < S.buffer_count; ++b) {
    m->capacity[b] = seqc_numel(dims_max.data() + S.buffers[b].dims_at, S.buffers[b].rank);
    at[b] = total;
    total += (size_t)(m->capacity[b] + 63) / 64 * 64;
  }
  if ((err = cudaMalloc(&m->arena, std::max<size_t>(total, 1) * sizeof(float))) != cudaSuccess)
    return seqc_format(L->error, "cannot allocate %zu bytes of device memory: %s",
                       total * sizeof(float), cudaGetErrorString(err));
  m->buffers.resize(S.buffer_count);
  for (int b = 0; b < S.buffer_count; ++b)
    m->buffers[b] = m->arena + at[b];
  L->buffers = m->buffers.data();
  const int64_t state_size = S.state_offsets[S.state_count];
  if (state_size &&
      ((err = cudaMalloc(&L->state, 2 * state_size * sizeof(float))) != cudaSuccess ||
       (err = cudaMemsetAsync(L->state, 0, state_size * sizeof(float), L->stream)) !=
           cudaSuccess))
    return seqc_format(L->error, "cannot allocate the model's state on the GPU: %s",
                       cudaGetErrorString(err));
  L->state_next = L->state ? L->state + state_size : nullptr;
  if ((err = cudaMalloc(&L->w, std::max<size_t>(S.weight_count, 1) * sizeof(float))) != cudaSuccess ||
      (err = cudaMemcpyAsync(L->w, S.weights, S.weight_count * sizeof(float),
                             cudaMemcpyHostToDevice, L->stream)) != cudaSuccess)
    return seqc_format(L->error, "cannot copy the weights to the GPU: %s", cudaGetErrorString(err));
  if ((err = cudaMalloc(&L->bad_ids, std::max(S.embedding_count, 1) *
                                         sizeof(unsigned long long))) != cudaSuccess)
    return seqc_format(L->error, "cannot allocate device memory: %s", cudaGetErrorString(err));
  if (const char *e = S.create_layers(L, dims_max.data()))
    return e;
  if ((err = cudaStreamSynchronize(L->stream)) != cudaSuccess)
    return seqc_format(L->error, "CUDA error while setting up the model: %s", cudaGetErrorString(err));
  return nullptr;
}

SEQC_API void seqc_model_destroy(seqc_model *m) {
  if (!m)
    return;
  if (seqc_instance *L = m->layers) {
    seqc_device_scope device(m->device);
    if (L->stream)
      cudaStreamSynchronize(L->stream);
    seqc::destroy_graphs(m->graphs);
    // What the instance holds, before the layers' clean-up deletes it.
    cudnnContext *cudnn = L->cudnn;
    cudaStream_t stream = L->stream;
    void *memory[] = {m->arena, L->w, L->bad_ids, L->state};
    seqc_this_model.destroy(L);
    if (cudnn)
      seqc_this_model.close_cudnn(cudnn);
    for (void *p : memory)
      if (p)
        cudaFree(p);
    if (stream)
      cudaStreamDestroy(stream);
  }
  delete m;
}

SEQC_API seqc_model *seqc_model_create_sized(int64_t max_batch, int64_t max_seq_len) {
  const seqc_model_description &S = seqc_this_model;
  if (max_batch < 1 || (S.dynamic_time && max_seq_len < 1)) {
    seqc_format(seqc_create_error, "seqc_model_create_sized: the bounds must be at least 1");
    return nullptr;
  }
  seqc_model *m = new (std::nothrow) seqc_model();
  if (!m || !(m->layers = S.new_instance())) {
    delete m;
    seqc_format(seqc_create_error, "out of host memory");
    return nullptr;
  }
  m->graphs.enabled = S.cuda_graphs;
  m->max_batch = S.static_batch ? S.static_batch : max_batch;
  m->max_seq_len = S.dynamic_time ? max_seq_len : S.default_max_seq_len;
  if (const char *e = seqc_create(m)) {
    seqc_format(seqc_create_error, "%s", e);
    seqc_model_destroy(m);
    return nullptr;
  }
  return m;
}

SEQC_API seqc_model *seqc_model_create(void) {
  return seqc_model_create_sized(seqc_this_model.default_max_batch,
                                 seqc_this_model.default_max_seq_len);
}

SEQC_API const char *seqc_last_error(seqc_model *m) {
  return m ? m->error() : seqc_create_error;
}

SEQC_API const char *seqc_model_metadata_json(void) {
  return (const char *)seqc_this_model.metadata;
}
SEQC_API int seqc_model_input_count(void) { return seqc_this_model.input_count; }
SEQC_API int seqc_model_output_count(void) { return seqc_this_model.output_count; }

/// Port k of `count` ports, or nullptr.
static const seqc_port *seqc_port_at(const seqc_port *ports, int count, int k) {
  return k >= 0 && k < count ? &ports[k] : nullptr;
}
static const seqc_port *seqc_input(int k) {
  return seqc_port_at(seqc_this_model.inputs, seqc_this_model.input_count, k);
}
static const seqc_port *seqc_output(int k) {
  return seqc_port_at(seqc_this_model.outputs, seqc_this_model.output_count, k);
}
static int64_t seqc_declared_dim(const seqc_port *port, int i) {
  return port && i >= 0 && i < port->declared_rank ? port->declared_dims[i] : 0;
}

SEQC_API const char *seqc_model_input_name(int k) {
  const seqc_port *port = seqc_input(k);
  return port ? (const char *)port->name : nullptr;
}
SEQC_API const char *seqc_model_output_name(int k) {
  const seqc_port *port = seqc_output(k);
  return port ? (const char *)port->name : nullptr;
}
SEQC_API int seqc_model_input_rank_of(int k) {
  const seqc_port *port = seqc_input(k);
  return port ? port->declared_rank : 0;
}
SEQC_API int64_t seqc_model_input_dim_of(int k, int i) {
  return seqc_declared_dim(seqc_input(k), i);
}
SEQC_API int seqc_model_output_rank_of(int k) {
  const seqc_port *port = seqc_output(k);
  return port ? port->declared_rank : 0;
}
SEQC_API int64_t seqc_model_output_dim_of(int k, int i) {
  return seqc_declared_dim(seqc_output(k), i);
}
SEQC_API int seqc_model_input_rank(void) { return seqc_model_input_rank_of(0); }
SEQC_API int64_t seqc_model_input_dim(int i) { return seqc_model_input_dim_of(0, i); }
SEQC_API int seqc_model_output_rank(void) { return seqc_model_output_rank_of(0); }
SEQC_API int64_t seqc_model_output_dim(int i) { return seqc_model_output_dim_of(0, i); }
SEQC_API int64_t seqc_model_max_batch(seqc_model *m) { return m ? m->max_batch : -1; }
SEQC_API int64_t seqc_model_max_seq_len(seqc_model *m) { return m ? m->max_seq_len : -1; }

/// Checks the batch and every input's seq_len (seq_lens[k]; NULL: 0 for
/// each) against the instance and computes every shape into m->dims.
static int seqc_shapes_for(seqc_model *m, int64_t batch, const int64_t *seq_lens) {
  const seqc_model_description &S = seqc_this_model;
  if (batch < 0) {
    seqc_format(m->error(), "batch and seq_len must not be negative");
    return SEQC_ERROR_ARGUMENT;
  }
  if (batch < 1 || batch > m->max_batch) {
    seqc_format(m->error(), "batch %lld is outside [1, %lld], what this instance was created "
                "for (seqc_model_create_sized)", (long long)batch, (long long)m->max_batch);
    return SEQC_ERROR_SHAPE;
  }
  if (S.static_batch && batch != S.static_batch) {
    seqc_format(m->error(), "the model has a fixed batch of %lld, got %lld",
                (long long)S.static_batch, (long long)batch);
    return SEQC_ERROR_SHAPE;
  }
  std::vector<int64_t> &steps = m->steps;
  for (int k = 0; k < S.input_count; ++k) {
    char input[32] = ""; // which input, when there are several
    if (S.input_count > 1)
      std::snprintf(input, sizeof input, "input %d: ", k);
    const int64_t seq_len = seq_lens ? seq_lens[k] : 0, fixed = S.inputs[k].steps;
    if (seq_len < 0) {
      seqc_format(m->error(), "%sbatch and seq_len must not be negative", input);
      return SEQC_ERROR_ARGUMENT;
    }
    if (fixed >= 0) {
      if (seq_len != 0 && seq_len != fixed) {
        seqc_format(m->error(), "%sseq_len %lld does not match the input's fixed axis 1 of "
                    "size %lld (pass 0 or %lld)", input, (long long)seq_len,
                    (long long)fixed, (long long)fixed);
        return SEQC_ERROR_SHAPE;
      }
      steps[k] = fixed;
    } else if (seq_len < 1 || seq_len > m->max_seq_len) {
      seqc_format(m->error(), "%sseq_len %lld is outside [1, %lld], what this instance was "
                  "created for (seqc_model_create_sized)", input, (long long)seq_len,
                  (long long)m->max_seq_len);
      return SEQC_ERROR_SHAPE;
    } else {
      steps[k] = seq_len;
    }
  }
  if (const char *e = S.compute_dims(batch, steps.data(), m->dims.data())) {
    seqc_format(m->error(), "%s", e);
    return SEQC_ERROR_SHAPE;
  }
  for (int b = 0; b < S.buffer_count; ++b)
    if (seqc_numel(m->dims.data() + S.buffers[b].dims_at, S.buffers[b].rank) > m->capacity[b]) {
      seqc_format(m->error(), "buffer %d needs more memory than was allocated at create", b);
      return SEQC_ERROR_SHAPE;
    }
  return SEQC_OK;
}

SEQC_API int64_t seqc_model_input_size_of(seqc_model *m, int k, int64_t batch,
                                         int64_t seq_len) {
  const seqc_port *port = seqc_input(k);
  if (!m || !port)
    return -1;
  std::lock_guard<std::mutex> lock(m->mutex);
  // The other inputs' lengths do not change input k's size.
  std::vector<int64_t> seq_lens(seqc_this_model.input_count);
  for (int i = 0; i < seqc_this_model.input_count; ++i)
    seq_lens[i] = i == k ? seq_len : seqc_this_model.inputs[i].steps < 0 ? 1 : 0;
  if (seqc_shapes_for(m, batch, seq_lens.data()) != SEQC_OK)
    return -1;
  return seqc_port_numel(*port, m->dims.data());
}

SEQC_API int seqc_model_output_shape_of(seqc_model *m, int k, int64_t batch,
                                       const int64_t *seq_lens, int64_t *dims) {
  const seqc_port *port = seqc_output(k);
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  std::lock_guard<std::mutex> lock(m->mutex);
  if (!port || !dims) {
    seqc_format(m->error(), "seqc_model_output_shape_of: %s",
                !dims ? "dims is NULL" : "no such output");
    return SEQC_ERROR_ARGUMENT;
  }
  int status = seqc_shapes_for(m, batch, seq_lens);
  if (status != SEQC_OK)
    return status;
  for (int i = 0; i < port->rank; ++i)
    dims[i] = m->dims[port->dims_at + i];
  return SEQC_OK;
}

SEQC_API int64_t seqc_model_output_size_of(seqc_model *m, int k, int64_t batch,
                                          const int64_t *seq_lens) {
  const seqc_port *port = seqc_output(k);
  if (!m || !port)
    return -1;
  std::vector<int64_t> dims(port->rank);
  if (seqc_model_output_shape_of(m, k, batch, seq_lens, dims.data()) != SEQC_OK)
    return -1;
  return seqc_numel(dims.data(), port->rank);
}

SEQC_API int64_t seqc_model_input_size(seqc_model *m, int64_t batch, int64_t seq_len) {
  return seqc_model_input_size_of(m, 0, batch, seq_len);
}

SEQC_API int64_t seqc_model_output_size(seqc_model *m, int64_t batch, int64_t seq_len) {
  const seqc_model_description &S = seqc_this_model;
  std::vector<int64_t> seq_lens(S.input_count);
  for (int k = 0; k < S.input_count; ++k)
    seq_lens[k] = S.inputs[k].steps < 0 || S.input_count == 1 ? seq_len : 0;
  return seqc_model_output_size_of(m, 0, batch, seq_lens.data());
}

/// After a call: an Embedding that met an id outside its table (the kernel
/// wrote the first such id's index + 1) fails the call, naming the layer.
static int seqc_check_embedding_ids(seqc_model *m) {
  const seqc_model_description &S = seqc_this_model;
  if (!S.embedding_count)
    return SEQC_OK;
  seqc_instance *L = m->layers;
  std::vector<unsigned long long> &bad = m->bad_ids;
  cudaError_t err;
  if ((err = cudaMemcpyAsync(bad.data(), L->bad_ids, bad.size() * sizeof(bad[0]),
                             cudaMemcpyDeviceToHost, L->stream)) != cudaSuccess ||
      (err = cudaStreamSynchronize(L->stream)) != cudaSuccess) {
    seqc_format(L->error, "CUDA error: %s", cudaGetErrorString(err));
    return SEQC_ERROR_DEVICE;
  }
  for (int i = 0; i < S.embedding_count; ++i) {
    if (!bad[i])
      continue;
    const seqc_embedding &e = S.embeddings[i];
    float id = 0.0f;
    if ((err = cudaMemcpyAsync(&id, m->buffers[e.ids_buffer] + (bad[i] - 1), sizeof(float),
                               cudaMemcpyDeviceToHost, L->stream)) != cudaSuccess ||
        (err = cudaStreamSynchronize(L->stream)) != cudaSuccess) {
      seqc_format(L->error, "CUDA error: %s", cudaGetErrorString(err));
      return SEQC_ERROR_DEVICE;
    }
    if (std::trunc(id) != id)
      seqc_format(L->error, "layer '%s': embedding id %.9g is not an integer",
                  (const char *)e.layer, id);
    else
      seqc_format(L->error, "layer '%s': embedding id %.9g out of range [0, %d)",
                  (const char *)e.layer, id, e.vocabulary);
    return SEQC_ERROR_INPUT;
  }
  return SEQC_OK;
}

/// One call on non-null ports, with the lock held and batch >= 1.
static int seqc_run_ports(seqc_model *m, const float *const *inputs, int64_t batch,
                          const int64_t *seq_lens, float *const *outputs) {
  const seqc_model_description &S = seqc_this_model;
  seqc_instance *L = m->layers;
  if (int rc = seqc_shapes_for(m, batch, seq_lens))
    return rc;
  const int64_t *D = m->dims.data();
  seqc_device_scope device(m->device);
  if (device.error != cudaSuccess) {
    seqc_format(L->error, "cannot make GPU %d current: %s", m->device,
                cudaGetErrorString(device.error));
    return SEQC_ERROR_DEVICE;
  }
  cudaError_t err = cudaSuccess;
  for (int k = 0; k < S.input_count && err == cudaSuccess; ++k)
    err = cudaMemcpyAsync(m->buffers[S.inputs[k].buffer], inputs[k],
                          seqc_port_numel(S.inputs[k], D) * sizeof(float),
                          cudaMemcpyHostToDevice, L->stream);
  if (S.embedding_count && err == cudaSuccess)
    err = cudaMemsetAsync(L->bad_ids, 0, S.embedding_count * sizeof(unsigned long long),
                          L->stream);
  if (err != cudaSuccess) {
    seqc_format(L->error, "cannot copy the input to the GPU: %s", cudaGetErrorString(err));
    return SEQC_ERROR_DEVICE;
  }
  if (seqc::run_graphed(L->stream, m->graphs, D, m->dims.size() * sizeof(int64_t),
                        [&] { return S.forward(L, D); }) != 0) {
    if (m->graphs.error != cudaSuccess)
      seqc_format(L->error, "cannot launch the model's CUDA graph: %s",
                  cudaGetErrorString(m->graphs.error));
    cudaStreamSynchronize(L->stream);
    return SEQC_ERROR_DEVICE;
  }
  for (int k = 0; k < S.output_count && err == cudaSuccess; ++k)
    err = cudaMemcpyAsync(outputs[k], m->buffers[S.outputs[k].buffer],
                          seqc_port_numel(S.outputs[k], D) * sizeof(float),
                          cudaMemcpyDeviceToHost, L->stream);
  const int64_t state_size = S.state_offsets[S.state_count];
  if (state_size && err == cudaSuccess)
    err = cudaMemcpyAsync(L->state, L->state_next, state_size * sizeof(float),
                          cudaMemcpyDeviceToDevice, L->stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(L->stream);
  if (err != cudaSuccess) {
    seqc_format(L->error, "CUDA error while running the model: %s", cudaGetErrorString(err));
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
  m->error()[0] = 0;
  if (seqc_this_model.input_count != 1 || seqc_this_model.output_count != 1) {
    seqc_format(m->error(), "seqc_model_run: the model has %d inputs and %d outputs: run it "
                "with seqc_model_run_all", seqc_this_model.input_count,
                seqc_this_model.output_count);
    return SEQC_ERROR_ARGUMENT;
  }
  if (batch == 0)  // an empty batch reads and writes nothing, as on the CPU
    return SEQC_OK;
  if (!input || !output) {
    seqc_format(m->error(), "seqc_model_run: input and output must not be NULL");
    return SEQC_ERROR_ARGUMENT;
  }
  return seqc_run_ports(m, &input, batch, &seq_len, &output);
}

SEQC_API int seqc_model_run_all(seqc_model *m, const float *const *inputs, int64_t batch,
                                const int64_t *seq_lens, float *const *outputs) {
  const seqc_model_description &S = seqc_this_model;
  if (!m) {
    seqc_format(seqc_create_error, "seqc_model_run_all: the model is NULL");
    return SEQC_ERROR_ARGUMENT;
  }
  std::lock_guard<std::mutex> lock(m->mutex);
  m->error()[0] = 0;
  if (batch == 0)
    return SEQC_OK;
  if (!inputs || !outputs) {
    seqc_format(m->error(), "seqc_model_run_all: inputs and outputs must not be NULL");
    return SEQC_ERROR_ARGUMENT;
  }
  for (int k = 0; k < S.input_count; ++k)
    if (!inputs[k] || (S.inputs[k].steps < 0 && !seq_lens)) {
      seqc_format(m->error(), inputs[k] ? "seqc_model_run_all: seq_lens must not be NULL: "
                                          "input %d's time axis is dynamic"
                                        : "seqc_model_run_all: inputs[%d] is NULL", k);
      return SEQC_ERROR_ARGUMENT;
    }
  for (int k = 0; k < S.output_count; ++k)
    if (!outputs[k]) {
      seqc_format(m->error(), "seqc_model_run_all: outputs[%d] is NULL", k);
      return SEQC_ERROR_ARGUMENT;
    }
  return seqc_run_ports(m, inputs, batch, seq_lens, outputs);
}

// The state of the stateful layers (none for a stateless model).
SEQC_API int64_t seqc_model_state_size(void) {
  return seqc_this_model.state_offsets[seqc_this_model.state_count];
}
SEQC_API int seqc_model_state_count(void) { return seqc_this_model.state_count; }
SEQC_API const char *seqc_model_state_layer(int i) {
  return i >= 0 && i < seqc_this_model.state_count
             ? (const char *)seqc_this_model.state_layers[i] : nullptr;
}
SEQC_API int64_t seqc_model_state_offset(int i) {
  return i >= 0 && i <= seqc_this_model.state_count ? seqc_this_model.state_offsets[i] : -1;
}

/// Copies the state to (to_device) or from the GPU, or zeroes it (host null).
static int seqc_state_transfer(seqc_model *m, float *host, bool to_device) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  std::lock_guard<std::mutex> lock(m->mutex);
  seqc_instance *L = m->layers;
  L->error[0] = 0;
  const int64_t state_size = seqc_model_state_size();
  if (!state_size)
    return SEQC_OK;
  seqc_device_scope device(m->device);
  cudaError_t err = device.error;
  if (err == cudaSuccess)
    err = !host ? cudaMemsetAsync(L->state, 0, state_size * sizeof(float), L->stream)
          : cudaMemcpyAsync(to_device ? L->state : host, to_device ? host : L->state,
                            state_size * sizeof(float),
                            to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                            L->stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(L->stream);
  if (err != cudaSuccess) {
    seqc_format(L->error, "cannot copy the model's state: %s", cudaGetErrorString(err));
    return SEQC_ERROR_DEVICE;
  }
  return SEQC_OK;
}

SEQC_API int seqc_model_get_state(seqc_model *m, float *state) {
  if (m && seqc_model_state_size() && !state) {
    seqc_format(m->error(), "seqc_model_get_state: state must not be NULL");
    return SEQC_ERROR_ARGUMENT;
  }
  return seqc_state_transfer(m, state, false);
}
SEQC_API int seqc_model_set_state(seqc_model *m, const float *state) {
  if (m && seqc_model_state_size() && !state) {
    seqc_format(m->error(), "seqc_model_set_state: state must not be NULL");
    return SEQC_ERROR_ARGUMENT;
  }
  return seqc_state_transfer(m, const_cast<float *>(state), true);
}
SEQC_API int seqc_model_reset_state(seqc_model *m) {
  return seqc_state_transfer(m, nullptr, true);
}

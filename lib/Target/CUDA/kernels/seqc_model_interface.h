// ===== seqc CUDA model interface ===========================================
// What a model's generated code and the runtime (seqc_model_runtime.cuh, the
// C API, compiled once and linked with every model) share: the model's
// description, which the generated code defines as `seqc_this_model`, and
// the instance its layers' code works on.
// ===========================================================================
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

struct cudnnContext; // cudnnHandle_t is a cudnnContext *

// Return codes, as in every seqc library (runtime/seqc_model.h.in).
enum { SEQC_OK = 0, SEQC_ERROR_ARGUMENT = 1, SEQC_ERROR_SHAPE = 2, SEQC_ERROR_INPUT = 3,
       SEQC_ERROR_DEVICE = 4 /* a CUDA or cuDNN failure */ };

/// What the layers' code uses of a model instance; the runtime sets it up
/// before the layers' create. The generated `seqc_layers` derives from it
/// and adds the layers' plans and descriptors and a named pointer per buffer.
struct seqc_instance {
  cudaStream_t stream = nullptr;
  float *w = nullptr;                    // every weight
  float *const *buffers = nullptr;       // the arena's buffers, in description order
  float *state = nullptr;                // stateful layers: what a call starts from
  float *state_next = nullptr;           // and what it leaves
  unsigned long long *bad_ids = nullptr; // Embedding: first bad id index + 1
  cudnnContext *cudnn = nullptr;
  char error[1024] = {0};
};

/// A buffer of the arena: where its shape is in the model's dims (an array
/// of int64_t: the generated struct seqc_dims) and its rank.
struct seqc_buffer_shape {
  int dims_at, rank;
};

/// An input or output of the model.
struct seqc_port {
  const unsigned char *name;     // Keras' name, NUL-terminated bytes
  const int64_t *declared_dims;  // its shape in the model file, -1 where dynamic
  int declared_rank;
  int64_t steps;                 // inputs: axis 1's length, -1 dynamic, 0 none
  int buffer;                    // the arena buffer holding it
  int dims_at, rank;             // its shape in the dims
};

/// An Embedding layer, whose ids are checked after each call.
struct seqc_embedding {
  const unsigned char *layer; // its name, NUL-terminated bytes
  int ids_buffer;
  int vocabulary;
};

/// Everything the runtime knows of a model.
struct seqc_model_description {
  const char *built_for_archs;                       // "sm_80,sm_90"
  int64_t default_max_batch, default_max_seq_len;
  bool dynamic_time;
  int64_t static_batch;                              // 0: any batch
  const void *weights;                               // float32 values
  size_t weight_count;
  int dims_count;                                    // int64_t values in the dims
  int buffer_count;
  const seqc_buffer_shape *buffers;
  int input_count, output_count;
  const seqc_port *inputs, *outputs;
  int embedding_count;
  const seqc_embedding *embeddings;
  bool cuda_graphs;                                  // false: built with -DSEQC_NO_CUDA_GRAPHS
  int state_count;
  const int64_t *state_offsets;                      // state_count + 1 (the total)
  const unsigned char *const *state_layers;
  const unsigned char *metadata;                     // JSON, NUL-terminated bytes
  /// Every shape of a call of `batch` rows and steps[k] along input k's
  /// axis 1; nullptr, or why not.
  const char *(*compute_dims)(int64_t batch, const int64_t *steps, int64_t *dims);
  /// Runs an empty kernel of the model's own code (whether it has code for
  /// this GPU).
  cudaError_t (*probe)(cudaStream_t stream);
  /// cuDNN's handle on `stream` (nullptr when the model calls no cuDNN):
  /// nullptr, or why not (in `error`).
  const char *(*open_cudnn)(cudaStream_t stream, cudnnContext **handle, char *error);
  void (*close_cudnn)(cudnnContext *handle);
  /// The layers: a new instance; their plans and descriptors for the
  /// largest shapes (nullptr, or why not, in instance->error); one call's
  /// launches (0, or nonzero after writing instance->error); their clean-up
  /// (also deletes the instance).
  seqc_instance *(*new_instance)();
  const char *(*create_layers)(seqc_instance *instance, const int64_t *dims_max);
  int (*forward)(seqc_instance *instance, const int64_t *dims);
  void (*destroy)(seqc_instance *instance);
};

/// Writes a message of at most 1023 characters into `buffer`; returns it.
inline const char *seqc_format(char *buffer, const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, 1024, format, args);
  va_end(args);
  return buffer;
}

/// What of the description follows from the model's code and how it was
/// built: its layer functions for its types (Layers derives from
/// seqc_instance, Dims is a struct of int64_t arrays), and whether its calls
/// may run as CUDA graphs.
template <class Layers, class Dims, const char *(*ComputeDims)(int64_t, const int64_t *, Dims *),
          const char *(*Create)(Layers *, const Dims &), int (*Forward)(Layers *, const Dims &),
          void (*Destroy)(Layers *)>
void seqc_describe_layers(seqc_model_description &d) {
  static_assert(sizeof(Dims) % sizeof(int64_t) == 0, "the dims are int64_t arrays");
#ifdef SEQC_NO_CUDA_GRAPHS
  d.cuda_graphs = false;
#else
  d.cuda_graphs = true;
#endif
  d.dims_count = (int)(sizeof(Dims) / sizeof(int64_t));
  d.compute_dims = [](int64_t batch, const int64_t *steps, int64_t *dims) {
    Dims D{};
    const char *e = ComputeDims(batch, steps, &D);
    std::memcpy(dims, &D, sizeof D);
    return e;
  };
  d.new_instance = []() -> seqc_instance * { return new (std::nothrow) Layers(); };
  d.create_layers = [](seqc_instance *instance, const int64_t *dims_max) {
    Dims D;
    std::memcpy(&D, dims_max, sizeof D);
    return Create(static_cast<Layers *>(instance), D);
  };
  d.forward = [](seqc_instance *instance, const int64_t *dims) {
    Dims D;
    std::memcpy(&D, dims, sizeof D);
    return Forward(static_cast<Layers *>(instance), D);
  };
  d.destroy = [](seqc_instance *instance) {
    Destroy(static_cast<Layers *>(instance));
    delete static_cast<Layers *>(instance);
  };
}

// The layers' error handling: `m` is the instance, `layer` names a byte
// array (seqc_str_N) holding the layer's name.
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

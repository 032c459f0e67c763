#include "seq/Target/CUDA/CudaEmitter.h"

#include "seq/Dialect/Seq/IR/Metadata.h"
#include "seq/Dialect/Seq/IR/ModelIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringExtras.h"

namespace seq::cuda {

static std::string shapeText(mlir::Type type) {
  auto shaped = llvm::dyn_cast<mlir::ShapedType>(type);
  if (!shaped)
    return "?";
  std::string text = "[";
  for (auto [i, d] : llvm::enumerate(shaped.getShape()))
    text += (i ? ", " : "") + (mlir::ShapedType::isDynamic(d) ? std::string("?")
                                                             : std::to_string(d));
  return text + "]";
}

std::string cudaModelHeader(mlir::ModuleOp module, llvm::StringRef headerName,
                            llvm::StringRef libraryName, llvm::StringRef archs, bool cudnn) {
  // The ports' shapes (several: "[?, 5, 3] and [?, 2]"); state arguments
  // and results follow them.
  std::string input = "?", output = "?";
  if (auto func = module.lookupSymbol<mlir::func::FuncOp>("predict")) {
    auto ports = [&](mlir::TypeRange types, llvm::StringRef attr, bool arguments) {
      std::string text;
      for (auto [i, type] : llvm::enumerate(types)) {
        bool isPort = arguments ? static_cast<bool>(func.getArgAttr(i, attr))
                                : static_cast<bool>(func.getResultAttr(i, attr));
        if (isPort || types.size() == 1)
          text += (text.empty() ? "" : " and ") + shapeText(type);
      }
      return text.empty() ? std::string("?") : text;
    };
    input = ports(func.getArgumentTypes(), kInputAttrName, true);
    output = ports(func.getResultTypes(), kOutputAttrName, false);
  }
  // Only whitelisted characters of names reach the header ([A-Za-z0-9_.-]):
  // the model file's text never becomes C source.
  auto safe = [](llvm::StringRef text) {
    std::string out;
    for (char c : text)
      out += llvm::isAlnum(c) || c == '_' || c == '.' || c == '-' ? c : '_';
    return out;
  };
  std::string source = "?";
  if (auto s = getMetadata(module).getAs<mlir::StringAttr>("source"))
    source = safe(s.getValue());
  std::string header = safe(headerName), library = safe(libraryName);
  std::string guard = "SEQC_";
  for (char c : headerName)
    guard += llvm::isAlnum(c) ? llvm::toUpper(c) : '_';

  std::string text = "/* " + header + ": C API of a model compiled by seqc (seq-compile).\n" +
                     " *\n *   model:  " + source + "\n *   input:  " + input +
                     " float32, row-major (C order), axis 0 = batch\n *   output: " + output +
                     " float32, row-major\n *   target: CUDA " + archs.str() +
                     (cudnn ? ", cuDNN 9 where asked" : ", fused kernels") + "\n *\n * Link with " +
                     library + (cudnn ? " (it needs libcudnn.so.9 at run time)" : "") +
                     R"(. Host pointers in and out; the API is
 * the same as for the CPU backend:
 *
 *   seqc_model *m = seqc_model_create();
 *   if (!m) fprintf(stderr, "%s\n", seqc_last_error(NULL));
 *   float *y = malloc(seqc_model_output_size(m, batch, seq_len) * sizeof *y);
 *   if (seqc_model_run(m, x, batch, seq_len, y) != SEQC_OK)
 *     fprintf(stderr, "%s\n", seqc_last_error(m));
 *   seqc_model_destroy(m);
 *
 * Memory: seqc_model_create[_sized] allocates all device memory for the
 * largest batch and sequence length the instance accepts and uploads the
 * weights; seqc_model_run allocates nothing.
 *
 * Threads: calls on one instance are serialised (they share its buffers
 * and CUDA stream); instances are independent.
 */
#ifndef )" + guard + "\n#define " + guard + R"(

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seqc_model seqc_model;

/* Return codes of seqc_model_run. */
enum {
  SEQC_OK = 0,
  SEQC_ERROR_ARGUMENT = 1, /* a null pointer or a negative size */
  SEQC_ERROR_SHAPE = 2,    /* batch / seq_len outside what the instance takes */
  SEQC_ERROR_INPUT = 3,    /* bad input values, e.g. embedding ids */
  SEQC_ERROR_DEVICE = 4,   /* a CUDA or cuDNN failure */
};

/* An instance with the bounds given at compile time (--cuda-max-batch,
 * --cuda-max-seq-len; the model's own length when it is fixed). NULL on
 * failure (no GPU, driver too old, out of memory, ...): then
 * seqc_last_error(NULL) says why. */
seqc_model *seqc_model_create(void);
/* An instance for batches up to max_batch and sequences up to max_seq_len
 * (ignored when the model's time axis is fixed). NULL when a bound is < 1
 * or as for seqc_model_create. */
seqc_model *seqc_model_create_sized(int64_t max_batch, int64_t max_seq_len);
void seqc_model_destroy(seqc_model *model);

/* Runs the model on input[batch, seq_len, ...] and writes output. seq_len is
 * the length of input axis 1 when that axis is dynamic; for a fixed axis it
 * must be that length or 0. `output` holds seqc_model_output_size floats.
 * Returns SEQC_OK or an error code; then seqc_last_error says why. */
int seqc_model_run(seqc_model *model, const float *input, int64_t batch,
                   int64_t seq_len, float *output);
/* Runs a model with several inputs or outputs (any model, in fact):
 * inputs[k] is input k (seqc_model_input_name(k)) of shape [batch,
 * seq_lens[k], ...]; seq_lens[k] is input k's axis 1 when that axis is
 * dynamic, else that length or 0 (seq_lens may be NULL when no input's is
 * dynamic); outputs[k] holds seqc_model_output_size_of(model, k, batch,
 * seq_lens) floats. Returns like seqc_model_run, which refuses a model with
 * several inputs or outputs. */
int seqc_model_run_all(seqc_model *model, const float *const *inputs,
                       int64_t batch, const int64_t *seq_lens,
                       float *const *outputs);
/* The message of the last failed call on `model` ("" after success), or of
 * the last failed create when `model` is NULL. */
const char *seqc_last_error(seqc_model *model);

/* Number of floats seqc_model_run writes for this batch and seq_len; -1
 * when the instance does not take them. */
int64_t seqc_model_output_size(seqc_model *model, int64_t batch,
                               int64_t seq_len);
/* Number of floats it reads. */
int64_t seqc_model_input_size(seqc_model *model, int64_t batch, int64_t seq_len);

/* Bounds the instance was created for. */
int64_t seqc_model_max_batch(seqc_model *model);
int64_t seqc_model_max_seq_len(seqc_model *model);

/* The model's shapes; a dimension is -1 when dynamic (always axis 0). */
int seqc_model_input_rank(void);
int64_t seqc_model_input_dim(int i);
int seqc_model_output_rank(void);
int64_t seqc_model_output_dim(int i);

/* Inputs and outputs by position, in Keras' order: count, the Keras name
 * (the InputLayer's, the output layer's; NULL out of range), shape. */
int seqc_model_input_count(void);
const char *seqc_model_input_name(int k);
int seqc_model_input_rank_of(int k);
int64_t seqc_model_input_dim_of(int k, int i);
int seqc_model_output_count(void);
const char *seqc_model_output_name(int k);
int seqc_model_output_rank_of(int k);
int64_t seqc_model_output_dim_of(int k, int i);
/* Floats of input k for this batch and its seq_len; floats of output k for
 * this batch and every input's seq_lens (see seqc_model_run_all); -1 when
 * the instance does not take them. */
int64_t seqc_model_input_size_of(seqc_model *model, int k, int64_t batch,
                                 int64_t seq_len);
int64_t seqc_model_output_size_of(seqc_model *model, int k, int64_t batch,
                                  const int64_t *seq_lens);
/* Output k's shape for this batch and every input's seq_lens: writes
 * seqc_model_output_rank_of(k) sizes to dims (dims[0] = batch). An output
 * may have several axes that follow the inputs' lengths (attention scores:
 * (batch, heads, query steps, key steps)). SEQC_OK, or an error code (then
 * seqc_last_error says why). */
int seqc_model_output_shape_of(seqc_model *model, int k, int64_t batch,
                               const int64_t *seq_lens, int64_t *dims);

/* The model's metadata (Keras version, source file, user entries) as a JSON
 * object, embedded at compile time. */
const char *seqc_model_metadata_json(void);

#ifdef __cplusplus
}
#endif

#endif /* )" + guard + " */\n";
  return text;
}

} // namespace seq::cuda

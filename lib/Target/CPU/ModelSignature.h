// The shapes of @predict and the memref descriptors of its C interface.
#ifndef SEQ_LIB_TARGET_CPU_MODELSIGNATURE_H
#define SEQ_LIB_TARGET_CPU_MODELSIGNATURE_H

#include "seq/Dialect/Seq/IR/ModelIO.h"
#include "seq/Runtime/Tensor.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

struct seqc_arena;

namespace seq::cpu {

/// int64 words of a ranked memref descriptor: allocated and aligned
/// pointers, offset, sizes, strides.
inline size_t descriptorSize(size_t rank) { return 3 + 2 * rank; }

/// A row-major descriptor of `data` with `shape`.
std::vector<int64_t> describe(const float *data,
                              const std::vector<int64_t> &shape);

struct ModelSignature {
  /// The model's inputs and outputs (axis 0 the batch, -1 for dynamic
  /// sizes) and state slots. The compiled model's entry is
  /// seqc_model_predict(results, inputs, state) (addPredictEntry): `inputs`
  /// points to one descriptor per input; `results` receives one descriptor
  /// per output and then, for a stateful model, the flat state's
  /// (PackState.h).
  ModelIO io;
  /// What seqc_report_error(site, ...) means, from seqc.error_sites.
  std::vector<std::string> errorSites;

  /// Reads @predict's ports; errors when an axis of an input other than
  /// batch and time (axis 1) is dynamic.
  static llvm::Expected<ModelSignature> of(mlir::ModuleOp module);

  /// int64 words of the results: every output's descriptor, then the
  /// state's when the model is stateful.
  size_t resultWords() const;
  /// The new state's descriptor in `results`.
  const int64_t *stateResult(const int64_t *results) const;
  /// Copies each output described in `results` out of the arena, or
  /// returns the runtime error the call reported.
  llvm::Expected<std::vector<rt::Tensor>> readOutputs(const int64_t *results,
                                                      const seqc_arena *arena) const;
  /// The error of a call in which `count` values failed check `site`.
  llvm::Error inputError(int32_t site, int64_t count) const;
};

} // namespace seq::cpu

#endif

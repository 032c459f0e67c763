// The shapes of @predict and the memref descriptors of its C interface.
#ifndef SEQ_LIB_TARGET_CPU_MODELSIGNATURE_H
#define SEQ_LIB_TARGET_CPU_MODELSIGNATURE_H

#include "seq/Dialect/Seq/IR/ModelState.h"
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
  /// Dimensions with -1 for dynamic ones; axis 0 is the batch.
  std::vector<int64_t> input, output;
  /// What seqc_report_error(site, ...) means, from seqc.error_sites.
  std::vector<std::string> errorSites;
  /// A stateful model's state slots (empty when stateless): the compiled
  /// @predict then takes and returns their values as one flat vector after
  /// the input and output (PackState.h).
  std::vector<StateSlot> state;

  /// Reads @predict's types; errors when it does not take and return one
  /// ranked f32 tensor each (besides states), or when an axis other than
  /// batch and time (axis 1) of the input is dynamic.
  static llvm::Expected<ModelSignature> of(mlir::ModuleOp module);

  size_t outputRank() const { return output.size(); }
  /// "input has shape (2, 9, 12) but the model expects (?, 10, 12)".
  llvm::Error checkInput(const std::vector<int64_t> &shape) const;
  /// Copies the result described by `descriptor` out of the arena, or
  /// returns the runtime error the call reported.
  llvm::Expected<rt::Tensor> readOutput(const int64_t *descriptor,
                                        const seqc_arena *arena) const;
};

/// "(?, 10, 12)".
std::string shapeText(const std::vector<int64_t> &dims);

} // namespace seq::cpu

#endif

//===- Eager.h - The eager reference interpreter ----------------*- C++ -*-===//
//
// Runs `func.func @predict` of a seq module op by op with the reference
// kernels of ReferenceKernels.h: the oracle every compiled path is compared
// against. It reads layer-level ops (what the importer writes), kernel-level
// ops (what the fusion passes write), arith.constant weights and tensor.cast.
// Clarity over speed: float32 tensors, one kernel call per op.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_RUNTIME_EAGER_H
#define SEQ_RUNTIME_EAGER_H

#include "seq/Runtime/Engine.h"
#include "seq/Runtime/Tensor.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace seq::rt {

/// Adds the engine "eager" to the registry (see Engine.h).
void registerEagerEngine();

/// The engine itself: decodes the weights once; run() may be called many
/// times, also from several threads at once. The module must outlive it.
llvm::Expected<std::unique_ptr<Engine>>
createEagerEngine(mlir::ModuleOp module);

/// One-shot form of createEagerEngine(module)->run(input).
llvm::Expected<Tensor> runEager(mlir::ModuleOp module, const Tensor &input);

/// Checks `inputShape` (batch axis included) against the argument type of
/// @predict: same rank, equal static sizes; a dynamic size takes any length.
/// The error reads "input has shape (2, 9, 12) but the model expects
/// (?, 10, 12)".
llvm::Error checkInputShape(mlir::ModuleOp module,
                            const std::vector<int64_t> &inputShape);

} // namespace seq::rt

#endif // SEQ_RUNTIME_EAGER_H

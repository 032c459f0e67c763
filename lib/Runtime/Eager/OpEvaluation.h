//===- OpEvaluation.h - One seq op on runtime tensors -----------*- C++ -*-===//

#ifndef SEQ_LIB_RUNTIME_EAGER_OPEVALUATION_H
#define SEQ_LIB_RUNTIME_EAGER_OPEVALUATION_H

#include "seq/Runtime/Tensor.h"

#include "mlir/IR/Operation.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace seq::rt::eager {

/// The runtime value of an SSA value that was computed before.
using ValueLookup = llvm::function_ref<const Tensor &(mlir::Value)>;

/// Evaluates `op`, a seq op (other than seq.time_distributed and seq.yield)
/// or tensor.cast, with the reference kernels, and returns its first result.
/// A recurrent op's second result, its final state, goes to `finalState`,
/// which must then not be null. Operand sizes that only the data fix
/// (dynamic dimensions) are checked here, so that a mismatch is an error
/// naming the layer rather than a kernel abort. Any other op is an error
/// naming it.
llvm::Expected<Tensor> evaluateOp(mlir::Operation *op, ValueLookup lookup,
                                  Tensor *finalState = nullptr);

} // namespace seq::rt::eager

#endif // SEQ_LIB_RUNTIME_EAGER_OPEVALUATION_H

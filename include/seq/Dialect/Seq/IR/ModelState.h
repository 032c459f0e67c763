// The state of a stateful model (Keras stateful=True recurrent layers) as
// @predict carries it: after the model's inputs (ModelIO.h), each argument
// is one layer's state before the call, `(states, batch, units)`, marked
// with the argument attribute `seq.state` = the Keras layer's name; after
// the model's outputs, the results are the same states after the call, in
// the same order. Engines own the state between calls and hand it in and
// out.
#ifndef SEQ_DIALECT_SEQ_IR_MODELSTATE_H
#define SEQ_DIALECT_SEQ_IR_MODELSTATE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace seq {

inline constexpr llvm::StringLiteral kStateAttrName = "seq.state";

/// One state argument of @predict, placed in a flat vector of all states.
struct StateSlot {
  std::string layer;
  std::vector<int64_t> shape;
  int64_t offset = 0, size = 0;
};

/// The state arguments of `predict`, in argument order; empty for a
/// stateless model. An error when a state argument is not marked, not a
/// static f32 tensor, or its result does not have its type.
llvm::Expected<std::vector<StateSlot>> stateSlots(mlir::func::FuncOp predict);

/// Floats of all the slots together.
int64_t stateSize(const std::vector<StateSlot> &slots);

/// The batch size the module's @predict is built for when its input's batch
/// axis is fixed (a stateful model keeps one state row per batch row), else
/// std::nullopt. Drivers run such a model on any whole number of batches,
/// one after the other, as Keras' predict(x, batch_size) does.
std::optional<int64_t> fixedBatch(mlir::ModuleOp module);

} // namespace seq

#endif

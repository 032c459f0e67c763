// The inputs and outputs of a model as @predict carries them: its first
// arguments are the model's inputs and its first results the model's
// outputs, in Keras' order, each marked with the Keras name it has (the
// argument attribute `seq.input` = the InputLayer's name, the result
// attribute `seq.output` = the output layer's name). A stateful model's
// state arguments and results follow them (ModelState.h).
#ifndef SEQ_DIALECT_SEQ_IR_MODELIO_H
#define SEQ_DIALECT_SEQ_IR_MODELIO_H

#include "seq/Dialect/Seq/IR/ModelState.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace seq {

inline constexpr llvm::StringLiteral kInputAttrName = "seq.input";
inline constexpr llvm::StringLiteral kOutputAttrName = "seq.output";

/// One input or output of a model.
struct ModelPort {
  std::string name;
  /// Dimensions with -1 for dynamic ones; axis 0 is the batch.
  std::vector<int64_t> shape;
  /// Axis 1, the time axis of a sequence: -1 when dynamic, 0 when the port
  /// has no such axis.
  int64_t steps() const { return shape.size() >= 2 ? shape[1] : 0; }
};

struct ModelIO {
  std::vector<ModelPort> inputs, outputs;
  std::vector<StateSlot> state;
};

/// Reads @predict's inputs, outputs and state. A port without its attribute
/// (a module written by hand) is named "input"/"output" when it is the only
/// one, else "input_<i>"/"output_<i>". An error when a port is not a ranked
/// f32 tensor with a batch axis, or the state is malformed.
llvm::Expected<ModelIO> modelIO(mlir::func::FuncOp predict);

/// A port's shape as Python prints a tuple, -1 as '?': "(?, 10, 12)".
std::string shapeText(const std::vector<int64_t> &dims);

/// "a" or "'a', 'b' and 'c'", for messages.
std::string portList(const std::vector<ModelPort> &ports);

} // namespace seq

#endif

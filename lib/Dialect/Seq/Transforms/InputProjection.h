// Shared by the gate-fusion passes: the state-independent half of a
// recurrent layer, x @ kernel + bias for every timestep, as one GEMM.
#ifndef SEQ_LIB_DIALECT_SEQ_TRANSFORMS_INPUTPROJECTION_H
#define SEQ_LIB_DIALECT_SEQ_TRANSFORMS_INPUTPROJECTION_H

#include "seq/Dialect/Seq/IR/SeqOps.h"

#include "mlir/IR/PatternMatch.h"

namespace seq {

/// seq.linear `input (B, T, F) @ kernel (F, G) + bias` -> `(B, T, G)`, no
/// activation, at the layer's location. `bias` may be null.
inline mlir::Value createInputProjection(mlir::RewriterBase &rewriter,
                                         mlir::Location loc, mlir::Value input,
                                         mlir::Value kernel, mlir::Value bias) {
  auto inputType = mlir::cast<mlir::RankedTensorType>(input.getType());
  auto kernelType = mlir::cast<mlir::RankedTensorType>(kernel.getType());
  llvm::SmallVector<int64_t> shape(inputType.getShape().drop_back());
  shape.push_back(kernelType.getShape()[1]);
  auto type = mlir::RankedTensorType::get(shape, inputType.getElementType());
  return LinearOp::create(rewriter, loc, type, input, kernel, bias,
                          Activation::Linear, /*alpha=*/nullptr)
      .getResult();
}

/// The type of a recurrent op's final_state result, or null without one.
template <typename RecurrentOp> mlir::Type finalStateType(RecurrentOp op) {
  mlir::Value state = op.getFinalState();
  return state ? state.getType() : mlir::Type();
}

} // namespace seq

#endif

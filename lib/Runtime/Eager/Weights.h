//===- Weights.h - arith.constant values as runtime tensors -----*- C++ -*-===//

#ifndef SEQ_LIB_RUNTIME_EAGER_WEIGHTS_H
#define SEQ_LIB_RUNTIME_EAGER_WEIGHTS_H

#include "seq/Runtime/Tensor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/Support/Error.h"

namespace seq::rt::eager {

/// The value of a ranked-tensor constant: a dense_resource blob of f32 (the
/// importer's weights) or a dense/splat elements attribute of floats or
/// integers (synthesized parameters, folded constants). An elided blob
/// (printed with --elide-weights) is an error that says so.
llvm::Expected<Tensor> constantTensor(mlir::arith::ConstantOp op);

} // namespace seq::rt::eager

#endif // SEQ_LIB_RUNTIME_EAGER_WEIGHTS_H

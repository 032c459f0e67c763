//===- Diagnostics.h - Errors of the eager interpreter ----------*- C++ -*-===//
//
// Every error names the op and the Keras layer it came from (the op's
// NameLoc), so that a user can find it in the model.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_LIB_RUNTIME_EAGER_DIAGNOSTICS_H
#define SEQ_LIB_RUNTIME_EAGER_DIAGNOSTICS_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace seq::rt::eager {

/// "layer 'lstm_1'", "layers 'lstm', 'dense'" (fused), "model.mlir:4:10", or
/// "an unknown location".
std::string describeLocation(mlir::Location loc);

/// "seq.dense (layer 'dense_1')".
std::string describeOp(mlir::Operation *op);

/// "<describeOp(op)>: <message>".
llvm::Error opError(mlir::Operation *op, const llvm::Twine &message);

} // namespace seq::rt::eager

#endif // SEQ_LIB_RUNTIME_EAGER_DIAGNOSTICS_H

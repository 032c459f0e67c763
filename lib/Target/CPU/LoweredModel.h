// A model lowered to the LLVM dialect by the CPU pipeline, with the
// signature its C interface has: what the JIT and the AOT compiler both
// start from.
#ifndef SEQ_LIB_TARGET_CPU_LOWEREDMODEL_H
#define SEQ_LIB_TARGET_CPU_LOWEREDMODEL_H

#include "ModelSignature.h"

#include "mlir/IR/OwningOpRef.h"

namespace seq::cpu {

struct LoweredModel {
  ModelSignature signature;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// Reads the signature of `module`, then lowers a clone of it (fused first
/// unless `fuse` is false); `module` itself is left as it is.
llvm::Expected<LoweredModel> lowerModel(mlir::ModuleOp module, bool fuse = true);

} // namespace seq::cpu

#endif

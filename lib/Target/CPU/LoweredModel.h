// A model lowered to the LLVM dialect by the CPU pipeline, with the
// signature its C interface has: what the JIT and the AOT compiler both
// start from.
#ifndef SEQ_LIB_TARGET_CPU_LOWEREDMODEL_H
#define SEQ_LIB_TARGET_CPU_LOWEREDMODEL_H

#include "ModelSignature.h"
#include "seq/Target/CPU/Pipeline.h"

#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class Module;
}

namespace seq::cpu {

struct LoweredModel {
  ModelSignature signature;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// Reads the signature of `module`, then lowers a clone of it (fused first
/// unless `fuse` is false); `module` itself is left as it is.
llvm::Expected<LoweredModel> lowerModel(mlir::ModuleOp module, bool fuse,
                                        const VectorTarget &target);

/// Adds the entry that the JIT and the AOT runtime call to the translated
/// model: `void seqc_model_predict(void *results, void **inputs, void
/// *state)` (or `name`), which passes each input's descriptor (and the
/// state's) on to @predict's C interface (see ModelSignature).
void addPredictEntry(llvm::Module &m, const ModelSignature &signature,
                     llvm::StringRef name = "seqc_model_predict");

} // namespace seq::cpu

#endif

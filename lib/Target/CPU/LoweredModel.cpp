#include "LoweredModel.h"

#include "seq/Dialect/Seq/Transforms/WeightConstants.h"
#include "seq/Target/CPU/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;

llvm::Expected<seq::cpu::LoweredModel> seq::cpu::lowerModel(ModuleOp module,
                                                           bool fuse) {
  if (llvm::Error e = requireWeights(module))
    return std::move(e);
  llvm::Expected<ModelSignature> signature = ModelSignature::of(module);
  if (!signature)
    return signature.takeError();
  DialectRegistry registry;
  registerPipelineDialects(registry);
  module.getContext()->appendDialectRegistry(registry);
  OwningOpRef<ModuleOp> lowered = module.clone();
  if (llvm::Error e = lowerToLLVMDialect(*lowered, fuse))
    return std::move(e);
  signature->errorSites = errorSites(*lowered);
  return LoweredModel{std::move(*signature), std::move(lowered)};
}

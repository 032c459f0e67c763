#include "LoweredModel.h"

#include "seq/Dialect/Seq/Transforms/WeightConstants.h"
#include "seq/Target/CPU/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

using namespace mlir;

llvm::Expected<seq::cpu::LoweredModel>
seq::cpu::lowerModel(ModuleOp module, bool fuse, const VectorTarget &target) {
  if (llvm::Error e = requireWeights(module))
    return std::move(e);
  llvm::Expected<ModelSignature> signature = ModelSignature::of(module);
  if (!signature)
    return signature.takeError();
  DialectRegistry registry;
  registerPipelineDialects(registry);
  module.getContext()->appendDialectRegistry(registry);
  OwningOpRef<ModuleOp> lowered = module.clone();
  if (llvm::Error e = lowerToLLVMDialect(*lowered, fuse, target))
    return std::move(e);
  signature->errorSites = errorSites(*lowered);
  return LoweredModel{std::move(*signature), std::move(lowered)};
}

void seq::cpu::addPredictEntry(llvm::Module &m, const ModelSignature &signature,
                               llvm::StringRef name) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::PointerType *ptr = llvm::PointerType::getUnqual(ctx);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, ptr},
                                       false);
  auto *entry = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                       name, m);
  llvm::Function *predict = m.getFunction("_mlir_ciface_predict");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
  llvm::SmallVector<llvm::Value *> args{entry->getArg(0)};
  for (size_t i = 0; i < signature.io.inputs.size(); ++i)
    args.push_back(b.CreateLoad(
        ptr, b.CreateConstInBoundsGEP1_64(ptr, entry->getArg(1), i)));
  if (!signature.io.state.empty())
    args.push_back(entry->getArg(2));
  b.CreateCall(predict, args);
  b.CreateRetVoid();
}

// The one CPU lowering pipeline that the JIT and AOT paths both run.
//
// Memory: one-shot bufferization with function-boundary bufferization, then
// upstream's ownership-based deallocation, which frees each buffer after its
// last use. Every memref.alloc / dealloc lowers to a call of
// `_mlir_memref_to_llvm_alloc` / `_free` (finalize-memref-to-llvm with
// generic allocation functions), which the runtime (runtime/seqc_arena.c)
// serves from a per-instance arena reset at the start of each call: a freed
// buffer's bytes go to later buffers. So a call allocates nothing from the
// system once the arena is big enough, a residual network does not keep
// every intermediate alive, and nothing can leak. docs/CPU.md has the details.
#include "seq/Target/CPU/Pipeline.h"
#include "seq/Target/CPU/Passes.h"

#include "seq/Conversion/Passes.h"
#include "seq/Dialect/Seq/IR/SeqDialect.h"
#include "seq/Dialect/Seq/Transforms/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

namespace {
struct CpuPipelineOptions : PassPipelineOptions<CpuPipelineOptions> {
  Option<int64_t> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector register width the code is shaped for: 512 "
                     "(AVX-512, the default), 256 (AVX2) or 128 (NEON)"),
      llvm::cl::init(512)};
};
} // namespace

void seq::cpu::registerCpuPipeline() {
  registerSeqCpuPasses();
  PassPipelineRegistration<CpuPipelineOptions>(
      "seq-cpu-pipeline",
      "Everything the CPU backend runs: seq (fused first) to the LLVM dialect",
      [](OpPassManager &pm, const CpuPipelineOptions &options) {
        std::optional<VectorTarget> target = VectorTarget::ofBits(options.vectorBits);
        if (!target) // seq-cpu-kernels says what the widths are, first
          pm.addPass(createSeqCpuKernels({options.vectorBits}));
        buildLoweringPipeline(pm, /*fuse=*/true, target.value_or(VectorTarget{}));
      });
}

std::optional<seq::cpu::VectorTarget> seq::cpu::VectorTarget::ofBits(int64_t bits) {
  switch (bits) {
  case 512:
    return VectorTarget{16};
  case 256:
    return VectorTarget{8};
  case 128:
    return VectorTarget{4};
  default:
    return std::nullopt;
  }
}

seq::cpu::VectorTarget seq::cpu::VectorTarget::of(const llvm::TargetMachine &tm) {
  const llvm::MCSubtargetInfo *sti = tm.getMCSubtargetInfo();
  if (tm.getTargetTriple().isAArch64())
    return VectorTarget{4};
  if (sti->checkFeatures("+avx512f"))
    return VectorTarget{16};
  if (sti->checkFeatures("+avx"))
    return VectorTarget{8};
  return VectorTarget{4};
}

void seq::cpu::buildLoweringPipeline(OpPassManager &pm, bool fuse,
                                     VectorTarget target) {
  if (fuse)
    seq::buildFusePipeline(pm);
  pm.addPass(seq::createConvertSeqToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createSeqCpuVectorizeConv());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createSeqCpuPrepareEntry());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // CSE makes the subviews that a loop-carried buffer's extract_slice and
  // insert_slice became one value, so that the canonicalizer erases the
  // copy of it onto itself (a masked recurrence's compacted rows).
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  // Each buffer is freed after its last use, and the arena reuses its bytes
  // for later buffers: a residual network does not keep every intermediate.
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addNestedPass<func::FuncOp>(createSeqCpuEarlyDealloc());
  // The clones the deallocation pipeline leaves (a returned buffer that the
  // function may not own: a recurrence whose cell is a copy, SimpleRNN with
  // a linear activation, yields one buffer twice) as alloc + copy.
  pm.addPass(createConvertBufferizationToMemRefPass());

  pm.addPass(createSeqCpuKernels({target.bits()}));
  // The weights the GEMMs now read packed.
  pm.addPass(createSymbolDCEPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(
      createSeqCpuInterleaveLongLoops({/*count=*/4, target.lanes}));
  // n-D vector transfers (from the vectorized convolutions) as 1-D ones.
  pm.addNestedPass<func::FuncOp>(
      createConvertVectorToSCFPass(VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addNestedPass<func::FuncOp>(createSeqCpuMathApproximation());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  pm.addPass(createSCFToControlFlowPass());
  ConvertVectorToLLVMPassOptions vectorOptions;
  vectorOptions.vectorContractLowering = vector::VectorContractLowering::OuterProduct;
  pm.addPass(createConvertVectorToLLVMPass(vectorOptions));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void seq::cpu::registerPipelineDialects(DialectRegistry &registry) {
  registry.insert<seq::SeqDialect, affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, linalg::LinalgDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect, ub::UBDialect, vector::VectorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  // seq-cpu-vectorize-conv tiles linalg ops through TilingInterface.
  linalg::registerTilingInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
seq::cpu::createTargetMachine(llvm::StringRef cpu, llvm::StringRef tripleName) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    return true;
  }();
  (void)initialized;
  llvm::Triple host(llvm::sys::getProcessTriple());
  llvm::Triple triple =
      tripleName.empty() ? host : llvm::Triple(llvm::Triple::normalize(tripleName));
  bool cross = triple.getArch() != host.getArch();
  bool supported = triple.isOSLinux() && (triple.getArch() == llvm::Triple::x86_64 ||
                                          triple.getArch() == llvm::Triple::aarch64);
  if (!tripleName.empty() && !supported)
    return llvm::createStringError("target triple '" + tripleName.str() +
                                   "' is not supported: seqc builds libraries for "
                                   "x86_64-linux-gnu and aarch64-linux-gnu");
  if (cross && cpu == "native")
    return llvm::createStringError(
        "--cpu=native is this machine's CPU, which cannot run " + triple.str() +
        " code: give an LLVM CPU name for it (e.g. neoverse-n1) or leave --cpu out");
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("no LLVM target for " + triple.str() +
                                   ": " + error);
  std::string cpuName, features;
  if (cross && cpu.empty()) {
    cpuName = "generic";
  } else if (cpu.empty() || cpu == "native") {
    cpuName = llvm::sys::getHostCPUName().str();
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      features += (features.empty() ? "" : ",") +
                  std::string(feature.second ? "+" : "-") +
                  feature.first().str();
  } else {
    cpuName = cpu.str();
  }
  auto subtargetInfo = std::unique_ptr<llvm::MCSubtargetInfo>(
      target->createMCSubtargetInfo(triple, cpuName, features));
  if (!subtargetInfo || !subtargetInfo->isCPUStringValid(cpuName))
    return llvm::createStringError(
        "unknown CPU '" + cpuName + "' for " + triple.str() +
        " (use an LLVM CPU name such as znver4, skylake-avx512, x86-64-v3; "
        "'llc -mcpu=help' lists them)");
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpuName, features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    return llvm::createStringError("cannot create a target machine for " +
                                   cpuName);
  return tm;
}

llvm::Error seq::cpu::lowerToLLVMDialect(ModuleOp module, bool fuse,
                                         VectorTarget target) {
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error) {
      if (!diagnostics.empty())
        os << "; ";
      os << d.getLocation() << ": " << d.str();
    }
    return success();
  });
  PassManager pm(module.getContext());
  buildLoweringPipeline(pm, fuse, target);
  if (failed(pm.run(module)))
    return llvm::createStringError(
        "CPU lowering failed: " +
        (diagnostics.empty() ? std::string("unknown error") : diagnostics));
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<llvm::Module>>
seq::cpu::translateToLLVMIR(ModuleOp module, llvm::LLVMContext &context,
                            llvm::TargetMachine &tm) {
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context, "seqc_model");
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  llvmModule->setTargetTriple(tm.getTargetTriple());
  llvmModule->setDataLayout(tm.createDataLayout());
  std::string vectorWidth = std::to_string(VectorTarget::of(tm).bits());
  for (llvm::Function &fn : *llvmModule) {
    if (fn.isDeclaration())
      continue;
    fn.addFnAttr("target-cpu", tm.getTargetCPU());
    fn.addFnAttr("target-features", tm.getTargetFeatureString());
    // LLVM tunes AVX-512 server CPUs to vectorize loops at 256 bits; the
    // GEMMs already run at 512, so the pointwise loops may as well.
    fn.addFnAttr("prefer-vector-width", vectorWidth);
  }
  auto optimize = makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, &tm);
  if (llvm::Error e = optimize(llvmModule.get()))
    return std::move(e);
  return llvmModule;
}

std::vector<std::string> seq::cpu::errorSites(ModuleOp module) {
  std::vector<std::string> sites;
  if (auto attr = module->getAttrOfType<ArrayAttr>("seqc.error_sites"))
    for (Attribute site : attr)
      sites.push_back(cast<StringAttr>(site).str());
  return sites;
}

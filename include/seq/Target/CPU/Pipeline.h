// The CPU backend's compilation pipeline, shared by the JIT and AOT paths:
// seq (layer or kernel level) -> fused seq -> linalg on tensors -> buffers
// -> register-blocked vector GEMMs and loops -> LLVM dialect -> LLVM IR
// optimised for one CPU.
#ifndef SEQ_TARGET_CPU_PIPELINE_H
#define SEQ_TARGET_CPU_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace seq::cpu {

/// The vector registers code is shaped for: the f32 lanes of the widest
/// one (the GEMM micro-kernel's register blocks follow from it, with each
/// width's register count). The default is AVX-512's.
struct VectorTarget {
  int64_t lanes = 16;

  /// AVX-512: 16 lanes; AVX/AVX2: 8; other x86 and AArch64 (NEON): 4.
  static VectorTarget of(const llvm::TargetMachine &tm);
  /// 512, 256 or 128 bits; std::nullopt for another width.
  static std::optional<VectorTarget> ofBits(int64_t bits);
  int64_t bits() const { return lanes * 32; }
};

/// Adds the whole lowering, seq to LLVM dialect, to `pm` (which runs on the
/// module). `fuse` prepends the seq fusion pipeline (seq::buildFusePipeline).
void buildLoweringPipeline(mlir::OpPassManager &pm, bool fuse = true,
                           VectorTarget target = {});

/// Registers `seq-cpu-pipeline` (buildLoweringPipeline, seq to the LLVM
/// dialect) for seq-opt.
void registerCpuPipeline();

/// Registers every dialect, bufferization model and LLVM IR translation the
/// pipeline needs. Call before parsing or cloning a module into `registry`'s
/// context (MLIRContext::appendDialectRegistry).
void registerPipelineDialects(mlir::DialectRegistry &registry);

/// A target machine for `cpu` ("" or "native": the host CPU, with the host's
/// features; otherwise an LLVM CPU name such as "znver4" or "x86-64-v3"),
/// PIC, tuned for speed. `triple` other than "" (the host's) is a cross
/// target: x86_64-linux-gnu or aarch64-linux-gnu, whose CPU "" is "generic"
/// and never "native". Errors name the CPU and list how to find valid ones.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(llvm::StringRef cpu = "", llvm::StringRef triple = "");

/// Runs the pipeline on `module` (in place). Errors carry the diagnostics.
llvm::Error lowerToLLVMDialect(mlir::ModuleOp module, bool fuse = true,
                               VectorTarget target = {});

/// Translates an LLVM-dialect module to LLVM IR for `tm` (triple, data
/// layout, target-cpu/features on every function) and optimises it at O3.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                  llvm::TargetMachine &tm);

/// Messages of the module attribute `seqc.error_sites` written by
/// --seq-to-linalg: site i is what `seqc_report_error(i, count)` means.
std::vector<std::string> errorSites(mlir::ModuleOp module);

} // namespace seq::cpu

#endif

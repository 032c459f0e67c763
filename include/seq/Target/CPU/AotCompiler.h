// Ahead-of-time compilation for the CPU: a shared library or an object file
// with the model's code and the C API of runtime/seqc_model.h.in, plus its
// header; or the optimised LLVM IR.
#ifndef SEQ_TARGET_CPU_AOTCOMPILER_H
#define SEQ_TARGET_CPU_AOTCOMPILER_H

#include "seq/Runtime/Engine.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace seq {

/// Adds "aot" to the engine registry: it compiles the model into a shared
/// library in a temporary directory, loads it and runs it through its C API.
void registerAotEngine();

namespace cpu {

enum class AotArtifact { SharedLibrary, Object, LLVMIR };

struct AotOptions {
  /// LLVM CPU name; "" or "native" = the host.
  std::string cpu;
  /// "" (the host's) or a cross target: x86_64-linux-gnu, aarch64-linux-gnu
  /// (needs clang, lld and an AArch64 glibc when seqc was built).
  std::string targetTriple;
  /// Run the seq fusion pipeline first.
  bool fuse = true;
  /// Bounds of seqc_model_create() (seqc_model_create_sized takes any).
  int64_t defaultMaxBatch = 64;
  /// Default 0: the model's fixed length, else 512.
  int64_t defaultMaxSeqLen = 0;
};

/// Compiles `module` (cloned) to `outputPath`; for a library or an object
/// the header goes to `headerPath` (default: outputPath with ".h" for its
/// extension). Both files appear only when everything succeeded. Needs a C
/// compiler: $CC or `cc`.
llvm::Error compileAot(mlir::ModuleOp module, AotArtifact kind,
                       llvm::StringRef outputPath, llvm::StringRef headerPath,
                       const AotOptions &options);

/// The default header path for `outputPath`: libmodel.so -> libmodel.h.
std::string defaultHeaderPath(llvm::StringRef outputPath);

} // namespace cpu
} // namespace seq

#endif

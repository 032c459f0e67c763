// The engine "jit": the CPU pipeline compiled in process with
// mlir::ExecutionEngine (ORC) for the host CPU.
#ifndef SEQ_TARGET_CPU_JITENGINE_H
#define SEQ_TARGET_CPU_JITENGINE_H

#include "seq/Runtime/Engine.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>

namespace seq {

/// Adds "jit" to the engine registry (seq/Runtime/Engine.h).
void registerJitEngine();

namespace cpu {

/// Compiles `module` (cloned; the module may be dropped afterwards). run()
/// may be called from several threads at once; each call gets its own
/// working memory (an arena that grows to the largest call seen, then
/// allocates nothing more). A call's batch is split across a pool of
/// options.threads threads (0: one per core) created with the engine; a
/// call that finds the pool busy runs on its own thread.
llvm::Expected<std::unique_ptr<rt::Engine>>
createJitEngine(mlir::ModuleOp module, const rt::EngineOptions &options = {});

/// When false, the "jit" engine hands out the eager interpreter instead
/// (seq-compile --jit=off), so that a compiled-path problem can be ruled out
/// without changing anything else. Default true.
void setJitEnabled(bool enabled);
bool isJitEnabled();

} // namespace cpu
} // namespace seq

#endif

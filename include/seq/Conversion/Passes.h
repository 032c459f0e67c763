// Conversion passes out of the seq dialect.
#ifndef SEQ_CONVERSION_PASSES_H
#define SEQ_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

#include "llvm/ADT/StringRef.h"

namespace seq {

/// Set by --seq-to-linalg on the linalg.matmul of a recurrence's input
/// projection: its output is read back one step at a time, long after it
/// was written, so that a large one is better written past the caches
/// (seq-cpu-kernels' streamed stores).
inline constexpr llvm::StringLiteral kStreamedOutputAttr = "streamed_output";

/// Set by --seq-to-linalg on the linalg.matmul of a recurrence's state and
/// recurrent kernel, run once per iteration of the step loop around it:
/// seq-cpu-kernels alternates the direction in which a row taken alone
/// sweeps the kernel's panels with that loop's iterations (GemmKernel.cpp,
/// stepParity).
inline constexpr llvm::StringLiteral kRecurrentProductAttr = "recurrent_product";

#define GEN_PASS_DECL
#include "seq/Conversion/Passes.h.inc"

/// Registers --seq-to-linalg (seq-opt and tools that parse pass pipelines).
#define GEN_PASS_REGISTRATION
#include "seq/Conversion/Passes.h.inc"

} // namespace seq

#endif

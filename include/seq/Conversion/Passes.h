// Conversion passes out of the seq dialect.
#ifndef SEQ_CONVERSION_PASSES_H
#define SEQ_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace seq {

#define GEN_PASS_DECL
#include "seq/Conversion/Passes.h.inc"

/// Registers --seq-to-linalg (seq-opt and tools that parse pass pipelines).
#define GEN_PASS_REGISTRATION
#include "seq/Conversion/Passes.h.inc"

} // namespace seq

#endif

// The passes only the CPU backend runs (Passes.td; docs/CpuPasses.md).
#ifndef SEQ_TARGET_CPU_PASSES_H
#define SEQ_TARGET_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace seq::cpu {

#define GEN_PASS_DECL
#include "seq/Target/CPU/Passes.h.inc"

/// Registers the CPU passes for seq-opt.
#define GEN_PASS_REGISTRATION
#include "seq/Target/CPU/Passes.h.inc"

} // namespace seq::cpu

#endif

// Named pass pipelines over the seq dialect, shared by seq-opt, seq-compile
// and the backends (which append their lowering to the fusion pipeline).
#ifndef SEQ_DIALECT_SEQ_TRANSFORMS_PIPELINES_H
#define SEQ_DIALECT_SEQ_TRANSFORMS_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace seq {

/// Layer-level seq IR to kernel-level seq IR: strips dropout, refines
/// shapes, hoists the input projections of LSTM/GRU/SimpleRNN into GEMMs,
/// folds batch norms and linear chains, fuses activations into epilogues,
/// lowers dense to linear and cleans up. Works on any op holding
/// `func.func`s (normally the module). docs/Fusion.md explains the order.
void buildFusePipeline(mlir::OpPassManager &pm);

/// Registers `seq-fuse`, `seq-cpu-pipeline` and `seq-cuda-pipeline` for
/// `--pass-pipeline` / `seq-opt --seq-fuse`.
void registerSeqPipelines();

} // namespace seq

#endif

// The poolings upstream vectorization leaves (seq-cpu-vectorize-conv takes
// static 1-D and 2-D ones): a 3-D pooling, or one over an axis of unknown
// size, as vector loops over the channels.
#ifndef SEQ_LIB_TARGET_CPU_POOLINGKERNEL_H
#define SEQ_LIB_TARGET_CPU_POOLINGKERNEL_H

#include "seq/Target/CPU/Pipeline.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace seq::cpu {

/// Replaces a linalg.pooling_nwc/nhwc/ndhwc_max/sum on f32 buffers (unit
/// inner strides, static channels and window) by loops over the output
/// positions and channel vectors of `target`'s width (the last one masked),
/// each folding the window's taps into its vector with max or add, starting
/// from what the output holds; returns false (and leaves `op`) otherwise.
bool emitPooling(mlir::linalg::LinalgOp op, const VectorTarget &target);

} // namespace seq::cpu

#endif

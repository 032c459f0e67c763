// Packs a stateful @predict's per-layer state arguments and results into
// one flat f32 state argument and result (see PackState.cpp).
#ifndef SEQ_LIB_TARGET_CPU_PACKSTATE_H
#define SEQ_LIB_TARGET_CPU_PACKSTATE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace seq::cpu {

/// (input, s1..sn) -> (output, s1'..sn') becomes (input, state) ->
/// (output, state'); a stateless function is left as it is.
mlir::LogicalResult packModelState(mlir::func::FuncOp predict);

} // namespace seq::cpu

#endif

// Packs a stateful @predict's per-layer state arguments and results into
// one flat f32 state argument and result (see PackState.cpp).
#ifndef SEQ_LIB_TARGET_CPU_PACKSTATE_H
#define SEQ_LIB_TARGET_CPU_PACKSTATE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace seq::cpu {

/// (inputs, s1..sn) -> (outputs, s1'..sn') becomes (inputs, state) ->
/// (outputs, state'); a stateless function is left as it is.
mlir::LogicalResult packModelState(mlir::func::FuncOp predict);

} // namespace seq::cpu

#endif

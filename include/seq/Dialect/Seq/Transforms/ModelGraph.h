// Graphviz view of a seq model: one node per seq op (layer name, op,
// epilogue, result shape, parameter count), edges for data flow. Weight
// constants are not drawn; their size is in the parameter count.
#ifndef SEQ_DIALECT_SEQ_TRANSFORMS_MODELGRAPH_H
#define SEQ_DIALECT_SEQ_TRANSFORMS_MODELGRAPH_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

namespace seq {

/// Writes `digraph` text for every `func.func` in `module`.
void writeModelGraph(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace seq

#endif

#ifndef SEQ_DIALECT_SEQ_TRANSFORMS_PASSES_H
#define SEQ_DIALECT_SEQ_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include "seq/Dialect/Seq/IR/SeqDialect.h"

namespace seq {

#define GEN_PASS_DECL
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"

} // namespace seq

#endif

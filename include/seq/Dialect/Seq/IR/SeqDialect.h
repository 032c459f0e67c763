#ifndef SEQ_DIALECT_SEQ_IR_SEQDIALECT_H
#define SEQ_DIALECT_SEQ_IR_SEQDIALECT_H

#include "mlir/IR/Dialect.h"

#include "seq/Dialect/Seq/IR/SeqDialect.h.inc"

namespace seq {
/// Name of the module attribute holding the model's metadata dictionary.
inline constexpr llvm::StringLiteral kMetadataAttrName = "seq.metadata";
} // namespace seq

#endif

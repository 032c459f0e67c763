// The model metadata carried by every seq module (`seq.metadata`).
#ifndef SEQ_DIALECT_SEQ_IR_METADATA_H
#define SEQ_DIALECT_SEQ_IR_METADATA_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace seq {

/// The module's metadata dictionary (empty when it has none).
mlir::DictionaryAttr getMetadata(mlir::ModuleOp module);

/// The metadata as a JSON object of strings, keys sorted, for artifacts and
/// --print-metadata.
std::string metadataToJson(mlir::ModuleOp module);

} // namespace seq

#endif

#include "seq/Dialect/Seq/IR/SeqDialect.h"
#include "seq/Dialect/Seq/IR/SeqOps.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace seq;

#include "seq/Dialect/Seq/IR/SeqDialect.cpp.inc"

void SeqDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "seq/Dialect/Seq/IR/SeqOps.cpp.inc"
      >();
}

// `seq.metadata` lives on the module and maps keys to strings, so every
// artifact can embed it as JSON without loss.
LogicalResult SeqDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() != kMetadataAttrName)
    return op->emitError() << "unknown seq dialect attribute '"
                           << attr.getName().getValue() << "'";
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << kMetadataAttrName
                           << "' must be attached to a builtin.module";
  auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
  if (!dict)
    return op->emitError() << "'" << kMetadataAttrName
                           << "' must be a dictionary";
  for (NamedAttribute entry : dict)
    if (!isa<StringAttr>(entry.getValue()))
      return op->emitError() << "'" << kMetadataAttrName << "' entry '"
                             << entry.getName().getValue()
                             << "' must be a string";
  return success();
}

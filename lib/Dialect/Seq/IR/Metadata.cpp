#include "seq/Dialect/Seq/IR/Metadata.h"
#include "seq/Dialect/Seq/IR/SeqDialect.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

namespace seq {

mlir::DictionaryAttr getMetadata(mlir::ModuleOp module) {
  if (auto dict = module->getAttrOfType<mlir::DictionaryAttr>(kMetadataAttrName))
    return dict;
  return mlir::DictionaryAttr::get(module.getContext());
}

std::string metadataToJson(mlir::ModuleOp module) {
  llvm::json::Object object;
  for (mlir::NamedAttribute entry : getMetadata(module))
    if (auto value = llvm::dyn_cast<mlir::StringAttr>(entry.getValue()))
      object[entry.getName().getValue()] = value.getValue().str();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(object)));
  return text;
}

} // namespace seq

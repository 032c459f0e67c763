#include "seq/Dialect/Seq/Transforms/WeightConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace seq {

std::optional<std::vector<float>> readWeights(Value value) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  if (!constant)
    return std::nullopt;
  return readFloats(constant.getValue());
}

std::optional<std::vector<float>> readFloats(Attribute attr) {
  if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(attr)) {
    std::optional<ArrayRef<float>> data = resource.tryGetAsArrayRef();
    if (!data)
      return std::nullopt;
    return std::vector<float>(data->begin(), data->end());
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (!dense.getElementType().isF32())
      return std::nullopt;
    auto values = dense.getValues<float>();
    return std::vector<float>(values.begin(), values.end());
  }
  return std::nullopt;
}

Value createWeights(OpBuilder &builder, Location loc, ArrayRef<int64_t> shape,
                    ArrayRef<float> values, StringRef name) {
  auto type = RankedTensorType::get(shape, builder.getF32Type());
  auto blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(values);
  auto attr = DenseResourceElementsAttr::get(type, name, std::move(blob));
  return arith::ConstantOp::create(builder, loc, type, attr).getResult();
}

llvm::Error requireWeights(ModuleOp module) {
  std::string missing;
  module.walk([&](arith::ConstantOp op) {
    auto resource = dyn_cast<DenseResourceElementsAttr>(op.getValue());
    if (!resource || resource.getRawHandle().getBlob())
      return WalkResult::advance();
    std::string layer = layerName(op.getLoc());
    missing = "the weights of resource '" +
              resource.getRawHandle().getKey().str() + "'" +
              (layer.empty() ? "" : " (layer '" + layer + "')") +
              " are missing (elided?): write the module again without "
              "--elide-weights";
    return WalkResult::interrupt();
  });
  if (missing.empty())
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), missing);
}

std::string layerName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    std::string joined;
    for (Location part : fused.getLocations()) {
      std::string name = layerName(part);
      if (name.empty())
        continue;
      joined += (joined.empty() ? "" : "+") + name;
    }
    return joined;
  }
  return "";
}

std::string blobName(Location loc, StringRef role) {
  std::string name = layerName(loc);
  if (name.empty())
    name = "seq";
  name += "." + role.str();
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  return name;
}

} // namespace seq

//===- Weights.cpp - arith.constant values as runtime tensors -------------===//

#include "Weights.h"
#include "Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

namespace seq::rt::eager {

llvm::Expected<Tensor> constantTensor(arith::ConstantOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getType());
  if (!type || !type.hasStaticShape()) {
    std::string typeText;
    llvm::raw_string_ostream os(typeText);
    os << op.getType();
    return opError(op, "only constants of statically shaped tensor type are "
                       "supported, got " +
                           typeText);
  }
  Tensor t;
  t.shape.assign(type.getShape().begin(), type.getShape().end());
  size_t count = static_cast<size_t>(type.getNumElements());
  Attribute value = op.getValue();

  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    auto f32 = dyn_cast<DenseF32ResourceElementsAttr>(resource);
    if (!f32)
      return opError(op, "dense_resource weights must hold f32");
    std::optional<ArrayRef<float>> data = f32.tryGetAsArrayRef();
    if (!data)
      return opError(op, "the weights of resource '" +
                             resource.getRawHandle().getKey() +
                             "' are missing (elided?): write the module again "
                             "without --elide-weights");
    if (data->size() != count)
      return opError(op, "resource '" + resource.getRawHandle().getKey() +
                             "' holds " + llvm::Twine(data->size()) +
                             " floats, its type needs " + llvm::Twine(count));
    t.data.assign(data->begin(), data->end());
    return t;
  }

  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    Type element = type.getElementType();
    if (isa<FloatType>(element)) {
      t.data.reserve(count);
      for (const llvm::APFloat &v : dense.getValues<llvm::APFloat>())
        t.data.push_back(static_cast<float>(v.convertToDouble()));
      return t;
    }
    if (element.isSignlessInteger() || element.isIndex()) {
      t.data.reserve(count);
      for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
        t.data.push_back(static_cast<float>(v.getSExtValue()));
      return t;
    }
  }
  return opError(op, "unsupported constant value (the eager interpreter reads "
                     "dense_resource f32 blobs and dense float or integer "
                     "elements)");
}

} // namespace seq::rt::eager

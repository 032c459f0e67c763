//===- CategoricalLayers.cpp - Discretization and CategoryEncoding --------===//
//
// Discretization (output_mode "int") becomes a seq.discretize against its
// bin_boundaries; CategoryEncoding a seq.category_encoding of (batch, ids)
// input. Keras gives both integer results (int64 bucket indices, ids as
// integers); seqc computes in float32 throughout, so indices and ids are
// float32 integers (exact below 2^24).
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

Expected<Value> emitDiscretization(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  if (Error e = c.weights.expect({}))
    return std::move(e);
  Expected<std::string> mode = layer.getStringOr("output_mode", "int");
  if (!mode)
    return mode.takeError();
  if (*mode != "int")
    return layer.error("output_mode '" + *mode +
                       "' is not supported, only int: save the layer with "
                       "output_mode='int' followed by CategoryEncoding(" +
                       "num_tokens=len(bin_boundaries) + 1, output_mode='" +
                       *mode + "')");
  const llvm::json::Value *value = layer.getObject().get("bin_boundaries");
  const llvm::json::Array *list = value ? value->getAsArray() : nullptr;
  if (!list)
    return layer.error("config has no 'bin_boundaries' list (the layer was "
                       "made with num_bins and the file lacks its adapted "
                       "boundaries): re-create it with "
                       "Discretization(bin_boundaries=[...]) and save again");
  SmallVector<float> bounds;
  for (const llvm::json::Value &e : *list) {
    std::optional<double> b = e.getAsNumber();
    if (!b)
      return layer.error("config 'bin_boundaries' must be a list of numbers");
    if (!bounds.empty() && !(static_cast<float>(*b) >= bounds.back()))
      return layer.error("config 'bin_boundaries' must be ascending, got " +
                         formatNumber(*b) + " after " +
                         formatNumber(bounds.back()));
    bounds.push_back(static_cast<float>(*b));
  }
  auto type = tensorType(c.builder, {static_cast<int64_t>(bounds.size())});
  Value boundaries =
      arith::ConstantOp::create(
          c.builder, layerLoc(c.builder, layer.getName() + "/bin_boundaries"),
          type, DenseElementsAttr::get(type, ArrayRef<float>(bounds)))
          .getResult();
  return DiscretizeOp::create(c.builder, c.loc, c.input.getType(), c.input,
                              boundaries)
      .getResult();
}

Expected<Value> emitCategoryEncoding(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  if (Error e = c.weights.expect({}))
    return std::move(e);
  Expected<int64_t> numTokens = layer.getSize("num_tokens");
  Expected<std::string> modeName = layer.getStringOr("output_mode", "multi_hot");
  Expected<bool> sparse = layer.getBoolOr("sparse", false);
  if (Error e = firstError(numTokens, modeName, sparse))
    return std::move(e);
  std::optional<CategoryMode> mode = symbolizeCategoryMode(*modeName);
  if (!mode)
    return layer.error("output_mode '" + *modeName +
                       "' is not supported, only one_hot, multi_hot and "
                       "count: re-save the layer with one of them");
  if (*sparse)
    return layer.error("sparse=True is not supported: seqc's tensors are "
                       "dense; re-save the layer with sparse=False");
  if (shapeOf(c.input).size() != 2)
    return layer.error("expects ids of shape (batch, n), got " +
                       shapeText(shapeOf(c.input)) +
                       ": reshape them to two axes before the layer");
  auto type = tensorType(
      c.builder, shapes::categoryEncoded(shapeOf(c.input), *numTokens, *mode));
  return CategoryEncodingOp::create(c.builder, c.loc, type, c.input,
                                    static_cast<uint64_t>(*numTokens), *mode)
      .getResult();
}

} // namespace seq::keras

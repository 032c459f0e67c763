#include "EmitterSupport.h"

using namespace mlir;

namespace seq::keras::emit {

RankedTensorType tensorType(OpBuilder &b, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, b.getF32Type());
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

Location layerLoc(OpBuilder &b, StringRef name) {
  return NameLoc::get(b.getStringAttr(name));
}

std::string shapeText(ArrayRef<int64_t> shape) { return shapes::format(shape); }

/// A config number as Python would print it: 300, 0.5, 1e-05.
std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

Expected<ActivationSpec> parseActivation(OpBuilder &b, const LayerConfig &layer,
                                         StringRef key, StringRef fallback,
                                         int kerasMajor) {
  std::string name = fallback.str();
  if (const llvm::json::Value *v = layer.getObject().get(key)) {
    if (std::optional<StringRef> s = v->getAsString())
      name = s->str();
    else if (v->kind() == llvm::json::Value::Null)
      name = "linear";
    else if (!v->getAsObject())
      return layer.error("'" + key + "' must be the name of an activation, "
                         "not a number, list or boolean");
    else if (const llvm::json::Object *o = v->getAsObject()) {
      // Keras 3 may serialise a built-in as {"class_name": "function",
      // "config": "relu", ...}.
      std::optional<StringRef> inner = o->getString("config");
      if (!inner)
        return layer.error("'" + key + "' is a serialised object, not a "
                           "built-in activation: custom activations are not "
                           "supported");
      name = inner->str();
    }
  }
  // Every built-in activation of Keras 2 (tf.keras) and Keras 3 that maps
  // each element (or, softmax and log_softmax, each row) by its name alone.
  static const std::pair<const char *, Activation> kByName[] = {
      {"linear", Activation::Linear},
      {"relu", Activation::Relu},
      {"relu6", Activation::Relu6},
      {"tanh", Activation::Tanh},
      {"sigmoid", Activation::Sigmoid},
      {"hard_sigmoid", Activation::HardSigmoidKeras3}, // by version, below
      {"softmax", Activation::Softmax},
      {"log_softmax", Activation::LogSoftmax},
      {"elu", Activation::Elu},
      {"celu", Activation::Celu},
      {"selu", Activation::Selu},
      {"gelu", Activation::Gelu},
      {"swish", Activation::Swish},
      {"silu", Activation::Swish},
      {"hard_silu", Activation::HardSilu},
      {"hard_swish", Activation::HardSilu},
      {"mish", Activation::Mish},
      {"softplus", Activation::Softplus},
      {"softsign", Activation::Softsign},
      {"squareplus", Activation::Squareplus},
      {"sparse_plus", Activation::SparsePlus},
      {"sparse_sigmoid", Activation::SparseSigmoid},
      {"log_sigmoid", Activation::LogSigmoid},
      {"hard_tanh", Activation::HardTanh},
      {"tanh_shrink", Activation::TanhShrink},
      {"soft_shrink", Activation::SoftShrink},
      {"hard_shrink", Activation::HardShrink},
      {"leaky_relu", Activation::LeakyRelu},
      {"exponential", Activation::Exponential},
  };
  // tf.nn's functions under their Python names, as tf_keras saves a model
  // it loaded (its log_softmax is tf.nn.log_softmax).
  if (name == "softmax_v2" || name == "log_softmax_v2")
    name.resize(name.size() - strlen("_v2"));
  std::optional<Activation> kind;
  for (const auto &[known, k] : kByName)
    if (name == known)
      kind = k;
  if (kind == Activation::HardSigmoidKeras3 && kerasMajor < 3)
    kind = Activation::HardSigmoidKeras2;
  if (!kind) {
    if (name == "glu")
      return layer.error("activation 'glu' in '" + key +
                         "' halves the last axis, which seqc does not support; "
                         "split the layer's output and multiply by its sigmoid "
                         "with built-in layers, or use another activation");
    if (name == "sparsemax")
      return layer.error("activation 'sparsemax' in '" + key +
                         "' is not supported; use 'softmax' or another "
                         "supported activation");
    std::string all;
    for (const auto &[known, k] : kByName)
      all += (all.empty() ? "" : ", ") + std::string(known);
    return layer.error("unsupported activation '" + name + "' in '" + key +
                       "' (supported: " + all + ")");
  }
  FloatAttr alpha;
  if (shapes::takesAlpha(*kind))
    alpha = b.getF32FloatAttr(shapes::cellAlpha(*kind));
  return ActivationSpec{*kind, alpha};
}

Error requireRank(const LayerConfig &layer, Value input, size_t rank) {
  if (shapeOf(input).size() == rank)
    return Error::success();
  return layer.error("expects a rank-" + Twine(rank) + " input, got shape " +
                     shapeText(shapeOf(input)) + " (batch axis included)");
}

Expected<Padding> parsePadding(const LayerConfig &layer, bool allowCausal) {
  Expected<std::string> text = layer.getStringOr("padding", "valid");
  if (!text)
    return text.takeError();
  if (*text == "valid")
    return Padding::Valid;
  if (*text == "same")
    return Padding::Same;
  if (*text == "causal" && allowCausal)
    return Padding::Causal;
  return layer.error("unsupported padding '" + *text + "' (" +
                     (allowCausal ? "valid, same and causal are" : "valid and same are") +
                     " supported)");
}

Value permuteAxes(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> dims) {
  return PermuteOp::create(b, loc, tensorType(b, shapes::permuted(shapeOf(x), dims)), x,
                           b.getDenseI64ArrayAttr(dims))
      .getResult();
}

Expected<Value> normalizeOverAxes(
    OpBuilder &b, StringRef name, Value x, ArrayRef<int64_t> axes,
    llvm::function_ref<Expected<Value>(Value flat, int64_t joined)> overLast,
    llvm::function_ref<llvm::Error(const llvm::Twine &)> fail) {
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t last = static_cast<int64_t>(shape.size()) - 1;
  int64_t joined = 1;
  for (int64_t a : axes)
    joined = ShapedType::isDynamic(shape[a]) || ShapedType::isDynamic(joined)
                 ? ShapedType::kDynamic
                 : joined * shape[a];
  // Permute's dims: the other axes, then the normalized ones.
  SmallVector<int64_t> order;
  for (int64_t a = 1; a <= last; ++a)
    if (!llvm::is_contained(axes, a))
      order.push_back(a);
  llvm::append_range(order, axes);
  bool moves = !llvm::is_sorted(order);
  auto at = [&](StringRef part) { return layerLoc(b, (name + "/" + part).str()); };
  Value moved = moves ? permuteAxes(b, at("axis_last"), x, order) : x;
  SmallVector<int64_t> kept(shapeOf(moved).drop_front().drop_back(axes.size()));
  if (axes.size() > 1 &&
      llvm::count_if(kept, ShapedType::isDynamic) + ShapedType::isDynamic(joined) > 1)
    return fail("normalizes over axes " + shapeText(axes) + " of " + shapeText(shape) +
                ", which leaves more than one axis of unknown length: seqc joins "
                "the normalized axes into one and needs the others' lengths");
  auto target = [](int64_t size) { return ShapedType::isDynamic(size) ? -1 : size; };
  SmallVector<int64_t> flatShape = llvm::map_to_vector(kept, target);
  flatShape.push_back(target(joined));
  Value flat = axes.size() > 1 ? reshapeAxes(b, at("axes_joined"), moved, flatShape) : moved;
  Expected<Value> out = overLast(flat, joined);
  if (!out)
    return out.takeError();
  SmallVector<int64_t> back = llvm::map_to_vector(shapeOf(moved).drop_front(), target);
  Value apart = axes.size() > 1 ? reshapeAxes(b, at("axes_apart"), *out, back) : *out;
  return moves ? permuteAxes(b, at("axis_back"), apart, shapes::inversePermutation(order))
               : apart;
}

Value filledVector(OpBuilder &b, Location loc, int64_t size, double value) {
  auto type = tensorType(b, {size});
  return arith::ConstantOp::create(b, loc, type,
                                   DenseElementsAttr::get(type, static_cast<float>(value)))
      .getResult();
}

Value scaleAndShift(OpBuilder &b, Location loc, Value x, Value scale, Value offset) {
  int64_t channels = shapeOf(x).back();
  return BatchNormOp::create(b, loc, x.getType(), x, scale, offset,
                             filledVector(b, loc, channels, 0.0),
                             filledVector(b, loc, channels, 1.0), b.getF32FloatAttr(0.0f))
      .getResult();
}

Value scaleAndShift(OpBuilder &b, Location loc, Value x, double scale, double offset) {
  int64_t channels = shapeOf(x).back();
  return scaleAndShift(b, loc, x, filledVector(b, loc, channels, scale),
                       filledVector(b, loc, channels, offset));
}

Value reshapeAxes(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> target) {
  std::string error;
  std::optional<SmallVector<int64_t>> shape = shapes::reshape(shapeOf(x), target, error);
  assert(shape && "callers reshape to sizes that fit the input");
  return ReshapeOp::create(b, loc, tensorType(b, *shape), x, b.getDenseI64ArrayAttr(target))
      .getResult();
}

Expected<SmallVector<int64_t>> featureAxes(const LayerConfig &layer, size_t rank) {
  int64_t last = static_cast<int64_t>(rank) - 1;
  const llvm::json::Value *axis = layer.getObject().get("axis");
  if (!axis || axis->kind() == llvm::json::Value::Null)
    return SmallVector<int64_t>{last};
  SmallVector<const llvm::json::Value *> items;
  if (const llvm::json::Array *list = axis->getAsArray())
    for (const llvm::json::Value &item : *list)
      items.push_back(&item);
  else
    items.push_back(axis);
  if (items.empty())
    return layer.error("config 'axis' is an empty list: name the axes it normalises over");
  SmallVector<int64_t> axes;
  for (const llvm::json::Value *item : items) {
    std::optional<int64_t> value = item->getAsInteger();
    if (!value)
      return layer.error("config 'axis' holds something other than axis numbers");
    int64_t index = *value < 0 ? *value + static_cast<int64_t>(rank) : *value;
    if (index < 1 || index > last)
      return layer.error("config 'axis' " + Twine(axis->getAsArray() ? "holds " : "is ") +
                         Twine(*value) + ", which is not a "
                         "feature axis of the rank-" + Twine(rank) +
                         " input (1 to " + Twine(last) + ", or -1 to -" + Twine(last) +
                         ")");
    if (llvm::is_contained(axes, index))
      return layer.error("config 'axis' names axis " + Twine(index) + " twice");
    axes.push_back(index);
  }
  llvm::sort(axes);
  return axes;
}

Expected<int64_t> singleFeatureAxis(const LayerConfig &layer, size_t rank) {
  Expected<SmallVector<int64_t>> axes = featureAxes(layer, rank);
  if (!axes)
    return axes.takeError();
  if (axes->size() != 1)
    return layer.error("config 'axis' must be one axis: seqc normalises over "
                       "one; join several into one with a Reshape before the "
                       "layer");
  return axes->front();
}

Error requireLastAxis(const LayerConfig &layer, size_t rank) {
  Expected<int64_t> axis = singleFeatureAxis(layer, rank);
  if (!axis)
    return axis.takeError();
  if (*axis == static_cast<int64_t>(rank) - 1)
    return Error::success();
  return layer.error("config 'axis' must be the last axis (-1 or " +
                     Twine(static_cast<int64_t>(rank) - 1) +
                     "): seqc normalises over the last axis only; put the "
                     "axis last with a Permute before the layer");
}

} // namespace seq::keras::emit

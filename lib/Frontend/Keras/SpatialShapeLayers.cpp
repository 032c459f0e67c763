//===- SpatialShapeLayers.cpp - Padding, cropping, upsampling, permute ----===//
//
// ZeroPadding1D/2D/3D, Cropping1D/2D/3D and UpSampling1D/2D/3D become one op
// each whose sizes cover every axis after the batch axis (0 or 1 on the
// channel axis), so either data format needs no transposes. Permute is
// seq.permute; Flatten of a channels_first input flattens it in
// channels-last order, as Keras does.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

namespace {

constexpr int64_t kMaxSize = (int64_t(1) << 31) - 1;

/// One (before, after) pair per spatial axis from config `key`: one int for
/// every side, `n` ints (one per axis, both sides; for a 1-D layer one
/// (before, after) pair), or `n` pairs.
Expected<SmallVector<std::pair<int64_t, int64_t>>>
spatialPairs(const LayerConfig &layer, StringRef key, int64_t n) {
  const llvm::json::Value *value = layer.getObject().get(key);
  auto bad = [&]() {
    return layer.error("config '" + key + "' must be an integer, a list of " +
                       Twine(n == 1 ? 2 : n) + " integers or a list of " +
                       Twine(n) + " pairs of integers");
  };
  if (!value)
    return layer.error("config has no '" + key + "'");
  SmallVector<std::pair<int64_t, int64_t>> pairs;
  auto asInts = [](const llvm::json::Value &v) -> std::optional<SmallVector<int64_t>> {
    const llvm::json::Array *list = v.getAsArray();
    if (!list)
      return std::nullopt;
    SmallVector<int64_t> ints;
    for (const llvm::json::Value &e : *list) {
      std::optional<int64_t> i = e.getAsInteger();
      if (!i)
        return std::nullopt;
      ints.push_back(*i);
    }
    return ints;
  };
  if (std::optional<int64_t> one = value->getAsInteger()) {
    pairs.assign(n, {*one, *one});
  } else if (auto ints = asInts(*value)) {
    if (n == 1 && ints->size() == 2)
      pairs.push_back({(*ints)[0], (*ints)[1]});
    else if (static_cast<int64_t>(ints->size()) == n)
      for (int64_t i : *ints)
        pairs.push_back({i, i});
    else
      return bad();
  } else if (const llvm::json::Array *list = value->getAsArray();
             list && static_cast<int64_t>(list->size()) == n) {
    for (const llvm::json::Value &e : *list) {
      auto pair = asInts(e);
      if (!pair || pair->size() != 2)
        return bad();
      pairs.push_back({(*pair)[0], (*pair)[1]});
    }
  } else {
    return bad();
  }
  for (auto [before, after] : pairs)
    if (before < 0 || after < 0 || before > kMaxSize || after > kMaxSize)
      return layer.error("config '" + key + "' must hold sizes in [0, " +
                         Twine(kMaxSize) + "], got " + Twine(before) + " and " +
                         Twine(after));
  return pairs;
}

/// Per-axis values of a spatial layer over every axis after the batch axis:
/// `spatialValues` on the spatial axes, `channelValue` on the channel axis.
SmallVector<int64_t> overAxes(ArrayRef<int64_t> spatialValues,
                              int64_t channelValue, bool channelsFirst) {
  SmallVector<int64_t> all;
  if (channelsFirst)
    all.push_back(channelValue);
  all.append(spatialValues.begin(), spatialValues.end());
  if (!channelsFirst)
    all.push_back(channelValue);
  return all;
}

Error requireSizesFit(const LayerConfig &layer, ArrayRef<int64_t> shape) {
  for (int64_t d : shape.drop_front())
    if (d != kDynamic && d > kMaxSize)
      return layer.error("the output shape " + shapeText(shape) +
                         " has an axis larger than " + Twine(kMaxSize));
  return Error::success();
}

} // namespace

Expected<Value> emitPadOrCrop(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  StringRef cls = layer.getClassName();
  const int64_t spatial = spatialRankOf(cls);
  const bool crop = cls.starts_with("Cropping");
  if (Error e = c.weights.expect({}))
    return std::move(e);
  if (Error e = requireRank(layer, c.input, spatial + 2))
    return std::move(e);
  Expected<bool> first = channelsFirst(layer);
  Expected<SmallVector<std::pair<int64_t, int64_t>>> pairs =
      spatialPairs(layer, crop ? "cropping" : "padding", spatial);
  if (Error e = firstError(first, pairs))
    return std::move(e);
  SmallVector<int64_t> before, after;
  for (auto [b, a] : *pairs) {
    before.push_back(b);
    after.push_back(a);
  }
  SmallVector<int64_t> low = overAxes(before, 0, *first),
                       high = overAxes(after, 0, *first);
  ArrayRef<int64_t> x = shapeOf(c.input);
  if (crop)
    for (size_t i = 1; i < x.size(); ++i)
      if (x[i] != kDynamic && low[i - 1] + high[i - 1] >= x[i])
        return layer.error("cropping " + Twine(low[i - 1]) + " + " +
                           Twine(high[i - 1]) + " leaves nothing of axis " +
                           Twine(i) + " of the input " + shapeText(x) +
                           " (batch axis = 0)");
  SmallVector<int64_t> out = shapes::padded(x, low, high, crop ? -1 : 1);
  if (Error e = requireSizesFit(layer, out))
    return std::move(e);
  Type type = tensorType(c.builder, out);
  auto lowAttr = c.builder.getDenseI64ArrayAttr(low);
  auto highAttr = c.builder.getDenseI64ArrayAttr(high);
  if (crop)
    return CroppingOp::create(c.builder, c.loc, type, c.input, lowAttr, highAttr)
        .getResult();
  return ZeroPaddingOp::create(c.builder, c.loc, type, c.input, lowAttr, highAttr)
      .getResult();
}

Expected<Value> emitUpSampling(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  const int64_t spatial = spatialRankOf(layer.getClassName());
  if (Error e = c.weights.expect({}))
    return std::move(e);
  if (Error e = requireRank(layer, c.input, spatial + 2))
    return std::move(e);
  Expected<bool> first = channelsFirst(layer);
  Expected<std::string> interpolation = layer.getStringOr("interpolation", "nearest");
  if (Error e = firstError(first, interpolation))
    return std::move(e);
  // Config 'size': an int or one per spatial axis, each >= 1.
  SmallVector<int64_t> sizes;
  const llvm::json::Value *value = layer.getObject().get("size");
  if (!value || value->kind() == llvm::json::Value::Null) {
    sizes.assign(spatial, 2);
  } else if (std::optional<int64_t> one = value->getAsInteger()) {
    sizes.assign(spatial, *one);
  } else if (const llvm::json::Array *list = value->getAsArray()) {
    for (const llvm::json::Value &e : *list)
      if (std::optional<int64_t> i = e.getAsInteger())
        sizes.push_back(*i);
  }
  if (static_cast<int64_t>(sizes.size()) != spatial ||
      llvm::any_of(sizes, [](int64_t s) { return s < 1 || s > kMaxSize; }))
    return layer.error(
        "config 'size' must be " +
        (spatial == 1 ? std::string("a size")
                      : "a size or a list of " + std::to_string(spatial) + " sizes") +
        " in [1, " + Twine(kMaxSize) + "]");
  Interpolation kind;
  if (*interpolation == "nearest")
    kind = Interpolation::Nearest;
  else if (*interpolation == "bilinear" && spatial == 2)
    kind = Interpolation::Bilinear;
  else
    return layer.error("interpolation '" + *interpolation +
                       "' is not supported: use " +
                       (spatial == 2 ? "nearest or bilinear" : "nearest"));
  SmallVector<int64_t> factors = overAxes(sizes, 1, *first);
  SmallVector<int64_t> out = shapes::upsampled(shapeOf(c.input), factors);
  if (Error e = requireSizesFit(layer, out))
    return std::move(e);
  return UpSamplingOp::create(c.builder, c.loc, tensorType(c.builder, out),
                              c.input, c.builder.getDenseI64ArrayAttr(factors),
                              kind)
      .getResult();
}

Expected<Value> emitPermute(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  if (Error e = c.weights.expect({}))
    return std::move(e);
  Expected<std::vector<int64_t>> dims = layer.getIntList("dims");
  if (!dims)
    return dims.takeError();
  ArrayRef<int64_t> x = shapeOf(c.input);
  if (x.size() < 2 || dims->size() != x.size() - 1 ||
      !shapes::isPermutation(*dims))
    return layer.error("config 'dims' " + shapeText(*dims) +
                       " must be a permutation of 1.." + Twine(x.size() - 1) +
                       ", the axes of the input " + shapeText(x) +
                       " after the batch axis");
  return PermuteOp::create(c.builder, c.loc,
                           tensorType(c.builder, shapes::permuted(x, *dims)),
                           c.input, *dims)
      .getResult();
}

Expected<Value> emitFlatten(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  if (Error e = c.weights.expect({}))
    return std::move(e);
  if (shapeOf(c.input).size() < 2)
    return layer.error("expects an input of rank >= 2");
  Expected<bool> first = channelsFirst(layer);
  if (!first)
    return first.takeError();
  // Keras flattens a channels_first input in channels-last order.
  Value x = *first && shapeOf(c.input).size() > 2 ? toChannelsLast(c, c.input)
                                                  : c.input;
  return FlattenOp::create(c.builder, c.loc,
                           tensorType(c.builder, shapes::flatten(shapeOf(x))), x)
      .getResult();
}

} // namespace seq::keras

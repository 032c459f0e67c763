//===- PreprocessingLayers.cpp - Rescaling and Normalization --------------===//
//
// Both are an affine map per channel of the last axis, so both become a
// seq.batch_norm, `(x - mean) / sqrt(variance + epsilon) * gamma + beta`,
// with constants chosen to make it exactly Keras' formula:
// - Rescaling(scale, offset): x * scale + offset is mean 0, variance 1,
//   epsilon 0, gamma = scale, beta = offset (scale and offset a number or one
//   per channel);
// - Normalization: (x - mean) / s, s = max(sqrt(variance), 1e-7) (Keras'
//   epsilon()), is mean, variance s*s (whose float32 square root is s again),
//   epsilon 0; with invert=True, mean + x * s is gamma = s, beta = mean.
// mean and variance come from the layer's weights (mean, variance, count)
// or, when the file has none, from its config. Normalization over the last
// axis (or over no axis: one mean for everything) only.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

#include <cmath>

namespace seq::keras {

using namespace emit;

namespace {

/// Config `key` as numbers: a number, or a (nested) list of numbers.
Expected<std::vector<double>> configNumbers(const LayerConfig &layer,
                                            StringRef key) {
  const llvm::json::Value *value = layer.getObject().get(key);
  std::vector<double> numbers;
  std::function<bool(const llvm::json::Value &)> add =
      [&](const llvm::json::Value &v) {
        if (std::optional<double> n = v.getAsNumber()) {
          numbers.push_back(*n);
          return true;
        }
        if (const llvm::json::Array *list = v.getAsArray()) {
          for (const llvm::json::Value &e : *list)
            if (!add(e))
              return false;
          return numbers.size() <= (size_t(1) << 24);
        }
        return false;
      };
  if (!value || !add(*value))
    return layer.error("config '" + key +
                       "' must be a number or a list of numbers");
  return numbers;
}

/// A layer error unless config `key` has one value or one per channel.
Error requireCount(const LayerConfig &layer, StringRef key, size_t count,
                   int64_t channels) {
  if (count == 1 || static_cast<int64_t>(count) == channels)
    return Error::success();
  return layer.error("config '" + key + "' has " + Twine(count) +
                     " values, expected 1 or one per channel of the last "
                     "axis (" + Twine(channels) + ")");
}

/// `values` (one, or one per channel) as a (channels) constant at
/// "<layer>/<role>".
Expected<Value> perChannel(EmitContext &c, StringRef role,
                           ArrayRef<float> values, int64_t channels) {
  if (Error e = requireCount(c.layer, role, values.size(), channels))
    return std::move(e);
  SmallVector<float> all(channels, values[0]);
  if (values.size() != 1)
    all.assign(values.begin(), values.end());
  auto type = tensorType(c.builder, {channels});
  return arith::ConstantOp::create(
             c.builder, layerLoc(c.builder, c.layer.getName() + "/" + role.str()),
             type, DenseElementsAttr::get(type, ArrayRef<float>(all)))
      .getResult();
}

Expected<Value> affine(EmitContext &c, int64_t channels, ArrayRef<float> gamma,
                       ArrayRef<float> beta, ArrayRef<float> mean,
                       ArrayRef<float> variance) {
  Expected<Value> g = perChannel(c, "gamma", gamma, channels);
  Expected<Value> b = g ? perChannel(c, "beta", beta, channels) : g.takeError();
  Expected<Value> m = b ? perChannel(c, "mean", mean, channels) : b.takeError();
  Expected<Value> v = m ? perChannel(c, "variance", variance, channels)
                        : m.takeError();
  if (!v)
    return v.takeError();
  return BatchNormOp::create(c.builder, c.loc, c.input.getType(), c.input, *g,
                             *b, *m, *v, c.builder.getF32FloatAttr(0.0f))
      .getResult();
}

SmallVector<float> asFloats(ArrayRef<double> values) {
  return SmallVector<float>(values.begin(), values.end());
}

} // namespace

Expected<Value> emitRescaling(EmitContext &c) {
  if (Error e = c.weights.expect({}))
    return std::move(e);
  Expected<std::vector<double>> scale = configNumbers(c.layer, "scale");
  Expected<std::vector<double>> offset =
      c.layer.has("offset") ? configNumbers(c.layer, "offset")
                            : Expected<std::vector<double>>(std::vector<double>{0.0});
  if (Error e = firstError(scale, offset))
    return std::move(e);
  Expected<int64_t> channels = staticChannels(c.layer, c.input);
  if (!channels)
    return channels.takeError();
  if (Error e = requireCount(c.layer, "scale", scale->size(), *channels))
    return std::move(e);
  if (Error e = requireCount(c.layer, "offset", offset->size(), *channels))
    return std::move(e);
  return affine(c, *channels, asFloats(*scale), asFloats(*offset), {0.0f},
                {1.0f});
}

Expected<Value> emitNormalization(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  int64_t rank = shapeOf(c.input).size();
  // axis: the last axis (-1, rank - 1 or a one-element list of it), or None
  // / [] (one mean and variance for every element).
  const llvm::json::Value *axis = layer.getObject().get("axis");
  bool perChannelAxis = true;
  if (!axis || axis->kind() == llvm::json::Value::Null ||
      (axis->getAsArray() && axis->getAsArray()->empty()))
    perChannelAxis = false;
  else if (Error e = requireLastAxis(layer, rank))
    return std::move(e);
  Expected<bool> invert = layer.getBoolOr("invert", false);
  if (!invert)
    return invert.takeError();
  Expected<int64_t> channels = staticChannels(layer, c.input);
  if (!channels)
    return channels.takeError();
  int64_t size = perChannelAxis ? *channels : 1;

  std::vector<double> mean, variance;
  if (c.weights.size() != 0) {
    // mean, variance, count (Keras 3 and tf_keras alike).
    if (Error e = c.weights.expect({"mean", "variance", "count"}))
      return std::move(e);
    for (std::vector<double> *out : {&mean, &variance}) {
      const WeightArray &array = c.weights.take();
      if (static_cast<int64_t>(array.data.size()) != size)
        return layer.error("weight '" + array.name + "' has " +
                           Twine(array.data.size()) + " values, expected " +
                           Twine(size) + " from the config's axis");
      out->assign(array.data.begin(), array.data.end());
    }
  } else {
    Expected<std::vector<double>> m = configNumbers(layer, "mean");
    Expected<std::vector<double>> v = configNumbers(layer, "variance");
    if (Error e = firstError(m, v))
      return std::move(e);
    if (Error e = requireCount(layer, "mean", m->size(), size))
      return std::move(e);
    if (Error e = requireCount(layer, "variance", v->size(), size))
      return std::move(e);
    mean = std::move(*m);
    variance = std::move(*v);
  }
  SmallVector<float> scale;
  for (double v : variance) {
    if (!(v >= 0))
      return layer.error("variance " + formatNumber(v) +
                         " is negative or not a number");
    scale.push_back(std::max(std::sqrt(static_cast<float>(v)), 1e-7f));
  }
  SmallVector<float> meanF = asFloats(mean);
  if (*invert)
    return affine(c, *channels, scale, meanF, {0.0f}, {1.0f});
  SmallVector<float> squared;
  for (float s : scale)
    squared.push_back(s * s);
  return affine(c, *channels, {1.0f}, {0.0f}, meanF, squared);
}

} // namespace seq::keras

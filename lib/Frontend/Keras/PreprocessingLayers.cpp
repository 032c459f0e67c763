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
// or, when the file has none, from its config. Normalization over other
// axes than the last brings them last (permute, reshape) and back.
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
  ArrayRef<int64_t> shape = shapeOf(c.input);
  int64_t rank = shape.size();
  // axis: the axes with their own mean and variance (an int or a list; the
  // last by default), or None / [] (one mean and variance for everything).
  // Other axes than the last are brought last (permuted, and joined by a
  // reshape when several) around a batch_norm over the last.
  const llvm::json::Value *axis = layer.getObject().get("axis");
  SmallVector<int64_t> kept;
  if (!axis)
    kept.push_back(rank - 1);
  else if (std::optional<int64_t> a = axis->getAsInteger())
    kept.push_back(*a);
  else if (const llvm::json::Array *list = axis->getAsArray())
    for (const llvm::json::Value &v : *list) {
      std::optional<int64_t> a = v.getAsInteger();
      if (!a)
        return layer.error("config 'axis' must be an integer or a list of integers");
      kept.push_back(*a);
    }
  else if (axis->kind() != llvm::json::Value::Null)
    return layer.error("config 'axis' must be an integer or a list of integers");
  for (int64_t &a : kept) {
    a = a < 0 ? a + rank : a;
    if (a < 1 || a >= rank)
      return layer.error("axis " + Twine(a) + " is not an axis after the batch axis of "
                         "its rank-" + Twine(rank) + " input");
    if (shape[a] == kDynamic)
      return layer.error("normalizes axis " + Twine(a) + " of unknown size: give the "
                         "model a fixed input shape");
  }
  llvm::sort(kept);
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  bool perChannelAxis = !kept.empty();
  Expected<bool> invert = layer.getBoolOr("invert", false);
  if (!invert)
    return invert.takeError();

  // The input with the kept axes last, joined into one.
  EmitContext inner = c;
  SmallVector<int64_t> dims, restSizes;
  for (int64_t a = 1; a < rank; ++a)
    if (!llvm::is_contained(kept, a)) {
      dims.push_back(a);
      restSizes.push_back(shape[a] == kDynamic ? -1 : shape[a]);
    }
  int64_t size = 1;
  for (int64_t a : kept) {
    dims.push_back(a);
    size *= shape[a];
  }
  bool lastOnly = kept.size() == 1 && kept[0] == rank - 1;
  bool permute = perChannelAxis && !llvm::equal(dims, llvm::seq<int64_t>(1, rank));
  bool join = perChannelAxis && kept.size() > 1;
  if (perChannelAxis && !lastOnly) {
    if (llvm::count(restSizes, -1) > 1)
      return layer.error("keeps two axes of unknown size: give the model a fixed input "
                         "shape");
    if (permute)
      inner.input = permuteAxes(c, inner.input, dims, "axes_last");
    if (join) {
      SmallVector<int64_t> target(restSizes);
      target.push_back(size);
      inner.input = reshapeTo(c, inner.input, target, "axes_joined");
    }
    inner.loc = layerLoc(c.builder, layer.getName() + "/normalize");
  }
  Expected<int64_t> channels = staticChannels(layer, inner.input);
  if (!channels)
    return channels.takeError();
  if (!perChannelAxis)
    size = 1;

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
  SmallVector<float> squared;
  for (float s : scale)
    squared.push_back(s * s);
  Expected<Value> y = *invert ? affine(inner, *channels, scale, meanF, {0.0f}, {1.0f})
                              : affine(inner, *channels, {1.0f}, {0.0f}, meanF, squared);
  if (!y || !perChannelAxis || lastOnly)
    return y;
  // Back to the input's layout; the last op carries the layer's location.
  Value out = *y;
  if (join) {
    SmallVector<int64_t> target(restSizes);
    for (int64_t a : kept)
      target.push_back(shape[a]);
    out = reshapeTo(c, out, target, "axes_split");
  }
  if (permute) {
    out = permuteAxes(c, out, shapes::inversePermutation(dims), "axes_back");
  }
  out.getDefiningOp()->setLoc(c.loc);
  return out;
}

} // namespace seq::keras

//===- ImageLayers.cpp - Conv2D/3D and the 2-D/3-D poolings ---------------===//
//
// The ops are channels last. A channels_first layer becomes seq.permute to
// channels last ("<layer>/channels_last"), the op (at the layer's name) and
// seq.permute back ("<layer>/channels_first"); consecutive channels_first
// layers leave no permutes between them once the permutes fold.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

namespace {

constexpr int64_t kMaxSize = (int64_t(1) << 31) - 1;

/// 2 for Conv2D / MaxPooling2D / GlobalAvgPool2D, 3 for the 3D classes.
int64_t spatialRankOf(StringRef className) {
  return className.ends_with("3D") ? 3 : 2;
}

/// Config `key` as one size per spatial axis: one int for all of them or a
/// list of `n`; `fallback` when absent or null.
Expected<SmallVector<int64_t>> spatialSizes(const LayerConfig &layer,
                                            StringRef key, int64_t n,
                                            ArrayRef<int64_t> fallback = {}) {
  const llvm::json::Value *value = layer.getObject().get(key);
  if (!value || value->kind() == llvm::json::Value::Null) {
    if (fallback.empty())
      return layer.error("config has no '" + key + "'");
    return SmallVector<int64_t>(fallback);
  }
  SmallVector<int64_t> sizes;
  if (std::optional<int64_t> one = value->getAsInteger()) {
    sizes.assign(n, *one);
  } else if (const llvm::json::Array *list = value->getAsArray()) {
    for (const llvm::json::Value &e : *list) {
      std::optional<int64_t> size = e.getAsInteger();
      if (!size)
        break;
      sizes.push_back(*size);
    }
    if (static_cast<int64_t>(sizes.size()) != n ||
        static_cast<int64_t>(list->size()) != n)
      return layer.error("config '" + key + "' must be an integer or a list of " +
                         Twine(n) + " integers");
  } else {
    return layer.error("config '" + key + "' must be an integer or a list of " +
                       Twine(n) + " integers");
  }
  for (int64_t size : sizes)
    if (size < 1 || size > kMaxSize)
      return layer.error("config '" + key + "' must hold sizes in [1, " +
                         Twine(kMaxSize) + "], got " + Twine(size));
  return sizes;
}

/// A layer error if a window does not fit: output size 0 on some axis.
Error requireWindowsFit(const LayerConfig &layer, ArrayRef<int64_t> input,
                        ArrayRef<int64_t> output, StringRef window) {
  for (size_t i = 1; i + 1 < output.size(); ++i)
    if (output[i] == 0)
      return layer.error("the " + window + " along spatial axis " +
                         Twine(i - 1) + " is larger than the input's " +
                         Twine(input[i]) + " (input shape " + shapeText(input) +
                         " in channels_last order)");
  return Error::success();
}

/// The input in channels-last order, and whether to permute back.
Expected<std::pair<Value, bool>> channelsLastInput(EmitContext &c,
                                                   int64_t spatial) {
  if (Error e = requireRank(c.layer, c.input, spatial + 2))
    return std::move(e);
  Expected<bool> first = channelsFirst(c.layer);
  if (!first)
    return first.takeError();
  return std::make_pair(*first ? toChannelsLast(c, c.input) : c.input, *first);
}

} // namespace

Expected<Value> emitConvolution(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  const int64_t spatial = spatialRankOf(layer.getClassName());
  SmallVector<int64_t> ones(spatial, 1);
  Expected<int64_t> filters = layer.getSize("filters");
  Expected<SmallVector<int64_t>> kernel = spatialSizes(layer, "kernel_size", spatial);
  Expected<SmallVector<int64_t>> strides = spatialSizes(layer, "strides", spatial, ones);
  Expected<SmallVector<int64_t>> dilations =
      spatialSizes(layer, "dilation_rate", spatial, ones);
  Expected<int64_t> groups = layer.getSizeOr("groups", 1);
  Expected<bool> useBias = layer.getBoolOr("use_bias", true);
  Expected<Padding> padding = parsePadding(layer, /*allowCausal=*/false);
  Expected<ActivationSpec> act =
      parseActivation(c.builder, layer, "activation", "linear", c.kerasMajor);
  if (Error e = firstError(filters, kernel, strides, dilations, groups, useBias,
                           padding, act))
    return std::move(e);
  Expected<std::pair<Value, bool>> in = channelsLastInput(c, spatial);
  if (!in)
    return in.takeError();
  auto [x, permuted] = *in;
  ArrayRef<int64_t> xs = shapeOf(x);
  int64_t channels = xs.back();
  if (channels == kDynamic)
    return layer.error("the input's channel axis has no fixed size: give the "
                       "model a fixed input shape (--input-shape)");
  if (channels % *groups != 0 || *filters % *groups != 0)
    return layer.error("groups=" + Twine(*groups) + " must divide the " +
                       Twine(channels) + " input channels and the " +
                       Twine(*filters) + " filters");
  SmallVector<int64_t> kernelShape(*kernel);
  kernelShape.append({channels / *groups, *filters});
  auto params = c.weights.kernelAndBias(kernelShape, *useBias);
  if (!params)
    return params.takeError();
  SmallVector<int64_t> out = shapes::convolution(xs, *kernel, *strides,
                                                 *dilations, *padding, *filters);
  if (Error e = requireWindowsFit(layer, xs, out, "kernel span"))
    return std::move(e);
  Type type = tensorType(c.builder, out);
  auto stridesAttr = c.builder.getDenseI64ArrayAttr(*strides);
  auto dilationsAttr = c.builder.getDenseI64ArrayAttr(*dilations);
  Value y =
      spatial == 2
          ? Conv2DOp::create(c.builder, c.loc, type, x, params->first,
                             params->second, stridesAttr, dilationsAttr,
                             *groups, *padding, act->kind, act->alpha)
                .getResult()
          : Conv3DOp::create(c.builder, c.loc, type, x, params->first,
                             params->second, stridesAttr, dilationsAttr,
                             *groups, *padding, act->kind, act->alpha)
                .getResult();
  return permuted ? toChannelsFirst(c, y) : y;
}

Expected<Value> emitPooling(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  StringRef cls = layer.getClassName();
  const int64_t spatial = spatialRankOf(cls);
  if (Error e = c.weights.expect({}))
    return std::move(e);
  SmallVector<int64_t> twos(spatial, 2);
  Expected<SmallVector<int64_t>> pool = spatialSizes(layer, "pool_size", spatial, twos);
  if (!pool)
    return pool.takeError();
  // strides=None means the pool size.
  Expected<SmallVector<int64_t>> strides = spatialSizes(layer, "strides", spatial, *pool);
  Expected<Padding> padding = parsePadding(layer, /*allowCausal=*/false);
  if (Error e = firstError(strides, padding))
    return std::move(e);
  Expected<std::pair<Value, bool>> in = channelsLastInput(c, spatial);
  if (!in)
    return in.takeError();
  auto [x, permuted] = *in;
  ArrayRef<int64_t> xs = shapeOf(x);
  SmallVector<int64_t> out = shapes::pooling(xs, *pool, *strides, *padding);
  if (Error e = requireWindowsFit(layer, xs, out, "pool_size"))
    return std::move(e);
  Type type = tensorType(c.builder, out);
  auto poolAttr = c.builder.getDenseI64ArrayAttr(*pool);
  auto stridesAttr = c.builder.getDenseI64ArrayAttr(*strides);
  bool isMax = cls.starts_with("Max");
  Value y;
  if (spatial == 2 && isMax)
    y = MaxPool2DOp::create(c.builder, c.loc, type, x, poolAttr, stridesAttr, *padding);
  else if (spatial == 2)
    y = AvgPool2DOp::create(c.builder, c.loc, type, x, poolAttr, stridesAttr, *padding);
  else if (isMax)
    y = MaxPool3DOp::create(c.builder, c.loc, type, x, poolAttr, stridesAttr, *padding);
  else
    y = AvgPool3DOp::create(c.builder, c.loc, type, x, poolAttr, stridesAttr, *padding);
  return permuted ? toChannelsFirst(c, y) : y;
}

Expected<Value> emitGlobalPooling(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  StringRef cls = layer.getClassName();
  const int64_t spatial = spatialRankOf(cls);
  if (Error e = c.weights.expect({}))
    return std::move(e);
  Expected<bool> keepdims = layer.getBoolOr("keepdims", false);
  if (!keepdims)
    return keepdims.takeError();
  Expected<std::pair<Value, bool>> in = channelsLastInput(c, spatial);
  if (!in)
    return in.takeError();
  auto [x, permuted] = *in;
  Type type = tensorType(c.builder, shapes::globalPooling(shapeOf(x), *keepdims));
  bool isMax = cls.starts_with("GlobalMax");
  Value y;
  if (spatial == 2 && isMax)
    y = GlobalMaxPool2DOp::create(c.builder, c.loc, type, x, *keepdims);
  else if (spatial == 2)
    y = GlobalAvgPool2DOp::create(c.builder, c.loc, type, x, *keepdims);
  else if (isMax)
    y = GlobalMaxPool3DOp::create(c.builder, c.loc, type, x, *keepdims);
  else
    y = GlobalAvgPool3DOp::create(c.builder, c.loc, type, x, *keepdims);
  // Without keepdims the result (batch, channels) has no layout.
  return permuted && *keepdims ? toChannelsFirst(c, y) : y;
}

} // namespace seq::keras

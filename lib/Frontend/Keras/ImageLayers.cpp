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

Expected<Value> emitConvolution(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  const int64_t spatial = spatialRankOf(layer.getClassName());
  Expected<int64_t> filters = layer.getSize("filters");
  Expected<ConvWindow> window = convWindow(layer, spatial, /*allowCausal=*/false);
  Expected<int64_t> groups = layer.getSizeOr("groups", 1);
  Expected<bool> useBias = layer.getBoolOr("use_bias", true);
  Expected<ActivationSpec> act =
      parseActivation(c.builder, layer, "activation", "linear", c.version.major);
  if (Error e = firstError(filters, window, groups, useBias, act))
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
  SmallVector<int64_t> kernelShape(window->kernel);
  kernelShape.append({channels / *groups, *filters});
  auto params = c.weights.kernelAndBias(kernelShape, *useBias);
  if (!params)
    return params.takeError();
  SmallVector<int64_t> out = shapes::convolution(xs, window->kernel, window->strides,
                                                 window->dilations, window->padding,
                                                 *filters);
  if (Error e = requireWindowsFit(layer, xs, out, "kernel span"))
    return std::move(e);
  Type type = tensorType(c.builder, out);
  auto stridesAttr = c.builder.getDenseI64ArrayAttr(window->strides);
  auto dilationsAttr = c.builder.getDenseI64ArrayAttr(window->dilations);
  Value y =
      spatial == 2
          ? Conv2DOp::create(c.builder, c.loc, type, x, params->first,
                             params->second, stridesAttr, dilationsAttr,
                             *groups, window->padding, act->kind, act->alpha)
                .getResult()
          : Conv3DOp::create(c.builder, c.loc, type, x, params->first,
                             params->second, stridesAttr, dilationsAttr,
                             *groups, window->padding, act->kind, act->alpha)
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

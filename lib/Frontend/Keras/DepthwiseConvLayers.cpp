//===- DepthwiseConvLayers.cpp - DepthwiseConv1D/2D, SeparableConv1D/2D ---===//
//
// A depthwise convolution is seq.conv2d with one group per input channel:
// Keras' depthwise kernel (k..., C, M) holds, in the same order, the grouped
// kernel (k..., 1, C*M) whose filter c*M + m reads channel c only. A
// separable convolution is that depthwise conv2d ("<layer>/depthwise", no
// bias, linear) followed by a 1x1 seq.conv2d with the pointwise kernel, the
// bias and the activation (at the layer's name). The 1-D layers run as 2-D
// with one column: seq.reshape (batch, time, C) -> (batch, time, 1, C)
// ("<layer>/to_2d") and back ("<layer>/to_1d"), as TensorFlow itself does;
// SeparableConv1D's causal padding is a seq.zero_padding in front.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

namespace {

Location partLoc(EmitContext &c, StringRef part) {
  return layerLoc(c.builder, c.layer.getName() + "/" + part.str());
}

Value conv2d(EmitContext &c, Location loc, Value x, Value kernel, Value bias,
             ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
             int64_t groups, Padding padding, Activation activation,
             FloatAttr alpha) {
  ArrayRef<int64_t> k = shapeOf(kernel);
  SmallVector<int64_t> out = shapes::convolution(
      shapeOf(x), k.take_front(2), strides, dilations, padding, k.back());
  return Conv2DOp::create(c.builder, loc, tensorType(c.builder, out), x, kernel,
                          bias, c.builder.getDenseI64ArrayAttr(strides),
                          c.builder.getDenseI64ArrayAttr(dilations), groups,
                          padding, activation, alpha)
      .getResult();
}

} // namespace

Expected<Value> emitDepthwiseConvolution(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  StringRef cls = layer.getClassName();
  const int64_t spatial = spatialRankOf(cls);
  const bool separable = cls.starts_with("Separable");
  SmallVector<int64_t> ones(spatial, 1);
  Expected<int64_t> filters =
      separable ? layer.getSize("filters") : Expected<int64_t>(0);
  // tf_keras' SeparableConv1D also pads causally; Keras refuses it elsewhere.
  Expected<ConvWindow> window =
      convWindow(layer, spatial, /*allowCausal=*/separable && spatial == 1);
  Expected<int64_t> multiplier = layer.getSizeOr("depth_multiplier", 1);
  Expected<bool> useBias = layer.getBoolOr("use_bias", true);
  Expected<ActivationSpec> act =
      parseActivation(c.builder, layer, "activation", "linear", c.version.major);
  if (Error e = firstError(filters, window, multiplier, useBias, act))
    return std::move(e);
  const SmallVector<int64_t> &kernel = window->kernel;
  Expected<std::pair<Value, bool>> in = channelsLastInput(c, spatial);
  if (!in)
    return in.takeError();
  auto [x, permuted] = *in;
  Expected<int64_t> channelsOr = staticChannels(layer, x);
  if (!channelsOr)
    return channelsOr.takeError();
  const int64_t channels = *channelsOr, depth = channels * *multiplier;

  std::vector<StringRef> roles = {"depthwise_kernel"};
  if (separable)
    roles.push_back("pointwise_kernel");
  if (*useBias)
    roles.push_back("bias");
  if (Error e = c.weights.expect(roles))
    return std::move(e);

  ArrayRef<int64_t> xs = shapeOf(x);
  SmallVector<int64_t> out = shapes::convolution(
      xs, kernel, window->strides, window->dilations, window->padding, depth);
  if (Error e = requireWindowsFit(layer, xs, out, "kernel span"))
    return std::move(e);

  // The 2-D form: 1-D layers gain a column axis of size 1.
  SmallVector<int64_t> kernel2d(kernel), strides2d(window->strides),
      dilations2d(window->dilations);
  Padding padding2d = window->padding;
  if (spatial == 1) {
    kernel2d.push_back(1);
    strides2d.push_back(1);
    dilations2d.push_back(1);
    x = reshapeTo(c, x, {targetSize(xs[1]), 1, channels}, "to_2d");
    if (padding2d == Padding::Causal) {
      x = causalPadding(c, x, window->dilations[0] * (kernel[0] - 1));
      padding2d = Padding::Valid;
    }
  }
  SmallVector<int64_t> fileShape(kernel), groupedShape(kernel2d);
  fileShape.append({channels, *multiplier});
  groupedShape.append({1, depth});
  Expected<Value> depthwise =
      c.weights.next("depthwise_kernel", fileShape, groupedShape);
  if (!depthwise)
    return depthwise.takeError();
  Value pointwise;
  if (separable) {
    SmallVector<int64_t> pointShape(ones);
    pointShape.append({depth, *filters});
    Expected<Value> p =
        c.weights.next("pointwise_kernel", pointShape, {1, 1, depth, *filters});
    if (!p)
      return p.takeError();
    pointwise = *p;
  }
  Value bias;
  if (*useBias) {
    Expected<Value> b = c.weights.next("bias", {separable ? *filters : depth});
    if (!b)
      return b.takeError();
    bias = *b;
  }

  Value y;
  if (separable) {
    Value d = conv2d(c, partLoc(c, "depthwise"), x, *depthwise, Value(),
                     strides2d, dilations2d, channels, padding2d,
                     Activation::Linear, nullptr);
    y = conv2d(c, c.loc, d, pointwise, bias, {1, 1}, {1, 1}, 1, Padding::Valid,
               act->kind, act->alpha);
  } else {
    y = conv2d(c, c.loc, x, *depthwise, bias, strides2d, dilations2d, channels,
               padding2d, act->kind, act->alpha);
  }
  if (spatial == 1) {
    ArrayRef<int64_t> ys = shapeOf(y);
    y = reshapeTo(c, y, {targetSize(ys[1]), ys[3]}, "to_1d");
  }
  return permuted ? toChannelsFirst(c, y) : y;
}

} // namespace seq::keras

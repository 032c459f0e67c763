//===- Conv1DLayers.cpp - Conv1D ------------------------------------------===//
//
// Conv1D is seq.conv1d (valid, same or causal padding; strides; dilation).
// With groups > 1 it runs as a grouped seq.conv2d of one column, as the
// depthwise convolutions do: seq.reshape (batch, time, C) -> (batch, time,
// 1, C) ("<layer>/to_2d"), causal padding as a seq.zero_padding in front,
// the kernel (width, C / groups, filters) read as (width, 1, C / groups,
// filters), and back ("<layer>/to_1d"). A channels_first layer is permuted
// to channels last and back, like the 2-D layers.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

Expected<Value> emitConv1D(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  Expected<int64_t> filters = layer.getSize("filters");
  Expected<ConvWindow> window = convWindow(layer, 1, /*allowCausal=*/true);
  Expected<int64_t> groups = layer.getSizeOr("groups", 1);
  Expected<bool> useBias = layer.getBoolOr("use_bias", true);
  Expected<ActivationSpec> act =
      parseActivation(c.builder, layer, "activation", "linear", c.version.major);
  if (Error e = firstError(filters, window, groups, useBias, act))
    return std::move(e);
  Expected<std::pair<Value, bool>> in = channelsLastInput(c, 1);
  if (!in)
    return in.takeError();
  auto [x, permuted] = *in;
  ArrayRef<int64_t> xs = shapeOf(x);
  const int64_t w = window->kernel[0], s = window->strides[0], d = window->dilations[0];
  const Padding padding = window->padding;
  int64_t length = shapes::conv1dLength(xs[1], w, s, d, padding);
  if (length == 0)
    return layer.error("the kernel span is longer than the " + Twine(xs[1]) +
                       " timesteps of its input");
  Type type = tensorType(c.builder, {xs[0], length, *filters});

  Value y;
  if (*groups == 1) {
    auto params = c.weights.kernelAndBias({w, xs[2], *filters}, *useBias);
    if (!params)
      return params.takeError();
    y = Conv1DOp::create(c.builder, c.loc, type, x, params->first,
                         params->second, s, d, padding, act->kind, act->alpha)
            .getResult();
    return permuted ? toChannelsFirst(c, y) : y;
  }

  Expected<int64_t> channels = staticChannels(layer, x);
  if (!channels)
    return channels.takeError();
  if (*channels % *groups != 0 || *filters % *groups != 0)
    return layer.error("groups=" + Twine(*groups) + " must divide the " +
                       Twine(*channels) + " input channels and the " +
                       Twine(*filters) + " filters");
  std::vector<StringRef> roles = {"kernel"};
  if (*useBias)
    roles.push_back("bias");
  if (Error e = c.weights.expect(roles))
    return std::move(e);
  const int64_t perGroup = *channels / *groups;
  Expected<Value> kernel = c.weights.next("kernel", {w, perGroup, *filters},
                                          {w, 1, perGroup, *filters});
  if (!kernel)
    return kernel.takeError();
  Value bias;
  if (*useBias) {
    Expected<Value> b = c.weights.next("bias", {*filters});
    if (!b)
      return b.takeError();
    bias = *b;
  }
  Value x2d = reshapeTo(c, x, {targetSize(xs[1]), 1, *channels}, "to_2d");
  Padding padding2d = padding;
  if (padding2d == Padding::Causal) {
    x2d = causalPadding(c, x2d, d * (w - 1));
    padding2d = Padding::Valid;
  }
  SmallVector<int64_t> strides2d{s, 1}, dilations2d{d, 1};
  SmallVector<int64_t> out = shapes::convolution(
      shapeOf(x2d), {w, 1}, strides2d, dilations2d, padding2d, *filters);
  y = Conv2DOp::create(c.builder, c.loc, tensorType(c.builder, out), x2d,
                       *kernel, bias, c.builder.getDenseI64ArrayAttr(strides2d),
                       c.builder.getDenseI64ArrayAttr(dilations2d), *groups,
                       padding2d, act->kind, act->alpha)
          .getResult();
  y = reshapeTo(c, y, {targetSize(out[1]), *filters}, "to_1d");
  return permuted ? toChannelsFirst(c, y) : y;
}

} // namespace seq::keras

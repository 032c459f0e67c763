//===- TransposedConvLayers.cpp - Conv1D/2D/3DTranspose ------------------===//
//
// One seq.conv_transpose{1,2,3}d per layer, channels last (a channels_first
// layer is wrapped in permutes as in ImageLayers.cpp). The kernel keeps
// Keras' layout (k..., filters, channels); the op computes the output size
// from padding and output_padding exactly as Keras does.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

namespace {

Value createTransposedConv(EmitContext &c, int64_t spatial, Type type, Value x,
                           Value kernel, Value bias, ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> dilations,
                           std::optional<SmallVector<int64_t>> outputPadding,
                           Padding padding, const ActivationSpec &act) {
  auto stridesAttr = c.builder.getDenseI64ArrayAttr(strides);
  auto dilationsAttr = c.builder.getDenseI64ArrayAttr(dilations);
  mlir::DenseI64ArrayAttr outputPaddingAttr =
      outputPadding ? c.builder.getDenseI64ArrayAttr(*outputPadding) : nullptr;
  auto create = [&](auto tag) {
    using OpTy = decltype(tag);
    return OpTy::create(c.builder, c.loc, type, x, kernel, bias, stridesAttr,
                        dilationsAttr, outputPaddingAttr, padding, act.kind,
                        act.alpha)
        .getResult();
  };
  if (spatial == 1)
    return create(ConvTranspose1DOp());
  if (spatial == 2)
    return create(ConvTranspose2DOp());
  return create(ConvTranspose3DOp());
}

} // namespace

Expected<Value> emitTransposedConvolution(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  StringRef cls = layer.getClassName();
  const int64_t spatial = spatialRankOf(cls);
  Expected<int64_t> filters = layer.getSize("filters");
  Expected<ConvWindow> window = convWindow(layer, spatial, /*allowCausal=*/false);
  Expected<int64_t> groups = layer.getSizeOr("groups", 1);
  Expected<bool> useBias = layer.getBoolOr("use_bias", true);
  Expected<ActivationSpec> act =
      parseActivation(c.builder, layer, "activation", "linear", c.version.major);
  if (Error e = firstError(filters, window, groups, useBias, act))
    return std::move(e);
  auto &[kernel, strides, dilations, padding] = *window;
  if (*groups != 1)
    return layer.error("config 'groups' is " + Twine(*groups) +
                       ": Keras runs a transposed convolution with groups=1 "
                       "only; re-save the layer with groups=1");
  // tf_keras' Conv3DTranspose accepts dilation_rate but never passes it to
  // TensorFlow: the layer computes with dilation 1, and so does its import.
  if (c.version.major == 2 && spatial == 3)
    dilations.assign(spatial, 1);
  std::optional<SmallVector<int64_t>> outputPadding;
  const llvm::json::Value *op = layer.getObject().get("output_padding");
  if (op && op->kind() != llvm::json::Value::Null) {
    Expected<SmallVector<int64_t>> sizes =
        spatialSizes(layer, "output_padding", spatial, {}, /*minimum=*/0);
    if (!sizes)
      return sizes.takeError();
    outputPadding = std::move(*sizes);
    for (int64_t i = 0; i < spatial; ++i)
      if (!shapes::transposedPaddingFits(kernel[i], strides[i],
                                         dilations[i], padding,
                                         (*outputPadding)[i]))
        return layer.error(
            "config 'output_padding' " + Twine((*outputPadding)[i]) +
            " on spatial axis " + Twine(i) + " gives an output that TensorFlow "
            "cannot run with strides " + Twine(strides[i]) + " and padding '" +
            stringifyPadding(padding) + "' (valid needs output_padding < "
            "strides, same needs 1 <= kernel span % 2 + output_padding <= "
            "strides); choose another output_padding");
  }
  Expected<std::pair<Value, bool>> in = channelsLastInput(c, spatial);
  if (!in)
    return in.takeError();
  auto [x, permuted] = *in;
  Expected<int64_t> channels = staticChannels(layer, x);
  if (!channels)
    return channels.takeError();
  std::vector<StringRef> roles = {"kernel"};
  if (*useBias)
    roles.push_back("bias");
  if (Error e = c.weights.expect(roles))
    return std::move(e);
  SmallVector<int64_t> kernelShape(kernel);
  kernelShape.append({*filters, *channels});
  Expected<Value> kernelValue = c.weights.next("kernel", kernelShape);
  if (!kernelValue)
    return kernelValue.takeError();
  Value bias;
  if (*useBias) {
    Expected<Value> biasValue = c.weights.next("bias", {*filters});
    if (!biasValue)
      return biasValue.takeError();
    bias = *biasValue;
  }
  SmallVector<int64_t> out = shapes::transposedConvolution(
      shapeOf(x), kernel, strides, dilations, padding,
      outputPadding ? ArrayRef<int64_t>(*outputPadding) : ArrayRef<int64_t>(),
      *filters);
  Value y = createTransposedConv(c, spatial, tensorType(c.builder, out), x,
                                 *kernelValue, bias, strides, dilations,
                                 outputPadding, padding, *act);
  return permuted ? toChannelsFirst(c, y) : y;
}

} // namespace seq::keras

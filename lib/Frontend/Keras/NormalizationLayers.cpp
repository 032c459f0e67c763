//===- NormalizationLayers.cpp - Group, Unit and RMS normalization --------===//
//
// Over the last axis (another one runs between two permutes, LayerEmitter):
// GroupNormalization is seq.group_norm,
// with gamma / beta filled with ones / zeros where Keras has scale=False /
// center=False (groups=-1 means one group per channel, as in Keras);
// UnitNormalization is seq.unit_norm; RMSNormalization (Keras 3) is
// seq.rms_norm.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

Expected<Value> emitGroupNormalization(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  ArrayRef<int64_t> x = shapeOf(c.input);
  if (x.size() < 2)
    return layer.error("expects an input of rank >= 2");
  if (Error e = requireLastAxis(layer, x.size()))
    return std::move(e);
  Expected<int64_t> groupsOr = layer.getIntOr("groups", 32);
  Expected<bool> center = layer.getBoolOr("center", true);
  Expected<bool> scale = layer.getBoolOr("scale", true);
  Expected<double> epsilon = layer.getDoubleOr("epsilon", 1e-3);
  if (Error e = firstError(groupsOr, center, scale, epsilon))
    return std::move(e);
  if (!(*epsilon > 0 && *epsilon < 1e30))
    return layer.error("config 'epsilon' must be a positive number, got " +
                       formatNumber(*epsilon));
  Expected<int64_t> channelsOr = staticChannels(layer, c.input);
  if (!channelsOr)
    return channelsOr.takeError();
  int64_t channels = *channelsOr;
  int64_t groups = *groupsOr == -1 ? channels : *groupsOr;
  if (groups < 1 || channels % groups != 0)
    return layer.error("config 'groups' is " + Twine(*groupsOr) +
                       ": it must divide the " + Twine(channels) +
                       " channels of its axis (or be -1, one group per "
                       "channel)");
  std::vector<StringRef> roles;
  if (*scale)
    roles.push_back("gamma");
  if (*center)
    roles.push_back("beta");
  if (Error e = c.weights.expect(roles))
    return std::move(e);
  Value gamma, beta;
  if (*scale) {
    Expected<Value> g = c.weights.next("gamma", {channels});
    if (!g)
      return g.takeError();
    gamma = *g;
  } else {
    gamma = c.weights.filled("gamma", channels, 1.0f);
  }
  if (*center) {
    Expected<Value> b = c.weights.next("beta", {channels});
    if (!b)
      return b.takeError();
    beta = *b;
  } else {
    beta = c.weights.filled("beta", channels, 0.0f);
  }
  return GroupNormOp::create(c.builder, c.loc, c.input.getType(), c.input,
                             gamma, beta, c.builder.getI64IntegerAttr(groups),
                             c.builder.getF32FloatAttr(static_cast<float>(*epsilon)))
      .getResult();
}

Expected<Value> emitUnitNormalization(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  ArrayRef<int64_t> x = shapeOf(c.input);
  if (x.size() < 2)
    return layer.error("expects an input of rank >= 2");
  if (Error e = requireLastAxis(layer, x.size()))
    return std::move(e);
  if (Error e = c.weights.expect({}))
    return std::move(e);
  return UnitNormOp::create(c.builder, c.loc, c.input.getType(), c.input)
      .getResult();
}

Expected<Value> emitRMSNormalization(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  ArrayRef<int64_t> x = shapeOf(c.input);
  if (x.size() < 2)
    return layer.error("expects an input of rank >= 2");
  if (Error e = requireLastAxis(layer, x.size()))
    return std::move(e);
  Expected<double> epsilon = layer.getDoubleOr("epsilon", 1e-6);
  if (!epsilon)
    return epsilon.takeError();
  if (!(*epsilon > 0 && *epsilon < 1e30))
    return layer.error("config 'epsilon' must be a positive number, got " +
                       formatNumber(*epsilon));
  Expected<int64_t> channels = staticChannels(layer, c.input);
  if (!channels)
    return channels.takeError();
  if (Error e = c.weights.expect({"scale"}))
    return std::move(e);
  Expected<Value> scale = c.weights.next("scale", {*channels});
  if (!scale)
    return scale.takeError();
  return RMSNormOp::create(c.builder, c.loc, c.input.getType(), c.input, *scale,
                           c.builder.getF32FloatAttr(static_cast<float>(*epsilon)))
      .getResult();
}

} // namespace seq::keras

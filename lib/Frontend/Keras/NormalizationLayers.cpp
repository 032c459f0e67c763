//===- NormalizationLayers.cpp - Group, Unit and RMS normalization --------===//
//
// Over the last axis (other axes are moved last first, below):
// GroupNormalization is seq.group_norm,
// with gamma / beta filled with ones / zeros where Keras has scale=False /
// center=False (groups=-1 means one group per channel, as in Keras);
// UnitNormalization is seq.unit_norm; RMSNormalization (Keras 3) is
// seq.rms_norm.
//
//===----------------------------------------------------------------------===//

#include "LayerEmitter.h"
#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

// A normalization over other axes than the last (BatchNormalization(axis=1)
// on channels-last images, LayerNormalization(axis=[1, 2, 3])) runs over
// the last: the axes it normalizes move last, in ascending order, and join
// into one axis; its weights (shaped like those axes, or like the input
// with ones elsewhere: tf_keras' BatchNormalization over several axes) are
// read as that one axis. Keras reshapes them onto the axes in ascending
// order whatever order the config lists, and so does this.
Expected<Value> LayerEmitter::emitNormalizationOverAxes(const LayerConfig &layer, Value input,
                                                        ArrayRef<WeightArray> arrays,
                                                        Value incomingMask,
                                                        ArrayRef<int64_t> axes) {
  if (axes.size() > 1 && layer.getClassName() == "GroupNormalization")
    return layer.error("config 'axis' names several axes: GroupNormalization groups the "
                       "channels of one axis");
  // The layer over the last axis, its weights read as that one axis.
  llvm::json::Object lastAxis = layer.getObject();
  lastAxis["axis"] = -1;
  auto overLast = [&](Value flat, int64_t joined) {
    std::vector<WeightArray> flatArrays(arrays.begin(), arrays.end());
    for (WeightArray &w : flatArrays)
      if (static_cast<int64_t>(w.data.size()) == joined)
        w.shape = {joined};
    return emitLayer(layer.withConfig(&lastAxis), flat, flatArrays, incomingMask);
  };
  return normalizeOverAxes(builder, layer.getName(), input, axes, overLast,
                           [&](const Twine &what) { return layer.error(what); });
}

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
  // tf_keras and Keras 3 before 3.6: l2_normalize's floor of the squares;
  // since: ops.normalize(epsilon=1e-12), a floor of the norm.
  float epsilon = c.version.atLeast(3, 6) ? 1e-24f : 1e-12f;
  return UnitNormOp::create(c.builder, c.loc, c.input.getType(), c.input,
                            c.builder.getF32FloatAttr(epsilon))
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

//===- InferenceIdentities.cpp - Layers that do nothing at inference ------===//
//
// Dropout, SpatialDropout1D/2D/3D, GaussianDropout, GaussianNoise,
// AlphaDropout and ActivityRegularization only act while training. Each
// becomes a seq.dropout (kept in the layer-level IR, so that --summary and
// the metadata list the layer as Keras does), which seq-strip-dropout
// removes before anything is compiled.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

Expected<Value> emitInferenceIdentity(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  if (Error e = c.weights.expect({}))
    return std::move(e);
  // The dropout layers have a rate; GaussianNoise (stddev) and
  // ActivityRegularization (l1, l2) have none.
  Expected<double> rate = layer.getDoubleOr("rate", 0.0);
  if (!rate)
    return rate.takeError();
  if (!(*rate >= 0 && *rate < 1))
    return layer.error("config 'rate' must be in [0, 1), got " +
                       formatNumber(*rate));
  return DropoutOp::create(c.builder, c.loc, c.input.getType(), c.input,
                           c.builder.getF32FloatAttr(static_cast<float>(*rate)))
      .getResult();
}

} // namespace seq::keras

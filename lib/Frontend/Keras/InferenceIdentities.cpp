//===- InferenceIdentities.cpp - Layers that do nothing at inference ------===//
//
// Dropout, SpatialDropout1D/2D/3D, GaussianDropout, GaussianNoise,
// AlphaDropout and ActivityRegularization only act while training, and so
// do the random augmentation layers (RandomFlip, RandomRotation, RandomZoom,
// RandomTranslation, RandomContrast, RandomBrightness, tf_keras'
// RandomHeight/RandomWidth, Keras 3's RandomHue, RandomShear, ..., AugMix,
// CutMix, MixUp, RandAugment, Equalization, Solarization): each returns its
// input unchanged when called with training=False, which both Kerases'
// predict does (checked against tf_keras 2.21 and Keras 3.15 on every
// class). Each becomes a seq.dropout (kept in the layer-level IR, so that
// --summary and the metadata list the layer as Keras does), which
// seq-strip-dropout removes before anything is compiled.
//
// RandomCrop differs by version: Keras 3's returns its input unchanged at
// inference, tf_keras' resizes it to (height, width) as smart_resize does
// (the largest centred window of the target aspect ratio, then bilinear).
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

Expected<Value> emitInferenceIdentity(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  if (Error e = c.weights.expect({}))
    return std::move(e);
  // The dropout layers have a rate; GaussianNoise (stddev),
  // ActivityRegularization (l1, l2) and the augmentation layers have none.
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

Expected<Value> emitRandomCrop(EmitContext &c) {
  if (c.version.major >= 3)
    return emitInferenceIdentity(c);
  return emitSmartResize(c);
}

} // namespace seq::keras

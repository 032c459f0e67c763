//===- AdaptivePoolingLayers.cpp - Keras 3's adaptive poolings ------------===//
//
// AdaptiveAveragePooling1D/2D/3D and AdaptiveMaxPooling1D/2D/3D become
// seq.adaptive_avg_pool / seq.adaptive_max_pool: `output_size` (one int for
// every spatial axis, or one per axis) is the output's spatial shape, and
// the windows follow from the input's spatial sizes, which must therefore be
// static. channels_first inputs are permuted to channels last and back.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

Expected<Value> emitAdaptivePooling(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  StringRef cls = layer.getClassName();
  const int64_t spatial = spatialRankOf(cls);
  if (Error e = c.weights.expect({}))
    return std::move(e);
  Expected<SmallVector<int64_t>> outSizes =
      spatialSizes(layer, "output_size", spatial);
  if (!outSizes)
    return outSizes.takeError();
  Expected<std::pair<Value, bool>> in = channelsLastInput(c, spatial);
  if (!in)
    return in.takeError();
  auto [x, permuted] = *in;
  ArrayRef<int64_t> xs = shapeOf(x);
  for (int64_t i = 1; i <= spatial; ++i)
    if (xs[i] == kDynamic)
      return layer.error("the input's spatial sizes must be fixed (the pooling "
                         "windows follow from them), got " + shapeText(xs) +
                         " in channels_last order: give the model a fixed "
                         "input shape (--input-shape)");
  Type type = tensorType(c.builder, shapes::resized(xs, *outSizes));
  Value y = cls.starts_with("AdaptiveMax")
                ? AdaptiveMaxPoolOp::create(c.builder, c.loc, type, x, *outSizes)
                      .getResult()
                : AdaptiveAvgPoolOp::create(c.builder, c.loc, type, x, *outSizes)
                      .getResult();
  return permuted ? toChannelsFirst(c, y) : y;
}

} // namespace seq::keras

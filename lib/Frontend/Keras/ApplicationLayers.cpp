// The layers Keras' applications define outside keras.layers
// (applicationLayerPath): ConvNeXt's LayerScale and InceptionResNetV2's
// CustomScaleLayer, read by what their code computes, as seq.batch_norm
// (x * scale + offset along the last axis) and seq.merge.
#include "LayerFamilies.h"

#include "EmitterSupport.h"
#include "LayerClasses.h"

using namespace mlir;
using llvm::Expected;
using llvm::Twine;

namespace seq::keras {

using namespace emit;

Expected<Value> emitLayerScale(EmitContext &c) {
  if (!isApplicationLayer(c.layer))
    return unsupportedLayerError(c.layer);
  // x * gamma, gamma of shape (projection_dim), over the last axis.
  Expected<int64_t> dim = c.layer.getSize("projection_dim");
  if (!dim)
    return dim.takeError();
  if (shapeOf(c.input).back() != *dim)
    return c.layer.error("its input " + shapeText(shapeOf(c.input)) + " does not end in " +
                         "projection_dim " + Twine(*dim));
  if (Error e = c.weights.expect({"gamma"}))
    return std::move(e);
  Expected<Value> gamma = c.weights.next("gamma", {*dim});
  if (!gamma)
    return gamma.takeError();
  return scaleAndShift(c.builder, c.loc, c.input, *gamma,
                       filledVector(c.builder, c.loc, *dim, 0.0));
}

Expected<Value> emitCustomScale(OpBuilder &builder, const LayerConfig &layer,
                                ArrayRef<Value> inputs) {
  if (!isApplicationLayer(layer))
    return unsupportedLayerError(layer);
  // inputs[0] + inputs[1] * scale, of one shape.
  if (!layer.has("scale"))
    return layer.error("config has no 'scale'");
  Expected<double> scale = layer.getDoubleOr("scale", 0.0);
  if (!scale)
    return scale.takeError();
  if (inputs.size() != 2 || shapeOf(inputs[0]) != shapeOf(inputs[1]))
    return layer.error("adds a scaled input to another: it takes two inputs of one shape");
  if (ShapedType::isDynamic(shapeOf(inputs[1]).back()))
    return layer.error("scales an input whose last axis has an unknown length");
  Location loc = layerLoc(builder, layer.getName());
  Value scaled = scaleAndShift(builder, loc, inputs[1], *scale, 0.0);
  return MergeOp::create(builder, loc, inputs[0].getType(), ValueRange{inputs[0], scaled},
                         MergeKind::Add)
      .getResult();
}

} // namespace seq::keras

//===- ResizingLayers.cpp - Resizing, CenterCrop, tf_keras' RandomCrop ----===//
//
// Resizing becomes a seq.resize (nearest or bilinear, half-pixel centres,
// as tf.image.resize without antialiasing); with crop_to_aspect_ratio a
// seq.cropping first keeps the largest centred window of the target's
// aspect ratio (Keras' smart_resize). CenterCrop is a seq.cropping of the
// centre when the input is at least the target size, else a bilinear smart
// resize, in both Kerases; tf_keras' RandomCrop at inference is a bilinear
// smart resize. channels_first inputs are permuted to channels last and
// back. The crop box needs the input's height and width, so they must be
// static.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

namespace {

/// The input in channels-last order with static height and width, whether
/// to permute back, and (height, width, target height, target width).
struct ImageInput {
  Value x;
  bool channelsFirst;
  int64_t height, width, targetHeight, targetWidth;
};

Expected<ImageInput> imageInput(EmitContext &c) {
  Expected<int64_t> targetHeight = c.layer.getSize("height");
  Expected<int64_t> targetWidth = c.layer.getSize("width");
  if (Error e = firstError(targetHeight, targetWidth))
    return std::move(e);
  if (Error e = c.weights.expect({}))
    return std::move(e);
  Expected<std::pair<Value, bool>> input = channelsLastInput(c, 2);
  if (!input)
    return input.takeError();
  ArrayRef<int64_t> shape = shapeOf(input->first);
  if (shape[1] == kDynamic || shape[2] == kDynamic)
    return c.layer.error("the input's height and width must be fixed, got " +
                         shapeText(shape) +
                         " in channels_last order: give the model a fixed "
                         "input shape (--input-shape)");
  return ImageInput{input->first, input->second, shape[1], shape[2],
                    *targetHeight, *targetWidth};
}

Value crop(EmitContext &c, Value x, int64_t top, int64_t left, int64_t height,
           int64_t width, Location loc) {
  ArrayRef<int64_t> in = shapeOf(x);
  if (top == 0 && left == 0 && height == in[1] && width == in[2])
    return x;
  SmallVector<int64_t> low{top, left, 0};
  SmallVector<int64_t> high{in[1] - top - height, in[2] - left - width, 0};
  auto type = tensorType(c.builder, {in[0], height, width, in[3]});
  return CroppingOp::create(c.builder, loc, type, x, low, high)
      .getResult();
}

Value resize(EmitContext &c, Value x, int64_t height, int64_t width,
             Interpolation interpolation) {
  ArrayRef<int64_t> in = shapeOf(x);
  if (in[1] == height && in[2] == width)
    return x;
  auto type = tensorType(c.builder, {in[0], height, width, in[3]});
  SmallVector<int64_t> size{height, width};
  return ResizeOp::create(c.builder, c.loc, type, x, size, interpolation)
      .getResult();
}

/// Keras' smart_resize: the largest centred window of the target's aspect
/// ratio (sizes computed in float32 as Keras does), resized to the target.
Value smartResize(EmitContext &c, const ImageInput &image,
                  Interpolation interpolation) {
  auto truncate = [](int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<float>(a) / static_cast<float>(b));
  };
  int64_t cropHeight = std::max<int64_t>(
      std::min(image.height, truncate(image.width * image.targetHeight,
                                      image.targetWidth)),
      1);
  int64_t cropWidth = std::max<int64_t>(
      std::min(image.width, truncate(image.height * image.targetWidth,
                                     image.targetHeight)),
      1);
  // The layer's last op carries its location: the resize, or the crop when
  // the window is already the target's size.
  bool resizes = cropHeight != image.targetHeight || cropWidth != image.targetWidth;
  Value x = crop(c, image.x, truncate(image.height - cropHeight, 2),
                 truncate(image.width - cropWidth, 2), cropHeight, cropWidth,
                 resizes ? layerLoc(c.builder, c.layer.getName() + "/crop") : c.loc);
  return resize(c, x, image.targetHeight, image.targetWidth, interpolation);
}

Value finish(EmitContext &c, const ImageInput &image, Value y) {
  if (y == image.x) // nothing to do: keep the layer as an identity
    y = DropoutOp::create(c.builder, c.loc, y.getType(), y,
                          c.builder.getF32FloatAttr(0.0f))
            .getResult();
  return image.channelsFirst ? toChannelsFirst(c, y) : y;
}

} // namespace

Expected<Value> emitResizing(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  Expected<std::string> method = layer.getStringOr("interpolation", "bilinear");
  Expected<bool> cropToAspect = layer.getBoolOr("crop_to_aspect_ratio", false);
  Expected<bool> padToAspect = layer.getBoolOr("pad_to_aspect_ratio", false);
  Expected<bool> antialias = layer.getBoolOr("antialias", false);
  if (Error e = firstError(method, cropToAspect, padToAspect, antialias))
    return std::move(e);
  if (*method != "nearest" && *method != "bilinear")
    return layer.error("interpolation '" + *method +
                       "' is not supported, only nearest and bilinear: "
                       "re-save the model with one of them");
  if (*antialias && *method == "bilinear")
    return layer.error("antialias=True is not supported: re-save the model "
                       "with antialias=False (the same for upscaling only "
                       "by approximation) or resize the images beforehand");
  if (*padToAspect)
    return layer.error("pad_to_aspect_ratio=True is not supported: pad the "
                       "images beforehand, or use crop_to_aspect_ratio");
  Expected<ImageInput> image = imageInput(c);
  if (!image)
    return image.takeError();
  Interpolation interpolation =
      *method == "nearest" ? Interpolation::Nearest : Interpolation::Bilinear;
  Value y = *cropToAspect
                ? smartResize(c, *image, interpolation)
                : resize(c, image->x, image->targetHeight, image->targetWidth,
                         interpolation);
  return finish(c, *image, y);
}

Expected<Value> emitCenterCrop(EmitContext &c) {
  Expected<ImageInput> image = imageInput(c);
  if (!image)
    return image.takeError();
  int64_t dh = image->height - image->targetHeight;
  int64_t dw = image->width - image->targetWidth;
  Value y = dh >= 0 && dw >= 0
                ? crop(c, image->x, dh / 2, dw / 2, image->targetHeight,
                       image->targetWidth, c.loc)
                : smartResize(c, *image, Interpolation::Bilinear);
  return finish(c, *image, y);
}

Expected<Value> emitSmartResize(EmitContext &c) {
  Expected<ImageInput> image = imageInput(c);
  if (!image)
    return image.takeError();
  return finish(c, *image,
                smartResize(c, *image, Interpolation::Bilinear));
}

} // namespace seq::keras

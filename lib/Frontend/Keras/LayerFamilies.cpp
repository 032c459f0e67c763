#include "LayerFamilies.h"

#include "llvm/ADT/StringMap.h"

namespace seq::keras {

namespace {
const llvm::StringMap<FamilyEmitter> &familyTable() {
  static const llvm::StringMap<FamilyEmitter> families = {
      {"Conv1D", emitConv1D},
      {"Conv2D", emitConvolution},
      {"Conv3D", emitConvolution},
      {"ConvLSTM1D", emitConvLSTM},
      {"ConvLSTM2D", emitConvLSTM},
      {"ConvLSTM3D", emitConvLSTM},
      {"Conv1DTranspose", emitTransposedConvolution},
      {"Conv2DTranspose", emitTransposedConvolution},
      {"Conv3DTranspose", emitTransposedConvolution},
      {"DepthwiseConv1D", emitDepthwiseConvolution},
      {"DepthwiseConv2D", emitDepthwiseConvolution},
      {"SeparableConv1D", emitDepthwiseConvolution},
      {"SeparableConv2D", emitDepthwiseConvolution},
      {"GroupNormalization", emitGroupNormalization},
      {"UnitNormalization", emitUnitNormalization},
      {"RMSNormalization", emitRMSNormalization},
      {"MaxPooling2D", emitPooling},
      {"MaxPool2D", emitPooling},
      {"MaxPooling3D", emitPooling},
      {"MaxPool3D", emitPooling},
      {"AveragePooling2D", emitPooling},
      {"AvgPool2D", emitPooling},
      {"AveragePooling3D", emitPooling},
      {"AvgPool3D", emitPooling},
      {"GlobalMaxPooling2D", emitGlobalPooling},
      {"GlobalMaxPool2D", emitGlobalPooling},
      {"GlobalMaxPooling3D", emitGlobalPooling},
      {"GlobalMaxPool3D", emitGlobalPooling},
      {"GlobalAveragePooling2D", emitGlobalPooling},
      {"GlobalAvgPool2D", emitGlobalPooling},
      {"GlobalAveragePooling3D", emitGlobalPooling},
      {"GlobalAvgPool3D", emitGlobalPooling},
      {"AdaptiveAveragePooling1D", emitAdaptivePooling},
      {"AdaptiveAveragePooling2D", emitAdaptivePooling},
      {"AdaptiveAveragePooling3D", emitAdaptivePooling},
      {"AdaptiveMaxPooling1D", emitAdaptivePooling},
      {"AdaptiveMaxPooling2D", emitAdaptivePooling},
      {"AdaptiveMaxPooling3D", emitAdaptivePooling},
      {"ZeroPadding1D", emitPadOrCrop},
      {"ZeroPadding2D", emitPadOrCrop},
      {"ZeroPadding3D", emitPadOrCrop},
      {"Cropping1D", emitPadOrCrop},
      {"Cropping2D", emitPadOrCrop},
      {"Cropping3D", emitPadOrCrop},
      {"UpSampling1D", emitUpSampling},
      {"UpSampling2D", emitUpSampling},
      {"UpSampling3D", emitUpSampling},
      {"Rescaling", emitRescaling},
      {"Normalization", emitNormalization},
      {"Discretization", emitDiscretization},
      {"CategoryEncoding", emitCategoryEncoding},
      {"Resizing", emitResizing},
      {"CenterCrop", emitCenterCrop},
      {"Permute", emitPermute},
      {"EinsumDense", emitEinsumDense},
      {"Flatten", emitFlatten},
      {"Dropout", emitInferenceIdentity},
      {"SpatialDropout1D", emitInferenceIdentity},
      {"SpatialDropout2D", emitInferenceIdentity},
      {"SpatialDropout3D", emitInferenceIdentity},
      {"GaussianDropout", emitInferenceIdentity},
      {"GaussianNoise", emitInferenceIdentity},
      {"AlphaDropout", emitInferenceIdentity},
      {"ActivityRegularization", emitInferenceIdentity},
      {"RandomFlip", emitInferenceIdentity},
      {"RandomRotation", emitInferenceIdentity},
      {"RandomZoom", emitInferenceIdentity},
      {"RandomTranslation", emitInferenceIdentity},
      {"RandomContrast", emitInferenceIdentity},
      {"RandomBrightness", emitInferenceIdentity},
      {"RandomHeight", emitInferenceIdentity},
      {"RandomWidth", emitInferenceIdentity},
      {"RandomColorDegeneration", emitInferenceIdentity},
      {"RandomColorJitter", emitInferenceIdentity},
      {"RandomElasticTransform", emitInferenceIdentity},
      {"RandomErasing", emitInferenceIdentity},
      {"RandomGaussianBlur", emitInferenceIdentity},
      {"RandomGrayscale", emitInferenceIdentity},
      {"RandomHue", emitInferenceIdentity},
      {"RandomInvert", emitInferenceIdentity},
      {"RandomPerspective", emitInferenceIdentity},
      {"RandomPosterization", emitInferenceIdentity},
      {"RandomSaturation", emitInferenceIdentity},
      {"RandomSharpness", emitInferenceIdentity},
      {"RandomShear", emitInferenceIdentity},
      {"AugMix", emitInferenceIdentity},
      {"CutMix", emitInferenceIdentity},
      {"MixUp", emitInferenceIdentity},
      {"RandAugment", emitInferenceIdentity},
      {"Equalization", emitInferenceIdentity},
      {"Solarization", emitInferenceIdentity},
      {"RandomCrop", emitRandomCrop},
      {"LayerScale", emitLayerScale},
  };
  return families;
}
} // namespace

FamilyEmitter findLayerFamily(llvm::StringRef className) {
  const llvm::StringMap<FamilyEmitter> &families = familyTable();
  auto it = families.find(className);
  return it == families.end() ? nullptr : it->second;
}

std::vector<std::string> layerFamilyClasses() {
  std::vector<std::string> names;
  for (const auto &entry : familyTable())
    names.push_back(entry.getKey().str());
  return names;
}

namespace emit {

Expected<bool> channelsFirst(const LayerConfig &layer) {
  Expected<std::string> format = layer.getStringOr("data_format", "channels_last");
  if (!format)
    return format.takeError();
  if (*format == "channels_last")
    return false;
  if (*format == "channels_first")
    return true;
  return layer.error("config 'data_format' must be channels_last or "
                     "channels_first, got '" + *format + "'");
}

Value permuteAxes(EmitContext &context, Value x, ArrayRef<int64_t> dims,
                  StringRef part) {
  return permuteAxes(context.builder,
                     layerLoc(context.builder, context.layer.getName() + "/" + part.str()), x,
                     dims);
}

Value toChannelsLast(EmitContext &context, Value x) {
  int64_t rank = shapeOf(x).size();
  SmallVector<int64_t> dims;
  for (int64_t i = 2; i < rank; ++i)
    dims.push_back(i);
  dims.push_back(1);
  return permuteAxes(context, x, dims, "channels_last");
}

Value toChannelsFirst(EmitContext &context, Value x) {
  int64_t rank = shapeOf(x).size();
  SmallVector<int64_t> dims{rank - 1};
  for (int64_t i = 1; i + 1 < rank; ++i)
    dims.push_back(i);
  return permuteAxes(context, x, dims, "channels_first");
}


namespace {
constexpr int64_t kMaxSize = (int64_t(1) << 31) - 1;
} // namespace

int64_t spatialRankOf(StringRef className) {
  if (className.contains("1D"))
    return 1;
  return className.contains("3D") ? 3 : 2;
}

Expected<SmallVector<int64_t>> spatialSizes(const LayerConfig &layer,
                                            StringRef key, int64_t n,
                                            ArrayRef<int64_t> fallback,
                                            int64_t minimum) {
  const llvm::json::Value *value = layer.getObject().get(key);
  if (!value || value->kind() == llvm::json::Value::Null) {
    if (fallback.empty())
      return layer.error("config has no '" + key + "'");
    return SmallVector<int64_t>(fallback);
  }
  SmallVector<int64_t> sizes;
  if (std::optional<int64_t> one = value->getAsInteger()) {
    sizes.assign(n, *one);
  } else if (const llvm::json::Array *list = value->getAsArray()) {
    for (const llvm::json::Value &e : *list) {
      std::optional<int64_t> size = e.getAsInteger();
      if (!size)
        break;
      sizes.push_back(*size);
    }
    if (static_cast<int64_t>(sizes.size()) != n ||
        static_cast<int64_t>(list->size()) != n)
      return layer.error("config '" + key + "' must be an integer or a list of " +
                         Twine(n) + " integers");
  } else {
    return layer.error("config '" + key + "' must be an integer or a list of " +
                       Twine(n) + " integers");
  }
  for (int64_t size : sizes)
    if (size < minimum || size > kMaxSize)
      return layer.error("config '" + key + "' must hold sizes in [" +
                         Twine(minimum) + ", " + Twine(kMaxSize) + "], got " +
                         Twine(size));
  return sizes;
}

Expected<ConvWindow> convWindow(const LayerConfig &layer, int64_t spatial,
                                bool allowCausal) {
  SmallVector<int64_t> ones(spatial, 1);
  Expected<SmallVector<int64_t>> kernel = spatialSizes(layer, "kernel_size", spatial);
  Expected<SmallVector<int64_t>> strides = spatialSizes(layer, "strides", spatial, ones);
  Expected<SmallVector<int64_t>> dilations =
      spatialSizes(layer, "dilation_rate", spatial, ones);
  Expected<Padding> padding = parsePadding(layer, allowCausal);
  if (Error e = firstError(kernel, strides, dilations, padding))
    return std::move(e);
  return ConvWindow{std::move(*kernel), std::move(*strides), std::move(*dilations),
                    *padding};
}

Error requireWindowsFit(const LayerConfig &layer, ArrayRef<int64_t> input,
                        ArrayRef<int64_t> output, StringRef window) {
  for (size_t i = 1; i + 1 < output.size(); ++i)
    if (output[i] == 0)
      return layer.error("the " + window + " along spatial axis " +
                         Twine(i - 1) + " is larger than the input's " +
                         Twine(input[i]) + " (input shape " + shapeText(input) +
                         " in channels_last order)");
  return Error::success();
}

Expected<std::pair<Value, bool>> channelsLastInput(EmitContext &c,
                                                   int64_t spatial) {
  if (Error e = requireRank(c.layer, c.input, spatial + 2))
    return std::move(e);
  Expected<bool> first = channelsFirst(c.layer);
  if (!first)
    return first.takeError();
  return std::make_pair(*first ? toChannelsLast(c, c.input) : c.input, *first);
}

Value reshapeTo(EmitContext &c, Value x, ArrayRef<int64_t> target,
                StringRef part) {
  return reshapeAxes(c.builder, layerLoc(c.builder, c.layer.getName() + "/" + part.str()), x,
                     target);
}

Value causalPadding(EmitContext &c, Value x, int64_t left) {
  SmallVector<int64_t> low(shapeOf(x).size() - 1, 0), high(low);
  low[0] = left;
  return ZeroPaddingOp::create(
             c.builder,
             layerLoc(c.builder, c.layer.getName() + "/causal_padding"),
             tensorType(c.builder, shapes::padded(shapeOf(x), low, high)), x,
             c.builder.getDenseI64ArrayAttr(low),
             c.builder.getDenseI64ArrayAttr(high))
      .getResult();
}

Expected<int64_t> staticChannels(const LayerConfig &layer, Value x) {
  int64_t channels = shapeOf(x).back();
  if (channels == kDynamic)
    return layer.error("the input's channel axis has no fixed size: give the "
                       "model a fixed input shape (--input-shape)");
  return channels;
}

} // namespace emit

} // namespace seq::keras

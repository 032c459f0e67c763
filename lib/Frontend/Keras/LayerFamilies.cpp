#include "LayerFamilies.h"

#include "llvm/ADT/StringMap.h"

namespace seq::keras {

FamilyEmitter findLayerFamily(llvm::StringRef className) {
  static const llvm::StringMap<FamilyEmitter> families = {
      {"Conv2D", emitConvolution},
      {"Conv3D", emitConvolution},
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
      {"ZeroPadding1D", emitPadOrCrop},
      {"ZeroPadding2D", emitPadOrCrop},
      {"ZeroPadding3D", emitPadOrCrop},
      {"Cropping1D", emitPadOrCrop},
      {"Cropping2D", emitPadOrCrop},
      {"Cropping3D", emitPadOrCrop},
      {"UpSampling1D", emitUpSampling},
      {"UpSampling2D", emitUpSampling},
      {"UpSampling3D", emitUpSampling},
      {"Permute", emitPermute},
      {"Flatten", emitFlatten},
      {"Dropout", emitInferenceIdentity},
      {"SpatialDropout1D", emitInferenceIdentity},
      {"SpatialDropout2D", emitInferenceIdentity},
      {"SpatialDropout3D", emitInferenceIdentity},
      {"GaussianDropout", emitInferenceIdentity},
      {"GaussianNoise", emitInferenceIdentity},
      {"AlphaDropout", emitInferenceIdentity},
      {"ActivityRegularization", emitInferenceIdentity},
  };
  auto it = families.find(className);
  return it == families.end() ? nullptr : it->second;
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
  auto type = tensorType(context.builder, shapes::permuted(shapeOf(x), dims));
  return PermuteOp::create(context.builder,
                           layerLoc(context.builder,
                                    context.layer.getName() + "/" + part.str()),
                           type, x, dims)
      .getResult();
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

} // namespace emit

} // namespace seq::keras

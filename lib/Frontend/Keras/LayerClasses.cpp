#include "LayerClasses.h"

#include "NestedModels.h"

#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace seq::keras {

StringRef pythonClassName(StringRef className) {
  if (className.starts_with("keras.applications.") || className.starts_with("keras_hub."))
    return className.rsplit('.').second;
  return className == "GroupQueryAttention" ? StringRef("GroupedQueryAttention")
                                            : className;
}

namespace {
struct ApplicationLayer {
  /// `module` within the Keras package: Keras 3 records
  /// "keras.src.applications.convnext", tf_keras "tf_keras.src.applications..."
  /// (to_json), tf.keras 2.13-2.15 "keras.src.applications...".
  StringRef className, module, path;
  ArrayRef<StringRef> configKeys; // beside name, trainable and dtype
};

ArrayRef<ApplicationLayer> applicationLayers() {
  static const StringRef layerScaleKeys[] = {"init_values", "projection_dim"};
  static const StringRef customScaleKeys[] = {"scale"};
  // The decoder's keys are the encoder's and the two shapes it was built for.
  static const StringRef decoderKeys[] = {
      "intermediate_dim",   "num_heads",          "dropout",          "activation",
      "layer_norm_epsilon", "kernel_initializer", "bias_initializer", "normalize_first",
      "decoder_sequence_shape", "encoder_sequence_shape"};
  static const ArrayRef<StringRef> encoderKeys = ArrayRef(decoderKeys).drop_back(2);
  static const StringRef tokenAndPositionKeys[] = {
      "vocabulary_size", "sequence_length", "embedding_dim", "embeddings_initializer",
      "tie_weights",     "mask_zero"};
  static const ApplicationLayer layers[] = {
      {"LayerScale", "applications.convnext", "keras.applications.convnext.LayerScale",
       layerScaleKeys},
      {"CustomScaleLayer", "applications.inception_resnet_v2",
       "keras.applications.inception_resnet_v2.CustomScaleLayer", customScaleKeys},
      // keras_hub (formerly keras_nlp): KerasHubLayers.cpp.
      {"TransformerEncoder", "layers.modeling.transformer_encoder",
       "keras_hub.layers.TransformerEncoder", encoderKeys},
      {"TransformerDecoder", "layers.modeling.transformer_decoder",
       "keras_hub.layers.TransformerDecoder", decoderKeys},
      {"TokenAndPositionEmbedding", "layers.modeling.token_and_position_embedding",
       "keras_hub.layers.TokenAndPositionEmbedding", tokenAndPositionKeys},
  };
  return layers;
}
} // namespace

std::optional<StringRef> applicationLayerPath(const json::Object &entry) {
  StringRef cls = entry.getString("class_name").value_or("");
  // tf_keras registers InceptionResNetV2's under its default package.
  if (cls == "Custom>CustomScaleLayer")
    cls = "CustomScaleLayer";
  std::optional<StringRef> module = entry.getString("module");
  if (module)
    for (StringRef package :
         {"tf_keras.src.", "keras.src.", "tf_keras.", "keras.", "keras_hub.src.", "keras_nlp.src."})
      if (module->consume_front(package))
        break;
  const json::Object *config = entry.getObject("config");
  for (const ApplicationLayer &app : applicationLayers()) {
    if (cls != app.className || (module && *module != app.module) || !config)
      continue;
    bool ownKeys = llvm::all_of(app.configKeys, [&](StringRef k) { return config->get(k); });
    for (const auto &kv : *config) {
      StringRef key = kv.first;
      ownKeys = ownKeys && (key == "name" || key == "trainable" || key == "dtype" ||
                            llvm::is_contained(app.configKeys, key));
    }
    if (ownKeys)
      return app.path;
  }
  return std::nullopt;
}

bool isApplicationLayer(const LayerConfig &layer) {
  return llvm::any_of(applicationLayers(), [&](const ApplicationLayer &app) {
    return layer.getClassName() == app.className && layer.getSourceClassName() == app.path;
  });
}

bool isRecurrentLayerClass(StringRef className) {
  return className == "LSTM" || className == "GRU" ||
         className == "SimpleRNN" || className == "Bidirectional" ||
         className == "RNN";
}

bool usesTimestepMask(StringRef className) {
  return isRecurrentLayerClass(className) ||
         className == "GlobalAveragePooling1D" || className == "GlobalAvgPool1D";
}

bool passesMaskThrough(StringRef className, int kerasMajor) {
  // tf_keras' preprocessing layers, Identity and GroupNormalization drop it.
  static const StringSet<> droppedByKeras2 = {"Rescaling", "Normalization", "Identity",
                                              "GroupNormalization"};
  if (kerasMajor < 3 && droppedByKeras2.contains(className))
    return false;
  static const StringSet<> through = {
      "Dense", "Activation", "ReLU", "LeakyReLU", "PReLU", "ELU",
      "ThresholdedReLU", "Dropout", "SpatialDropout1D", "GaussianDropout",
      "GaussianNoise", "AlphaDropout", "ActivityRegularization",
      "BatchNormalization", "LayerNormalization", "GroupNormalization",
      "UnitNormalization", "Rescaling", "Normalization", "Identity",
      "TimeDistributed", "SpectralNormalization"};
  return through.contains(className);
}

bool normalizesOverAxis(StringRef className) {
  static const StringSet<> normalizations = {
      "BatchNormalization", "LayerNormalization", "GroupNormalization",
      "UnitNormalization", "RMSNormalization"};
  return normalizations.contains(className);
}

bool isBuiltinLayerClass(StringRef className) {
  static const StringSet<> builtins = {
      // Core.
      "InputLayer", "Dense", "EinsumDense", "Activation", "Embedding", "Masking",
      "Lambda", "Identity", "Sequential", "Functional", "Model",
      // Convolution (and the Keras 2 aliases).
      "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
      "Conv3DTranspose", "SeparableConv1D", "SeparableConv2D", "DepthwiseConv1D",
      "DepthwiseConv2D", "Convolution1D", "Convolution2D", "Convolution3D",
      "Convolution2DTranspose", "Convolution3DTranspose",
      "SeparableConvolution1D", "SeparableConvolution2D", "ConvLSTM1D",
      "ConvLSTM2D", "ConvLSTM3D", "LocallyConnected1D", "LocallyConnected2D",
      // Pooling.
      "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D",
      "AveragePooling2D", "AveragePooling3D", "MaxPool1D", "MaxPool2D",
      "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalMaxPooling1D",
      "GlobalMaxPooling2D", "GlobalMaxPooling3D", "GlobalAveragePooling1D",
      "GlobalAveragePooling2D", "GlobalAveragePooling3D", "GlobalMaxPool1D",
      "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D", "GlobalAvgPool2D",
      "GlobalAvgPool3D", "AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D",
      "AdaptiveAveragePooling3D", "AdaptiveMaxPooling1D", "AdaptiveMaxPooling2D",
      "AdaptiveMaxPooling3D",
      // Recurrent.
      "RNN", "SimpleRNN", "GRU", "LSTM", "SimpleRNNCell", "GRUCell", "LSTMCell",
      "StackedRNNCells", "Bidirectional", "TimeDistributed", "CuDNNLSTM",
      "CuDNNGRU", "PeepholeLSTMCell",
      // Normalization and regularization.
      "BatchNormalization", "LayerNormalization", "GroupNormalization",
      "UnitNormalization", "SpectralNormalization", "RMSNormalization",
      "SyncBatchNormalization", "Dropout", "SpatialDropout1D",
      "SpatialDropout2D", "SpatialDropout3D", "GaussianDropout", "GaussianNoise",
      "AlphaDropout", "ActivityRegularization",
      // Attention.
      "Attention", "AdditiveAttention", "MultiHeadAttention",
      "GroupedQueryAttention", "GroupQueryAttention",
      // Shape.
      "Reshape", "Flatten", "RepeatVector", "Permute", "Cropping1D",
      "Cropping2D", "Cropping3D", "UpSampling1D", "UpSampling2D", "UpSampling3D",
      "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D",
      // Merging.
      "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum",
      "Concatenate", "Dot",
      // Activation layers.
      "ReLU", "Softmax", "LeakyReLU", "PReLU", "ELU", "ThresholdedReLU",
      // Preprocessing.
      "TextVectorization", "Normalization", "Discretization",
      "CategoryEncoding", "Hashing", "HashedCrossing", "StringLookup",
      "IntegerLookup", "Resizing", "Rescaling", "CenterCrop", "RandomCrop",
      "RandomFlip", "RandomTranslation", "RandomRotation", "RandomZoom",
      "RandomHeight", "RandomWidth", "RandomContrast", "RandomBrightness",
      "AutoContrast", "Solarization", "RandomColorJitter", "RandomGrayscale",
      "RandomHue", "RandomSaturation", "RandomSharpness", "RandomShear",
      "RandomPosterization", "RandomInvert", "RandomColorDegeneration",
      "RandomErasing", "RandomGaussianBlur", "RandomElasticTransform",
      "RandomPerspective", "Equalization", "MelSpectrogram", "STFTSpectrogram",
      "Pipeline", "MixUp", "CutMix", "AugMix", "RandAugment",
      // Keras 1 classes that have no Keras 2 name.
      "Merge", "Highway", "MaxoutDense",
      // keras.ops and tf_keras' TFOpLambda in a Functional graph
      // (KerasConfig.cpp reads them as this class).
      "Operation", "AtrousConvolution1D",
      "AtrousConvolution2D", "TimeDistributedDense", "Deconvolution2D",
      "SReLU", "ParametricSoftplus", "ThresholdedLinear", "Cropping"};
  return builtins.contains(className);
}

Error unsupportedLayerError(const LayerConfig &layer) {
  if (isBuiltinLayerClass(layer.getClassName()))
    return layer.error("this Keras layer is not supported by seqc yet "
                       "(docs/Usage.md lists the supported layers)");
  return layer.error("'" + layer.getSourceClassName() +
                     "' is not a Keras layer but a custom class, whose code is "
                     "not in the file and which seqc never runs; rebuild the "
                     "model from built-in layers and re-save");
}

Error checkLayerClasses(ArrayRef<LayerConfig> layers) {
  for (const LayerConfig &layer : layers) {
    if (!isBuiltinLayerClass(layer.getClassName()) && !isApplicationLayer(layer))
      return unsupportedLayerError(layer);
    StringRef cls = layer.getClassName();
    if (cls != "Bidirectional" && cls != "TimeDistributed")
      continue;
    Expected<LayerConfig> inner = layer.getInnerLayer("layer");
    if (!inner) { // a malformed wrapper is the emitter's to report
      consumeError(inner.takeError());
      continue;
    }
    if (isModelClass(inner->getClassName()))
      return layer.error("wraps the model '" + inner->getName() + "' (" +
                         inner->getClassName() +
                         "): only TimeDistributed over a model is supported; "
                         "wrap a layer instead and re-save");
    if (!isBuiltinLayerClass(inner->getClassName()))
      return unsupportedLayerError(*inner);
  }
  return Error::success();
}

} // namespace seq::keras

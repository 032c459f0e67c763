// Opens a Keras model in any supported form and hands back its config, its
// version facts and its weights file, whatever the container:
//   .h5 full model (Keras 2, Keras 3 legacy), .keras zip (Keras 3) or its
//   members unzipped in a directory (model.save(DIR, zipped=False)),
//   --config model.json + weights-only .h5 / .weights.h5,
//   a TensorFlow SavedModel directory of tf.keras / tf_keras (the config in
//   keras_metadata.pb, the weights a TF checkpoint in variables/),
//   --config model.json + a TF checkpoint (save_weights in the "tf" format).
// The format is told by content, never by suffix; anything else (a
// SavedModel that Keras did not write, a truncated file) is one clear error.
#ifndef SEQ_LIB_FRONTEND_KERAS_MODELSOURCE_H
#define SEQ_LIB_FRONTEND_KERAS_MODELSOURCE_H

#include "CheckpointWeights.h"

#include "seq/Frontend/Keras/Importer.h"

#include <optional>

namespace seq::keras {

struct ModelSource {
  /// The model file as the user named it, for messages.
  std::string path;
  /// "h5", "keras", "json+weights", "savedmodel" or "json+checkpoint".
  std::string format;
  llvm::json::Value config = nullptr;
  /// Empty when the file does not say.
  std::string kerasVersion;
  std::string backend;
  /// Root attributes of the HDF5 file other than Keras' own: user metadata.
  std::vector<std::pair<std::string, std::string>> userAttributes;

  /// The weights, in the layout the file uses; `layers` is the parsed
  /// config's chain (Keras 3 names weight groups by layer position).
  std::unique_ptr<WeightStore>
  openWeights(const std::vector<LayerConfig> &layers);

  std::optional<HDF5File> weightsFile;
  std::optional<CheckpointSource> checkpoint;
  bool keras3Layout = false;
  std::string legacyRoot;
  /// Weights that come from elsewhere than a file (the importer fuzz
  /// harness's, fuzz/keras_import.cpp): openWeights hands them over.
  std::unique_ptr<WeightStore> suppliedWeights;
};

/// `configPath` may be empty; when given it supplies the architecture.
llvm::Expected<ModelSource> openModelSource(llvm::StringRef path,
                                            llvm::StringRef configPath);

/// The model of an opened source: its config read (Keras 1 and CuDNN layers
/// translated), its weights taken, its layers emitted as seq ops.
/// importKerasModel is openModelSource and this; `options` gives the input
/// shape, metadata and whether the config came apart from the weights.
llvm::Expected<ImportedModel> importModelSource(mlir::MLIRContext &context,
                                                ModelSource &source,
                                                const ImportOptions &options);

} // namespace seq::keras

#endif

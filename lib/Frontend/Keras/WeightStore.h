// Where a Keras file keeps each layer's weights. Two layouts exist:
// - legacy HDF5 (Keras 2 .h5, Keras 3 legacy .h5, Keras 2 save_weights):
//   a group per layer name listing its datasets in `weight_names`;
// - Keras 3 (.keras zip's model.weights.h5, .weights.h5): groups named by
//   snake_cased class plus a counter (layers/dense_1), arrays vars/0, 1, ...
//   and nested cell / forward_layer / backward_layer / layer groups.
// A layer of a nested model (LayerConfig::getScopes) is in its outermost
// model's legacy group, among that model's weight_names, and in the Keras 3
// layout under layers/<model>/layers/<layer>, counted within each list.
// A TensorFlow checkpoint (a SavedModel's variables/, save_weights in the
// "tf" format) is a third: CheckpointWeights.h.
// Every way, a layer's arrays come out in Keras' weight order.
#ifndef SEQ_LIB_FRONTEND_KERAS_WEIGHTSTORE_H
#define SEQ_LIB_FRONTEND_KERAS_WEIGHTSTORE_H

#include "KerasConfig.h"

#include "seq/Frontend/Keras/HDF5File.h"

#include "llvm/ADT/StringMap.h"

#include <memory>

namespace seq::keras {

struct WeightArray {
  std::string name; ///< Dataset path, for messages.
  std::vector<int64_t> shape;
  std::vector<float> data;
};

class WeightStore {
public:
  virtual ~WeightStore() = default;
  /// The arrays of `layer`, in Keras' weight order (empty if it has none).
  virtual llvm::Expected<std::vector<WeightArray>>
  read(const LayerConfig &layer) = 0;
};

/// The layouts of an HDF5 file.
class HDF5WeightStore : public WeightStore {
protected:
  explicit HDF5WeightStore(HDF5File file) : file(std::move(file)) {}
  llvm::Expected<WeightArray> readArray(const LayerConfig &layer,
                                        const std::string &path) const;
  /// An HDF5 error re-phrased as an error of `layer`.
  llvm::Error layerError(const LayerConfig &layer, llvm::Error error) const;
  HDF5File file;
};

/// Legacy layout under `root` ("model_weights" or "/" for weights-only).
std::unique_ptr<WeightStore> makeLegacyWeightStore(HDF5File file,
                                                   std::string root);

/// Keras 3 layout; `layers` are the model's layers in order (the group
/// counters depend on it).
std::unique_ptr<WeightStore>
makeKeras3WeightStore(HDF5File file, const std::vector<LayerConfig> &layers);

/// Keras' naming.to_snake_case: "SimpleRNN" -> "simple_rnn".
std::string toSnakeCase(llvm::StringRef className);

} // namespace seq::keras

#endif

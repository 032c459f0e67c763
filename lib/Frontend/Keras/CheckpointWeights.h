// A Keras model's weights in a TensorFlow checkpoint: a SavedModel's
// variables/ (tf.keras / tf_keras model.save("dir")) or save_weights in the
// "tf" format. The checkpoint's object graph is the model's tree of tracked
// objects: the model's layers are its children "layer-<i>" (i counts
// model.layers, which for a Sequential leaves out its InputLayer), a
// TimeDistributed's layer is "layer", a Bidirectional's directions
// "forward_layer" and "backward_layer", an RNN's cell "cell"; a layer's own
// variables are the children that hold a value, in the order the layer
// created them.
#ifndef SEQ_LIB_FRONTEND_KERAS_CHECKPOINTWEIGHTS_H
#define SEQ_LIB_FRONTEND_KERAS_CHECKPOINTWEIGHTS_H

#include "WeightStore.h"

#include "seq/Frontend/Keras/SavedObjects.h"
#include "seq/Frontend/Keras/TensorBundle.h"

namespace seq::keras {

struct CheckpointSource {
  TensorBundle bundle;
  std::vector<CheckpointObject> objects;
  /// keras_metadata.pb's nodes (a SavedModel's; empty for a checkpoint),
  /// which name the layer at each path: a check that the paths seqc
  /// computes from the config are the file's.
  std::vector<KerasMetadataNode> kerasNodes;
};

/// The bundle at `prefix` and its object graph.
llvm::Expected<CheckpointSource> openCheckpointSource(llvm::StringRef prefix);

/// `modelConfig` is the model's {"class_name", "config"} as the file holds
/// it (before nested models are inlined).
std::unique_ptr<WeightStore>
makeCheckpointWeightStore(CheckpointSource source,
                          const llvm::json::Value &modelConfig);

} // namespace seq::keras

#endif

//===- SavedObjects.h - Keras' objects in a SavedModel or checkpoint -*- C++ -*-===//
//
// What TensorFlow records of a Keras model's Python objects, read from
// protocol buffers without TensorFlow:
// - keras_metadata.pb (a SavedModel of tf.keras >= 2.5 / tf_keras): one node
//   per Keras object with its path from the model ("root.layer-1") and a
//   JSON metadata string; the model's own holds its config (model_config).
//   TensorFlow before 2.5 kept the same metadata in saved_model.pb, on the
//   objects of its SavedObjectGraph;
// - the checkpoint's object graph (_CHECKPOINTABLE_OBJECT_GRAPH): the tree
//   of tracked objects, children by local name ("layer_with_weights-0",
//   "cell", "kernel"), each variable naming its tensor in the checkpoint.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FRONTEND_KERAS_SAVEDOBJECTS_H
#define SEQ_FRONTEND_KERAS_SAVEDOBJECTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace seq::keras {

struct KerasMetadataNode {
  std::string nodePath;   ///< "root", "root.layer_with_weights-0", ...
  std::string identifier; ///< "_tf_keras_layer", "_tf_keras_sequential", ...
  std::string metadata;   ///< JSON text.
};

/// The nodes of keras_metadata.pb (a SavedMetadata message).
llvm::Expected<std::vector<KerasMetadataNode>>
readKerasMetadata(llvm::StringRef bytes, llvm::StringRef where);

/// The Keras objects of saved_model.pb (a SavedModel message) as
/// keras_metadata.pb lists them: those whose user object is Keras'
/// ("_tf_keras_*") and carries metadata, each at the first path from the
/// model that reaches it.
llvm::Expected<std::vector<KerasMetadataNode>>
readSavedModelKerasNodes(llvm::StringRef bytes, llvm::StringRef where);

struct CheckpointObject {
  /// (local name, node index), in the order the object tracks them.
  std::vector<std::pair<std::string, int>> children;
  /// The checkpoint key of the object's value when it is a variable.
  std::string variableKey;
};

/// The nodes of a TrackableObjectGraph; node 0 is the saved object (the
/// model). Every child index is checked to name a node.
llvm::Expected<std::vector<CheckpointObject>>
readObjectGraph(llvm::StringRef bytes, llvm::StringRef where);

} // namespace seq::keras

#endif // SEQ_FRONTEND_KERAS_SAVEDOBJECTS_H

//===- CheckpointWeights.cpp - A Keras model's weights in a TF checkpoint -===//

#include "CheckpointWeights.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"

#include <cmath>

using namespace llvm;

namespace seq::keras {

namespace {

constexpr StringLiteral kObjectGraphKey = "_CHECKPOINTABLE_OBJECT_GRAPH";
/// Layers within layers (an RNN's cell, a wrapper's layer) a layer may hold.
constexpr int kMaxSubLayerDepth = 16;

/// The children through which a layer holds the layers whose weights are
/// its own, in Keras' weight order: an RNN's cell, a wrapper's layer,
/// MultiHeadAttention's projections.
constexpr StringLiteral kSubLayers[] = {
    "cell",          "forward_layer", "backward_layer", "layer",
    "_query_dense",  "_key_dense",    "_value_dense",   "_output_dense"};

/// A config entry's layer name (Functional entries name it twice).
StringRef entryName(const json::Object &entry) {
  if (std::optional<StringRef> name = entry.getString("name"))
    return *name;
  if (const json::Object *config = entry.getObject("config"))
    return config->getString("name").value_or("");
  return "";
}

/// A model entry's layer list: config.layers, or a Keras <= 2.2.2
/// Sequential's bare config list.
const json::Array *layersOf(const json::Object &entry) {
  if (const json::Array *list = entry.getArray("config"))
    return list;
  if (const json::Object *config = entry.getObject("config"))
    return config->getArray("layers");
  return nullptr;
}

int childNamed(const CheckpointObject &object, StringRef name) {
  for (const auto &[local, id] : object.children)
    if (local == name)
      return id;
  return -1;
}

class CheckpointWeightStore : public WeightStore {
public:
  CheckpointWeightStore(CheckpointSource source, json::Value modelConfig)
      : source(std::move(source)), modelConfig(std::move(modelConfig)) {
    findModel();
    for (const KerasMetadataNode &node : this->source.kerasNodes) {
      int id = resolve(node.nodePath);
      if (id <= 0)
        continue;
      Expected<json::Value> metadata =
          parseModelJson(node.metadata, this->source.bundle.path(), "keras_metadata.pb");
      if (!metadata) {
        consumeError(metadata.takeError());
        continue;
      }
      if (const json::Object *object = metadata->getAsObject())
        if (std::optional<StringRef> name = object->getString("name"))
          savedNames[id] = name->str();
    }
  }

  Expected<std::vector<WeightArray>> read(const LayerConfig &layer) override {
    std::vector<WeightArray> arrays;
    // A Sequential's InputLayer is not among model.layers.
    if (layer.getClassName() == "InputLayer")
      return arrays;
    Expected<int> node = locate(layer);
    if (!node)
      return node.takeError();
    std::vector<std::string> keys;
    DenseSet<int> seen;
    if (Error e = collect(layer, *node, 0, seen, keys))
      return std::move(e);
    for (const std::string &key : keys) {
      Expected<WeightArray> array = readArray(layer, key);
      if (!array)
        return array.takeError();
      arrays.push_back(std::move(*array));
    }
    return arrays;
  }

private:
  /// The model's object: the checkpoint's root (save_weights, a SavedModel),
  /// or the one child of the root that has layers: a training checkpoint's
  /// model (tf.train.Checkpoint(model=..., optimizer=...)).
  void findModel() {
    const CheckpointObject &root = source.objects[0];
    if (childNamed(root, "layer-0") >= 0)
      return;
    std::vector<int> models;
    for (const auto &[name, id] : root.children)
      if (id != 0 && childNamed(source.objects[id], "layer-0") >= 0 &&
          !llvm::is_contained(models, id)) {
        models.push_back(id);
        modelNames.push_back(name);
      }
    modelNode = models.size() == 1 ? models.front() : models.empty() ? -1 : -2;
  }

  /// The object at a keras_metadata.pb path ("root.layer-1.cell"); -1 if
  /// the object graph has none there.
  int resolve(StringRef path) const {
    SmallVector<StringRef> parts;
    path.split(parts, '.');
    if (parts.empty() || parts.front() != "root" || source.objects.empty())
      return -1;
    int node = 0;
    for (StringRef part : ArrayRef<StringRef>(parts).drop_front())
      if ((node = childNamed(source.objects[node], part)) < 0)
        return -1;
    return node;
  }

  /// The object of `layer`: from the model, through the models (and the
  /// TimeDistributed wrapping one) it is nested in, to the layer.
  Expected<int> locate(const LayerConfig &layer) const {
    SmallVector<std::string> names;
    StringRef own = layer.getName();
    for (const LayerConfig::Scope &scope : layer.getScopes()) {
      names.push_back(scope.name);
      own.consume_front(scope.name + "/");
    }
    names.push_back(own.str());
    if (modelNode == -1)
      return layer.error("the checkpoint '" + source.bundle.path() +
                         "' holds no Keras model: no object with layers at its root "
                         "or one level below");
    if (modelNode == -2)
      return layer.error("the checkpoint '" + source.bundle.path() + "' holds several models ('" +
                         join(modelNames, "', '") +
                         "'): save the one to compile with model.save_weights");
    const json::Object *entry = modelConfig.getAsObject();
    int node = modelNode;
    std::string path = "the model";
    for (const std::string &name : names) {
      if (!entry)
        return layer.error("the config does not say where the layer is in the checkpoint");
      std::string local;
      const json::Object *next = nullptr;
      StringRef className = entry->getString("class_name").value_or("");
      if (className == "TimeDistributed" || className == "Bidirectional") {
        local = "layer";
        if (const json::Object *config = entry->getObject("config"))
          next = config->getObject("layer");
      } else if (const json::Array *layers = layersOf(*entry)) {
        // model.layers leaves out a Sequential's own InputLayer.
        int index = 0;
        for (const json::Value &value : *layers) {
          const json::Object *candidate = value.getAsObject();
          if (!candidate)
            continue;
          bool skipped = className == "Sequential" && &value == &layers->front() &&
                         candidate->getString("class_name") == "InputLayer";
          if (entryName(*candidate) == name) {
            next = candidate;
            break;
          }
          index += !skipped;
        }
        local = "layer-" + std::to_string(index);
      }
      if (!next || entryName(*next) != name)
        return layer.error("the config does not say where the layer is in the checkpoint");
      int child = childNamed(source.objects[node], local);
      if (child < 0)
        return layer.error("the checkpoint '" + source.bundle.path() + "' has no object " +
                           local + " in " + path + ": it holds another model's weights");
      auto saved = savedNames.find(child);
      if (saved != savedNames.end() && saved->second != name)
        return layer.error("the checkpoint's object " + local + " in " + path +
                           " is layer '" + saved->second +
                           "', not this one: the SavedModel's config and weights disagree");
      node = child;
      path = "'" + name + "'";
      entry = next;
    }
    return node;
  }

  /// The checkpoint keys of the variables of object `node`, in Keras'
  /// weight order: the sub-layers' (which a wrapper that also tracks its
  /// layer's kernel under its own name, SpectralNormalization, puts first),
  /// then the object's own.
  Error collect(const LayerConfig &layer, int node, int depth, DenseSet<int> &seen,
                std::vector<std::string> &keys) const {
    if (depth > kMaxSubLayerDepth)
      return layer.error("the checkpoint nests layers more than " +
                         Twine(kMaxSubLayerDepth) + " deep");
    const CheckpointObject &object = source.objects[node];
    for (StringRef name : kSubLayers)
      if (int child = childNamed(object, name); child >= 0 && seen.insert(child).second)
        if (Error e = collect(layer, child, depth + 1, seen, keys))
          return e;
    // StackedRNNCells: its cells, a list "0", "1", ...
    if (int cells = childNamed(object, "cells"); cells >= 0 && seen.insert(cells).second)
      for (const auto &[index, cell] : source.objects[cells].children)
        if (seen.insert(cell).second)
          if (Error e = collect(layer, cell, depth + 1, seen, keys))
            return e;
    for (const auto &[local, child] : object.children)
      if (!source.objects[child].variableKey.empty() && seen.insert(child).second)
        keys.push_back(source.objects[child].variableKey);
    return Error::success();
  }

  Expected<WeightArray> readArray(const LayerConfig &layer, const std::string &key) const {
    const TensorBundle &bundle = source.bundle;
    const TensorBundle::Entry *entry = bundle.find(key);
    if (!entry)
      return layer.error("weight '" + key + "' is not in the checkpoint '" + bundle.path() +
                         "': the checkpoint is incomplete");
    if (entry->dtype == TensorBundle::BFloat16)
      return layer.error("weight '" + key + "' is bfloat16, which seqc does not read: "
                         "save the model with float32 or float16 weights");
    // A scalar integer is a counter (Normalization's sample count), which no
    // computation reads.
    bool counter = entry->shape.empty() &&
                   (entry->dtype == TensorBundle::Int64 || entry->dtype == TensorBundle::Int32);
    if (entry->dtype != TensorBundle::Float && entry->dtype != TensorBundle::Half && !counter)
      return layer.error("weight '" + key + "' is " + TensorBundle::dtypeName(entry->dtype) +
                         ", expected float32 or float16 (seqc reads float32 models)");
    Expected<StringRef> bytes = bundle.readBytes(key);
    if (!bytes) {
      std::string message = toString(bytes.takeError());
      StringRef text(message);
      text.consume_front("'" + bundle.path().str() + "': ");
      return layer.error("in '" + bundle.path() + "': " + text);
    }
    WeightArray array{key, entry->shape, {}};
    unsigned size = TensorBundle::dtypeSize(entry->dtype);
    array.data.reserve(bytes->size() / size);
    for (size_t at = 0; at < bytes->size(); at += size) {
      const char *p = bytes->data() + at;
      switch (entry->dtype) {
      case TensorBundle::Float:
        array.data.push_back(bit_cast<float>(support::endian::read32le(p)));
        break;
      case TensorBundle::Half:
        array.data.push_back(halfToFloat(support::endian::read16le(p)));
        break;
      case TensorBundle::Int32:
        array.data.push_back(static_cast<float>(static_cast<int32_t>(support::endian::read32le(p))));
        break;
      default:
        array.data.push_back(static_cast<float>(static_cast<int64_t>(support::endian::read64le(p))));
      }
    }
    return array;
  }

  static float halfToFloat(uint16_t h) {
    uint32_t sign = uint32_t(h >> 15) << 31, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    if (exponent == 0x1f)
      return bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    if (exponent)
      return bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }

  CheckpointSource source;
  json::Value modelConfig;
  /// -1: no model in the checkpoint; -2: several (modelNames).
  int modelNode = 0;
  std::vector<std::string> modelNames;
  DenseMap<int, std::string> savedNames;
};

} // namespace

Expected<CheckpointSource> openCheckpointSource(StringRef prefix) {
  Expected<TensorBundle> bundle = TensorBundle::open(prefix);
  if (!bundle)
    return bundle.takeError();
  if (!bundle->find(kObjectGraphKey))
    return createStringError(inconvertibleErrorCode(),
                             "'" + prefix + "': a TensorFlow checkpoint without an object "
                             "graph (written by TensorFlow 1's tf.train.Saver), which does "
                             "not say which layer each weight is: save the model with "
                             "model.save(\"model.keras\") or model.save(\"model.h5\")");
  Expected<std::string> graph = bundle->readScalarString(kObjectGraphKey);
  if (!graph)
    return graph.takeError();
  Expected<std::vector<CheckpointObject>> objects = readObjectGraph(*graph, prefix);
  if (!objects)
    return objects.takeError();
  if (objects->empty())
    return createStringError(inconvertibleErrorCode(),
                             "'" + prefix + "': the checkpoint's object graph is empty");
  return CheckpointSource{std::move(*bundle), std::move(*objects), {}};
}

std::unique_ptr<WeightStore> makeCheckpointWeightStore(CheckpointSource source,
                                                       const json::Value &modelConfig) {
  return std::make_unique<CheckpointWeightStore>(std::move(source), modelConfig);
}

} // namespace seq::keras

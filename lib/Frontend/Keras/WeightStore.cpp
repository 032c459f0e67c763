#include "WeightStore.h"

#include "LayerClasses.h"

#include <regex>

using namespace llvm;

namespace seq::keras {

Error HDF5WeightStore::layerError(const LayerConfig &layer, Error error) const {
  // HDF5File names the file already; the layer adds where in the model.
  std::string message = toString(std::move(error));
  StringRef text(message);
  text.consume_front("'" + file.path().str() + "': ");
  return layer.error(text);
}

Expected<WeightArray> HDF5WeightStore::readArray(const LayerConfig &layer,
                                             const std::string &path) const {
  Expected<HDF5File::Dataset> dataset = file.readFloatDataset(path);
  // h5py stores bfloat16 as a 2-byte opaque type, which only the layer's
  // dtype policy names.
  if (!dataset && StringRef(dtypeOf(layer)).contains("bfloat16")) {
    consumeError(dataset.takeError());
    return layer.error("weight '" + path + "' is bfloat16 (dtype policy '" + dtypeOf(layer) +
                       "'), which seqc does not read: save the model with float32 or "
                       "float16 weights");
  }
  if (!dataset)
    return layerError(layer, dataset.takeError());
  // A scalar integer is a counter (Normalization's sample count), which no
  // computation reads. float16 widens to float32 exactly.
  bool counter = dataset->shape.empty() &&
                 StringRef(dataset->dtype).contains("int");
  if (dataset->dtype != "float32" && dataset->dtype != "float16" && !counter)
    return layer.error("weight '" + path + "' is " + dataset->dtype +
                       ", expected float32 or float16 (seqc reads float32 models)");
  return WeightArray{path, std::move(dataset->shape), std::move(dataset->data)};
}

namespace {

class LegacyWeightStore : public HDF5WeightStore {
public:
  LegacyWeightStore(HDF5File file, std::string root)
      : HDF5WeightStore(std::move(file)), root(std::move(root)) {}

  Expected<std::vector<WeightArray>> read(const LayerConfig &layer) override {
    const std::vector<LayerConfig::Scope> &scopes = layer.getScopes();
    std::string group =
        root + "/" + (scopes.empty() ? layer.getName() : scopes.front().name);
    std::vector<WeightArray> arrays;
    if (!file.exists(group))
      return arrays;
    Expected<std::vector<std::string>> names =
        file.readStringListAttribute(group, "weight_names");
    if (!names)
      return layerError(layer, names.takeError());
    for (const std::string &name : *names) {
      if (!scopes.empty() && !inNestedLayer(name, layer))
        continue;
      Expected<WeightArray> array = readArray(layer, group + "/" + name);
      if (!array)
        return array.takeError();
      arrays.push_back(std::move(*array));
    }
    return arrays;
  }

private:
  /// Whether weight `name` of a nested model's group is `layer`'s. tf_keras
  /// names it "<layer>/<var>", Keras 3 "<model>/<layer>/<var>" for a layer
  /// of a Sequential: some tail of the layer's path, then the variable.
  static bool inNestedLayer(StringRef name, const LayerConfig &layer) {
    std::vector<std::string> path;
    for (const LayerConfig::Scope &scope : layer.getScopes())
      path.push_back(scope.name);
    StringRef own = layer.getName();
    for (const std::string &scope : path)
      own.consume_front(scope + "/");
    path.push_back(own.str());
    for (size_t start = 0; start < path.size(); ++start) {
      std::string prefix;
      for (size_t i = start; i < path.size(); ++i)
        prefix += path[i] + "/";
      if (name.starts_with(prefix))
        return true;
    }
    return false;
  }

  std::string root;
};

/// The group saving_lib gives an item of class `className` in a list: the
/// class in snake case, "_1", "_2", ... after it for repeats (`used` counts
/// them). Not the item's name, which Keras numbers per session.
std::string listItemGroup(StringMap<int> &used, StringRef className) {
  std::string key = toSnakeCase(pythonClassName(className));
  auto [it, inserted] = used.try_emplace(key, 0);
  if (!inserted)
    key += "_" + std::to_string(++it->second);
  return key;
}

class Keras3WeightStore : public HDF5WeightStore {
public:
  Keras3WeightStore(HDF5File file, const std::vector<LayerConfig> &layers)
      : HDF5WeightStore(std::move(file)) {
    // saving_lib names a list's layers by class, counting repeats; a
    // nested model's layers are a list of their own, inside its group.
    StringMap<StringMap<int>> used;
    StringMap<std::string> placed;
    for (const LayerConfig &layer : layers) {
      // The model a TimeDistributed wraps is its "layer"; a layer of that
      // model is read as the layer itself, not as the TimeDistributed the
      // importer made of it.
      std::string group, name;
      bool wrapped = false, perStep = false;
      auto place = [&](StringRef level, StringRef className) {
        name += (name.empty() ? "" : "/") + level.str();
        auto found = placed.find(name);
        if (found == placed.end() && wrapped) {
          found = placed.try_emplace(name, group + "/layer").first;
        } else if (found == placed.end()) {
          std::string key = listItemGroup(used[group], className);
          found = placed.try_emplace(name, (group.empty() ? "" : group + "/") +
                                               "layers/" + key).first;
        }
        group = found->second;
        wrapped = className == "TimeDistributed";
        perStep |= wrapped;
      };
      StringRef own = layer.getName();
      for (const LayerConfig::Scope &scope : layer.getScopes()) {
        place(scope.name, scope.className);
        own.consume_front(scope.name + "/");
      }
      std::string className = layer.getClassName();
      if (perStep) {
        Expected<LayerConfig> inner = layer.getInnerLayer("layer");
        if (inner)
          className = inner->getClassName();
        else
          llvm::consumeError(inner.takeError());
      }
      place(own, className);
      groups[layer.getName()] = group;
    }
  }

  Expected<std::vector<WeightArray>> read(const LayerConfig &layer) override {
    std::vector<WeightArray> arrays;
    auto it = groups.find(layer.getName());
    if (it == groups.end() || !file.exists(it->second))
      return arrays;
    if (Error e = collect(layer, layer, it->second, arrays))
      return std::move(e);
    return arrays;
  }

private:
  /// vars/0, vars/1, ... then the nested layers, in Keras' weight order.
  /// `level` is the config of the layer or cell whose group this is (the
  /// messages name `layer`).
  Error collect(const LayerConfig &layer, const LayerConfig &level,
                const std::string &group, std::vector<WeightArray> &arrays) const {
    // A SpectralNormalization's vars/0 is its layer's kernel (or
    // embeddings), saved again under layer/: read once, there.
    int first = level.getClassName() == "SpectralNormalization" ? 1 : 0;
    for (int i = first;; ++i) {
      std::string path = group + "/vars/" + std::to_string(i);
      if (!file.isDataset(path))
        break;
      Expected<WeightArray> array = readArray(layer, path);
      if (!array)
        return array.takeError();
      arrays.push_back(std::move(*array));
    }
    // A Bidirectional's directions are its "layer" (and "backward_layer")
    // configs; a missing backward config is the forward one.
    static constexpr std::pair<const char *, const char *> kChildren[] = {
        {"cell", "cell"},
        {"forward_layer", "layer"},
        {"backward_layer", "backward_layer"},
        {"layer", "layer"},
        // MultiHeadAttention's projections, and GroupQueryAttention's.
        // In the order Keras builds them (use_gate's gate after the key),
        // each under either name (MultiHeadAttention saves its gate as
        // _gate_dense beside query_dense).
        {"query_dense", "query_dense"},
        {"_query_dense", "_query_dense"},
        {"key_dense", "key_dense"},
        {"_key_dense", "_key_dense"},
        {"gate_dense", "gate_dense"},
        {"_gate_dense", "_gate_dense"},
        {"value_dense", "value_dense"},
        {"_value_dense", "_value_dense"},
        {"output_dense", "output_dense"},
        {"_output_dense", "_output_dense"},
        // keras_hub's TransformerEncoder/Decoder and TokenAndPositionEmbedding,
        // in the order KerasHubLayers.cpp reads their weights.
        {"_self_attention_layer", "_self_attention_layer"},
        {"_self_attention_layer_norm", "_self_attention_layer_norm"},
        {"_cross_attention_layer", "_cross_attention_layer"},
        {"_cross_attention_layer_norm", "_cross_attention_layer_norm"},
        {"_feedforward_layer_norm", "_feedforward_layer_norm"},
        {"_feedforward_intermediate_dense", "_feedforward_intermediate_dense"},
        {"_feedforward_output_dense", "_feedforward_output_dense"},
        {"token_embedding", "token_embedding"},
        {"position_embedding", "position_embedding"}};
    for (auto [child, key] : kChildren) {
      std::string path = group + "/" + child;
      if (!file.isGroup(path))
        continue;
      Expected<LayerConfig> inner =
          level.getInnerLayer(level.has(key) ? StringRef(key) : StringRef("layer"));
      if (!inner)
        llvm::consumeError(inner.takeError());
      if (Error e = collect(layer, inner ? *inner : level, path, arrays))
        return e;
    }
    // StackedRNNCells: one group per cell, in the config's order.
    std::string cells = group + "/cells";
    if (file.isGroup(cells))
      for (const std::string &name : cellGroups(level))
        if (Error e = collect(layer, level, cells + "/" + name, arrays))
          return e;
    return Error::success();
  }

  /// The groups of a StackedRNNCells' cells, in its config's order.
  static std::vector<std::string> cellGroups(const LayerConfig &stacked) {
    std::vector<std::string> names;
    Expected<std::vector<LayerConfig>> cells = stacked.getInnerLayerList("cells");
    if (!cells) {
      llvm::consumeError(cells.takeError());
      return names;
    }
    StringMap<int> used;
    for (const LayerConfig &c : *cells)
      names.push_back(listItemGroup(used, c.getClassName()));
    return names;
  }

  StringMap<std::string> groups;
};

} // namespace

std::string toSnakeCase(StringRef className) {
  std::string name = std::regex_replace(className.str(), std::regex("\\W+"), "");
  name = std::regex_replace(name, std::regex("(.)([A-Z][a-z]+)"), "$1_$2");
  name = std::regex_replace(name, std::regex("([a-z])([A-Z])"), "$1_$2");
  return StringRef(name).lower();
}

std::unique_ptr<WeightStore> makeLegacyWeightStore(HDF5File file,
                                                   std::string root) {
  return std::make_unique<LegacyWeightStore>(std::move(file), std::move(root));
}

std::unique_ptr<WeightStore>
makeKeras3WeightStore(HDF5File file, const std::vector<LayerConfig> &layers) {
  return std::make_unique<Keras3WeightStore>(std::move(file), layers);
}

} // namespace seq::keras

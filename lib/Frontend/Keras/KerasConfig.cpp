#include "KerasConfig.h"

#include "LayerClasses.h"
#include "NestedModels.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace seq::keras {

Error fileError(StringRef where, const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           "'" + where + "': " + message);
}

int64_t LayerConfig::getCallNode() const {
  StringRef node = StringRef(getCallId()).split('\x1f').second;
  int64_t value = 0;
  return node.empty() || node.getAsInteger(10, value) ? 0 : value;
}

const json::Value *LayerConfig::getCallArgument(StringRef key) const {
  const json::Value *found = nullptr;
  std::function<void(const json::Value &)> visit = [&](const json::Value &v) {
    if (found)
      return;
    if (const json::Object *o = v.getAsObject()) {
      if (o->get("keras_history"))
        return;
      if (const json::Value *value = o->get(key)) {
        found = value;
        return;
      }
      for (const auto &kv : *o)
        visit(kv.second);
    } else if (const json::Array *a = v.getAsArray()) {
      for (const json::Value &e : *a)
        visit(e);
    }
  };
  if (callNode)
    visit(*callNode);
  return found;
}

bool LayerConfig::callGetsMask() const {
  const json::Object *node = callNode ? callNode->getAsObject() : nullptr;
  if (!node)
    return true;
  auto holdsTensor = [](const json::Value &v) { return !tensorRefs(v).empty(); };
  size_t tensorArguments = 0;
  if (const json::Array *args = node->getArray("args"))
    tensorArguments += llvm::count_if(*args, holdsTensor);
  if (const json::Object *kwargs = node->getObject("kwargs"))
    for (const auto &kv : *kwargs) {
      if (kv.first == "mask" && holdsTensor(kv.second))
        return true; // passed by name
      tensorArguments += kv.first != "mask" && holdsTensor(kv.second);
    }
  return tensorArguments <= 1;
}

std::optional<std::vector<bool>> LayerConfig::callMaskEntries() const {
  const json::Object *node = callNode ? callNode->getAsObject() : nullptr;
  const json::Object *kwargs = node ? node->getObject("kwargs") : nullptr;
  const json::Array *list = kwargs ? kwargs->getArray("mask") : nullptr;
  if (!list)
    return std::nullopt;
  std::vector<bool> entries;
  for (const json::Value &entry : *list)
    entries.push_back(!tensorRefs(entry).empty());
  return entries;
}

Error LayerConfig::error(const Twine &message) const {
  return fileError(where, "layer '" + name + "' (" + getSourceClassName() +
                              "): " + message);
}

/// Bounds on a model's JSON: llvm::json::parse recurses once per nesting
/// level, so depth is checked before it runs. Real Keras configs nest a few
/// dozen levels and stay under a few MB.
constexpr int kMaxJsonDepth = 256;

/// The deepest nesting of [ and { outside strings, stopping past `limit`.
static int jsonDepth(StringRef text, int limit) {
  int depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit)
        break;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

Expected<json::Value> parseModelJson(StringRef text, StringRef where,
                                StringRef what) {
  if (text.size() > kMaxModelJsonBytes)
    return fileError(where, what + " is " + Twine(text.size()) +
                                " bytes of JSON, more than the " +
                                Twine(kMaxModelJsonBytes) + " seqc accepts");
  if (jsonDepth(text, kMaxJsonDepth) > kMaxJsonDepth)
    return fileError(where, what + " nests JSON deeper than " +
                                Twine(kMaxJsonDepth) +
                                " levels (the file is corrupt or hostile)");
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return fileError(where, what + " is not valid JSON (" +
                                toString(value.takeError()) + ")");
  return value;
}

bool LayerConfig::has(StringRef key) const {
  const json::Value *v = config->get(key);
  return v && v->kind() != json::Value::Null;
}

Expected<int64_t> LayerConfig::getInt(StringRef key) const {
  const json::Value *v = config->get(key);
  if (!v)
    return error("config has no '" + key + "'");
  if (std::optional<int64_t> i = v->getAsInteger())
    return *i;
  return error("config '" + key + "' must be an integer");
}

Expected<int64_t> LayerConfig::getIntOr(StringRef key, int64_t fallback) const {
  if (!has(key))
    return fallback;
  return getInt(key);
}

Expected<int64_t> LayerConfig::getIntOrSingleton(StringRef key) const {
  const json::Value *v = config->get(key);
  if (v && v->getAsArray()) {
    const json::Array &list = *v->getAsArray();
    if (list.size() == 1 && list[0].getAsInteger())
      return *list[0].getAsInteger();
    return error("config '" + key + "' must be one integer for a 1-D layer");
  }
  return getInt(key);
}

Expected<int64_t> LayerConfig::checkSize(StringRef key,
                                         Expected<int64_t> value) const {
  constexpr int64_t kMaxSize = (int64_t(1) << 31) - 1;
  if (value && (*value < 1 || *value > kMaxSize))
    return error("config '" + key + "' must be a size in [1, " +
                 Twine(kMaxSize) + "], got " + Twine(*value));
  return value;
}

Expected<int64_t> LayerConfig::getSize(StringRef key) const {
  return checkSize(key, getInt(key));
}

Expected<int64_t> LayerConfig::getSizeOr(StringRef key,
                                         int64_t fallback) const {
  return checkSize(key, getIntOr(key, fallback));
}

Expected<int64_t> LayerConfig::getSizeOrSingleton(StringRef key) const {
  return checkSize(key, getIntOrSingleton(key));
}

Expected<bool> LayerConfig::getBoolOr(StringRef key, bool fallback) const {
  if (!has(key))
    return fallback;
  if (std::optional<bool> b = config->get(key)->getAsBoolean())
    return *b;
  return error("config '" + key + "' must be true or false");
}

Expected<double> LayerConfig::getDoubleOr(StringRef key,
                                          double fallback) const {
  if (!has(key))
    return fallback;
  if (std::optional<double> d = config->get(key)->getAsNumber())
    return *d;
  return error("config '" + key + "' must be a number");
}

Expected<std::string> LayerConfig::getStringOr(StringRef key,
                                               StringRef fallback) const {
  if (!has(key))
    return fallback.str();
  if (std::optional<StringRef> s = config->get(key)->getAsString())
    return s->str();
  return error("config '" + key + "' must be a string");
}

Expected<std::vector<int64_t>> LayerConfig::getIntList(StringRef key) const {
  const json::Value *v = config->get(key);
  const json::Array *list = v ? v->getAsArray() : nullptr;
  if (!list)
    return error("config '" + key + "' must be a list of integers");
  std::vector<int64_t> result;
  for (const json::Value &e : *list) {
    std::optional<int64_t> i = e.getAsInteger();
    if (!i)
      return error("config '" + key + "' must be a list of integers");
    result.push_back(*i);
  }
  return result;
}

static std::optional<KerasShape> toShape(const json::Value &v) {
  const json::Array *list = v.getAsArray();
  if (!list)
    return std::nullopt;
  KerasShape shape;
  for (const json::Value &e : *list) {
    if (e.kind() == json::Value::Null)
      shape.push_back(std::nullopt);
    else if (std::optional<int64_t> i = e.getAsInteger())
      shape.push_back(*i);
    else
      return std::nullopt;
  }
  return shape;
}

Expected<std::optional<KerasShape>> LayerConfig::getShape(StringRef key) const {
  if (!has(key))
    return std::optional<KerasShape>();
  std::optional<KerasShape> shape = toShape(*config->get(key));
  if (!shape)
    return error("config '" + key + "' must be a list of sizes or nulls");
  return shape;
}

bool isConstantValue(const json::Array &ref) {
  return ref.size() >= 3 && ref[0].getAsString() == StringRef("_CONSTANT_VALUE");
}

/// Whether a Keras 3 Functional config entry is an op node (keras.ops
/// recorded in the graph) rather than a layer. Keras 3 records the masks
/// layers compute this way too. A legacy .h5 file records no module: there
/// an op node is a Keras 3 node whose config is its name alone (a layer's
/// has trainable and dtype besides) with a number among its arguments, e.g.
/// the "Add" of MobileNetV3's `x + 3.0` (an op of tensors alone reads the
/// same as the merge layer of its name).
static bool isOpNode(const json::Object *o) {
  if (!o)
    return false;
  StringRef module = o->getString("module").value_or("");
  StringRef cls = o->getString("class_name").value_or("");
  const json::Object *config = o->getObject("config");
  const json::Array *nodes = o->getArray("inbound_nodes");
  const json::Object *node = nodes && !nodes->empty() ? (*nodes)[0].getAsObject() : nullptr;
  bool keras3Node = node && node->getArray("args"); // Keras 2 nodes are lists
  bool nameOnly = config && config->size() == 1 && config->get("name") && keras3Node &&
                  llvm::any_of(*node->getArray("args"), [](const json::Value &a) {
                    return a.getAsNumber().has_value();
                  });
  return module.starts_with("keras.src.ops") ||
         (module.empty() && (cls == "NotEqual" || cls == "Any" || nameOnly));
}

/// Whether an entry is an operation on tensors rather than a layer.
static bool isOperationEntry(const json::Object &o) {
  StringRef cls = o.getString("class_name").value_or("");
  return isOpNode(&o) || cls == "TFOpLambda" || cls == "SlicingOpLambda";
}

/// A {"class_name": ..., "config": {...}} entry of a layer list.
static Expected<LayerConfig>
layerFromEntry(const json::Value &entry, StringRef where, StringRef context) {
  const json::Object *object = entry.getAsObject();
  const json::Object *config = object ? object->getObject("config") : nullptr;
  std::optional<StringRef> className =
      object ? object->getString("class_name") : std::nullopt;
  if (!config || !className)
    return fileError(where,
                     context + ": a layer entry has no class_name or config");
  const json::Value *nameValue = config->get("name");
  if (nameValue && nameValue->kind() != json::Value::Null &&
      !nameValue->getAsString())
    return fileError(where, context + ": a '" + *className +
                                "' layer's 'name' is not a string");
  std::string name = config->getString("name").value_or("").str();
  if (name.empty())
    name = object->getString("name").value_or(*className).str();
  // Set by the Keras 1 and CuDNN translations (Keras1.cpp, CuDNNLayers.cpp).
  std::string sourceClass = object->getString(kSourceClassKey).value_or("").str();
  std::string cls = className->str();
  // An operation on tensors recorded in a Functional graph: Keras 3's
  // keras.ops (its class and module), tf_keras' TFOpLambda and
  // SlicingOpLambda (x * 0.5, tf.reduce_mean, x[:, -1]).
  if (isOperationEntry(*object)) {
    sourceClass = isOpNode(object) ? "keras.ops." + cls : cls;
    cls = "Operation";
  }
  if (std::optional<StringRef> path = applicationLayerPath(*object)) {
    cls = path->rsplit('.').second.str();
    sourceClass = path->str();
  }
  LayerConfig layer(std::move(cls), name, config, where.str(), std::move(sourceClass));
  if (const json::Array *scope = object->getArray(kScopeKey)) {
    std::vector<LayerConfig::Scope> scopes;
    for (const json::Value &level : *scope)
      if (const json::Array *pair = level.getAsArray(); pair && pair->size() == 2)
        scopes.push_back({(*pair)[0].getAsString().value_or("").str(),
                          (*pair)[1].getAsString().value_or("").str()});
    layer.setScopes(std::move(scopes));
  }
  return layer;
}

Expected<std::vector<LayerConfig>>
LayerConfig::getInnerLayerList(StringRef key) const {
  const json::Array *list = config->getArray(key);
  if (!list)
    return error("config '" + key + "' must be a list of layers");
  std::vector<LayerConfig> layers;
  for (const json::Value &entry : *list) {
    Expected<LayerConfig> layer = layerFromEntry(entry, where, "layer '" + name + "'");
    if (!layer)
      return layer.takeError();
    layers.push_back(std::move(*layer));
  }
  return layers;
}

Expected<LayerConfig> LayerConfig::getInnerLayer(StringRef key) const {
  const json::Value *v = config->get(key);
  if (!v)
    return error("config has no '" + key + "'");
  // A wrapped layer is in the wrapper's model (a Bidirectional's LSTM in a
  // Functional model may return its states).
  Expected<LayerConfig> inner = layerFromEntry(*v, where, "layer '" + name + "'");
  if (inner && functional)
    inner->setInFunctional();
  return inner;
}

namespace {

/// The rank of a node's key when its tensors are listed: positional args
/// first, then an attention layer's value and key (the order of their
/// positions), then the other keywords by name.
int keywordRank(StringRef key) {
  return llvm::StringSwitch<int>(key).Case("args", 0).Case("value", 1).Case("key", 2).Default(3);
}

} // namespace

/// A keyword argument that passes a layer the timestep masks of its inputs:
/// `mask`, and MultiHeadAttention's per input (Keras before 3.4 names them).
static bool isMaskKeyword(StringRef key) {
  return key == "mask" || key == "query_mask" || key == "value_mask" || key == "key_mask";
}

/// Every tensor referenced in `v`: Keras 2's ["name", node_index,
/// tensor_index, kwargs] (kwargs may name more tensors: an attention
/// layer's value) and Keras 3's {"keras_history": [name, node, tensor]}. A
/// layer's `mask` argument is not one of its inputs (see maskArgument).
std::vector<TensorRef> tensorRefs(const json::Value &v) {
  std::vector<TensorRef> refs;
  auto take = [&](const json::Array &a, const std::string &argument) {
    refs.push_back({(a)[0].getAsString()->str(),
                    a.size() >= 3 ? a[2].getAsInteger().value_or(0) : 0,
                    a.size() >= 2 ? a[1].getAsInteger().value_or(0) : 0, argument});
  };
  std::function<void(const json::Value &, const std::string &)> visit =
      [&](const json::Value &v, const std::string &argument) {
    if (const json::Object *o = v.getAsObject()) {
      if (const json::Array *history = o->getArray("keras_history")) {
        if (!history->empty() && (*history)[0].getAsString())
          take(*history, argument);
        return;
      }
      // json::Object does not keep the file's order: see keywordRank.
      std::vector<llvm::StringRef> keys;
      for (const auto &kv : *o)
        if (!isMaskKeyword(kv.first))
          keys.push_back(kv.first);
      llvm::sort(keys, [](llvm::StringRef a, llvm::StringRef b) {
        return std::pair(keywordRank(a), a) < std::pair(keywordRank(b), b);
      });
      for (llvm::StringRef key : keys) {
        bool wrapper = key == "args" || key == "kwargs" || key == "config";
        visit(*o->get(key), wrapper ? argument : key.str());
      }
      return;
    }
    if (const json::Array *a = v.getAsArray()) {
      if (a->size() >= 3 && (*a)[0].getAsString() && (*a)[1].getAsInteger()) {
        if (!isConstantValue(*a))
          take(*a, argument);
        if (a->size() >= 4)
          visit((*a)[3], "");
        return;
      }
      for (const json::Value &e : *a)
        visit(e, argument);
    }
  };
  visit(v, "");
  return refs;
}

namespace {

std::vector<TensorRef> inboundTensors(const json::Object &layer) {
  if (const json::Value *nodes = layer.get("inbound_nodes"))
    return tensorRefs(*nodes);
  return {};
}

/// What each call of a layer reads: one list per inbound node (none for an
/// input layer).
std::vector<std::vector<TensorRef>> inboundCalls(const json::Object &layer) {
  std::vector<std::vector<TensorRef>> calls;
  if (const json::Array *nodes = layer.getArray("inbound_nodes"))
    for (const json::Value &node : *nodes)
      calls.push_back(tensorRefs(node));
  return calls;
}

std::vector<std::string> inboundLayers(const json::Object &layer) {
  std::vector<std::string> names;
  for (TensorRef &ref : inboundTensors(layer))
    names.push_back(std::move(ref.layer));
  return names;
}

/// The node the `mask` keyword argument of one call of a Keras 3 layer (an
/// inbound node) comes from, or "". Each call of a shared layer (a nested
/// model called on two inputs) names its own.
std::string maskArgument(const json::Value *call) {
  std::string found;
  std::function<void(const json::Value &)> visit = [&](const json::Value &v) {
    if (const json::Object *o = v.getAsObject()) {
      for (const auto &kv : *o) {
        if (isMaskKeyword(kv.first)) {
          if (std::vector<TensorRef> refs = tensorRefs(kv.second); !refs.empty())
            found = refs[0].layer;
        } else {
          visit(kv.second);
        }
      }
    } else if (const json::Array *a = v.getAsArray()) {
      for (const json::Value &e : *a)
        visit(e);
    }
  };
  if (call)
    visit(*call);
  return found;
}

/// The first positional arguments of a Keras 3 node: the tensor's layer
/// name, and the constant after it (NotEqual's value).
std::pair<std::string, std::optional<double>> nodeArguments(const json::Object &layer) {
  std::vector<std::string> inbound = inboundLayers(layer);
  std::optional<double> constant;
  if (const json::Array *nodes = layer.getArray("inbound_nodes"))
    if (!nodes->empty())
      if (const json::Object *node = (*nodes)[0].getAsObject())
        if (const json::Array *args = node->getArray("args"); args && args->size() >= 2)
          constant = (*args)[1].getAsNumber();
  return {inbound.empty() ? "" : inbound[0], constant};
}

/// `name` is NotEqual(x, value) where a `layerClass` layer (Masking with
/// mask_value = value, Embedding with mask_zero and value 0) reads x.
Error checkNotEqual(StringRef name, const StringMap<const json::Value *> &byName,
                    StringRef where, StringRef layerClass) {
  auto fail = [&](const Twine &why) {
    return fileError(where, "node '" + name + "' " + why +
                                ": only the masks of Masking and "
                                "Embedding(mask_zero=True) layers are supported");
  };
  auto [input, value] = nodeArguments(*byName.lookup(name)->getAsObject());
  if (!value)
    return fail("does not compare with a constant");
  for (const auto &entry : byName) {
    const json::Object *o = entry.second->getAsObject();
    StringRef cls = o->getString("class_name").value_or("");
    std::vector<std::string> inbound = inboundLayers(*o);
    if (inbound.size() != 1 || inbound[0] != input || cls != layerClass)
      continue;
    const json::Object *config = o->getObject("config");
    if (cls == "Masking" && config &&
        config->getNumber("mask_value").value_or(0.0) == *value)
      return Error::success();
    if (cls == "Embedding" && config &&
        config->getBoolean("mask_zero").value_or(false) && *value == 0)
      return Error::success();
  }
  return fail("is not the mask of the layer that reads its input");
}

/// Whether an op node's config names the last axis: "axis": -1 or [-1].
static bool namesLastAxis(const json::Object *config) {
  const json::Value *axis = config ? config->get("axis") : nullptr;
  std::optional<int64_t> a = axis ? axis->getAsInteger() : std::nullopt;
  if (axis && axis->getAsArray() && axis->getAsArray()->size() == 1)
    a = (*axis->getAsArray())[0].getAsInteger();
  return a == -1;
}

/// Keras 3 saves the masks layers compute as op nodes: NotEqual(x,
/// mask_value) and, for Masking, Any(axis=-1) off the masked layer's input;
/// LogicalOr of the inputs' masks for a merge; ExpandDims, ZerosLike,
/// Concatenate and Any for a Concatenate's; ConvertToTensor for an
/// attention layer's. The layers that take a mask name the last node.
/// seqc computes the masks from the graph itself, as Keras' layers do, so
/// these nodes are checked to be such a computation over the masks of
/// Masking and Embedding(mask_zero=True) layers, and set aside instead of
/// read as branches. `name` is a node a mask is computed from; the nodes
/// checked are added to `checked`.
Error checkMaskNode(StringRef name, const StringMap<const json::Value *> &byName,
                    StringRef where, StringSet<> &checked, int depth = 0) {
  auto fail = [&](const Twine &why) {
    return fileError(where, "node '" + name + "' " + why +
                                ": only the masks of Masking and "
                                "Embedding(mask_zero=True) layers are supported");
  };
  if (checked.contains(name))
    return Error::success();
  const json::Value *entry = byName.lookup(name);
  const json::Object *node = entry ? entry->getAsObject() : nullptr;
  if (!isOpNode(node))
    return fail("is not a mask computation");
  if (depth > 64)
    return fail("is too deep a mask computation");
  StringRef cls = node->getString("class_name").value_or("");
  const json::Object *config = node->getObject("config");
  std::vector<std::string> inputs = inboundLayers(*node);
  auto checkInputs = [&]() -> Error {
    for (const std::string &input : inputs)
      if (Error e = checkMaskNode(input, byName, where, checked, depth + 1))
        return e;
    return Error::success();
  };
  if (cls == "LogicalOr" || cls == "LogicalAnd" || cls == "ConvertToTensor" ||
      cls == "Concatenate" || cls == "ExpandDims") {
    if (inputs.empty() || (cls == "ExpandDims" && !namesLastAxis(config)))
      return fail("(" + cls + ") is not a mask computation seqc knows");
    checked.insert(name);
    return checkInputs();
  }
  if (cls == "ZerosLike" || cls == "OnesLike") {
    // The shape of a layer's output: its values are not read.
    checked.insert(name);
    return Error::success();
  }
  if (cls == "Any") {
    if (!namesLastAxis(config) || (config && config->getBoolean("keepdims").value_or(false)))
      return fail("(Any) is not a reduction over the last axis");
    if (inputs.size() != 1)
      return fail("(Any) does not reduce one node");
    const json::Value *inner = byName.lookup(inputs[0]);
    if (inner && inner->getAsObject()->getString("class_name") == "NotEqual") {
      // Masking: Any(NotEqual(x, mask_value)).
      if (Error e = checkNotEqual(inputs[0], byName, where, "Masking"))
        return e;
      checked.insert(name);
      checked.insert(inputs[0]);
      return Error::success();
    }
    checked.insert(name);
    return checkInputs();
  }
  if (cls == "NotEqual") {
    // Embedding(mask_zero=True): NotEqual(ids, 0).
    if (Error e = checkNotEqual(name, byName, where, "Embedding"))
      return e;
    checked.insert(name);
    return Error::success();
  }
  return fail("(" + cls + ") is not a mask computation seqc knows");
}

/// Whether mask node `name` is true everywhere: a Concatenate of a masked
/// input with an unmasked one along the features gives the latter
/// OnesLike and reduces with Any over the features, so no step is masked
/// (seqc's concatenation drops the mask there). Through ConvertToTensor (an
/// attention layer's) and LogicalOr.
bool maskIsAllTrue(StringRef name, const StringMap<const json::Value *> &byName,
                   int depth = 0) {
  const json::Value *entry = byName.lookup(name);
  const json::Object *node = entry ? entry->getAsObject() : nullptr;
  if (!isOpNode(node) || depth > 64)
    return false;
  StringRef cls = node->getString("class_name").value_or("");
  const json::Object *config = node->getObject("config");
  std::vector<std::string> inputs = inboundLayers(*node);
  if (cls == "OnesLike")
    return true;
  if (cls == "ConvertToTensor")
    return inputs.size() == 1 && maskIsAllTrue(inputs[0], byName, depth + 1);
  if (cls == "LogicalOr")
    return llvm::any_of(inputs, [&](const std::string &input) {
      return maskIsAllTrue(input, byName, depth + 1);
    });
  if (cls == "Any" && namesLastAxis(config) && inputs.size() == 1) {
    const json::Value *joined = byName.lookup(inputs[0]);
    const json::Object *concat = joined ? joined->getAsObject() : nullptr;
    if (!isOpNode(concat) || concat->getString("class_name") != "Concatenate" ||
        !namesLastAxis(concat->getObject("config")))
      return false;
    return llvm::any_of(inboundLayers(*concat), [&](const std::string &input) {
      return maskIsAllTrue(input, byName, depth + 1);
    });
  }
  return false;
}

std::vector<const json::Value *> pointers(const json::Array &list) {
  std::vector<const json::Value *> result;
  for (const json::Value &entry : list)
    result.push_back(&entry);
  return result;
}


Error parseLayerList(ArrayRef<const json::Value *> list, StringRef where,
                     ModelConfig &model) {
  for (const json::Value *entry : list) {
    Expected<LayerConfig> layer = layerFromEntry(*entry, where, "model config");
    if (!layer)
      return layer.takeError();
    // The input shape: an InputLayer, or batch_input_shape / batch_shape
    // on the first real layer (later repeats are ignored, as Keras does).
    for (StringRef key : {"batch_input_shape", "batch_shape"}) {
      Expected<std::optional<KerasShape>> shape = layer->getShape(key);
      if (!shape)
        return shape.takeError();
      if (*shape && !model.inputShape && model.layers.empty()) {
        model.inputShape = **shape;
        model.inputShapeSource = layer->getName();
        if (model.inputs.empty() && layer->getClassName() != "InputLayer")
          model.inputDtype = dtypeOf(*layer);
      }
    }
    if (layer->getClassName() != "InputLayer") {
      model.layers.push_back(std::move(*layer));
      continue;
    }
    ModelInput input{layer->getName(), std::nullopt, dtypeOf(*layer)};
    for (StringRef key : {"batch_input_shape", "batch_shape"})
      if (Expected<std::optional<KerasShape>> shape = layer->getShape(key);
          shape && *shape)
        input.shape = **shape;
    model.inputs.push_back(std::move(input));
  }
  return Error::success();
}

/// The name of one call of a layer: its name for the first call (and the
/// only one of most layers), the name, a unit separator and the node for a
/// shared layer's later ones (see LayerConfig::getCallId).
std::string callId(StringRef layer, int64_t node) {
  return node == 0 ? layer.str() : (layer + "\x1f" + Twine(node)).str();
}

/// "name" or "name (call 2)", for messages.
std::string callText(StringRef id) {
  auto [name, node] = id.split('\x1f');
  return node.empty() ? name.str() : (name + " (call " + node + ")").str();
}

/// Orders a Functional model's layers so that each comes after the layers
/// it reads, and records what each reads; or explains what is not supported.
Error parseFunctional(const json::Object &config, StringRef where,
                      ModelConfig &model) {
  const json::Array *layers = config.getArray("layers");
  if (!layers)
    return fileError(where, "Functional model config has no 'layers' list");
  StringMap<const json::Value *> byName;
  auto nameOf = [](const json::Object *o) {
    std::string name = o ? o->getString("name").value_or("").str() : "";
    if (name.empty() && o && o->getObject("config"))
      name = o->getObject("config")->getString("name").value_or("").str();
    return name;
  };
  for (const json::Value &entry : *layers) {
    std::string name = nameOf(entry.getAsObject());
    if (name.empty())
      return fileError(where,
                       "Functional model config has a layer without a name");
    if (!byName.try_emplace(name, &entry).second)
      return fileError(where, "Functional model config has two layers named '" +
                                  name + "'");
  }
  // A Keras 3 op node computes a value of the model (keras.ops on tensors:
  // x * 0.5, ops.mean) when a layer or the model's outputs read it, directly
  // or through other op nodes; the others compute masks (set aside below).
  StringSet<> computed;
  {
    std::vector<std::string> work;
    auto want = [&](const std::vector<TensorRef> &refs) {
      for (const TensorRef &ref : refs)
        work.push_back(ref.layer);
    };
    if (const json::Value *list = config.get("output_layers"))
      want(tensorRefs(*list));
    for (const json::Value &entry : *layers)
      if (const json::Object *o = entry.getAsObject(); o && !isOpNode(o))
        want(inboundTensors(*o));
    while (!work.empty()) {
      std::string name = std::move(work.back());
      work.pop_back();
      const json::Value *entry = byName.lookup(name);
      if (entry && isOpNode(entry->getAsObject()) && computed.insert(name).second)
        want(inboundTensors(*entry->getAsObject()));
    }
  }
  auto isMaskNode = [&](const json::Object *o) {
    return isOpNode(o) && !computed.contains(nameOf(o));
  };
  // The masks layers are called with must be computations seqc knows. A
  // mask node no layer is called with is set aside: nothing reads it (a
  // layer or an output reading an op node is refused below), e.g. the mask
  // of a call of a nested model that is only its input.
  StringSet<> checked;
  for (const json::Value &entry : *layers) {
    const json::Object *o = entry.getAsObject();
    const json::Array *calls = o ? o->getArray("inbound_nodes") : nullptr;
    if (isMaskNode(o) || !calls)
      continue;
    for (const json::Value &call : *calls) {
      std::string mask = maskArgument(&call);
      if (!mask.empty() && byName.lookup(mask) && !checked.contains(mask))
        if (Error e = checkMaskNode(mask, byName, where, checked))
          return e;
    }
  }
  // The graph: every call of a layer after the calls it reads (Kahn's
  // algorithm, in file order among the ready ones, so a chain keeps its
  // order). A shared layer is called several times: one entry per call.
  std::vector<std::string> names, inputLayers;
  StringMap<std::vector<std::string>> reads;
  StringMap<std::vector<int64_t>> readIndices;
  StringMap<std::vector<std::string>> readArguments;
  StringMap<const json::Value *> nodeOf;
  StringMap<const json::Value *> entryOf;
  StringMap<int64_t> callCount;
  for (const json::Value &entry : *layers) {
    const json::Object *o = entry.getAsObject();
    if (!isMaskNode(o))
      callCount[nameOf(o)] = std::max<size_t>(inboundCalls(*o).size(), 1);
  }
  for (const json::Value &entry : *layers) {
    const json::Object *o = entry.getAsObject();
    if (isMaskNode(o))
      continue;
    std::string name = nameOf(o);
    std::vector<std::vector<TensorRef>> calls = inboundCalls(*o);
    if (calls.empty())
      calls.emplace_back();
    for (auto [node, refs] : llvm::enumerate(calls)) {
      std::string id = callId(name, node);
      for (const TensorRef &ref : refs) {
        if (!byName.lookup(ref.layer) || isMaskNode(byName.lookup(ref.layer)->getAsObject()))
          return fileError(where, "layer '" + name + "' reads '" + ref.layer +
                                      "', which is not a layer of the model");
        if (ref.node < 0 || ref.node >= callCount.lookup(ref.layer))
          return fileError(where, "layer '" + name + "' reads call " + Twine(ref.node) +
                                      " of '" + ref.layer + "', which is called " +
                                      Twine(callCount.lookup(ref.layer)) + " time(s)");
        reads[id].push_back(callId(ref.layer, ref.node));
        readIndices[id].push_back(ref.index);
        readArguments[id].push_back(ref.argument);
      }
      if (refs.empty())
        inputLayers.push_back(id);
      if (const json::Array *nodes = o->getArray("inbound_nodes"); nodes && node < nodes->size())
        nodeOf[id] = &(*nodes)[node];
      names.push_back(id);
      entryOf[id] = &entry;
    }
  }
  if (inputLayers.empty())
    return fileError(where, "the Functional model has no input layer");
  std::vector<const json::Value *> ordered;
  std::vector<std::string> orderedIds;
  StringSet<> placed;
  while (ordered.size() < names.size()) {
    size_t before = ordered.size();
    for (const std::string &name : names)
      if (!placed.contains(name) &&
          llvm::all_of(reads[name], [&](const std::string &from) {
            return placed.contains(from);
          })) {
        placed.insert(name);
        ordered.push_back(entryOf[name]);
        orderedIds.push_back(name);
      }
    if (ordered.size() == before) {
      std::string cycle;
      for (const std::string &name : names)
        if (!placed.contains(name))
          cycle += (cycle.empty() ? "'" : ", '") + callText(name) + "'";
      return fileError(where, "layers " + cycle + " read each other in a cycle");
    }
  }
  // The model's outputs: layers' values, or the states of a return_state
  // layer (its outputs after the first).
  if (const json::Value *list = config.get("output_layers"))
    for (TensorRef &ref : tensorRefs(*list)) {
      model.outputs.push_back(callId(ref.layer, ref.node));
      model.outputIndices.push_back(ref.index);
    }
  if (model.outputs.empty()) {
    model.outputs.push_back(nameOf(ordered.back()->getAsObject()));
    model.outputIndices.push_back(0);
  }
  for (const std::string &output : model.outputs)
    if (!placed.contains(output))
      return fileError(where, "the Functional model's output '" + callText(output) +
                                  "' is not one of its layers");
  if (Error e = parseLayerList(ordered, where, model))
    return e;
  for (const std::string &name : inputLayers) {
    if (llvm::any_of(model.inputs, [&](const ModelInput &in) { return in.name == name; }))
      continue;
    // tf_keras records a TensorFlow function's first argument only: the
    // tensors of tf.einsum("...", a, b) are lost when it saves the model.
    const json::Object *entry = entryOf.lookup(name) ? entryOf.lookup(name)->getAsObject()
                                                     : nullptr;
    if (entry && entry->getString("class_name") == "TFOpLambda")
      return fileError(where, "layer '" + callText(name) + "' (TFOpLambda) reads no tensor: "
                                  "tf_keras saved only its first argument, not the tensors "
                                  "after it (as tf.einsum's); write it with tf.matmul, or "
                                  "keras.ops.einsum in Keras 3");
    return fileError(where, "layer '" + name + "' reads nothing but is not an "
                                "InputLayer: the model config is malformed");
  }
  // Keras' input order, when the config records it (else file order).
  std::vector<ModelInput> inputs;
  if (const json::Value *list = config.get("input_layers"))
    for (const TensorRef &ref : tensorRefs(*list)) {
      auto it = llvm::find_if(model.inputs, [&](const ModelInput &in) {
        return in.name == ref.layer;
      });
      if (it == model.inputs.end())
        return fileError(where, "the Functional model's input '" + ref.layer +
                                    "' is not one of its input layers");
      inputs.push_back(std::move(*it));
      model.inputs.erase(it);
    }
  if (!inputs.empty() && !model.inputs.empty())
    return fileError(where, "input layer '" + model.inputs.front().name +
                                "' is not one of the Functional model's inputs");
  if (!inputs.empty())
    model.inputs = std::move(inputs);
  // Which layers' outputs after the first (return_state's states) another
  // layer reads or the model outputs.
  StringSet<> statesRead;
  for (const json::Value &entry : *layers)
    for (const TensorRef &ref : inboundTensors(*entry.getAsObject()))
      if (ref.index > 0)
        statesRead.insert(callId(ref.layer, ref.node));
  for (auto [id, index] : llvm::zip(model.outputs, model.outputIndices))
    if (index > 0)
      statesRead.insert(id);
  // parseLayerList drops the InputLayer: match the rest by position.
  size_t i = 0;
  for (auto [entry, id] : llvm::zip(ordered, orderedIds)) {
    const json::Object *o = entry->getAsObject();
    if (o->getString("class_name") == "InputLayer")
      continue;
    std::string mask = maskArgument(nodeOf.lookup(id));
    if (!mask.empty() &&
        !isMaskNode(byName.lookup(mask) ? byName.lookup(mask)->getAsObject() : nullptr))
      return fileError(where, "layer '" + nameOf(o) + "' is called with a mask from '" +
                                  mask + "', which is not the mask of a Masking or "
                                  "Embedding(mask_zero=True) layer: not supported");
    model.layers[i].setInFunctional();
    model.layers[i].setCall(id, callCount.lookup(nameOf(o)));
    model.layers[i].setInputs(reads[id]);
    model.layers[i].setInputIndices(readIndices[id]);
    model.layers[i].setInputArguments(readArguments[id]);
    model.layers[i].setCallNode(nodeOf.lookup(id));
    model.layers[i].setStatesRead(statesRead.contains(id));
    if (maskIsAllTrue(mask, byName))
      mask.clear(); // it masks nothing: like no mask
    model.layers[i++].setMaskArgument(std::move(mask));
  }
  return Error::success();
}

} // namespace

/// tf_keras writes a node of a TFOpLambda called on one tensor in an .h5
/// config as that tensor's reference, ["x", 0, 0, {"y": 0.5}], instead of a
/// list of references holding it, [["x", 0, 0, {"y": 0.5}]]: this makes it
/// the latter.
static void wrapSingleReferenceNodes(json::Object &graph) {
  json::Array *layers = graph.getArray("layers");
  if (!layers)
    return;
  for (json::Value &entry : *layers) {
    json::Object *o = entry.getAsObject();
    json::Array *nodes = o ? o->getArray("inbound_nodes") : nullptr;
    if (!nodes)
      continue;
    for (json::Value &node : *nodes)
      if (json::Array *ref = node.getAsArray();
          ref && ref->size() >= 3 && (*ref)[0].getAsString() && (*ref)[1].getAsInteger())
        node = json::Array{std::move(*ref)};
  }
}

Expected<ModelConfig> parseModelConfig(const json::Value &root,
                                       StringRef where) {
  ModelConfig model;
  // Keras <= 2.2.2: {"class_name": "Sequential", "config": [layers...]}.
  const json::Object *top = root.getAsObject();
  if (!top)
    return fileError(where, "the model config is not a JSON object");
  std::string className = top->getString("class_name").value_or("").str();
  const json::Value *configValue = top->get("config");
  if (className.empty() || !configValue)
    return fileError(where, "the model config has no class_name/config: is "
                            "this the output of model.to_json()?");
  if (className != "Sequential" && className != "Functional" &&
      className != "Model")
    return fileError(where, "the model is a '" + className +
                                "': only Sequential models and Functional "
                                "chains are supported (subclassed models carry "
                                "Python code, which is never run)");
  // Nested models' layers in their place: `model.inlined` owns the config
  // the layers point into.
  auto inlineSequential = [&](const json::Array &list) -> Error {
    Expected<json::Array> layers = inlineNestedSequentials(pointers(list), where);
    if (!layers)
      return layers.takeError();
    auto owned = std::make_shared<json::Value>(std::move(*layers));
    model.inlined = owned;
    return parseLayerList(pointers(*owned->getAsArray()), where, model);
  };
  if (const json::Array *list = configValue->getAsArray()) {
    model.modelName = "sequential";
    if (Error e = inlineSequential(*list))
      return std::move(e);
    return model;
  }
  const json::Object *config = configValue->getAsObject();
  if (!config)
    return fileError(where, "the model config's 'config' is not an object");
  const json::Value *name = config->get("name");
  if (name && name->kind() != json::Value::Null && !name->getAsString())
    return fileError(where, "the model's 'name' is not a string");
  model.modelName = config->getString("name").value_or("sequential").str();
  const json::Array *layers = config->getArray("layers");
  if (className == "Sequential" && !layers)
    return fileError(where, "the Sequential config has no 'layers' list");
  // A Sequential model holding a Functional one is read as the graph it is.
  if (className == "Sequential" && !holdsFunctionalModel(pointers(*layers))) {
    if (Error e = inlineSequential(*layers))
      return std::move(e);
  } else {
    Expected<json::Object> inlined = className == "Sequential"
                                         ? inlineSequentialAsGraph(*layers, where)
                                         : inlineNestedModels(*config, where);
    if (!inlined)
      return inlined.takeError();
    wrapSingleReferenceNodes(*inlined);
    auto owned = std::make_shared<json::Value>(std::move(*inlined));
    model.inlined = owned;
    if (Error e = parseFunctional(*owned->getAsObject(), where, model))
      return std::move(e);
    if (const json::Value *list = config->get("output_layers"))
      for (const TensorRef &ref : tensorRefs(*list))
        model.outputLayerNames.push_back(ref.layer);
  }
  if (!model.inputShape) {
    if (const json::Value *build = config->get("build_input_shape")) {
      if (std::optional<KerasShape> shape = toShape(*build)) {
        model.inputShape = *shape;
        model.inputShapeSource = "build_input_shape";
      }
    }
  }
  return model;
}

std::string dtypeOf(const LayerConfig &layer) {
  const json::Value *value = layer.getObject().get("dtype");
  if (!value)
    return "";
  if (std::optional<StringRef> name = value->getAsString())
    return name->str();
  if (const json::Object *policy = value->getAsObject())
    if (const json::Object *config = policy->getObject("config"))
      return config->getString("name").value_or("").str();
  return "";
}

namespace {
void visitEntry(json::Object &entry, function_ref<void(json::Object &)> visit) {
  visit(entry);
  json::Object *config = entry.getObject("config");
  if (!config)
    return;
  if (json::Array *layers = config->getArray("layers"))
    for (json::Value &layer : *layers)
      if (json::Object *o = layer.getAsObject())
        visitEntry(*o, visit);
  for (StringRef key : {"layer", "backward_layer"})
    if (json::Object *wrapped = config->getObject(key))
      visitEntry(*wrapped, visit);
}
} // namespace

void forEachLayerEntry(json::Value &root, function_ref<void(json::Object &)> visit) {
  json::Object *top = root.getAsObject();
  json::Value *config = top ? top->get("config") : nullptr;
  if (!config)
    return;
  json::Array *layers = config->getAsArray(); // Keras 2.0's Sequential: a list
  if (json::Object *o = config->getAsObject())
    layers = o->getArray("layers");
  if (layers)
    for (json::Value &layer : *layers)
      if (json::Object *o = layer.getAsObject())
        visitEntry(*o, visit);
}

void clearSourceClasses(json::Value &root) {
  forEachLayerEntry(root, [](json::Object &entry) { entry.erase(kSourceClassKey); });
}

} // namespace seq::keras

#include "seq/Frontend/Keras/Importer.h"

#include "CuDNNLayers.h"
#include "Keras1.h"
#include "KerasConfig.h"
#include "LayerClasses.h"
#include "LayerEmitter.h"
#include "ModelSource.h"
#include "RecurrentStates.h"

#include "seq/Frontend/Keras/FileFormat.h"

#include "seq/Dialect/Seq/IR/Metadata.h"
#include "seq/Dialect/Seq/IR/ModelIO.h"
#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace seq::keras {

constexpr int64_t kDynamic = shapes::kDynamic;
/// The largest size one axis may have.
constexpr int64_t kMaxDimension = (int64_t(1) << 31) - 1;

void registerImporterDialects(MLIRContext &context) {
  context.loadDialect<SeqDialect, arith::ArithDialect, func::FuncDialect,
                      tensor::TensorDialect>();
}

Expected<std::vector<int64_t>> parseInputShape(StringRef text) {
  std::vector<int64_t> shape;
  SmallVector<StringRef> parts;
  text.split(parts, ',');
  for (StringRef part : parts) {
    part = part.trim();
    int64_t size;
    if (part == "?" || part == "-1" || part == "None" || part == "null")
      shape.push_back(kDynamic);
    else if (!part.getAsInteger(10, size) && size > 0 && size <= kMaxDimension)
      shape.push_back(size);
    else
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--input-shape '" + text +
              "': expected comma-separated positive sizes or '?' without the "
              "batch axis, e.g. --input-shape=10,12 or --input-shape=?,12");
  }
  return shape;
}

namespace {

/// What the first layer with weights says about the input: its rank and its
/// feature size, looking through weightless shape-preserving layers.
std::optional<std::vector<int64_t>>
shapeFromWeights(const std::vector<LayerConfig> &layers,
                 const std::vector<std::vector<WeightArray>> &weights) {
  for (size_t i = 0; i < layers.size(); ++i) {
    StringRef cls = layers[i].getClassName();
    const std::vector<WeightArray> &w = weights[i];
    if (LayerEmitter::isShapePreserving(cls))
      continue;
    if (cls == "Embedding")
      return std::vector<int64_t>{kDynamic};
    if (w.empty() || w[0].shape.empty())
      return std::nullopt;
    if (cls == "LSTM" || cls == "GRU" || cls == "SimpleRNN" ||
        cls == "Bidirectional")
      return std::vector<int64_t>{kDynamic, w[0].shape[0]};
    if (cls == "Conv1D" && w[0].shape.size() == 3)
      return std::vector<int64_t>{kDynamic, w[0].shape[1]};
    if (cls == "TimeDistributed")
      return std::vector<int64_t>{kDynamic, w[0].shape[0]};
    if (cls == "Dense")
      return std::vector<int64_t>{w[0].shape[0]};
    if (cls == "BatchNormalization" || cls == "LayerNormalization")
      return std::vector<int64_t>{w[0].shape[0]};
    return std::nullopt;
  }
  return std::nullopt;
}

/// Whether a layer keeps state between calls: stateful=True on it or on
/// the layer it wraps. (A malformed flag is reported when the layer is
/// emitted.)
static bool isStateful(const LayerConfig &layer) {
  auto flag = [](const LayerConfig &l) {
    Expected<bool> stateful = l.getBoolOr("stateful", false);
    if (!stateful) {
      llvm::consumeError(stateful.takeError());
      return false;
    }
    return *stateful;
  };
  if (flag(layer))
    return true;
  if (!layer.has("layer"))
    return false;
  Expected<LayerConfig> inner = layer.getInnerLayer("layer");
  if (!inner) {
    llvm::consumeError(inner.takeError());
    return false;
  }
  return flag(*inner);
}

/// The input shape without the batch axis: --input-shape, else the config,
/// else the weights; a null feature size in the config is filled from the
/// weights.
Expected<std::vector<int64_t>>
resolveInputShape(const ImportOptions &options, const ModelConfig &config,
                  const std::vector<std::vector<WeightArray>> &weights,
                  StringRef where) {
  if (options.inputShape)
    return *options.inputShape;
  if (config.inputShape)
    for (size_t i = 1; i < config.inputShape->size(); ++i) {
      std::optional<int64_t> size = (*config.inputShape)[i];
      if (size && (*size < 1 || *size > kMaxDimension))
        return fileError(where, "layer '" + config.inputShapeSource +
                                    "': the recorded input shape has size " +
                                    Twine(*size) + " on axis " + Twine(i) +
                                    "; sizes must be in [1, " +
                                    Twine(kMaxDimension) +
                                    "] (or null): pass --input-shape");
    }
  std::optional<std::vector<int64_t>> recovered =
      shapeFromWeights(config.layers, weights);
  if (config.inputShape && config.inputShape->size() >= 2) {
    std::vector<int64_t> shape;
    for (size_t i = 1; i < config.inputShape->size(); ++i)
      shape.push_back((*config.inputShape)[i].value_or(kDynamic));
    bool lastUnknown = shape.back() == kDynamic;
    bool embedding = config.layers.front().getClassName() == "Embedding";
    if (lastUnknown && !embedding) {
      if (!recovered || recovered->size() != shape.size() ||
          recovered->back() == kDynamic)
        return config.layers.front().error(
            "the recorded input shape " + shapes::format(shape) +
            " has no feature size and the weights do not tell it; pass "
            "--input-shape (sizes without the batch axis, e.g. ?,12)");
      shape.back() = recovered->back();
    }
    return shape;
  }
  if (recovered)
    return *recovered;
  const LayerConfig &first = config.layers.front();
  return first.error("the file records no input shape and it cannot be "
                     "recovered from the weights; pass --input-shape (sizes "
                     "without the batch axis, e.g. --input-shape=10,12)");
}

/// The summary row a layer is in: its own, or the one of the outermost
/// nested model it is inside (Keras shows a model called as a layer as one
/// row).
StringRef rowName(const LayerConfig &layer) {
  return layer.getScopes().empty() ? StringRef(layer.getName())
                                   : StringRef(layer.getScopes().front().name);
}

/// What a Functional layer's call reads, as Keras' summary lists it:
/// 'name[call][output]'; `rows` maps layers to their rows (see rowName),
/// and a nested model's layers list only what they read from outside it.
std::vector<std::string> connectionsOf(const LayerConfig &layer,
                                       const llvm::StringMap<std::string> &rows) {
  std::vector<std::string> list;
  for (auto [k, id] : llvm::enumerate(layer.getInputs())) {
    auto [name, node] = StringRef(id).split('\x1f');
    auto row = rows.find(name);
    StringRef from = row == rows.end() ? name : StringRef(row->second);
    if (!layer.getScopes().empty() && from == rowName(layer))
      continue;
    int64_t index = k < layer.getInputIndices().size() ? layer.getInputIndices()[k] : 0;
    list.push_back((from + "[" + (node.empty() ? StringRef("0") : node) + "][" +
                    Twine(index) + "]")
                       .str());
  }
  return list;
}

/// A shared layer's calls read one set of weights: a later call's
/// constants (same layer, role and type, same bytes) are replaced by the
/// first call's.
void shareWeights(func::FuncOp func) {
  llvm::StringMap<arith::ConstantOp> first;
  SmallVector<arith::ConstantOp> repeated;
  func.walk([&](arith::ConstantOp op) {
    auto loc = dyn_cast<NameLoc>(op.getLoc());
    auto attr = dyn_cast<DenseResourceElementsAttr>(op.getValue());
    if (!loc || !attr)
      return;
    std::string key;
    llvm::raw_string_ostream os(key);
    os << loc.getName().getValue() << '\0' << op.getType();
    auto [it, inserted] = first.try_emplace(key, op);
    if (inserted)
      return;
    auto bytes = [](DenseResourceElementsAttr a) -> ArrayRef<char> {
      AsmResourceBlob *blob = a.getRawHandle().getBlob();
      return blob ? blob->getData() : ArrayRef<char>();
    };
    auto other = cast<DenseResourceElementsAttr>(it->second.getValue());
    if (bytes(attr) == bytes(other) && !bytes(attr).empty() &&
        op->getBlock() == it->second->getBlock())
      repeated.push_back(op);
  });
  for (arith::ConstantOp op : repeated) {
    std::string key;
    llvm::raw_string_ostream os(key);
    os << cast<NameLoc>(op.getLoc()).getName().getValue() << '\0' << op.getType();
    op.replaceAllUsesWith(first[key].getResult());
    op.erase();
  }
}

/// The shape (batch axis included) one of several inputs records: every
/// size known but the batch's and the time axis' (axis 1); a stateful
/// model's batch too.
Expected<SmallVector<int64_t>> recordedInputShape(const ModelInput &input,
                                                  bool stateful, StringRef where) {
  auto fail = [&](const Twine &why) {
    return fileError(where, "input layer '" + input.name + "' " + why);
  };
  if (!input.shape || input.shape->size() < 2)
    return fail("records no shape: a model with several inputs needs each "
                "InputLayer's shape");
  SmallVector<int64_t> shape{kDynamic};
  if (stateful && input.shape->front())
    shape[0] = *input.shape->front();
  for (size_t i = 1; i < input.shape->size(); ++i) {
    std::optional<int64_t> size = (*input.shape)[i];
    if (size && (*size < 1 || *size > kMaxDimension))
      return fail("records size " + Twine(*size) + " on axis " + Twine(i) +
                  "; sizes must be in [1, " + Twine(kMaxDimension) + "]");
    if (!size && (i != 1 || input.shape->size() == 2))
      return fail("records no size on axis " + Twine(i) +
                  ": only the batch and time axes may be unknown");
    shape.push_back(size.value_or(kDynamic));
  }
  return shape;
}

std::string jsonList(const std::vector<std::string> &items) {
  llvm::json::Array array;
  for (const std::string &s : items)
    array.push_back(s);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(array));
  return text;
}

/// A Keras 3 Functional config names the mask a layer was called with when
/// the model was built; seqc carries the mask along the chain, so a named
/// one must reach the layer along it. A null there drops nothing: Keras
/// replaces `mask=None` with the input's mask at run time (a nested model's
/// outputs carry no mask while the model is built, only when it runs).
Error checkMaskArgument(const LayerConfig &layer, bool chainHasMask) {
  const std::string &named = layer.getMaskArgument();
  if (!named.empty() && !chainHasMask)
    return layer.error("is called with the mask of '" + named +
                       "', which Keras' own mask propagation would not bring "
                       "here (a layer in between drops it): seqc does not "
                       "support a mask passed around layers");
  return Error::success();
}

/// The error for the first layer that Keras 3's model.quantize() left
/// quantized (int8, int4, float8: a dtype policy with a `mode`, or named
/// "int8_from_float32" before Keras 3.6; a quantization_config), else
/// success: seqc reads float32 weights only.
Error checkNotQuantized(ArrayRef<LayerConfig> layers) {
  for (const LayerConfig &layer : layers) {
    const llvm::json::Object &config = layer.getObject();
    const llvm::json::Object *policy = config.getObject("dtype");
    std::string mode;
    if (const llvm::json::Object *inner = policy ? policy->getObject("config") : nullptr)
      mode = inner->getString("mode").value_or("").split('/').first.str(); // "int4/128"
    std::string dtype = dtypeOf(layer);
    StringRef name = dtype;
    if (mode.empty() && name.contains("_from_"))
      mode = name.split("_from_").first.str();
    const llvm::json::Value *quantization = config.get("quantization_config");
    bool quantized = !mode.empty() || (quantization && quantization->getAsObject());
    if (quantized)
      return layer.error("is quantized" + (mode.empty() ? Twine("") : " to " + mode) +
                         " (Keras' model.quantize()): seqc computes in float32 and does not "
                         "read quantized weights; compile the model as saved before "
                         "quantizing it");
  }
  return Error::success();
}

/// The note for layers that Keras computes in 16 bits (dtype policies
/// mixed_float16, mixed_bfloat16, float16, bfloat16), or empty: seqc computes
/// them in float32 from the weights as stored (float32, or float16 widened).
std::string sixteenBitNote(ArrayRef<LayerConfig> layers, StringRef where) {
  std::vector<std::string> names, policies;
  for (const LayerConfig &layer : layers) {
    std::string policy = dtypeOf(layer);
    if (policy != "mixed_float16" && policy != "mixed_bfloat16" && policy != "float16" &&
        policy != "bfloat16")
      continue;
    names.push_back("'" + layer.getName() + "'");
    if (!llvm::is_contained(policies, policy))
      policies.push_back(policy);
  }
  if (names.empty())
    return "";
  std::string list = llvm::join(llvm::ArrayRef(names).take_front(3), ", ");
  if (names.size() > 3)
    list += " and " + std::to_string(names.size() - 3) + " more";
  auto brain = [](const std::string &p) { return StringRef(p).ends_with("bfloat16"); };
  bool bf16 = llvm::any_of(policies, brain), f16 = !llvm::all_of(policies, brain);
  return ("'" + where + "': Keras computes layer" + (names.size() > 1 ? "s " : " ") + list +
          " in " + (bf16 && f16 ? "16 bits" : bf16 ? "bfloat16" : "float16") +
          " (dtype polic" + (policies.size() > 1 ? "ies " : "y ") + llvm::join(policies, ", ") +
          "); seqc computes in float32, so its outputs differ from Keras' by that rounding " +
          "(about " + (bf16 ? "1e-2" : "1e-3") + " relative) and match Keras' float32 " +
          "run of the same weights")
      .str();
}

} // namespace

Expected<ImportedModel> importModel(MLIRContext &context,
                                    const ImportOptions &options) {
  if (detectFormat(options.modelPath).format == FileFormat::MLIR) {
    if (!options.configPath.empty() || options.inputShape ||
        !options.metadata.empty())
      return fileError(options.modelPath,
                       "an MLIR module keeps its own architecture, shapes and "
                       "metadata: a config, an input shape and metadata "
                       "apply to Keras files, not to .mlir modules");
    return loadSeqModule(context, options.modelPath);
  }
  return importKerasModel(context, options);
}

Expected<ImportedModel> importKerasModel(MLIRContext &context,
                                         const ImportOptions &options) {
  Expected<ModelSource> source =
      openModelSource(options.modelPath, options.configPath);
  if (!source)
    return source.takeError();
  return importModelSource(context, *source, options);
}

Expected<ImportedModel> importModelSource(MLIRContext &context, ModelSource &source,
                                          const ImportOptions &options) {
  registerImporterDialects(context);
  StringRef where = source.path;
  clearSourceClasses(source.config);
  bool keras1 = isKeras1Model(source.kerasVersion, source.config);
  if (keras1)
    if (Error e = translateKeras1Config(source.config, where, source.kerasVersion))
      return std::move(e);
  translateCuDNNConfig(source.config);
  Expected<ModelConfig> config = parseModelConfig(source.config, where);
  if (!config)
    return config.takeError();
  if (config->layers.empty())
    return fileError(where, "the model has no layers (its output is its input): there is nothing to compile");

  // A custom class is reported as such before its weights are read.
  if (Error e = checkLayerClasses(config->layers))
    return std::move(e);
  if (Error e = checkNotQuantized(config->layers))
    return std::move(e);
  // A shared layer's later calls use its first call's weights: the store
  // sees each layer once. A later call may come before the first in the
  // model's order (it follows its own input: Conv1D called on `a` first and
  // on `b` second, `b` listed first), so every first call is read before
  // any later call takes its weights.
  std::vector<LayerConfig> firstCalls;
  for (const LayerConfig &layer : config->layers)
    if (layer.getCallNode() == 0)
      firstCalls.push_back(layer);
  std::unique_ptr<WeightStore> store = source.openWeights(firstCalls);
  std::vector<std::vector<WeightArray>> weights(config->layers.size());
  // What each layer stores, as Keras counts its parameters (a CuDNNLSTM's
  // two biases are one after translation).
  std::vector<int64_t> storedParams(config->layers.size(), 0);
  llvm::StringMap<size_t> firstCallOf;
  for (auto [i, layer] : llvm::enumerate(config->layers)) {
    if (layer.getCallNode() > 0)
      continue;
    firstCallOf[layer.getName()] = i;
    Expected<std::vector<WeightArray>> w = store->read(layer);
    if (!w)
      return w.takeError();
    for (const WeightArray &array : *w) {
      // Every size a config gives is at least 1 (LayerConfig::checkSize);
      // an array with an axis of length 0 is not a layer's weight.
      if (array.data.empty())
        return layer.error("weight '" + array.name + "' has shape " +
                           shapes::format(array.shape) +
                           ", with no values: the file is damaged; save the model again");
      storedParams[i] += static_cast<int64_t>(array.data.size());
    }
    if (keras1)
      if (Error e = translateKeras1Weights(layer, *w, source.backend))
        return std::move(e);
    if (Error e = translateCuDNNWeights(layer, *w))
      return std::move(e);
    weights[i] = std::move(*w);
  }
  for (auto [i, layer] : llvm::enumerate(config->layers)) {
    if (layer.getCallNode() == 0)
      continue;
    auto first = firstCallOf.find(layer.getName());
    if (first == firstCallOf.end())
      return fileError(where, "layer '" + layer.getName() + "' is called as its node " +
                                  Twine(layer.getCallNode()) +
                                  " but never as its node 0, which holds its weights: "
                                  "the model's config is damaged; save the model again");
    weights[i] = weights[first->second];
    storedParams[i] = storedParams[first->second];
  }

  // A model file (config and weights saved together) in which no layer has
  // any weight: if one needs some, the model was never built. (With
  // --config, empty layers more likely mean weights of another model.)
  bool savedUnbuilt =
      options.configPath.empty() &&
      llvm::all_of(weights, [](const std::vector<WeightArray> &w) { return w.empty(); });

  // One argument per model input: a single input's shape may be recovered
  // from the weights or given with --input-shape; each of several inputs
  // has its InputLayer's.
  bool stateful = llvm::any_of(config->layers, isStateful);
  std::vector<std::string> inputNames;
  SmallVector<Type> argTypes;
  if (config->inputs.size() > 1) {
    if (options.inputShape)
      return fileError(where, "--input-shape applies to a model with one input; "
                              "this one has " + Twine(config->inputs.size()) +
                              " and each InputLayer records its own shape");
    for (const ModelInput &input : config->inputs) {
      Expected<SmallVector<int64_t>> shape =
          recordedInputShape(input, stateful, where);
      if (!shape)
        return shape.takeError();
      argTypes.push_back(RankedTensorType::get(*shape, Float32Type::get(&context)));
      inputNames.push_back(input.name);
    }
  } else {
    Expected<std::vector<int64_t>> inputShape =
        resolveInputShape(options, *config, weights, where);
    if (!inputShape)
      return inputShape.takeError();
    // A stateful layer keeps one state row per batch row: the batch is the
    // one the model was built with.
    SmallVector<int64_t> argShape{kDynamic};
    if (stateful && config->inputShape && !config->inputShape->empty() &&
        config->inputShape->front())
      argShape[0] = *config->inputShape->front();
    argShape.append(inputShape->begin(), inputShape->end());
    argTypes.push_back(RankedTensorType::get(argShape, Float32Type::get(&context)));
    inputNames.push_back(config->inputs.empty() ? std::string("input")
                                                : config->inputs[0].name);
  }

  OpBuilder builder(&context);
  Location fileLoc = FileLineColLoc::get(&context, where, 0, 0);
  ImportedModel model;
  model.modelName = config->modelName;
  if (std::string note = sixteenBitNote(config->layers, where); !note.empty())
    model.notes.push_back(std::move(note));
  model.module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(model.module->getBody());
  auto func = func::FuncOp::create(builder, fileLoc, "predict",
                                   builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  // An input of an integer dtype: Keras casts what it is given to that dtype,
  // truncating it (seq.truncate); seqc computes in float32 and takes float32
  // inputs, so other dtypes than numbers are refused.
  SmallVector<Value> inputValues(entry->getArguments().begin(),
                                 entry->getArguments().end());
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    std::string dtype = config->inputs.size() > i ? config->inputs[i].dtype
                                                  : config->inputDtype;
    StringRef d(dtype);
    if (d.starts_with("int") || d.starts_with("uint")) {
      inputValues[i] =
          TruncateOp::create(builder, NameLoc::get(builder.getStringAttr(name + "/cast")),
                             inputValues[i].getType(), inputValues[i])
              .getResult();
    } else if (d == "bool" || d == "string" || d.starts_with("complex")) {
      return fileError(where, "the model's input '" + name + "' has dtype '" + dtype +
                                  "': seqc takes numbers (float32, or integers that "
                                  "Keras truncates) only; give the model a numeric "
                                  "Input and re-save");
    }
  }

  LayerEmitter emitter(builder, KerasVersion::parse(source.kerasVersion, source.keras3Layout),
                       savedUnbuilt);
  emitter.setStateBlock(entry);
  Value value = inputValues[0];
  // A Functional layer reads the values (and masks) of the layers it names;
  // a Sequential one the value before it.
  llvm::StringMap<std::pair<Value, Value>> produced;
  // The final states of the layers whose return_state states are read.
  RecurrentStates states;
  // The attention scores of the attention layers whose second output is read.
  llvm::StringMap<Value> attentionScores;
  // What output `index` > 0 of the layer call `id` is.
  // The outputs of operations that have several (tf.split), by call.
  llvm::StringMap<SmallVector<Value>> operationOutputs;
  auto secondaryOutput = [&](StringRef id, int64_t index) -> Expected<Value> {
    if (auto parts = operationOutputs.find(id); parts != operationOutputs.end()) {
      if (index >= static_cast<int64_t>(parts->second.size()))
        return llvm::createStringError("output " + Twine(index) + " of '" +
                                       id.split('\x1f').first + "', which has " +
                                       Twine(parts->second.size()));
      return parts->second[index];
    }
    auto scores = attentionScores.find(id);
    if (scores == attentionScores.end())
      return states.state(builder, id, index);
    if (index != 1)
      return llvm::createStringError("output " + Twine(index) + " of '" +
                                     id.split('\x1f').first +
                                     "': an attention layer has two outputs");
    return scores->second;
  };
  for (auto [i, name] : llvm::enumerate(inputNames))
    produced[name] = {inputValues[i], nullptr};
  std::vector<std::string> layerNames;
  // What each summary row's calls read, by call node.
  llvm::StringMap<std::map<int64_t, std::vector<std::string>>> connectionsByCall;
  // A graph (a layer reads several, or several read one) lists what each
  // layer reads in its summary, as Keras does for such models.
  // A nested model is one row: only what its layers read from outside it
  // counts.
  llvm::StringMap<int> readers;
  llvm::StringMap<std::string> rows;
  llvm::StringSet<> rowReads;
  bool graph = false;
  for (const LayerConfig &layer : config->layers) {
    rows[layer.getName()] = rowName(layer).str();
    graph |= layer.getCallCount() > 1;
    if (layer.getCallCount() > 1 && isStateful(layer))
      return layer.error("is called " + Twine(layer.getCallCount()) +
                         " times and keeps a state (stateful=True): a shared "
                         "stateful layer is not supported");
    size_t outside = 0;
    for (const std::string &from : layer.getInputs()) {
      StringRef source = StringRef(from).split('\x1f').first;
      auto row = rows.find(source);
      if (!layer.getScopes().empty() && row != rows.end() && row->second == rowName(layer))
        continue;
      ++outside;
      if (rowReads.insert((rowName(layer) + "\x1f" + from).str()).second)
        graph |= ++readers[from] > 1;
    }
    graph |= outside > 1;
  }
  for (size_t i = 0; i < config->layers.size(); ++i) {
    const LayerConfig &layer = config->layers[i];
    auto indexOf = [&](size_t k) {
      return k < layer.getInputIndices().size() ? layer.getInputIndices()[k] : 0;
    };
    std::vector<std::pair<std::string, int64_t>> stateReads;
    for (auto [k, from] : llvm::enumerate(layer.getInputs()))
      if (indexOf(k) > 0)
        stateReads.push_back({from, indexOf(k)});
    // All the states of one earlier layer of its class: its final state as
    // it is; states read any other way are values of their own.
    Value initialState = states.wholeState(layer, stateReads);
    SmallVector<Value> inputs, masks;
    for (auto [k, from] : llvm::enumerate(layer.getInputs())) {
      if (indexOf(k) > 0) {
        if (initialState)
          continue;
        Expected<Value> state = secondaryOutput(from, indexOf(k));
        if (!state)
          return layer.error("reads " + llvm::toString(state.takeError()));
        inputs.push_back(*state);
        masks.push_back(nullptr);
        continue;
      }
      auto it = produced.find(from);
      if (it == produced.end())
        return layer.error("reads '" + StringRef(from).split('\x1f').first +
                           "', which no earlier layer makes");
      inputs.push_back(it->second.first);
      masks.push_back(it->second.second);
    }
    // A recurrent layer's initial_state given as other values (the model's
    // inputs in a decoder saved for inference, states of another class or
    // joined from a Bidirectional's): stacked into one.
    if (handsStatesOn(layer.getClassName()) && inputs.size() > 1) {
      if (initialState)
        return layer.error("takes its initial_state from several places: not supported");
      Expected<Value> stacked = stackedState(builder, layer, ArrayRef(inputs).drop_front(),
                                             isStateful(layer));
      if (!stacked)
        return stacked.takeError();
      initialState = *stacked;
      inputs.resize(1);
      masks.resize(1);
    }
    bool attention = LayerEmitter::isAttentionLayer(layer.getClassName());
    bool operation = layer.getClassName() == "Operation";
    bool keepFinal = layer.areStatesRead() && !attention && !operation;
    if (keepFinal)
      if (Expected<int64_t> count = returnedStateCount(layer); !count)
        return count.takeError();
    emitter.setStateLinks(initialState, keepFinal);
    if (inputs.empty()) {
      inputs.push_back(value);
      masks.push_back(emitter.currentMask());
    }
    SmallVector<Value> callMasks = masks;
    if (std::optional<std::vector<bool>> entries = layer.callMaskEntries())
      for (auto [m, given] : llvm::zip(callMasks, *entries))
        if (!given)
          m = nullptr;
    Expected<Value> out = Value();
    if (operation) {
      out = emitter.emitOperation(layer, inputs);
      if (out && !emitter.operationOutputs().empty())
        operationOutputs[layer.getCallId()] = SmallVector<Value>(emitter.operationOutputs());
    } else if (LayerEmitter::isMergeLayer(layer.getClassName())) {
      out = emitter.emitMerge(layer, inputs, masks, callMasks);
    } else if (attention) {
      out = emitter.emitAttention(layer, inputs, masks, callMasks, weights[i]);
      if (out && layer.areStatesRead()) {
        if (!emitter.attentionScores())
          return layer.error("its second output is read, but it is not called with "
                             "return_attention_scores=True");
        attentionScores[layer.getCallId()] = emitter.attentionScores();
      }
    } else if (inputs.size() != 1 && LayerEmitter::isTransformerBlock(layer)) {
      out = emitter.emitTransformerBlock(layer, inputs, masks, weights[i]);
    } else if (inputs.size() != 1) {
      out = layer.error("reads " + Twine(inputs.size()) +
                        " inputs; only merge and attention layers read several");
    } else {
      emitter.setMask(masks[0]);
      if (Error e = checkMaskArgument(layer, masks[0] != nullptr))
        return std::move(e);
      out = emitter.emit(layer, inputs[0], weights[i]);
    }
    if (!out)
      return out.takeError();
    value = *out;
    produced[layer.getCallId()] = {value, emitter.currentMask()};
    if (keepFinal)
      if (Error e = states.record(layer, emitter.finalStates()))
        return std::move(e);
    // Keras 3's op nodes (keras.ops on tensors) are not layers: no row, as
    // in Keras' own summary and model.layers (tf_keras' TFOpLambda is one).
    if (layer.getClassName() == "Operation" &&
        !StringRef(layer.getSourceClassName()).ends_with("OpLambda"))
      continue;
    // A shared layer is one row (its weights counted once, its shape its
    // first call's) listing what every call reads in the order of its calls,
    // as Keras' summary does, wherever its first call comes in the model's
    // order. A nested model's row sums its layers' weights and shows the
    // shape its last layer makes.
    auto row = llvm::find_if(model.layers, [&](const LayerSummary &row) {
      return row.name == rowName(layer);
    });
    if (row == model.layers.end()) {
      StringRef className = layer.getScopes().empty()
                                ? pythonClassName(layer.getSourceClassName())
                                : StringRef(layer.getScopes().front().className);
      layerNames.push_back(rowName(layer).str());
      model.layers.push_back({rowName(layer).str(), className.str()});
      row = std::prev(model.layers.end());
    }
    if (layer.getCallNode() == 0) {
      row->outputShape = cast<RankedTensorType>(value.getType()).getShape().vec();
      row->params += storedParams[i];
      row->nonTrainableParams += LayerEmitter::nonTrainableParams(layer, weights[i]);
    }
    if (graph)
      llvm::append_range(connectionsByCall[row->name][layer.getCallNode()],
                         connectionsOf(layer, rows));
  }
  for (LayerSummary &row : model.layers)
    for (auto &[node, connections] : connectionsByCall[row.name])
      llvm::append_range(row.connectedTo, connections);
  shareWeights(func);
  std::vector<std::string> outputCalls = config->outputs;
  std::vector<int64_t> outputIndices = config->outputIndices;
  if (outputCalls.empty()) {
    outputCalls.push_back(config->layers.back().getCallId());
    outputIndices.push_back(0);
  }
  SmallVector<Value> results;
  std::vector<std::string> outputNames;
  llvm::StringMap<int> suffixes;
  for (auto [i, id, index] : llvm::enumerate(outputCalls, outputIndices)) {
    StringRef layerName = StringRef(id).split('\x1f').first;
    if (index > 0) {
      Expected<Value> state = secondaryOutput(id, index);
      if (!state)
        return fileError(where, "a model output is " + llvm::toString(state.takeError()));
      results.push_back(*state);
    } else {
      results.push_back(produced.lookup(id).first);
    }
    // The output layer's name (a nested model's output: the model's), made
    // unique as tf_keras does when one layer gives several outputs (its
    // states, or calls of a shared layer): name, name_1, name_2, ...
    StringRef name = config->outputLayerNames.size() == outputCalls.size()
                         ? StringRef(config->outputLayerNames[i])
                     : rows.count(layerName) ? StringRef(rows.find(layerName)->second)
                                             : layerName;
    std::string proposal = name.str();
    while (llvm::is_contained(outputNames, proposal))
      proposal = (name + "_" + Twine(++suffixes[name])).str();
    outputNames.push_back(proposal);
  }
  for (const LayerEmitter::LayerState &state : emitter.layerStates())
    results.push_back(state.final);
  func::ReturnOp::create(builder, fileLoc, results);
  func.setFunctionType(builder.getFunctionType(entry->getArgumentTypes(),
                                               ValueRange(results).getTypes()));
  for (const LayerEmitter::LayerState &state : emitter.layerStates())
    func.setArgAttr(state.initial.getArgNumber(), kStateAttrName,
                    builder.getStringAttr(state.layer));
  for (auto [i, name] : llvm::enumerate(inputNames))
    func.setArgAttr(i, kInputAttrName, builder.getStringAttr(name));
  for (auto [i, name] : llvm::enumerate(outputNames))
    func.setResultAttr(i, kOutputAttrName, builder.getStringAttr(name));

  // Metadata: the file's own entries, then seqc's (which a file cannot
  // override), then the user's --metadata on top.
  llvm::StringMap<std::string> metadata;
  for (auto &[k, v] : source.userAttributes)
    metadata[k] = v;
  metadata["source"] = llvm::sys::path::filename(where).str();
  metadata["format"] = source.format;
  if (!source.kerasVersion.empty())
    metadata["keras_version"] = source.kerasVersion;
  if (!source.backend.empty())
    metadata["backend"] = source.backend;
  metadata["model_name"] = config->modelName;
  metadata["layers"] = jsonList(layerNames);
  std::vector<std::string> policies;
  for (const LayerConfig &layer : config->layers)
    if (std::string policy = dtypeOf(layer);
        !policy.empty() && !llvm::is_contained(policies, policy))
      policies.push_back(policy);
  if (policies.size() > 1 || (policies.size() == 1 && policies[0] != "float32"))
    metadata["keras_dtype_policies"] = jsonList(policies);
  for (auto &[k, v] : options.metadata)
    metadata[k] = v;
  SmallVector<NamedAttribute> entries;
  for (auto &entry : metadata)
    entries.push_back(builder.getNamedAttr(entry.getKey(),
                                           builder.getStringAttr(entry.getValue())));
  model.module->getOperation()->setAttr(kMetadataAttrName,
                                        builder.getDictionaryAttr(entries));

  // The emitter checks every value first, so a failure here is a gap in
  // its checks: still one line, naming the layer (the op's location).
  std::string diagnostic;
  {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (diagnostic.empty()) {
        if (auto name = dyn_cast<NameLoc>(diag.getLocation()))
          diagnostic = "layer '" + name.getName().str() + "': ";
        diagnostic += diag.str();
      }
      return success();
    });
    if (succeeded(verify(*model.module)))
      return model;
  }
  return fileError(where, "the model does not verify: " + diagnostic);
}

} // namespace seq::keras

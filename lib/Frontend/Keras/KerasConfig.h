// The model config (model.to_json(), model_config, config.json) as layers in
// execution order, with typed access to each layer's settings. Covers
// Sequential configs of every Keras version (a bare list up to 2.2.2, a dict
// after) and Functional models of any number of inputs and outputs, in
// topological order (a Functional graph's branches meet in merge layers).
// Models called as layers (nested models) are replaced by their layers
// (NestedModels.h).
#ifndef SEQ_LIB_FRONTEND_KERAS_KERASCONFIG_H
#define SEQ_LIB_FRONTEND_KERAS_KERASCONFIG_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace seq::keras {

/// A shape as Keras writes it: std::nullopt for null (None).
using KerasShape = std::vector<std::optional<int64_t>>;

/// One layer's config; accessors fail with a message naming the layer.
class LayerConfig {
public:
  /// `sourceClass` is the class the file names when the importer
  /// translated it (a Keras 1 Convolution1D read as a Conv1D); messages name
  /// it.
  LayerConfig(std::string className, std::string name,
              const llvm::json::Object *config, std::string where,
              std::string sourceClass = "")
      : className(std::move(className)), name(std::move(name)),
        config(config), where(std::move(where)),
        sourceClass(std::move(sourceClass)) {}

  const std::string &getClassName() const { return className; }
  const std::string &getName() const { return name; }
  /// The class as the file names it (Keras 1's Convolution1D for a Conv1D).
  const std::string &getSourceClassName() const {
    return sourceClass.empty() ? className : sourceClass;
  }
  const llvm::json::Object &getObject() const { return *config; }
  /// This layer read from another config object, which must outlive the
  /// copy.
  LayerConfig withConfig(const llvm::json::Object *other) const {
    LayerConfig copy = *this;
    copy.config = other;
    return copy;
  }
  /// This layer under another name (a Bidirectional's "name/forward").
  LayerConfig named(std::string other) const {
    LayerConfig copy = *this;
    copy.name = std::move(other);
    return copy;
  }

  bool has(llvm::StringRef key) const;
  llvm::Expected<int64_t> getInt(llvm::StringRef key) const;
  llvm::Expected<int64_t> getIntOr(llvm::StringRef key, int64_t fallback) const;
  /// An int, or the only element of a list of ints (kernel_size=[3]).
  llvm::Expected<int64_t> getIntOrSingleton(llvm::StringRef key) const;
  /// A size (units, filters, kernel_size, ...): an integer in [1, 2^31-1].
  llvm::Expected<int64_t> getSize(llvm::StringRef key) const;
  llvm::Expected<int64_t> getSizeOr(llvm::StringRef key, int64_t fallback) const;
  llvm::Expected<int64_t> getSizeOrSingleton(llvm::StringRef key) const;
  llvm::Expected<bool> getBoolOr(llvm::StringRef key, bool fallback) const;
  llvm::Expected<double> getDoubleOr(llvm::StringRef key, double fallback) const;
  llvm::Expected<std::string> getStringOr(llvm::StringRef key,
                                          llvm::StringRef fallback) const;
  llvm::Expected<std::vector<int64_t>> getIntList(llvm::StringRef key) const;
  /// A shape such as batch_input_shape; std::nullopt if the key is absent
  /// or null.
  llvm::Expected<std::optional<KerasShape>> getShape(llvm::StringRef key) const;
  /// The nested layer of a wrapper (Bidirectional, TimeDistributed).
  llvm::Expected<LayerConfig> getInnerLayer(llvm::StringRef key) const;
  /// A list of nested layers (StackedRNNCells' cells).
  llvm::Expected<std::vector<LayerConfig>>
  getInnerLayerList(llvm::StringRef key) const;

  /// This layer read as `className` with `config` (which must outlive the
  /// result): an RNN over an LSTMCell is an LSTM. Messages keep naming the
  /// layer by its own class.
  LayerConfig readAs(std::string className, const llvm::json::Object *config) const {
    LayerConfig as = *this;
    as.sourceClass = getSourceClassName();
    as.className = std::move(className);
    as.config = config;
    return as;
  }

  /// A model that a layer of a nested model is inside: a Sequential "base"
  /// called as a layer makes its layer "d1" the layer "base/d1", inside
  /// {"base", "Sequential"}.
  struct Scope {
    std::string name;
    std::string className;
  };
  /// The models this layer is inside, outermost first; empty for a layer of
  /// the model itself.
  const std::vector<Scope> &getScopes() const { return scopes; }
  void setScopes(std::vector<Scope> list) { scopes = std::move(list); }

  /// "'model.h5': layer 'lstm_1' (LSTM): <message>" as an llvm::Error.
  llvm::Error error(const llvm::Twine &message) const;

  /// Keras 3 Functional configs name the mask a layer is called with (the
  /// last node of a Masking or Embedding mask computation); empty if none.
  const std::string &getMaskArgument() const { return maskArgument; }
  void setMaskArgument(std::string node) { maskArgument = std::move(node); }

  /// Whether another layer or the model's outputs read this layer's outputs
  /// after the first (the states of a return_state=True recurrent layer).
  /// Only Functional configs can; a Sequential chain reads the first only.
  bool areStatesRead() const { return statesRead; }
  void setStatesRead(bool read) { statesRead = read; }
  /// Whether the layer comes from a Functional config.
  bool inFunctional() const { return functional; }
  void setInFunctional() { functional = true; }
  /// The layers whose (first) outputs a Functional layer reads, in order;
  /// the model's inputs are ModelConfig::inputs. Empty in a Sequential
  /// model, where each layer reads the one before.
  const std::vector<std::string> &getInputs() const { return inputs; }
  void setInputs(std::vector<std::string> names) { inputs = std::move(names); }
  /// Which output of each input layer it reads: 0 for the layer's value,
  /// i > 0 for the i-th state of a return_state=True recurrent layer (read
  /// as an initial_state).
  const std::vector<int64_t> &getInputIndices() const { return inputIndices; }
  /// Which call of the layer this is, as other layers' getInputs() name it:
  /// the layer's name for its first call; a shared layer (called several
  /// times, one set of weights) has one LayerConfig per call, the later
  /// ones named "<name>\x1f<node>". getCallCount() is how many calls.
  const std::string &getCallId() const { return callId.empty() ? name : callId; }
  int64_t getCallNode() const;
  int64_t getCallCount() const { return callCount; }
  void setCall(std::string id, int64_t count) {
    callId = std::move(id);
    callCount = count;
  }
  void setInputIndices(std::vector<int64_t> indices) {
    inputIndices = std::move(indices);
  }
  /// The keyword argument each of getInputs() is passed as ("value",
  /// "initial_state"), or "" when positional.
  const std::vector<std::string> &getInputArguments() const { return inputArguments; }
  void setInputArguments(std::vector<std::string> names) {
    inputArguments = std::move(names);
  }
  /// A non-tensor argument of this call of a Functional layer
  /// (use_causal_mask), or null when the call does not pass it.
  const llvm::json::Value *getCallArgument(llvm::StringRef key) const;
  void setCallNode(const llvm::json::Value *node) { callNode = node; }
  /// This call's inbound node as the file has it (null outside Functional
  /// configs): an operation's positional arguments are read from it.
  const llvm::json::Value *getInboundNode() const { return callNode; }
  /// Whether Keras passes this call the timestep mask of its input. Keras 3
  /// fills a layer's `mask` argument only when the call has one tensor
  /// argument: a recurrent layer given its initial_state runs unmasked (its
  /// output still carries the mask on). Keras 2 always passes it.
  bool callGetsMask() const;
  /// Which inputs this call computes with a mask for, where its `mask`
  /// argument is a list (Keras 3, a layer called on a list: Attention, a
  /// merge): Keras passes the list as saved, so a null entry means no mask,
  /// whatever mask the input carries when the model runs (one the model
  /// did not have while it was built: after a nested model, or after an
  /// attention layer in Keras before 3.4). nullopt for any other call.
  std::optional<std::vector<bool>> callMaskEntries() const;

private:
  llvm::Expected<int64_t> checkSize(llvm::StringRef key,
                                    llvm::Expected<int64_t> value) const;

  std::string className;
  std::string name;
  const llvm::json::Object *config;
  std::string where;
  std::string sourceClass;
  std::string maskArgument;
  std::vector<std::string> inputs;
  std::vector<int64_t> inputIndices;
  std::vector<std::string> inputArguments;
  const llvm::json::Value *callNode = nullptr;
  std::string callId;
  std::vector<Scope> scopes;
  int64_t callCount = 1;
  bool statesRead = false;
  bool functional = false;
};

/// One input of a Functional model: its InputLayer.
struct ModelInput {
  std::string name;
  /// The shape its InputLayer records (batch axis included), if any.
  std::optional<KerasShape> shape;
  /// The dtype its InputLayer records ("float32", "int64", ...), or empty.
  std::string dtype;
};

struct ModelConfig {
  std::string modelName;
  /// The config with nested models replaced by their layers, which `layers`
  /// point into (null when the file's own config is read as it is).
  std::shared_ptr<const llvm::json::Value> inlined;
  /// The layers in execution order (each after the layers it reads),
  /// InputLayer removed.
  std::vector<LayerConfig> layers;
  /// The InputLayers in Keras' input order (model.inputs; a Sequential
  /// model has at most one), and a Functional model's layers whose first
  /// outputs are its outputs, in order (empty for a Sequential model: the
  /// last layer's output).
  std::vector<ModelInput> inputs;
  std::vector<std::string> outputs;
  /// Which output of each of `outputs`: 0 for the layer's value, i > 0 for
  /// the i-th state of a return_state=True recurrent layer.
  std::vector<int64_t> outputIndices;
  /// The layers of the file's own config that make `outputs`, as Keras
  /// names the outputs: a nested model's name, even where its output is its
  /// input (an identity) and `outputs` names what it passes through.
  std::vector<std::string> outputLayerNames;
  /// The first input shape the config records (batch axis included), if any.
  std::optional<KerasShape> inputShape;
  /// The layer that recorded inputShape, for messages.
  std::string inputShapeSource;
  /// A Sequential model without an InputLayer: its first layer's dtype,
  /// which Keras gives the input it builds (tf_keras' Discretization:
  /// int64); empty if none.
  std::string inputDtype;
};

/// A tensor a Functional layer reads: the layer that makes it and which of
/// that layer's outputs it is.
struct TensorRef {
  std::string layer;
  int64_t index = 0;
  /// Which call of the layer made the tensor (a shared layer has several).
  int64_t node = 0;
  /// The keyword argument it is passed as ("value", "initial_state"), or ""
  /// when positional.
  std::string argument;
};

/// Every tensor a node of a Functional config (or its input_layers /
/// output_layers) references, in the order of the call's arguments.
std::vector<TensorRef> tensorRefs(const llvm::json::Value &v);

/// Whether `ref` is tf_keras' record of a number passed where a tensor would
/// be, ["_CONSTANT_VALUE", -1, value, kwargs] (1.0 - x): a reference's shape,
/// but no tensor, and its value no tensor index.
bool isConstantValue(const llvm::json::Array &ref);

/// Parses `root` (which must outlive the result). `where` names the file.
llvm::Expected<ModelConfig> parseModelConfig(const llvm::json::Value &root,
                                             llvm::StringRef where);

/// The most bytes of JSON a model may have.
constexpr size_t kMaxModelJsonBytes = size_t(64) << 20;

/// Parses a model's JSON (`what` names it in messages) within bounds on size
/// and nesting depth that hold before the recursive parser runs.
llvm::Expected<llvm::json::Value>
parseModelJson(llvm::StringRef text, llvm::StringRef where,
               llvm::StringRef what);

/// "'where': message" as an llvm::Error.
llvm::Error fileError(llvm::StringRef where, const llvm::Twine &message);

/// A layer config's dtype: a string, or a dtype policy's name (Keras 3's
/// DTypePolicy, tf_keras' Policy: "mixed_float16"); empty when absent.
std::string dtypeOf(const LayerConfig &layer);

/// The key under which the importer's translations of a config (Keras 1,
/// CuDNN layers) keep an entry's original class, its source class.
inline constexpr const char *kSourceClassKey = "source_class_name";

/// Visits every layer entry ({"class_name", "config"}) of a model config,
/// nested models' and wrapped layers' included, to change it in place.
void forEachLayerEntry(llvm::json::Value &root,
                       llvm::function_ref<void(llvm::json::Object &)> visit);

/// Removes kSourceClassKey from every entry: only the translations set it,
/// never the file.
void clearSourceClasses(llvm::json::Value &root);

} // namespace seq::keras

#endif

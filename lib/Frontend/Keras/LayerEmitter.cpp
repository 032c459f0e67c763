#include "LayerEmitter.h"

#include "EmitterSupport.h"
#include "LayerClasses.h"
#include "LayerFamilies.h"
#include "NestedModels.h"
#include "RecurrentStates.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"

#include "llvm/ADT/StringSwitch.h"

#include <utility>

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;
namespace json = llvm::json;

namespace seq::keras {

using namespace emit;


bool LayerEmitter::isShapePreserving(StringRef className) {
  if (findLayerFamily(className) == emitInferenceIdentity)
    return true;
  return llvm::StringSwitch<bool>(className)
      .Cases({"Activation", "LeakyReLU", "ELU", "ReLU", "ThresholdedReLU",
              "PReLU", "Softmax"},
             true)
      .Default(false);
}

/// Whether `w`, one of a SpectralNormalization's `weights`, is its vector_u
/// (the singular vector its training iterates) rather than its layer's: so
/// named in .h5 files; in a .keras file what is not under ".../layer/".
static bool isSpectralNormalizationVector(const WeightArray &w,
                                          ArrayRef<WeightArray> weights) {
  auto inLayerGroup = [](const WeightArray &a) {
    return StringRef(a.name).contains("/layer/");
  };
  if (llvm::any_of(weights, inLayerGroup))
    return !inLayerGroup(w);
  StringRef leaf = StringRef(w.name).rsplit('/').second;
  return leaf == "vector_u" || leaf == "vector_u:0";
}

int64_t LayerEmitter::nonTrainableParams(const LayerConfig &layer,
                                         ArrayRef<WeightArray> weights) {
  int64_t all = 0;
  for (const WeightArray &w : weights)
    all += static_cast<int64_t>(w.data.size());
  Expected<bool> trainable = layer.getBoolOr("trainable", true);
  if (!trainable) {
    llvm::consumeError(trainable.takeError());
  } else if (!*trainable) {
    return all;
  }
  // Normalization's mean, variance and count are never trained.
  if (layer.getClassName() == "Normalization")
    return all;
  if (layer.getClassName() == "SpectralNormalization") {
    int64_t vector = 0;
    for (const WeightArray &w : weights)
      if (isSpectralNormalizationVector(w, weights))
        vector += static_cast<int64_t>(w.data.size());
    return vector;
  }
  if (layer.getClassName() == "BatchNormalization" && weights.size() >= 2)
    return static_cast<int64_t>(weights[weights.size() - 1].data.size() +
                                weights[weights.size() - 2].data.size());
  return 0;
}

Expected<Value> LayerEmitter::emitRecurrent(const LayerConfig &layer,
                                            Value input,
                                            ArrayRef<WeightArray> arrays,
                                            Value mask,
                                            RecurrentOverrides overrides,
                                            StringRef locName) {
  if (Error e = requireRank(layer, input, 3))
    return std::move(e);
  StringRef cls = layer.getClassName();
  int64_t gates = cls == "LSTM" ? 4 : cls == "GRU" ? 3 : 1;
  Expected<int64_t> units = layer.getSize("units");
  Expected<bool> useBias = layer.getBoolOr("use_bias", true);
  Expected<bool> sequences = layer.getBoolOr("return_sequences", false);
  Expected<bool> backwards = layer.getBoolOr("go_backwards", false);
  Expected<bool> returnState = layer.getBoolOr("return_state", false);
  Expected<bool> stateful = layer.getBoolOr("stateful", false);
  Expected<bool> timeMajor = layer.getBoolOr("time_major", false);
  Expected<bool> zeroOutput = layer.getBoolOr("zero_output_for_mask", false);
  Expected<ActivationSpec> activation =
      parseActivation(builder, layer, "activation", "tanh", version.major);
  Expected<ActivationSpec> recurrent = parseActivation(
      builder, layer, "recurrent_activation", "sigmoid", version.major);
  if (Error e = firstError(units, useBias, sequences, backwards, returnState,
                           stateful, timeMajor, zeroOutput, activation, recurrent))
    return std::move(e);
  // A Functional graph may leave the states of return_state=True unread
  // (then the layer is its first output) or hand them on as another
  // layer's initial_state (setStateLinks).
  if (*returnState && !layer.inFunctional())
    return layer.error("return_state=True is not supported in a Sequential model");
  Location loc = layerLoc(builder, locName);
  // A stateful layer starts from the state its last call left and leaves
  // its new one: a state argument and result of @predict.
  Expected<StatePlan> state =
      planState(layer, *stateful, {stateCountOf(cls), shapeOf(input)[0], *units}, loc);
  if (!state)
    return state.takeError();
  if (*timeMajor)
    return layer.error("time_major=True is not supported");
  bool reverse = overrides.goBackwards.value_or(*backwards);
  // Without a mask there is nothing to zero.
  bool zeroOutputForMask = mask && overrides.zeroOutputForMask.value_or(*zeroOutput);
  int64_t in = shapeOf(input)[2];

  WeightList weights(builder, layer, arrays, locName, unbuiltModel);
  std::vector<StringRef> roles = {"kernel", "recurrent_kernel"};
  if (*useBias)
    roles.push_back("bias");
  if (Error e = weights.expect(roles))
    return std::move(e);
  Expected<Value> kernel = weights.next("kernel", {in, gates * *units});
  if (!kernel)
    return kernel.takeError();
  Expected<Value> recurrentKernel =
      weights.next("recurrent_kernel", {*units, gates * *units});
  if (!recurrentKernel)
    return recurrentKernel.takeError();

  bool resetAfter = false;
  Value bias;
  if (*useBias) {
    if (cls == "GRU") {
      // Keras 2.2 GRUs have no reset_after and a (3u,) bias; tell by shape
      // when the config is silent.
      Expected<bool> flag =
          layer.getBoolOr("reset_after", weights.peekShape().size() == 2);
      if (!flag)
        return flag.takeError();
      resetAfter = *flag;
    }
    SmallVector<int64_t> biasShape{gates * *units};
    if (resetAfter)
      biasShape.insert(biasShape.begin(), 2);
    Expected<Value> b = weights.next("bias", biasShape);
    if (!b)
      return b.takeError();
    bias = *b;
  } else if (cls == "GRU") {
    Expected<bool> flag = layer.getBoolOr("reset_after", version.major >= 3);
    if (!flag)
      return flag.takeError();
    resetAfter = *flag;
  }

  ArrayRef<int64_t> x = shapeOf(input);
  SmallVector<int64_t> result{x[0]};
  if (*sequences)
    result.push_back(x[1]);
  result.push_back(*units);
  Type type = tensorType(builder, result), stateType = state->finalType;
  Value initialState = state->initial;
  Operation *op;
  if (cls == "LSTM")
    op = LSTMOp::create(builder, loc, type, stateType, input, *kernel,
                        *recurrentKernel, bias, mask, initialState,
                        activation->kind, recurrent->kind, *sequences, reverse,
                        zeroOutputForMask);
  else if (cls == "GRU")
    op = GRUOp::create(builder, loc, type, stateType, input, *kernel,
                       *recurrentKernel, bias, mask, initialState,
                       activation->kind, recurrent->kind, *sequences, reverse,
                       zeroOutputForMask, resetAfter);
  else
    op = SimpleRNNOp::create(builder, loc, type, stateType, input, *kernel,
                             *recurrentKernel, bias, mask, initialState,
                             activation->kind, *sequences, reverse,
                             zeroOutputForMask);
  keepState(*state, locName, stateType ? op->getResult(1) : nullptr);
  return op->getResult(0);
}

Expected<StatePlan> LayerEmitter::planState(const LayerConfig &layer, bool stateful,
                                            ArrayRef<int64_t> shape, Location loc) {
  Value linkedInitial = std::exchange(linkedInitialState, nullptr);
  bool keepFinal = std::exchange(keepFinalState, false);
  if (stateful && (linkedInitial || keepFinal))
    return layer.error("stateful=True with states handed between layers "
                       "(return_state / initial_state) is not supported");
  if (stateful && (!stateBlock || shape[1] == kDynamic))
    return layer.error("stateful=True needs the fixed batch size the model was "
                       "built with, and the file records none (batch_shape / "
                       "batch_input_shape of the input)");
  StatePlan plan;
  plan.stateful = stateful;
  if (stateful || keepFinal)
    plan.finalType = tensorType(builder, shape);
  plan.initial = stateful ? stateBlock->addArgument(plan.finalType, loc) : linkedInitial;
  return plan;
}

void LayerEmitter::keepState(const StatePlan &plan, StringRef name, Value finalState) {
  if (plan.stateful)
    states.push_back({name.str(), cast<BlockArgument>(plan.initial), finalState});
  else if (plan.finalType)
    lastFinalStates.push_back(finalState);
}

/// Keras' RNN layer over an LSTMCell, GRUCell or SimpleRNNCell is that
/// layer; over StackedRNNCells it is those layers stacked, every one but
/// the last returning sequences (each cell reads the one before it at the
/// same step), and only the first going backwards (the rest read its
/// output, which is in processing order, with the mask in that order).
Expected<Value> LayerEmitter::emitGenericRNN(const LayerConfig &layer, Value input,
                                             ArrayRef<WeightArray> weights,
                                             Value mask, RecurrentOverrides overrides,
                                             StringRef locName) {
  Expected<LayerConfig> cell = layer.getInnerLayer("cell");
  if (!cell)
    return cell.takeError();
  std::vector<LayerConfig> cells{*cell};
  if (cell->getClassName() == "StackedRNNCells") {
    Expected<std::vector<LayerConfig>> list = cell->getInnerLayerList("cells");
    if (!list)
      return list.takeError();
    if (list->empty())
      return layer.error("its StackedRNNCells has no cells");
    cells = std::move(*list);
  }
  Expected<bool> sequences = layer.getBoolOr("return_sequences", false);
  Expected<bool> backwards = layer.getBoolOr("go_backwards", false);
  Expected<bool> zeroOutput = layer.getBoolOr("zero_output_for_mask", false);
  if (Error e = firstError(sequences, backwards, zeroOutput))
    return std::move(e);
  *backwards = overrides.goBackwards.value_or(*backwards);
  *zeroOutput = overrides.zeroOutputForMask.value_or(*zeroOutput);
  std::string name = locName.empty() ? layer.getName() : locName.str();
  if (keepFinalState && cells.size() > 1)
    return layer.error("the return_state states of a StackedRNNCells are read: not "
                       "supported; stack the recurrent layers instead");
  // Keras runs a stack backwards as one cell, the mask reversed with the
  // input. The first cell goes backwards; the others read its output, which
  // is in processing order, so they take the mask in that order: reversed
  // over time.
  Value laterMask = mask;
  if (mask && *backwards && cells.size() > 1)
    laterMask = ReverseOp::create(builder, layerLoc(builder, name + "/reversed_mask"),
                                  mask.getType(), mask, 1)
                    .getResult();
  // Each cell's config with the layer's options (the cell does not have
  // them), read as the layer the cell makes.
  std::vector<json::Object> merged;
  std::vector<std::string> classes;
  for (const LayerConfig &c : cells) {
    StringRef cls = c.getClassName();
    if (cls != "LSTMCell" && cls != "GRUCell" && cls != "SimpleRNNCell")
      return layer.error("runs a '" + cls + "' cell: only LSTMCell, GRUCell, "
                         "SimpleRNNCell and StackedRNNCells of them are "
                         "supported");
    merged.push_back(c.getObject());
    classes.push_back(cls.drop_back(4).str());
    for (StringRef key : {"stateful", "return_state", "time_major"})
      if (const json::Value *v = layer.getObject().get(key))
        merged.back()[key] = *v;
  }
  size_t used = 0;
  Value value = input;
  for (size_t i = 0; i < cells.size(); ++i) {
    bool last = i + 1 == cells.size();
    merged[i]["return_sequences"] = !last || *sequences;
    LayerConfig asLayer = layer.readAs(classes[i], &merged[i]);
    Expected<bool> useBias = asLayer.getBoolOr("use_bias", true);
    if (!useBias)
      return useBias.takeError();
    size_t count = *useBias ? 3 : 2;
    if (used + count > weights.size())
      return layer.error("the file has " + Twine(weights.size()) +
                         " weight arrays, too few for its " +
                         Twine(cells.size()) + " cell(s)");
    std::string loc = last ? name : name + "/cell_" + std::to_string(i);
    Expected<Value> out = emitRecurrent(
        asLayer, value, weights.slice(used, count), i == 0 ? mask : laterMask,
        {i == 0 && *backwards, last && *zeroOutput}, loc);
    if (!out)
      return out.takeError();
    used += count;
    value = *out;
  }
  if (used != weights.size())
    return layer.error("the file has " + Twine(weights.size()) +
                       " weight arrays, expected " + Twine(used) + " for its " +
                       Twine(cells.size()) + " cell(s)");
  return value;
}

Expected<Value> LayerEmitter::emitBidirectional(const LayerConfig &layer,
                                                Value input,
                                                ArrayRef<WeightArray> weights,
                                                Value mask) {
  Expected<LayerConfig> forward = layer.getInnerLayer("layer");
  if (!forward)
    return forward.takeError();
  std::optional<LayerConfig> backward;
  if (layer.has("backward_layer")) {
    Expected<LayerConfig> b = layer.getInnerLayer("backward_layer");
    if (!b)
      return b.takeError();
    backward = *b;
  }
  StringRef cls = forward->getClassName();
  bool convolutional = isConvLSTM(cls);
  if (cls != "LSTM" && cls != "GRU" && cls != "SimpleRNN" && cls != "RNN" && !convolutional)
    return layer.error("wraps a '" + cls + "': only LSTM, GRU, SimpleRNN, RNN and "
                       "ConvLSTM are supported inside Bidirectional");
  Expected<std::string> mode = layer.getStringOr("merge_mode", "");
  if (!mode)
    return mode.takeError();
  std::optional<MergeMode> merge = llvm::StringSwitch<std::optional<MergeMode>>(*mode)
                                       .Case("concat", MergeMode::Concat)
                                       .Case("sum", MergeMode::Sum)
                                       .Case("mul", MergeMode::Mul)
                                       .Case("ave", MergeMode::Ave)
                                       .Default(std::nullopt);
  if (!merge)
    return layer.error("merge_mode '" + (mode->empty() ? "None" : *mode) +
                       "' is not supported (concat, sum, mul, ave are)");
  if (weights.size() % 2)
    return layer.error("the file has " + Twine(weights.size()) +
                       " weight arrays, expected the same number per direction");
  size_t half = weights.size() / 2;
  Expected<bool> backwards = forward->getBoolOr("go_backwards", false);
  Expected<bool> sequences = forward->getBoolOr("return_sequences", false);
  if (Error e = firstError(backwards, sequences))
    return std::move(e);
  // Keras' Bidirectional sets zero_output_for_mask to return_sequences on
  // both directions, whatever their configs say.
  std::string name = layer.getName();
  // A ConvLSTM direction is the layer family's, read with go_backwards set.
  std::array<json::Object, 2> convolutionalConfigs;
  auto direction = [&](const LayerConfig &rnn, ArrayRef<WeightArray> w,
                       RecurrentOverrides o, const std::string &loc) {
    if (convolutional) {
      json::Object &config = convolutionalConfigs[StringRef(loc).ends_with("backward")];
      config = rnn.getObject();
      config["go_backwards"] = *o.goBackwards;
      return emitLayer(rnn.withConfig(&config).named(loc), input, w, mask);
    }
    return rnn.getClassName() == "RNN" ? emitGenericRNN(rnn, input, w, mask, o, loc)
                                       : emitRecurrent(rnn, input, w, mask, o, loc);
  };
  // Both directions keep their final states when the layer's are read
  // (Keras returns the forward states, then the backward ones).
  bool keepFinal = keepFinalState;
  Expected<Value> f = direction(*forward, weights.take_front(half),
                                {*backwards, *sequences}, name + "/forward");
  if (!f)
    return f.takeError();
  keepFinalState = keepFinal;
  Expected<Value> b = direction(backward ? *backward : *forward,
                                weights.drop_front(half), {!*backwards, *sequences},
                                name + "/backward");
  if (!b)
    return b.takeError();
  SmallVector<int64_t> result(shapeOf(*f));
  if (*merge == MergeMode::Concat)
    result.back() += shapeOf(*b).back();
  if (convolutional) {
    // Bidirectional's merge spelled out, as seq.bidirectional does it for
    // rank-3 sequences: the backward sequence flipped back along time,
    // then joined.
    Location loc = layerLoc(builder, name);
    Value back = *b;
    if (*sequences)
      back = ReverseOp::create(builder, layerLoc(builder, name + "/backward_in_order"),
                               back.getType(), back, 1)
                 .getResult();
    if (*merge == MergeMode::Concat)
      return ConcatenateOp::create(builder, loc, tensorType(builder, result),
                                   ValueRange{*f, back}, result.size() - 1)
          .getResult();
    MergeKind kind = *merge == MergeMode::Sum   ? MergeKind::Add
                     : *merge == MergeMode::Mul ? MergeKind::Multiply
                                                : MergeKind::Average;
    return MergeOp::create(builder, loc, f->getType(), ValueRange{*f, back}, kind)
        .getResult();
  }
  return BidirectionalOp::create(builder, layerLoc(builder, name),
                                 tensorType(builder, result), *f, *b, *merge)
      .getResult();
}

Expected<Value> LayerEmitter::emitTimeDistributed(const LayerConfig &layer,
                                                  Value input,
                                                  ArrayRef<WeightArray> weights) {
  Expected<LayerConfig> inner = layer.getInnerLayer("layer");
  if (!inner)
    return inner.takeError();
  ArrayRef<int64_t> x = shapeOf(input);
  if (x.size() < 3)
    return layer.error("expects an input with a time axis, got shape " +
                       shapeText(x));
  SmallVector<int64_t> step{x[0]};
  step.append(x.begin() + 2, x.end());
  Location loc = layerLoc(builder, layer.getName());
  auto body = std::make_unique<Block>();
  Value stepValue = body->addArgument(tensorType(builder, step), loc);
  Value stepResult;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(body.get());
    Expected<Value> y = emitLayer(*inner, stepValue, weights, Value());
    if (!y)
      return y.takeError();
    stepResult = *y;
    YieldOp::create(builder, loc, stepResult);
  }
  ArrayRef<int64_t> y = shapeOf(stepResult);
  SmallVector<int64_t> result{y[0], x[1]};
  result.append(y.begin() + 1, y.end());
  auto op = TimeDistributedOp::create(builder, loc, tensorType(builder, result),
                                      input);
  op.getBody().push_back(body.release());
  return op.getResult();
}

/// SpectralNormalization divides the wrapped layer's kernel by its largest
/// singular value while training and leaves the result in that kernel;
/// inference runs the wrapped layer as saved, called without a mask (the
/// mask passes on after it: passesMaskThrough). The wrapper's
/// own weights (vector_u; in a .keras file also a copy of the kernel, the
/// layer's under ".../layer/") are not read. Messages name the wrapper.
Expected<Value> LayerEmitter::emitSpectralNormalization(const LayerConfig &layer,
                                                        Value input,
                                                        ArrayRef<WeightArray> weights) {
  Expected<LayerConfig> inner = layer.getInnerLayer("layer");
  if (!inner)
    return inner.takeError();
  StringRef cls = inner->getClassName();
  if (isRecurrentLayerClass(cls) || cls == "TimeDistributed" ||
      cls == "SpectralNormalization" || isModelClass(cls))
    return layer.error("wraps the " + cls + " '" + inner->getName() +
                       "', which has no kernel of its own; "
                       "Keras normalizes a layer's 'kernel' or 'embeddings'");
  std::vector<WeightArray> own;
  for (const WeightArray &w : weights)
    if (!isSpectralNormalizationVector(w, weights))
      own.push_back(w);
  return emitLayer(layer.readAs(cls.str(), &inner->getObject()), input, own, Value());
}

Expected<Value> LayerEmitter::emit(const LayerConfig &layer, Value input,
                                   ArrayRef<WeightArray> arrays) {
  Value incoming = std::exchange(mask, Value());
  // A call Keras does not give the mask computes without it, and passes it
  // on all the same.
  Value applied = layer.callGetsMask() ? incoming : Value();
  StringRef cls = layer.getClassName();
  if (applied) {
    // Keras applies the mask inside these; seqc does not (yet).
    std::string inner;
    if (cls == "TimeDistributed") {
      if (Expected<LayerConfig> wrapped = layer.getInnerLayer("layer"))
        inner = wrapped->getClassName();
      else
        return wrapped.takeError();
    }
    if (cls == "Softmax" || usesTimestepMask(inner))
      return layer.error("receives the timestep mask of an earlier Masking or "
                         "Embedding(mask_zero=True) layer, which seqc supports "
                         "only in recurrent layers, GlobalAveragePooling1D and "
                         "the layers Keras passes it through; remove the "
                         "masking or this layer");
  }
  Expected<Value> out = emitLayer(layer, input, arrays, applied);
  if (!out || !incoming || mask)
    return out;
  // A recurrent layer keeps the mask when it returns sequences.
  bool keeps = isRecurrentLayerClass(cls) ? shapeOf(*out).size() == 3
                                          : passesMaskThrough(cls, version.major);
  if (keeps)
    mask = incoming;
  return out;
}

ArrayRef<StringRef> LayerEmitter::ownClasses() {
  // Keep in step with emitLayer below (test/Docs/layer-table.test lists
  // them in docs/Usage.md).
  static const StringRef classes[] = {
      "LSTM", "GRU", "SimpleRNN", "RNN", "Bidirectional", "TimeDistributed",
      "SpectralNormalization", "Dense", "MaxPooling1D", "MaxPool1D", "AveragePooling1D",
      "AvgPool1D", "GlobalMaxPooling1D", "GlobalMaxPool1D",
      "GlobalAveragePooling1D", "GlobalAvgPool1D", "BatchNormalization",
      "LayerNormalization", "Embedding", "Reshape", "RepeatVector", "PReLU",
      "Activation", "LeakyReLU", "ELU", "ReLU", "ThresholdedReLU", "Softmax",
      "Masking", "TransformerEncoder", "TransformerDecoder", "TokenAndPositionEmbedding"};
  return classes;
}

bool LayerEmitter::isTransformerBlock(const LayerConfig &layer) {
  StringRef cls = layer.getClassName();
  return (cls == "TransformerEncoder" || cls == "TransformerDecoder") &&
         isApplicationLayer(layer);
}

Expected<Value> LayerEmitter::emitLayer(const LayerConfig &layer, Value input,
                                        ArrayRef<WeightArray> arrays,
                                        Value incomingMask) {
  StringRef cls = layer.getClassName();
  std::string name = layer.getName();
  Location loc = layerLoc(builder, name);
  ArrayRef<int64_t> x = shapeOf(input);
  WeightList weights(builder, layer, arrays, name, unbuiltModel);
  auto type = [&](ArrayRef<int64_t> shape) { return tensorType(builder, shape); };

  if (cls == "LSTM" || cls == "GRU" || cls == "SimpleRNN")
    return emitRecurrent(layer, input, arrays, incomingMask, {}, name);
  if (cls == "TransformerEncoder" || cls == "TransformerDecoder" ||
      cls == "TokenAndPositionEmbedding") {
    if (!isApplicationLayer(layer))
      return unsupportedLayerError(layer);
    return cls == "TokenAndPositionEmbedding"
               ? emitTokenAndPositionEmbedding(layer, input, arrays)
               : emitTransformerBlock(layer, {input}, {incomingMask}, arrays);
  }
  if (cls == "RNN")
    return emitGenericRNN(layer, input, arrays, incomingMask);
  if (cls == "Bidirectional")
    return emitBidirectional(layer, input, arrays, incomingMask);
  if (cls == "TimeDistributed")
    return emitTimeDistributed(layer, input, arrays);
  if (cls == "SpectralNormalization")
    return emitSpectralNormalization(layer, input, arrays);

  if (normalizesOverAxis(cls) && x.size() >= 2) {
    Expected<SmallVector<int64_t>> axes = featureAxes(layer, x.size());
    if (!axes)
      return axes.takeError();
    if (*axes != ArrayRef<int64_t>{static_cast<int64_t>(x.size()) - 1})
      return emitNormalizationOverAxes(layer, input, arrays, incomingMask, *axes);
  }

  if (FamilyEmitter family = findLayerFamily(cls)) {
    EmitContext context{builder, layer, input, weights, version, loc, this};
    return family(context);
  }

  if (cls == "Dense") {
    Expected<int64_t> units = layer.getSize("units");
    Expected<bool> useBias = layer.getBoolOr("use_bias", true);
    Expected<ActivationSpec> act =
        parseActivation(builder, layer, "activation", "linear", version.major);
    if (Error e = firstError(units, useBias, act))
        return std::move(e);
    if (x.size() < 2)
      return layer.error("expects an input of rank >= 2");
    auto params = weights.kernelAndBias({x.back(), *units}, *useBias);
    if (!params)
      return params.takeError();
    SmallVector<int64_t> result(x.drop_back());
    result.push_back(*units);
    return DenseOp::create(builder, loc, type(result), input, params->first,
                           params->second, act->kind, act->alpha)
        .getResult();
  }

  // The 1-D poolings: channels_first runs channels last between permutes.
  // Of them only GlobalAveragePooling1D computes with a mask (Keras 3 passes
  // one to the others, which ignore it).
  EmitContext context{builder, layer, input, weights, version, loc};
  auto channelsLastSequence = [&]() -> Expected<std::pair<Value, bool>> {
    Expected<std::pair<Value, bool>> in = channelsLastInput(context, 1);
    // channels_first: Keras multiplies the features by the steps' mask
    // (defined where they are as many), the steps' average of the permuted
    // input under the same mask.
    bool masked = incomingMask && (cls == "GlobalAveragePooling1D" || cls == "GlobalAvgPool1D");
    if (in && in->second && masked && (ShapedType::isDynamic(x[1]) || x[1] != x[2]))
      return layer.error("data_format 'channels_first' with the timestep mask of an "
                         "earlier Masking or Embedding layer, over " + shapeText(x) +
                         ": Keras applies the mask along the features there, which needs "
                         "as many features as steps; remove the masking or use "
                         "channels_last");
    if (in) {
      input = in->first;
      x = shapeOf(input);
    }
    return in;
  };

  if (cls == "MaxPooling1D" || cls == "MaxPool1D" || cls == "AveragePooling1D" ||
      cls == "AvgPool1D") {
    Expected<std::pair<Value, bool>> in = channelsLastSequence();
    if (!in)
      return in.takeError();
    if (Error e = weights.expect({}))
      return std::move(e);
    Expected<int64_t> pool = layer.has("pool_size") ? layer.getSizeOrSingleton("pool_size")
                                                    : Expected<int64_t>(2);
    if (!pool)
      return pool.takeError();
    Expected<int64_t> stride = layer.has("strides") ? layer.getSizeOrSingleton("strides")
                                                    : Expected<int64_t>(*pool);
    Expected<Padding> padding = parsePadding(layer, /*allowCausal=*/false);
    if (Error e = firstError(stride, padding))
        return std::move(e);
    if (*pool < 1 || *stride < 1)
      return layer.error("pool_size and strides must be positive");
    int64_t length = shapes::pool1dLength(x[1], *pool, *stride, *padding);
    if (length == 0)
      return layer.error("pool_size " + Twine(*pool) + " is larger than the " +
                         Twine(x[1]) + " timesteps of its input");
    Type result = type({x[0], length, x[2]});
    Value pooled =
        cls.starts_with("Max")
            ? MaxPool1DOp::create(builder, loc, result, input, *pool, *stride, *padding)
                  .getResult()
            : AvgPool1DOp::create(builder, loc, result, input, *pool, *stride, *padding)
                  .getResult();
    return in->second ? toChannelsFirst(context, pooled) : pooled;
  }

  if (cls == "GlobalMaxPooling1D" || cls == "GlobalMaxPool1D" ||
      cls == "GlobalAveragePooling1D" || cls == "GlobalAvgPool1D") {
    Expected<std::pair<Value, bool>> in = channelsLastSequence();
    if (!in)
      return in.takeError();
    if (Error e = weights.expect({}))
      return std::move(e);
    Expected<bool> keepdims = layer.getBoolOr("keepdims", false);
    if (!keepdims)
      return keepdims.takeError();
    Type result = *keepdims ? type({x[0], 1, x[2]}) : type({x[0], x[2]});
    // Keras' GlobalMaxPooling1D ignores the mask; the average skips masked
    // steps.
    Value pooled =
        cls.starts_with("GlobalMax")
            ? GlobalMaxPool1DOp::create(builder, loc, result, input, *keepdims).getResult()
            : GlobalAvgPool1DOp::create(builder, loc, result, input, incomingMask, *keepdims)
                  .getResult();
    // keepdims in channels_first: (batch, channels, 1).
    return in->second && *keepdims ? toChannelsFirst(context, pooled) : pooled;
  }

  if (cls == "BatchNormalization" || cls == "LayerNormalization") {
    if (x.size() < 2)
      return layer.error("expects an input of rank >= 2");
    if (Error e = requireLastAxis(layer, x.size()))
      return std::move(e);
    Expected<bool> center = layer.getBoolOr("center", true);
    Expected<bool> scale = layer.getBoolOr("scale", true);
    Expected<double> epsilon = layer.getDoubleOr("epsilon", 1e-3);
    Expected<bool> rms = layer.getBoolOr("rms_scaling", false);
    if (Error e = firstError(center, scale, epsilon, rms))
        return std::move(e);
    if (*rms)
      return layer.error("rms_scaling=True is not supported");
    if (!(*epsilon > 0 && *epsilon < 1e30))
      return layer.error("config 'epsilon' must be a positive number, got " +
                         formatNumber(*epsilon));
    bool batch = cls == "BatchNormalization";
    std::vector<StringRef> roles;
    if (*scale)
      roles.push_back("gamma");
    if (*center)
      roles.push_back("beta");
    if (batch)
      roles.insert(roles.end(), {"moving_mean", "moving_variance"});
    if (Error e = weights.expect(roles))
      return std::move(e);
    int64_t channels = x.back();
    SmallVector<Value> params;
    for (StringRef role : roles) {
      Expected<Value> v = weights.next(role, {channels});
      if (!v)
        return v.takeError();
      params.push_back(*v);
    }
    if (!*center)
      params.insert(params.begin() + (*scale ? 1 : 0),
                    weights.filled("beta", channels, 0.0f));
    if (!*scale)
      params.insert(params.begin(), weights.filled("gamma", channels, 1.0f));
    FloatAttr eps = builder.getF32FloatAttr(static_cast<float>(*epsilon));
    if (batch)
      return BatchNormOp::create(builder, loc, input.getType(), input, params[0],
                                 params[1], params[2], params[3], eps)
          .getResult();
    return LayerNormOp::create(builder, loc, input.getType(), input, params[0],
                               params[1], eps)
        .getResult();
  }

  if (cls == "Embedding") {
    Expected<int64_t> vocabulary = layer.getSize("input_dim");
    Expected<int64_t> dim = layer.getSize("output_dim");
    Expected<bool> maskZero = layer.getBoolOr("mask_zero", false);
    if (Error e = firstError(vocabulary, dim, maskZero))
        return std::move(e);
    if (*maskZero && x.size() != 2)
      return layer.error("mask_zero=True needs (batch, time) ids, got shape " +
                         shapeText(x));
    if (Error e = weights.expect({"embeddings"}))
      return std::move(e);
    Expected<Value> table = weights.next("embeddings", {*vocabulary, *dim});
    if (!table)
      return table.takeError();
    SmallVector<int64_t> result(x);
    result.push_back(*dim);
    if (*maskZero)
      mask = SequenceMaskOp::create(builder, layerLoc(builder, name + "/mask"),
                                    type(x), input, builder.getF32FloatAttr(0.0f));
    return EmbeddingOp::create(builder, loc, type(result), input, *table)
        .getResult();
  }

  if (cls == "Reshape") {
    if (Error e = weights.expect({}))
      return std::move(e);
    Expected<std::vector<int64_t>> target = layer.getIntList("target_shape");
    if (!target)
      return target.takeError();
    std::string error;
    auto result = shapes::reshape(x, *target, error);
    if (!result)
      return layer.error(error);
    return ReshapeOp::create(builder, loc, type(*result), input, *target)
        .getResult();
  }

  if (cls == "RepeatVector") {
    if (Error e = weights.expect({}))
      return std::move(e);
    if (Error e = requireRank(layer, input, 2))
      return std::move(e);
    Expected<int64_t> n = layer.getSize("n");
    if (!n)
      return n.takeError();
    if (*n < 1)
      return layer.error("n must be positive");
    return RepeatVectorOp::create(builder, loc, type({x[0], *n, x[1]}), input, *n)
        .getResult();
  }

  if (cls == "PReLU") {
    if (Error e = weights.expect({"alpha"}))
      return std::move(e);
    // alpha has the input's shape without the batch axis, 1 on shared_axes
    // (counted with the batch axis as 0, as Keras does).
    std::vector<int64_t> alphaShape(x.begin() + 1, x.end());
    if (layer.has("shared_axes") &&
        layer.getObject().get("shared_axes")->kind() != llvm::json::Value::Null) {
      Expected<std::vector<int64_t>> shared = layer.getIntList("shared_axes");
      if (!shared)
        return shared.takeError();
      for (int64_t axis : *shared) {
        if (axis < 1 || axis >= static_cast<int64_t>(x.size()))
          return layer.error("config 'shared_axes' holds " + Twine(axis) +
                             ", not a non-batch axis of the rank-" +
                             Twine(x.size()) + " input (batch axis = 0)");
        alphaShape[axis - 1] = 1;
      }
    }
    for (size_t i = 0; i < alphaShape.size(); ++i)
      if (alphaShape[i] == kDynamic)
        return layer.error("input axis " + Twine(i + 1) +
                           " has no fixed size, so alpha cannot be learned "
                           "per position along it: add it to shared_axes or "
                           "give the model a fixed input shape");
    Expected<Value> alpha = weights.next("alpha", alphaShape);
    if (!alpha)
      return alpha.takeError();
    return PReluOp::create(builder, loc, input.getType(), input, *alpha)
        .getResult();
  }

  if (cls == "Activation" || cls == "LeakyReLU" || cls == "ELU" ||
      cls == "ReLU" || cls == "ThresholdedReLU" || cls == "Softmax") {
    if (Error e = weights.expect({}))
      return std::move(e);
    ActivationSpec spec{Activation::Linear, nullptr};
    if (cls == "Activation") {
      Expected<ActivationSpec> act =
          parseActivation(builder, layer, "activation", "linear", version.major);
      if (!act)
        return act.takeError();
      spec = *act;
    } else if (cls == "LeakyReLU") {
      // Keras 2 says alpha, Keras 3 negative_slope; both default to 0.3.
      Expected<double> slope = layer.getDoubleOr(
          layer.has("negative_slope") ? "negative_slope" : "alpha", 0.3);
      if (!slope)
        return slope.takeError();
      spec = {Activation::LeakyRelu, builder.getF32FloatAttr(*slope)};
    } else if (cls == "ELU") {
      Expected<double> alpha = layer.getDoubleOr("alpha", 1.0);
      if (!alpha)
        return alpha.takeError();
      spec = {Activation::Elu, builder.getF32FloatAttr(*alpha)};
    } else if (cls == "ReLU") {
      Expected<double> slope = layer.getDoubleOr("negative_slope", 0.0);
      Expected<double> threshold = layer.getDoubleOr("threshold", 0.0);
      if (Error e = firstError(slope, threshold))
          return std::move(e);
      std::optional<double> maxValue;
      if (const llvm::json::Value *m = layer.getObject().get("max_value");
          m && m->kind() != llvm::json::Value::Null) {
        maxValue = m->getAsNumber();
        if (!maxValue)
          return layer.error("config 'max_value' must be a number or null");
        if (*maxValue < 0)
          return layer.error("config 'max_value' must be >= 0 or null (Keras "
                             "refuses it too): fix it in the config");
      }
      if (maxValue || *threshold != 0.0) {
        FloatAttr max = maxValue ? builder.getF32FloatAttr(*maxValue) : FloatAttr();
        return ReluOp::create(builder, loc, input.getType(), input,
                              builder.getF32FloatAttr(*slope),
                              builder.getF32FloatAttr(*threshold), max)
            .getResult();
      }
      spec = *slope == 0.0
                 ? ActivationSpec{Activation::Relu, nullptr}
                 : ActivationSpec{Activation::LeakyRelu,
                                  builder.getF32FloatAttr(*slope)};
    } else if (cls == "ThresholdedReLU") {
      Expected<double> theta = layer.getDoubleOr("theta", 1.0);
      if (!theta)
        return theta.takeError();
      spec = {Activation::ThresholdedRelu, builder.getF32FloatAttr(*theta)};
    } else {
      // Softmax(axis): an int or a one-element list; negative counts from
      // the end; the batch axis is 0.
      int64_t rank = static_cast<int64_t>(x.size());
      std::optional<int64_t> axis = -1;
      if (const llvm::json::Value *a = layer.getObject().get("axis")) {
        axis = a->getAsInteger();
        if (const llvm::json::Array *list = a->getAsArray())
          axis = list->size() == 1 ? (*list)[0].getAsInteger() : std::nullopt;
        if (!axis)
          return layer.error("config 'axis' must be one integer: a softmax "
                             "over several axes at once is not supported; "
                             "reshape so that they are one axis");
      }
      int64_t normalized = *axis < 0 ? *axis + rank : *axis;
      if (normalized <= 0 || normalized >= rank)
        return layer.error("config 'axis' " + Twine(*axis) +
                           " is not a non-batch axis of the rank-" +
                           Twine(rank) + " input (batch axis included)");
      IntegerAttr axisAttr;
      if (normalized != rank - 1)
        axisAttr = builder.getI64IntegerAttr(normalized);
      return ActivationOp::create(builder, loc, input.getType(), input,
                                  Activation::Softmax, FloatAttr(), axisAttr)
          .getResult();
    }
    return ActivationOp::create(builder, loc, input.getType(), input, spec.kind,
                                spec.alpha, IntegerAttr())
        .getResult();
  }

  if (cls == "Lambda")
    return layer.error("Lambda layers hold Python code, which seqc never runs; "
                       "replace the Lambda with built-in layers and re-save");
  if (cls == "Masking") {
    if (Error e = weights.expect({}))
      return std::move(e);
    if (Error e = requireRank(layer, input, 3))
      return std::move(e);
    const llvm::json::Value *v = layer.getObject().get("mask_value");
    std::optional<double> value = v ? v->getAsNumber() : 0.0;
    if (!value)
      return layer.error("config 'mask_value' must be a number");
    mask = SequenceMaskOp::create(builder, layerLoc(builder, name + "/mask"),
                                  type({x[0], x[1]}), input,
                                  builder.getF32FloatAttr(*value));
    return ApplyMaskOp::create(builder, loc, input.getType(), input, mask)
        .getResult();
  }
  return unsupportedLayerError(layer);
}

} // namespace seq::keras

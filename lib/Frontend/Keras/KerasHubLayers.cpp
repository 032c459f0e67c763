//===- KerasHubLayers.cpp - keras_hub's Transformer blocks and embeddings -===//
//
// Layers keras_hub (formerly keras_nlp) defines outside keras.layers,
// recognized like the applications' (applicationLayerPath: class, exact
// config keys, keras_hub module) and read by what their code computes, as
// the built-in layers they are made of:
// - TokenAndPositionEmbedding: Embedding(vocabulary_size, embedding_dim,
//   mask_zero) of the ids plus the first `steps` rows of a learned
//   (sequence_length, embedding_dim) position table; the embedding's mask.
// - TransformerEncoder: MultiHeadAttention(num_heads, key_dim = features /
//   num_heads) of the input with itself (its mask as the query's and the
//   value's, which is keras_hub's padding mask too), a residual Add and
//   LayerNormalization, then Dense(intermediate_dim, activation), Dense
//   (features), a residual Add and LayerNormalization; normalize_first puts
//   each LayerNormalization before its block instead. Dropouts are
//   identities at inference; the input's mask passes through.
// - TransformerDecoder: the same blocks, but its self-attention (keras_hub's
//   CachedMultiHeadAttention, which leaves the inputs' own masks to its
//   caller) hides the keys the input's mask hides and, unless called with
//   use_causal_mask=False, the keys after each query; no query mask. Called
//   with an encoder sequence, a cross-attention block onto it (its mask
//   over the keys) comes between the two, with its own normalization.
//
//===----------------------------------------------------------------------===//

#include "LayerEmitter.h"

#include "EmitterSupport.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"

using namespace mlir;
using llvm::Expected;
using llvm::Twine;
namespace json = llvm::json;

namespace seq::keras {

using namespace emit;

namespace {

Value add(OpBuilder &builder, Location loc, Value a, Value b) {
  return MergeOp::create(builder, loc, a.getType(), ValueRange{a, b}, MergeKind::Add)
      .getResult();
}

} // namespace

Expected<Value> LayerEmitter::emitTokenAndPositionEmbedding(const LayerConfig &layer,
                                                            Value input,
                                                            ArrayRef<WeightArray> arrays) {
  Expected<int64_t> vocabulary = layer.getSize("vocabulary_size");
  Expected<int64_t> positions = layer.getSize("sequence_length");
  Expected<int64_t> dim = layer.getSize("embedding_dim");
  Expected<bool> maskZero = layer.getBoolOr("mask_zero", false);
  if (Error e = firstError(vocabulary, positions, dim, maskZero))
    return std::move(e);
  ArrayRef<int64_t> x = shapeOf(input);
  if (x.size() != 2)
    return layer.error("embeds (batch, steps) ids, got shape " + shapeText(x));
  int64_t steps = x[1];
  if (ShapedType::isDynamic(steps))
    return layer.error("adds a position embedding to steps of unknown number: give the "
                       "model a fixed sequence length (--input-shape)");
  if (steps > *positions)
    return layer.error("its input has " + Twine(steps) + " steps, more than its sequence_length " +
                       Twine(*positions));
  if (arrays.size() != 2)
    return layer.error("the file has " + Twine(arrays.size()) +
                       " weight arrays for this layer, expected 2 (token embeddings, position "
                       "embeddings): the weights do not match the config");
  json::Object tokenConfig{{"input_dim", *vocabulary}, {"output_dim", *dim},
                           {"mask_zero", *maskZero}};
  Expected<Value> tokens =
      emitLayer(layer.readAs("Embedding", &tokenConfig), input, arrays.take_front(), Value());
  if (!tokens)
    return tokens.takeError();
  const WeightArray &table = arrays[1];
  if (table.shape != std::vector<int64_t>{*positions, *dim})
    return layer.error("position embeddings '" + table.name + "' have shape " +
                       shapeText(table.shape) + ", expected " +
                       shapeText({*positions, *dim}));
  // The first `steps` rows added to every sample: an offset per feature of
  // the (batch, steps * dim) view (every backend takes a constant offset;
  // the CUDA one no constant as the data of a merge).
  WeightArray rows{table.name, {steps * *dim},
                   std::vector<float>(table.data.begin(), table.data.begin() + steps * *dim)};
  WeightList list(builder, layer, rows, layer.getName() + "/position", unbuiltModel);
  Expected<Value> offset = list.next("position_embeddings", {steps * *dim});
  if (!offset)
    return offset.takeError();
  Location loc = layerLoc(builder, layer.getName());
  Value flat = reshapeAxes(builder, loc, *tokens, {steps * *dim});
  Value shifted = scaleAndShift(builder, loc, flat, filledVector(builder, loc, steps * *dim, 1.0),
                                *offset);
  return reshapeAxes(builder, loc, shifted, {steps, *dim});
}

Expected<Value> LayerEmitter::emitTransformerBlock(const LayerConfig &layer,
                                                   ArrayRef<Value> inputs,
                                                   ArrayRef<Value> inputMasks,
                                                   ArrayRef<WeightArray> arrays) {
  bool decoder = layer.getClassName() == "TransformerDecoder";
  // The decoder sequence (or the encoder's input), then a decoder's encoder
  // sequence: positional or by keyword.
  Value input, encoder, incomingMask, encoderMask;
  const std::vector<std::string> &arguments = layer.getInputArguments();
  for (size_t i = 0, positional = 0; i < inputs.size(); ++i) {
    StringRef argument = i < arguments.size() ? StringRef(arguments[i]) : "";
    int slot = argument.empty()                                           ? int(positional++)
               : argument == (decoder ? "decoder_sequence" : "inputs")   ? 0
               : decoder && argument == "encoder_sequence"                ? 1
                                                                          : -1;
    if (slot < 0 || slot > (decoder ? 1 : 0) || (slot == 0 ? input : encoder))
      return layer.error(argument.empty() || slot >= 0
                             ? Twine("reads ") + Twine(inputs.size()) + " inputs, more than its " +
                                   (decoder ? "decoder and encoder sequences" : "input")
                             : "is called with " + argument +
                                   ", which seqc does not apply yet; build the model without it");
    (slot == 0 ? input : encoder) = inputs[i];
    (slot == 0 ? incomingMask : encoderMask) = inputMasks[i];
  }
  if (!input)
    return layer.error(decoder ? "is called without a decoder sequence"
                               : "is called without its input");
  const json::Value *encoderShape = layer.getObject().get("encoder_sequence_shape");
  if (decoder && !encoder && encoderShape && !encoderShape->getAsNull())
    return layer.error("was built with cross-attention (encoder_sequence_shape) but is called "
                       "without an encoder sequence");
  Expected<int64_t> heads = layer.getSize("num_heads");
  Expected<int64_t> intermediate = layer.getSize("intermediate_dim");
  Expected<double> epsilon = layer.getDoubleOr("layer_norm_epsilon", 1e-5);
  Expected<bool> normalizeFirst = layer.getBoolOr("normalize_first", false);
  if (Error e = firstError(heads, intermediate, epsilon, normalizeFirst))
    return std::move(e);
  // The decoder's self-attention is causal unless called otherwise.
  bool causal = false;
  if (decoder) {
    const json::Value *v = layer.getCallArgument("use_causal_mask");
    std::optional<bool> given = v ? v->getAsBoolean() : std::nullopt;
    if (v && !v->getAsNull() && !given)
      return layer.error("use_causal_mask is not a boolean");
    causal = given.value_or(true);
  }
  const json::Value *activation = layer.getObject().get("activation");
  for (Value v : {input, encoder}) {
    if (!v)
      continue;
    ArrayRef<int64_t> shape = shapeOf(v);
    if (shape.size() != 3 || ShapedType::isDynamic(shape.back()))
      return layer.error("reads (batch, steps, features) with a fixed number of features, got " +
                         shapeText(shape));
  }
  int64_t features = shapeOf(input).back();
  if (features / *heads == 0)
    return layer.error("has " + Twine(*heads) + " heads for " + Twine(features) +
                       " features: its key_dim would be 0");
  // Weights: the self-attention's query, key, value and output projections
  // (kernel and bias each) and its normalization (gamma, beta); the
  // cross-attention's and its normalization where there is one; the
  // feedforward normalization and the two Dense layers (kernel, bias).
  size_t expected = encoder ? 26 : 16;
  if (arrays.size() != expected)
    return layer.error("the file has " + Twine(arrays.size()) + " weight arrays for this layer, "
                       "expected " + Twine(expected) + " (attention projections, normalizations, "
                       "two Dense layers): the weights do not match the config");
  size_t feedforwardAt = encoder ? 20 : 10;
  auto attentionConfig = [&](bool isCausal) {
    return json::Object{{"num_heads", *heads},
                        {"key_dim", features / *heads},
                        {"value_dim", features / *heads},
                        {"use_bias", true},
                        {"output_shape", nullptr},
                        {"attention_axes", nullptr},
                        {"dropout", 0.0},
                        {"causal", isCausal}};
  };
  json::Object selfConfig = attentionConfig(causal), crossConfig = attentionConfig(false);
  json::Object normConfig{{"axis", -1}, {"epsilon", *epsilon}};
  json::Object innerConfig{{"units", *intermediate},
                           {"activation", activation ? *activation : json::Value("relu")}};
  json::Object outerConfig{{"units", features}};
  // The built-in layers it is made of, each called on its inputs alone
  // (none of this call's arguments).
  auto part = [&](StringRef className, const json::Object *config) {
    LayerConfig as = layer.readAs(className.str(), config);
    as.setCallNode(nullptr);
    as.setInputArguments({});
    return as;
  };
  LayerConfig selfAttention = part("MultiHeadAttention", &selfConfig);
  LayerConfig crossAttention = part("MultiHeadAttention", &crossConfig);
  LayerConfig norm = part("LayerNormalization", &normConfig);
  LayerConfig inner = part("Dense", &innerConfig);
  LayerConfig outer = part("Dense", &outerConfig);
  Location loc = layerLoc(builder, layer.getName());
  // The LayerNormalization whose weights are at `at` of v, where `when`.
  auto normalized = [&](bool when, Value v, size_t at) -> Expected<Value> {
    if (!when)
      return v;
    return emitLayer(norm, v, arrays.slice(at, 2), Value());
  };
  // x + attention(x normalized first or not, onto `value`), normalized
  // after where not first; the attention's weights at `at`, its norm's
  // after them.
  auto block = [&](const LayerConfig &attention, Value x, Value value, ArrayRef<Value> masks,
                   size_t at) -> Expected<Value> {
    Expected<Value> h = normalized(*normalizeFirst, x, at + 8);
    if (!h)
      return h.takeError();
    Value both[] = {*h, value ? value : *h};
    Expected<Value> attended = emitAttention(attention, both, masks, masks, arrays.slice(at, 8));
    if (!attended)
      return attended.takeError();
    return normalized(!*normalizeFirst, add(builder, loc, *attended, x), at + 8);
  };

  // Self-attention. The encoder's reads the mask as the query's and the
  // value's (keras_hub's padding mask over the keys is the value's), the
  // decoder's as the value's only: keras_hub's CachedMultiHeadAttention
  // takes only the attention mask its caller builds (padding and causal).
  Value selfMasks[] = {decoder ? Value() : incomingMask, incomingMask};
  Expected<Value> residual = block(selfAttention, input, Value(), selfMasks, 0);
  if (!residual)
    return residual.takeError();
  // Cross-attention onto the encoder sequence, its mask over the keys.
  if (encoder) {
    Value crossMasks[] = {Value(), encoderMask};
    residual = block(crossAttention, *residual, encoder, crossMasks, 10);
    if (!residual)
      return residual.takeError();
  }

  // Feedforward block.
  Expected<Value> g = normalized(*normalizeFirst, *residual, feedforwardAt);
  if (!g)
    return g.takeError();
  Expected<Value> widened = emitLayer(inner, *g, arrays.slice(feedforwardAt + 2, 2), Value());
  if (!widened)
    return widened.takeError();
  Expected<Value> narrowed =
      emitLayer(outer, *widened, arrays.slice(feedforwardAt + 4, 2), Value());
  if (!narrowed)
    return narrowed.takeError();
  Expected<Value> out = normalized(!*normalizeFirst, add(builder, loc, *narrowed, *residual),
                                   feedforwardAt);
  if (!out)
    return out.takeError();
  mask = incomingMask;
  return *out;
}

} // namespace seq::keras

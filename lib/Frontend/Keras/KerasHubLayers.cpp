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
// - TransformerDecoder without an encoder sequence (a decoder-only model):
//   the same blocks, but its attention (keras_hub's CachedMultiHeadAttention,
//   which leaves the inputs' own masks to its caller) hides the keys the
//   input's mask hides and, unless called with use_causal_mask=False, the
//   keys after each query; no query mask.
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

llvm::Error LayerEmitter::crossAttentionError(const LayerConfig &layer) {
  return layer.error("has cross-attention (it was called with an encoder sequence), which seqc "
                     "does not support yet: only decoder-only TransformerDecoders are read");
}

Expected<Value> LayerEmitter::emitTransformerBlock(const LayerConfig &layer, Value input,
                                                   ArrayRef<WeightArray> arrays,
                                                   Value incomingMask) {
  bool decoder = layer.getClassName() == "TransformerDecoder";
  if (decoder) {
    const json::Value *encoderShape = layer.getObject().get("encoder_sequence_shape");
    if (encoderShape && !encoderShape->getAsNull())
      return crossAttentionError(layer);
  }
  Expected<int64_t> heads = layer.getSize("num_heads");
  Expected<int64_t> intermediate = layer.getSize("intermediate_dim");
  Expected<double> epsilon = layer.getDoubleOr("layer_norm_epsilon", 1e-5);
  Expected<bool> normalizeFirst = layer.getBoolOr("normalize_first", false);
  if (Error e = firstError(heads, intermediate, epsilon, normalizeFirst))
    return std::move(e);
  const json::Value *activation = layer.getObject().get("activation");
  ArrayRef<int64_t> x = shapeOf(input);
  if (x.size() != 3 || ShapedType::isDynamic(x.back()))
    return layer.error("encodes (batch, steps, features) with a fixed number of features, got " +
                       shapeText(x));
  int64_t features = x.back();
  if (features / *heads == 0)
    return layer.error("has " + Twine(*heads) + " heads for " + Twine(features) +
                       " features: its key_dim would be 0");
  // Weights: the attention's query, key, value and output projections
  // (kernel and bias each), then the two normalizations (gamma, beta) and
  // the two Dense layers (kernel, bias).
  if (arrays.size() != 16)
    return layer.error("the file has " + Twine(arrays.size()) +
                       " weight arrays for this layer, expected 16 (attention projections, "
                       "two normalizations, two Dense layers): the weights do not match the "
                       "config");
  // The decoder's causal mask: tf_keras' `causal` option, which the call's
  // own use_causal_mask overrides where the decoder was called with it.
  json::Object attentionConfig{{"num_heads", *heads},
                               {"key_dim", features / *heads},
                               {"value_dim", features / *heads},
                               {"use_bias", true},
                               {"output_shape", nullptr},
                               {"attention_axes", nullptr},
                               {"dropout", 0.0},
                               {"causal", decoder}};
  json::Object normConfig{{"axis", -1}, {"epsilon", *epsilon}};
  json::Object innerConfig{{"units", *intermediate},
                           {"activation", activation ? *activation : json::Value("relu")}};
  json::Object outerConfig{{"units", features}};
  LayerConfig attention = layer.readAs("MultiHeadAttention", &attentionConfig);
  LayerConfig attentionNorm = layer.readAs("LayerNormalization", &normConfig);
  LayerConfig feedforwardNorm = layer.readAs("LayerNormalization", &normConfig);
  LayerConfig inner = layer.readAs("Dense", &innerConfig);
  LayerConfig outer = layer.readAs("Dense", &outerConfig);
  Location loc = layerLoc(builder, layer.getName());
  // LayerNormalization `config` (weights from `at`) of v, where `when`.
  auto normalized = [&](bool when, const LayerConfig &config, Value v,
                        size_t at) -> Expected<Value> {
    if (!when)
      return v;
    return emitLayer(config, v, arrays.slice(at, 2), Value());
  };

  // Self-attention block. The encoder's attention reads the mask as the
  // query's and the value's (keras_hub's padding mask over the keys is the
  // value's), the decoder's as the value's only.
  Expected<Value> h = normalized(*normalizeFirst, attentionNorm, input, 8);
  if (!h)
    return h.takeError();
  Value masks[] = {decoder ? Value() : incomingMask, incomingMask};
  Expected<Value> attended =
      emitAttention(attention, {*h, *h}, masks, masks, arrays.take_front(8));
  if (!attended)
    return attended.takeError();
  Expected<Value> residual =
      normalized(!*normalizeFirst, attentionNorm, add(builder, loc, *attended, input), 8);
  if (!residual)
    return residual.takeError();

  // Feedforward block.
  Expected<Value> g = normalized(*normalizeFirst, feedforwardNorm, *residual, 10);
  if (!g)
    return g.takeError();
  Expected<Value> widened = emitLayer(inner, *g, arrays.slice(12, 2), Value());
  if (!widened)
    return widened.takeError();
  Expected<Value> narrowed = emitLayer(outer, *widened, arrays.slice(14, 2), Value());
  if (!narrowed)
    return narrowed.takeError();
  Expected<Value> out =
      normalized(!*normalizeFirst, feedforwardNorm, add(builder, loc, *narrowed, *residual), 10);
  if (!out)
    return out.takeError();
  mask = incomingMask;
  return *out;
}

} // namespace seq::keras

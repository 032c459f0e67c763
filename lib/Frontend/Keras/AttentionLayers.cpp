// Keras' attention layers and Dot, which read several values: Attention and
// AdditiveAttention (one head over the inputs themselves),
// MultiHeadAttention and GroupQueryAttention (Dense projections into heads
// around one seq.attention), Dot (seq.matmul between permutes and reshapes).
#include "LayerEmitter.h"

#include "EmitterSupport.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "llvm/Support/JSON.h"

#include <cmath>

using namespace mlir;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace seq::keras {

using namespace emit;

namespace {

/// What Keras makes of the scores an attention layer hides (seq.attention's
/// mask_offset and zero_hidden; they differ where a query step sees no key).
struct HiddenScores {
  /// Added to a hidden score (Keras' -1e9); replaced by -0.7 * FLT_MAX
  /// where absent.
  std::optional<float> maskOffset;
  /// A hidden score's weight is 0 after the softmax.
  bool zeroHidden = false;
};

/// tf_keras adds -1e9 (a masked softmax), and so do Keras 3's Attention and
/// AdditiveAttention. Keras 3's MultiHeadAttention and GroupedQueryAttention
/// call dot_product_attention, which replaces, from 3.7 on unless they have
/// dropout or return their scores; otherwise their Softmax layer, which adds
/// until 3.13 (replaces since) and zeroes the hidden weights from 3.10 on.
Expected<HiddenScores> hiddenScores(const LayerConfig &layer, KerasVersion version,
                                    bool returnScores) {
  StringRef cls = layer.getClassName();
  if (version.major < 3 || cls == "Attention" || cls == "AdditiveAttention")
    return HiddenScores{-1e9f, false};
  Expected<double> dropout = layer.getDoubleOr("dropout", 0.0);
  if (!dropout)
    return dropout.takeError();
  if (version.atLeast(3, 7) && *dropout == 0.0 && !returnScores)
    return HiddenScores{std::nullopt, false};
  return HiddenScores{version.atLeast(3, 13) ? std::nullopt : std::optional<float>(-1e9f),
                      version.atLeast(3, 10)};
}

/// The axes a MultiHeadAttention attends over (Keras' attention_axes; by
/// default every axis between the batch and the features) and the others
/// between them, which Keras treats as batch axes. seq.attention attends
/// over one steps axis: the layer's inputs move the attended axes first (in
/// the order given, which is the order of the scores' axes) and the others
/// next, the attended axes flatten into the steps and the others fold into
/// the heads. Axes number the input's, from 1.
struct AttentionAxes {
  int64_t rank = 3;
  SmallVector<int64_t> attended{1}, others;

  /// Over (batch, steps, features): nothing moves.
  bool overSteps() const { return rank == 3; }

  /// seq.permute's dims that move the axes: attended, others, features.
  SmallVector<int64_t> order() const {
    SmallVector<int64_t> dims(attended);
    dims.append(others);
    dims.push_back(rank - 1);
    return dims;
  }

  bool moves() const {
    SmallVector<int64_t> dims = order();
    return !llvm::is_sorted(dims);
  }

  /// `shape`'s sizes along `axes`.
  static SmallVector<int64_t> sizes(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes) {
    return llvm::map_to_vector(axes, [&](int64_t a) { return shape[a]; });
  }
};

/// Builds the ops of one attention layer, named after it.
struct AttentionBuilder {
  OpBuilder &builder;
  const LayerConfig &layer;
  Location loc;
  HiddenScores hidden;

  Expected<Value> reshape(Value x, ArrayRef<int64_t> target) {
    std::string error;
    if (!shapes::reshape(shapeOf(x), target, error))
      return layer.error(error);
    return reshapeAxes(builder, loc, x, target);
  }

  Value permute(Value x, ArrayRef<int64_t> dims) {
    return permuteAxes(builder, loc, x, dims);
  }

  /// (batch, axes..., h * dim) as seq.attention's (batch, steps, others * h,
  /// dim): the attended axes flattened, the others folded into the heads.
  Expected<Value> toHeads(Value x, const AttentionAxes &axes, int64_t h, int64_t dim) {
    Value moved = axes.moves() ? permute(x, axes.order()) : x;
    int64_t folded = h;
    for (int64_t a : axes.others)
      folded *= shapeOf(x)[a];
    return reshape(moved, {-1, folded, dim});
  }

  /// The inverse of toHeads for a result of `dim` values per head: (batch,
  /// query steps, others * h, dim) as (batch, the query's axes..., h * dim).
  Expected<Value> fromHeads(Value y, const AttentionAxes &axes, ArrayRef<int64_t> query,
                            int64_t h, int64_t dim) {
    SmallVector<int64_t> order = axes.order(), target;
    for (int64_t a : ArrayRef(order).drop_back())
      target.push_back(target.empty() ? -1 : query[a]);
    target.push_back(h * dim);
    Expected<Value> moved = reshape(y, target);
    if (!moved || !axes.moves())
      return moved;
    return permute(*moved, shapes::inversePermutation(order));
  }

  /// x (..., k) @ kernel (k, n) + bias.
  Value dense(Value x, Value kernel, Value bias) {
    SmallVector<int64_t> out(shapeOf(x));
    out.back() = shapeOf(kernel).back();
    return DenseOp::create(builder, loc, tensorType(builder, out), x, kernel, bias,
                           Activation::Linear, FloatAttr())
        .getResult();
  }

  Value attention(Value q, Value k, Value v, Value featureScale, ScoreMode mode,
                  std::optional<float> scale, std::optional<float> scoreWeight,
                  bool causal, std::optional<int64_t> window = std::nullopt,
                  Value queryMask = Value(), Value keyMask = Value(),
                  Value attentionMask = Value(), bool weights = false) {
    ArrayRef<int64_t> qs = shapeOf(q);
    auto type = weights ? tensorType(builder, {qs[0], qs[2], qs[1], shapeOf(k)[1]})
                        : tensorType(builder, {qs[0], qs[1], qs[2], shapeOf(v)[3]});
    auto f32 = [&](std::optional<float> x) {
      return x ? builder.getF32FloatAttr(*x) : FloatAttr();
    };
    return AttentionOp::create(builder, loc, type, q, k, v, featureScale, queryMask,
                               keyMask, attentionMask, mode,
                               f32(scale), f32(scoreWeight), causal,
                               window ? builder.getI64IntegerAttr(*window) : IntegerAttr(),
                               weights, f32(hidden.maskOffset), hidden.zeroHidden)
        .getResult();
  }
};

/// A boolean call argument (absent: false).
Expected<bool> boolCall(const LayerConfig &layer, StringRef key) {
  const llvm::json::Value *v = layer.getCallArgument(key);
  if (!v || v->getAsNull())
    return false;
  if (std::optional<bool> b = v->getAsBoolean())
    return *b;
  return layer.error("is called with " + key + " that is not a boolean");
}

Expected<bool> causalCall(const LayerConfig &layer) {
  const llvm::json::Value *v = layer.getCallArgument("use_causal_mask");
  if (!v || v->getAsNull())
    return layer.getBoolOr("causal", false); // tf_keras' deprecated option
  if (std::optional<bool> b = v->getAsBoolean())
    return *b;
  return layer.error("use_causal_mask is not a boolean");
}

/// Which inputs are an attention layer's query, value, key and
/// attention_mask: positional in that order, or by keyword
/// (MultiHeadAttention); no key: -1 (the value serves); no mask: -1.
Expected<std::array<int, 4>> queryValueKey(const LayerConfig &layer,
                                           ArrayRef<Value> inputs) {
  std::array<int, 4> qvk{-1, -1, -1, -1};
  const std::vector<std::string> &arguments = layer.getInputArguments();
  size_t positional = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    StringRef argument = i < arguments.size() ? StringRef(arguments[i]) : "";
    int slot = argument.empty()                ? static_cast<int>(positional++)
               : argument == "query" ? 0
               : argument == "value" ? 1
               : argument == "key"   ? 2
               : argument == "attention_mask" ? 3
                                     : -1;
    if (slot < 0 || slot > 3)
      return layer.error(argument.empty()
                             ? Twine("reads more than query, value and key")
                             : "is called with " + argument +
                                   ", which seqc does not apply yet; build the "
                                   "model without it");
    if (qvk[slot] >= 0)
      return layer.error("reads its " +
                         Twine(slot == 0 ? "query" : slot == 1 ? "value" : slot == 2 ? "key"
                                                                       : "attention_mask") +
                         " twice");
    qvk[slot] = static_cast<int>(i);
  }
  if (qvk[0] < 0 || qvk[1] < 0)
    return layer.error("needs a query and a value, got " + Twine(inputs.size()) +
                       " input(s)");
  return qvk;
}

/// Reads attention_axes for inputs of rank `rank` (Keras numbers a negative
/// axis from the projected inputs' heads axis: -1 is the features).
Expected<AttentionAxes> attentionAxes(const LayerConfig &layer, int64_t rank) {
  AttentionAxes axes;
  axes.rank = rank;
  axes.attended.clear();
  const llvm::json::Value *v = layer.getObject().get("attention_axes");
  if (!v || v->getAsNull()) {
    for (int64_t a = 1; a < rank - 1; ++a)
      axes.attended.push_back(a);
    return axes;
  }
  SmallVector<const llvm::json::Value *> items;
  if (const llvm::json::Array *list = v->getAsArray())
    for (const llvm::json::Value &item : *list)
      items.push_back(&item);
  else
    items.push_back(v);
  for (const llvm::json::Value *item : items) {
    std::optional<int64_t> axis = item->getAsInteger();
    if (!axis)
      return layer.error("attention_axes holds something other than axis numbers");
    int64_t a = *axis < 0 ? *axis + rank : *axis;
    if (a < 1 || a > rank - 2 || llvm::is_contained(axes.attended, a))
      return layer.error("attention_axes holds axis " + Twine(*axis) +
                         ": give distinct axes between the batch and the features "
                         "(1 to " + Twine(rank - 2) + ") of its inputs of rank " +
                         Twine(rank));
    axes.attended.push_back(a);
  }
  for (int64_t a = 1; a < rank - 1; ++a)
    if (!llvm::is_contained(axes.attended, a))
      axes.others.push_back(a);
  return axes;
}

/// Keras' rules for the shapes of a MultiHeadAttention's inputs, and what
/// seqc needs to move their axes (fixed lengths, no masks over images).
llvm::Error checkShapes(const LayerConfig &layer, ArrayRef<Value> inputs,
                        std::array<int, 4> qvk, const AttentionAxes &axes) {
  auto [qi, vi, ki, mi] = qvk;
  ArrayRef<int64_t> q = shapeOf(inputs[qi]), v = shapeOf(inputs[vi]),
                    k = shapeOf(inputs[ki >= 0 ? ki : vi]);
  for (int i : {qi, vi, ki})
    if (i >= 0 && static_cast<int64_t>(shapeOf(inputs[i]).size()) != axes.rank)
      return layer.error("reads inputs of shapes " + shapeText(q) + " and " +
                         shapeText(shapeOf(inputs[i])) + ": their ranks differ");
  for (int64_t a = 1; a < axes.rank - 1; ++a)
    if (shapes::conflict(v[a], k[a]))
      return layer.error("its value " + shapeText(v) + " and key " + shapeText(k) +
                         " differ in axis " + Twine(a));
  for (int64_t a : axes.others)
    if (shapes::conflict(q[a], k[a]))
      return layer.error("its query " + shapeText(q) + " and key " + shapeText(k) +
                         " differ in axis " + Twine(a) + ", which it does not attend over");
  if (!axes.overSteps())
    for (ArrayRef<int64_t> s : {q, k})
      if (llvm::any_of(s.drop_front(), ShapedType::isDynamic))
        return layer.error("attends over axes " + shapeText(axes.attended) +
                           " of an input of shape " + shapeText(s) +
                           ", which has axes of unknown length: give the Input a fixed "
                           "shape after the batch axis");
  if (mi < 0)
    return llvm::Error::success();
  // (batch, query's attended axes..., key's attended axes...).
  SmallVector<int64_t> expected{q[0]};
  expected.append(AttentionAxes::sizes(q, axes.attended));
  expected.append(AttentionAxes::sizes(k, axes.attended));
  ArrayRef<int64_t> m = shapeOf(inputs[mi]);
  if (!axes.others.empty())
    return layer.error("is called with attention_mask and attends over axes " +
                       shapeText(axes.attended) + " of " + shapeText(q) +
                       ": seqc applies an attention_mask when the layer attends over "
                       "every axis between the batch and the features");
  if (m.size() != expected.size() ||
      llvm::any_of(llvm::zip(m, expected),
                   [](auto p) { return shapes::conflict(std::get<0>(p), std::get<1>(p)); }))
    return layer.error("its attention_mask has shape " + shapeText(m) + ", expected " +
                       "(batch, query steps, key steps) = " + shapeText(expected));
  return llvm::Error::success();
}

/// A scalar weight's value.
Expected<float> scalarWeight(const LayerConfig &layer, const WeightArray &w) {
  if (w.data.size() != 1)
    return layer.error("weight '" + w.name + "' has shape " + shapeText(w.shape) +
                       ", expected a scalar");
  return w.data[0];
}

} // namespace

llvm::ArrayRef<StringRef> LayerEmitter::attentionClasses() {
  static const StringRef classes[] = {"Attention", "AdditiveAttention",
                                      "MultiHeadAttention", "GroupQueryAttention",
                                      "Dot"};
  return classes;
}

bool LayerEmitter::isAttentionLayer(StringRef className) {
  return llvm::is_contained(attentionClasses(), className) ||
         className == "GroupedQueryAttention"; // the Python class's own name
}

Expected<Value> LayerEmitter::emitAttention(const LayerConfig &layer,
                                            ArrayRef<Value> inputs,
                                            ArrayRef<Value> masks,
                                            ArrayRef<Value> callMasks,
                                            ArrayRef<WeightArray> weights) {
  mask = nullptr;
  lastAttentionScores = nullptr;
  // With return_attention_scores the layer's second output is the softmax
  // weights: the same seq.attention once more, returning them.
  Expected<bool> returnScores = boolCall(layer, "return_attention_scores");
  if (!returnScores)
    return returnScores.takeError();
  AttentionBuilder ab{builder, layer, layerLoc(builder, layer.getName())};
  WeightList list(builder, layer, weights, layer.getName(), unbuiltModel);
  StringRef cls = layer.getClassName();
  if (cls == "Dot")
    return emitDot(layer, inputs);
  Expected<std::array<int, 4>> qvk = queryValueKey(layer, inputs);
  Expected<bool> causal = causalCall(layer);
  if (!qvk || !causal)
    return firstError(qvk, causal);
  auto [qi, vi, ki, mi] = *qvk;
  // Only MultiHeadAttention attends over other axes than the steps.
  int64_t rank = static_cast<int64_t>(shapeOf(inputs[qi]).size());
  if (rank != 3 && (cls != "MultiHeadAttention" || rank < 3))
    return layer.error("reads an input of shape " + shapeText(shapeOf(inputs[qi])) +
                       ": seqc supports attention over (batch, steps, features)");
  Expected<AttentionAxes> axes =
      cls == "MultiHeadAttention" ? attentionAxes(layer, rank) : AttentionAxes();
  if (!axes)
    return axes.takeError();
  if (llvm::Error e = checkShapes(layer, inputs, *qvk, *axes))
    return std::move(e);
  // Keras 3 calls dot_product_attention only over (batch, steps, features).
  Expected<HiddenScores> hidden =
      hiddenScores(layer, version, *returnScores || !axes->overSteps());
  if (!hidden)
    return hidden.takeError();
  ab.hidden = *hidden;
  // MultiHeadAttention's attention_mask (batch, query steps, key steps):
  // Keras hides a pair where it is 0 (False), as its masks do.
  Value attentionMask = mi >= 0 ? inputs[mi] : Value();
  Value query = inputs[qi], value = inputs[vi], key = inputs[ki >= 0 ? ki : vi];
  // Keras' timestep masks of the inputs: a masked key step is hidden from
  // every query step; the output keeps the query's mask.
  Value queryMask = callMasks[qi], valueMask = callMasks[vi];
  Value keyMask = ki >= 0 ? callMasks[ki] : Value();
  int64_t features = shapeOf(query).back();

  if (cls == "Attention" || cls == "AdditiveAttention") {
    if (attentionMask)
      return layer.error("is called with attention_mask, which " + cls +
                         " does not take (Keras' MultiHeadAttention and "
                         "GroupQueryAttention do)");
    if (shapes::conflict(shapeOf(key)[2], features))
      return layer.error("its query " + shapeText(shapeOf(query)) + " and key " +
                         shapeText(shapeOf(key)) + " differ in features");
    bool additive = cls == "AdditiveAttention";
    Expected<bool> useScale = layer.getBoolOr("use_scale", additive);
    Expected<std::string> mode = layer.getStringOr("score_mode", "dot");
    if (!useScale || !mode)
      return firstError(useScale, mode);
    if (*mode != "dot" && *mode != "concat")
      return layer.error("score_mode '" + *mode + "' is not one Keras has (dot, concat)");
    additive |= *mode == "concat";
    std::vector<StringRef> roles;
    if (*useScale)
      roles.push_back("scale");
    if (cls == "Attention" && *mode == "concat")
      roles.push_back("concat_score_weight");
    if (llvm::Error e = list.expect(roles))
      return std::move(e);
    std::optional<float> scale, scoreWeight;
    Value featureScale;
    if (*useScale && cls == "AdditiveAttention") {
      Expected<Value> s = list.next("scale", {features});
      if (!s)
        return s.takeError();
      featureScale = *s;
    } else if (*useScale) {
      Expected<float> s = scalarWeight(layer, list.take());
      if (!s)
        return s.takeError();
      scale = *s;
    }
    if (cls == "Attention" && *mode == "concat") {
      Expected<float> w = scalarWeight(layer, list.take());
      if (!w)
        return w.takeError();
      scoreWeight = *w;
    }
    // One head: (batch, steps, 1, features).
    Expected<Value> q = ab.reshape(query, {-1, 1, features});
    Expected<Value> k = ab.reshape(key, {-1, 1, shapeOf(key)[2]});
    Expected<Value> v = ab.reshape(value, {-1, 1, shapeOf(value)[2]});
    if (!q || !k || !v)
      return firstError(q, k, v);
    // Attention hides the value's masked steps and zeroes the query's.
    auto attend = [&](bool weights) {
      return ab.attention(*q, *k, *v, featureScale,
                          additive ? ScoreMode::Additive : ScoreMode::Dot, scale,
                          scoreWeight, *causal, std::nullopt, Value(), valueMask, Value(),
                          weights);
    };
    Value y = attend(/*weights=*/false);
    if (*returnScores) {
      Value scores = attend(/*weights=*/true);
      // (batch, 1, tq, tk) as Keras' (batch, tq, tk).
      int64_t tq = shapeOf(query)[1], tk = shapeOf(key)[1];
      if (ShapedType::isDynamic(tq) && ShapedType::isDynamic(tk))
        return layer.error("returns its attention scores with unknown query and key "
                           "steps: not supported; give one of them a fixed length");
      Expected<Value> oneHead = ab.reshape(
          scores, {ShapedType::isDynamic(tq) ? -1 : tq, ShapedType::isDynamic(tk) ? -1 : tk});
      if (!oneHead)
        return oneHead.takeError();
      lastAttentionScores = *oneHead;
    }
    Expected<Value> out = ab.reshape(y, {-1, shapeOf(value)[2]});
    mask = listCallsPassMasks() ? masks[qi] : Value();
    if (!out || !queryMask)
      return out;
    return ApplyMaskOp::create(builder, ab.loc, out->getType(), *out, queryMask).getResult();
  }

  // MultiHeadAttention / GroupedQueryAttention.
  bool grouped = cls != "MultiHeadAttention";
  Expected<int64_t> heads = layer.getSize(grouped ? "num_query_heads" : "num_heads");
  Expected<int64_t> kvHeads = grouped ? layer.getSize("num_key_value_heads")
                                      : Expected<int64_t>(0);
  Expected<int64_t> keyDim = layer.getSize(grouped ? "head_dim" : "key_dim");
  Expected<int64_t> valueDim =
      grouped ? Expected<int64_t>(0) : layer.getSizeOr("value_dim", 0);
  Expected<bool> useBias = layer.getBoolOr("use_bias", true);
  Expected<bool> useGate = layer.getBoolOr("use_gate", false);
  if (!heads || !kvHeads || !keyDim || !valueDim || !useBias || !useGate)
    return firstError(heads, kvHeads, keyDim, valueDim, useBias, useGate);
  if (!grouped) {
    *kvHeads = *heads;
    if (*valueDim == 0)
      *valueDim = *keyDim;
  } else {
    *valueDim = *keyDim;
    if (*heads % *kvHeads != 0)
      return layer.error("num_query_heads " + Twine(*heads) +
                         " is not a multiple of num_key_value_heads " + Twine(*kvHeads));
  }
  std::optional<int64_t> window;
  if (const llvm::json::Value *v = layer.getObject().get("sliding_window");
      v && !v->getAsNull()) {
    Expected<int64_t> w = layer.getSize("sliding_window");
    if (!w)
      return w.takeError();
    window = *w;
  }
  int64_t outputSize = features;
  if (const llvm::json::Value *v = layer.getObject().get("output_shape"); v && !v->getAsNull()) {
    const llvm::json::Array *dims = v->getAsArray();
    std::optional<int64_t> size =
        dims && dims->size() == 1 ? (*dims)[0].getAsInteger() : v->getAsInteger();
    if (!size || *size <= 0)
      return layer.error("output_shape is set to more than one axis: seqc supports one "
                         "output axis");
    outputSize = *size;
  }
  if (!axes->overSteps()) {
    Value masked;
    for (int i : {qi, vi, ki})
      if (i >= 0 && (callMasks[i] || masks[i]))
        masked = inputs[i];
    if (masked)
      return layer.error("reads a masked input of shape " + shapeText(shapeOf(masked)) +
                         ": seqc applies masks to attention over (batch, steps, features)");
    if (*causal || window)
      return layer.error(Twine(*causal ? "use_causal_mask" : "sliding_window") +
                         " is set and it attends over axes " + shapeText(axes->attended) +
                         " of " + shapeText(shapeOf(query)) +
                         ": seqc applies it to attention over (batch, steps, features)");
  }
  // The projections in the order Keras builds them (its weight order).
  std::vector<StringRef> parts = {"query", "key", "value", "output"};
  if (*useGate)
    parts.insert(parts.begin() + 2, "gate");
  std::vector<StringRef> roles;
  for (StringRef part : parts) {
    roles.push_back(part);
    if (*useBias)
      roles.push_back(part);
  }
  if (llvm::Error e = list.expect(roles))
    return std::move(e);
  // Each projection: kernel (in, heads, dim) read as (in, heads * dim), bias
  // (heads, dim) as (heads * dim); the output kernel (heads, dim, out) as
  // (heads * dim, out).
  // (batch, steps, h * dim), for the gate; the attention's projections
  // are reshaped to (batch, steps, h, dim).
  auto flatProjection = [&](StringRef part, Value x, int64_t h, int64_t dim,
                            Activation activation) -> Expected<Value> {
    int64_t in = shapeOf(x).back();
    Expected<Value> kernel = list.next((part + "/kernel").str(), {in, h, dim}, {in, h * dim});
    if (!kernel)
      return kernel.takeError();
    Value bias;
    if (*useBias) {
      Expected<Value> b = list.next((part + "/bias").str(), {h, dim}, {h * dim});
      if (!b)
        return b.takeError();
      bias = *b;
    }
    SmallVector<int64_t> out(shapeOf(x));
    out.back() = h * dim;
    return DenseOp::create(builder, ab.loc, tensorType(builder, out), x, *kernel, bias,
                           activation, FloatAttr())
        .getResult();
  };
  auto projection = [&](StringRef part, Value x, int64_t h, int64_t dim) -> Expected<Value> {
    Expected<Value> flat = flatProjection(part, x, h, dim, Activation::Linear);
    if (!flat)
      return flat.takeError();
    return ab.toHeads(*flat, *axes, h, dim);
  };
  Expected<Value> q = projection("query", query, *heads, *keyDim);
  if (!q)
    return q.takeError();
  Expected<Value> k = projection("key", key, *kvHeads, *keyDim);
  if (!k)
    return k.takeError();
  // use_gate: the heads' output times sigmoid(a projection of the query).
  Value gate;
  if (*useGate) {
    Expected<Value> g = flatProjection("gate", query, *heads, *valueDim, Activation::Sigmoid);
    if (!g)
      return g.takeError();
    gate = *g;
  }
  Expected<Value> v = projection("value", value, *kvHeads, *valueDim);
  if (!v)
    return v.takeError();
  // MultiHeadAttention hides the steps any input masks (the key's mask
  // only when the key is given).
  if (keyMask && keyMask != valueMask)
    keyMask = valueMask ? MergeOp::create(builder, ab.loc, valueMask.getType(),
                                          ValueRange{valueMask, keyMask}, MergeKind::Minimum)
                              .getResult()
                        : keyMask;
  else
    keyMask = valueMask;
  // An attention_mask over the attended axes: (batch, query steps, key steps).
  if (attentionMask && !axes->overSteps()) {
    int64_t keySteps = 1;
    for (int64_t a : axes->attended)
      keySteps *= shapeOf(key)[a];
    Expected<Value> flat = ab.reshape(attentionMask, {-1, keySteps});
    if (!flat)
      return flat.takeError();
    attentionMask = *flat;
  }
  auto attend = [&](bool weights) {
    return ab.attention(*q, *k, *v, Value(), ScoreMode::Dot,
                        static_cast<float>(1.0 / std::sqrt(static_cast<double>(*keyDim))),
                        std::nullopt, *causal, window, queryMask, keyMask, attentionMask,
                        weights);
  };
  Value heads4 = attend(/*weights=*/false);
  if (*returnScores) {
    lastAttentionScores = attend(/*weights=*/true);
    if (!axes->overSteps()) {
      // Keras' (batch, others..., heads, query's attended axes..., key's).
      SmallVector<int64_t> target = AttentionAxes::sizes(shapeOf(query), axes->others);
      target.push_back(*heads);
      target.append(AttentionAxes::sizes(shapeOf(query), axes->attended));
      target.append(AttentionAxes::sizes(shapeOf(key), axes->attended));
      target.front() = -1;
      Expected<Value> scores = ab.reshape(lastAttentionScores, target);
      if (!scores)
        return scores.takeError();
      lastAttentionScores = *scores;
    }
  }
  mask = masks[qi];
  Expected<Value> joined = ab.fromHeads(heads4, *axes, shapeOf(query), *heads, *valueDim);
  if (!joined)
    return joined.takeError();
  if (gate)
    joined = MergeOp::create(builder, ab.loc, joined->getType(), ValueRange{*joined, gate},
                             MergeKind::Multiply)
                 .getResult();
  Expected<Value> kernel =
      list.next("output/kernel", {*heads, *valueDim, outputSize}, {*heads * *valueDim, outputSize});
  if (!kernel)
    return kernel.takeError();
  Value bias;
  if (*useBias) {
    Expected<Value> b = list.next("output/bias", {outputSize});
    if (!b)
      return b.takeError();
    bias = *b;
  }
  return ab.dense(*joined, *kernel, bias);
}

Expected<Value> LayerEmitter::emitDot(const LayerConfig &layer, ArrayRef<Value> inputs) {
  if (inputs.size() != 2)
    return layer.error("reads " + Twine(inputs.size()) + " inputs; Dot takes exactly two");
  AttentionBuilder ab{builder, layer, layerLoc(builder, layer.getName())};
  const llvm::json::Value *axesValue = layer.getObject().get("axes");
  std::array<int64_t, 2> axes{};
  const llvm::json::Array *list = axesValue ? axesValue->getAsArray() : nullptr;
  std::optional<int64_t> single = axesValue ? axesValue->getAsInteger() : std::nullopt;
  if (list && list->size() == 2 && (*list)[0].getAsInteger() && (*list)[1].getAsInteger())
    axes = {*(*list)[0].getAsInteger(), *(*list)[1].getAsInteger()};
  else if (single)
    axes = {*single, *single};
  else
    return layer.error("axes is not an integer or a pair of integers");
  Expected<bool> normalize = layer.getBoolOr("normalize", false);
  if (!normalize)
    return normalize.takeError();
  // tf_keras: l2_normalize (squares floored at 1e-12); Keras 3:
  // ops.normalize, the norm floored at its epsilon 1e-7.
  FloatAttr epsilon = builder.getF32FloatAttr(version.major >= 3 ? 1e-14f : 1e-12f);
  // Each input as (batch, free, contracted): its free axis (none for rank 2)
  // first, the contracted one last.
  SmallVector<Value, 2> rows;
  SmallVector<int64_t, 2> free;
  for (auto [i, x] : llvm::enumerate(inputs)) {
    int64_t rank = static_cast<int64_t>(shapeOf(x).size());
    int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (rank != 2 && rank != 3)
      return layer.error("input " + Twine(i) + " has shape " + shapeText(shapeOf(x)) +
                         ": seqc supports Dot of (batch, n) and (batch, steps, n) inputs");
    if (axis < 1 || axis >= rank)
      return layer.error("axis " + Twine(axes[i]) + " is not an axis after the batch axis "
                         "of input " + Twine(i) + " " + shapeText(shapeOf(x)));
    Expected<Value> r = rank == 2 ? ab.reshape(x, {1, shapeOf(x)[1]})
                        : axis == 2 ? Expected<Value>(x)
                                    : Expected<Value>(ab.permute(x, {2, 1}));
    if (!r)
      return r.takeError();
    free.push_back(rank == 2 ? -1 : shapeOf(*r)[1]);
    rows.push_back(*normalize
                       ? UnitNormOp::create(builder, ab.loc, r->getType(), *r, epsilon).getResult()
                       : *r);
  }
  ArrayRef<int64_t> a = shapeOf(rows[0]), b = shapeOf(rows[1]);
  if (shapes::conflict(a[2], b[2]))
    return layer.error("contracts axis " + Twine(axes[0]) + " of " +
                       shapeText(shapeOf(inputs[0])) + " with axis " + Twine(axes[1]) +
                       " of " + shapeText(shapeOf(inputs[1])) + ": their sizes differ");
  auto type = tensorType(builder, {a[0], a[1], b[1]});
  Value product = MatMulOp::create(builder, ab.loc, type, rows[0], rows[1],
                                   /*transpose_b=*/true)
                      .getResult();
  // Keras' shape: the free axes of both, or (batch, 1) when neither has one.
  SmallVector<int64_t> target;
  for (int64_t f : free)
    if (f != -1)
      target.push_back(f == kDynamic ? -1 : f);
  if (target.size() == 2)
    return product;
  if (target.empty())
    target.push_back(1);
  return ab.reshape(product, target);
}

} // namespace seq::keras

// Keras' merge layers, which join the branches of a Functional model: Add,
// Subtract, Multiply, Average, Maximum, Minimum (seq.merge) and Concatenate
// (seq.concatenate); the application layer CustomScaleLayer (ApplicationLayers.cpp).
#include "LayerEmitter.h"

#include "EmitterSupport.h"
#include "LayerFamilies.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace seq::keras {

using namespace emit;

llvm::ArrayRef<StringRef> LayerEmitter::mergeClasses() {
  static const StringRef classes[] = {"Add",     "Subtract", "Multiply",
                                      "Average", "Maximum",  "Minimum",
                                      "Concatenate", "CustomScaleLayer"};
  return classes;
}

bool LayerEmitter::isMergeLayer(StringRef className) {
  return llvm::is_contained(mergeClasses(), className);
}

Expected<Value> LayerEmitter::mergedMask(const LayerConfig &layer,
                                         ArrayRef<Value> masks, int64_t axis,
                                         size_t rank) {
  SmallVector<Value> present;
  for (Value m : masks)
    if (m && !llvm::is_contained(present, m))
      present.push_back(m);
  if (present.empty() || !listCallsPassMasks())
    return Value();
  // Keras 3 joins the masks of an elementwise merge with OR (none when an
  // input has none), of a Concatenate over the features with OR (an input
  // without one counts as all steps set); tf_keras joins both with AND of
  // the masks there are.
  bool concat = axis >= 0;
  if (concat && axis != static_cast<int64_t>(rank) - 1)
    return layer.error("concatenates along axis " + Twine(axis) + " inputs that carry "
                       "the timestep mask of an earlier Masking or "
                       "Embedding(mask_zero=True) layer: seqc joins masks only over "
                       "the last axis");
  bool unmaskedInput = llvm::any_of(masks, [](Value m) { return !m; });
  if (version.major >= 3 && unmaskedInput)
    return Value();
  if (present.size() == 1)
    return present[0];
  Location loc = layerLoc(builder, layer.getName() + "/mask");
  MergeKind kind = version.major >= 3 ? MergeKind::Maximum : MergeKind::Minimum;
  return MergeOp::create(builder, loc, present[0].getType(), present, kind).getResult();
}

namespace {
/// Multiply, Maximum or Minimum of `inputs` as Keras 3.4+ computes them
/// where some are masked (`masks`, null where an input has none): a masked
/// step counts as 1 in a product and as the other inputs' value in a
/// maximum or minimum, and a product is 0 where every input is masked. A
/// masked input has the result's shape; an unmasked one may broadcast
/// (Keras' where and ops broadcast it as NumPy does).
Value maskedMerge(OpBuilder &builder, Location loc, MergeKind kind, ArrayRef<Value> inputs,
                  ArrayRef<Value> masks) {
  auto merge = [&](MergeKind k, Value a, Value b) {
    SmallVector<int64_t> shape(shapeOf(a));
    for (auto [size, other] : llvm::zip(shape, shapeOf(b)))
      size = *shapes::broadcast(size, other);
    return MergeOp::create(builder, loc, tensorType(builder, shape), ValueRange{a, b}, k)
        .getResult();
  };
  // x where `m` is set, 0 elsewhere: seq.apply_mask, or for an x whose steps
  // broadcast (an axis 1 of size 1 beside more) a product with the mask
  // given x's rank, which broadcasts both.
  auto keep = [&](Value x, Value m) {
    ArrayRef<int64_t> shape = shapeOf(x);
    int64_t steps = shapeOf(m)[1];
    if (shape[1] != 1 || steps == 1)
      return ApplyMaskOp::create(builder, loc, x.getType(), x, m).getResult();
    SmallVector<int64_t> target(shape.size() - 1, 1);
    target[0] = steps == kDynamic ? -1 : steps;
    return merge(MergeKind::Multiply, x, reshapeAxes(builder, loc, m, target));
  };
  // where(m, a, b) exactly: a * m + b * (1 - m) adds a value and a zero;
  // 1 - m made once per mask.
  llvm::SmallDenseMap<Value, Value> unsetOf;
  auto where = [&](Value m, Value a, Value b) {
    Value &unset = unsetOf[m];
    if (!unset)
      unset = SequenceMaskOp::create(builder, loc, m.getType(), m,
                                     builder.getF32FloatAttr(1.0f));
    return merge(MergeKind::Add, keep(a, m), keep(b, unset));
  };
  // `result` holds the merge of the inputs so far that are valid where
  // `valid` is set (null: everywhere).
  Value result = inputs[0], valid = masks[0];
  for (auto [x, m] : llvm::drop_begin(llvm::zip(inputs, masks))) {
    if (kind == MergeKind::Multiply) {
      Value product = merge(kind, result, x);
      Value withX = valid ? where(valid, product, x) : product;
      result = m ? where(m, withX, result) : withX;
    } else {
      Value other = m ? where(m, x, result) : x;
      Value own = valid ? where(valid, result, other) : result;
      result = merge(kind, own, other);
    }
    valid = !valid || !m ? Value() : valid == m ? valid : merge(MergeKind::Maximum, valid, m);
  }
  if (kind == MergeKind::Multiply && valid)
    result = ApplyMaskOp::create(builder, loc, result.getType(), result, valid);
  return result;
}
} // namespace

Expected<Value> LayerEmitter::emitMerge(const LayerConfig &layer,
                                        ArrayRef<Value> inputs,
                                        ArrayRef<Value> masks,
                                        ArrayRef<Value> callMasks) {
  StringRef cls = layer.getClassName();
  mask = nullptr;
  if (inputs.size() < 2)
    return layer.error("merges " + Twine(inputs.size()) +
                       " input(s); it needs at least two");
  if (cls == "Subtract" && inputs.size() != 2)
    return layer.error("subtracts " + Twine(inputs.size()) +
                       " inputs; it takes exactly two");
  Location loc = layerLoc(builder, layer.getName());
  if (cls == "Concatenate")
    return emitConcatenate(layer, inputs, masks);
  if (cls == "CustomScaleLayer") // computes on every step and drops the mask
    return emitCustomScale(builder, layer, inputs);
  Expected<BroadcastInputs> broadcast = broadcastMergeInputs(layer, inputs, masks, callMasks);
  if (!broadcast)
    return broadcast.takeError();
  ArrayRef<Value> operands = broadcast->operands;
  ArrayRef<int64_t> result = broadcast->shape;
  Expected<Value> merged = mergedMask(layer, masks, -1, result.size());
  if (!merged)
    return merged.takeError();
  mask = *merged;
  MergeKind kind = llvm::StringSwitch<MergeKind>(cls)
                       .Case("Add", MergeKind::Add)
                       .Case("Subtract", MergeKind::Subtract)
                       .Case("Multiply", MergeKind::Multiply)
                       .Case("Average", MergeKind::Average)
                       .Case("Maximum", MergeKind::Maximum)
                       .Default(MergeKind::Minimum);
  bool skipsMasked = kind == MergeKind::Multiply || kind == MergeKind::Maximum ||
                     kind == MergeKind::Minimum;
  // Keras 3.4 and later skip the masked steps of Multiply, Maximum, Minimum.
  if (version.atLeast(3, 4) && skipsMasked && llvm::any_of(callMasks, [](Value m) { return m; }))
    return maskedMerge(builder, loc, kind, operands, callMasks);
  return MergeOp::create(builder, loc, tensorType(builder, result), operands, kind)
      .getResult();
}

Expected<LayerEmitter::BroadcastInputs>
LayerEmitter::broadcastMergeInputs(const LayerConfig &layer, ArrayRef<Value> inputs,
                                   ArrayRef<Value> masks, ArrayRef<Value> callMasks) {
  // Keras gives an input of lower rank new axes of size 1 after the batch
  // axis until the ranks agree (Merge.call), then broadcasts NumPy's way: a
  // squeeze-and-excitation block's (batch, 1, 1, channels) scales over
  // (batch, height, width, channels).
  size_t rank = 0;
  for (Value input : inputs)
    rank = std::max(rank, shapeOf(input).size());
  SmallVector<Value> operands;
  SmallVector<int64_t> result;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    ArrayRef<int64_t> shape = shapeOf(input);
    Value operand = input;
    if (shape.size() < rank) {
      SmallVector<int64_t> target(rank - shape.size(), 1);
      llvm::append_range(target, shape.drop_front());
      if (llvm::count_if(target, ShapedType::isDynamic) > 1)
        return layer.error("input " + Twine(i) + " of shape " + shapes::format(shape) +
                           " has fewer axes than the others and more than one of unknown "
                           "length: seqc cannot give it their rank");
      for (int64_t &size : target)
        size = size == kDynamic ? -1 : size;
      operand = reshapeAxes(builder, layerLoc(builder, layer.getName() + "/expand"), input,
                            target);
    }
    ArrayRef<int64_t> padded = shapeOf(operand);
    if (i == 0)
      result.assign(padded.begin(), padded.end());
    for (size_t a = 1; i > 0 && a < rank; ++a) {
      std::optional<int64_t> both = shapes::broadcast(result[a], padded[a]);
      if (!both)
        return layer.error("input " + Twine(i) + " has shape " + shapes::format(shape) +
                           " and input 0 " + shapes::format(shapeOf(inputs[0])) +
                           ": they do not broadcast (each axis after the batch axis must be "
                           "equal, or 1 in one of them)");
      result[a] = *both;
    }
    operands.push_back(operand);
  }
  // A timestep mask belongs to its input's steps: a masked input is not
  // broadcast.
  for (auto [i, operand] : llvm::enumerate(operands)) {
    bool masked = (i < masks.size() && masks[i]) || (i < callMasks.size() && callMasks[i]);
    if (masked && shapeOf(operand) != ArrayRef(result))
      return layer.error("broadcasts input " + Twine(i) + " of shape " +
                         shapes::format(shapeOf(inputs[i])) + " to " + shapes::format(result) +
                         ", which carries the timestep mask of an earlier Masking or "
                         "Embedding(mask_zero=True) layer: seqc broadcasts unmasked inputs only; "
                         "give the inputs one shape");
  }
  return BroadcastInputs{std::move(operands), std::move(result)};
}

Expected<Value> LayerEmitter::emitConcatenate(const LayerConfig &layer, ArrayRef<Value> inputs,
                                              ArrayRef<Value> masks) {
  ArrayRef<int64_t> first = shapeOf(inputs[0]);
  Expected<int64_t> a = layer.getIntOr("axis", -1);
  if (!a)
    return a.takeError();
  int64_t rank = static_cast<int64_t>(first.size());
  int64_t axis = *a < 0 ? *a + rank : *a;
  if (axis < 1 || axis >= rank)
    return layer.error("axis " + Twine(*a) + " is not an axis after the batch "
                       "axis of its rank-" + Twine(rank) + " inputs");
  SmallVector<int64_t> result(first);
  for (auto [i, input] : llvm::enumerate(inputs)) {
    ArrayRef<int64_t> shape = shapeOf(input);
    bool fits = shape.size() == first.size();
    for (size_t d = 0; fits && d < shape.size(); ++d)
      fits = static_cast<int64_t>(d) == axis || !shapes::conflict(shape[d], first[d]);
    if (!fits)
      return layer.error("input " + Twine(i) + " has shape " + shapes::format(shape) +
                         " and input 0 " + shapes::format(first) +
                         ": they must agree off the concatenation axis");
    if (i > 0)
      result[axis] = result[axis] == kDynamic || shape[axis] == kDynamic
                         ? kDynamic
                         : result[axis] + shape[axis];
  }
  Expected<Value> merged = mergedMask(layer, masks, axis, first.size());
  if (!merged)
    return merged.takeError();
  mask = *merged;
  return ConcatenateOp::create(builder, layerLoc(builder, layer.getName()),
                               tensorType(builder, result), inputs, axis)
      .getResult();
}

} // namespace seq::keras

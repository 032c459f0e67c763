// Keras' merge layers, which join the branches of a Functional model: Add,
// Subtract, Multiply, Average, Maximum, Minimum (seq.merge) and Concatenate
// (seq.concatenate).
#include "LayerEmitter.h"

#include "EmitterSupport.h"

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
                                      "Concatenate"};
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
/// maximum or minimum, and a product is 0 where every input is masked.
Value maskedMerge(OpBuilder &builder, Location loc, MergeKind kind, ArrayRef<Value> inputs,
                  ArrayRef<Value> masks) {
  Type type = inputs[0].getType();
  auto merge = [&](MergeKind k, Value a, Value b) {
    return MergeOp::create(builder, loc, a.getType(), ValueRange{a, b}, k).getResult();
  };
  // where(m, a, b) exactly: a * m + b * (1 - m) adds a value and a zero;
  // 1 - m made once per mask.
  llvm::SmallDenseMap<Value, Value> unsetOf;
  auto where = [&](Value m, Value a, Value b) {
    Value &unset = unsetOf[m];
    if (!unset)
      unset = SequenceMaskOp::create(builder, loc, m.getType(), m,
                                     builder.getF32FloatAttr(1.0f));
    return merge(MergeKind::Add, ApplyMaskOp::create(builder, loc, type, a, m),
                 ApplyMaskOp::create(builder, loc, type, b, unset));
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
    result = ApplyMaskOp::create(builder, loc, type, result, valid);
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
  ArrayRef<int64_t> first = shapeOf(inputs[0]);
  Location loc = layerLoc(builder, layer.getName());
  int64_t axis = -1;
  if (cls == "Concatenate") {
    Expected<int64_t> a = layer.getIntOr("axis", -1);
    if (!a)
      return a.takeError();
    int64_t rank = static_cast<int64_t>(first.size());
    axis = *a < 0 ? *a + rank : *a;
    if (axis < 1 || axis >= rank)
      return layer.error("axis " + Twine(*a) + " is not an axis after the batch "
                         "axis of its rank-" + Twine(rank) + " inputs");
  }
  // Keras would broadcast some shapes; seqc merges equal ones (off the
  // concatenation axis).
  SmallVector<int64_t> result(first);
  for (auto [i, input] : llvm::enumerate(inputs)) {
    ArrayRef<int64_t> shape = shapeOf(input);
    bool fits = shape.size() == first.size();
    for (size_t a = 0; fits && a < shape.size(); ++a)
      fits = static_cast<int64_t>(a) == axis ||
             !shapes::conflict(shape[a], first[a]);
    if (!fits)
      return layer.error("input " + Twine(i) + " has shape " + shapes::format(shape) +
                         " and input 0 " + shapes::format(first) +
                         (axis >= 0 ? ": they must agree off the concatenation axis"
                                    : ": they must be equal (seqc does not "
                                      "broadcast merges)"));
    if (i > 0 && axis >= 0)
      result[axis] = result[axis] == kDynamic || shape[axis] == kDynamic
                         ? kDynamic
                         : result[axis] + shape[axis];
  }
  Expected<Value> merged = mergedMask(layer, masks, axis, first.size());
  if (!merged)
    return merged.takeError();
  mask = *merged;
  Type type = tensorType(builder, result);
  if (axis >= 0)
    return ConcatenateOp::create(builder, loc, type, inputs, axis).getResult();
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
    return maskedMerge(builder, loc, kind, inputs, callMasks);
  return MergeOp::create(builder, loc, type, inputs, kind).getResult();
}

} // namespace seq::keras

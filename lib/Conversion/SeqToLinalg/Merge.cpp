// Keras' merge layers: seq.merge as one elementwise linalg.generic over all
// its inputs, seq.concatenate (and seq.stack) as each input inserted into
// its slice of the result.
#include "LinalgBuilder.h"
#include "RuntimeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace seq;
using namespace seq::lowering;

namespace {

Value combine(OpBuilder &b, Location l, MergeKind kind, Value x, Value y) {
  switch (kind) {
  case MergeKind::Add:
  case MergeKind::Average:
    return arith::AddFOp::create(b, l, x, y);
  case MergeKind::Subtract:
    return arith::SubFOp::create(b, l, x, y);
  case MergeKind::Multiply:
    return arith::MulFOp::create(b, l, x, y);
  case MergeKind::Maximum:
    return arith::MaximumFOp::create(b, l, x, y);
  case MergeKind::Minimum:
    return arith::MinimumFOp::create(b, l, x, y);
  case MergeKind::Divide:
    return arith::DivFOp::create(b, l, x, y);
  }
  llvm_unreachable("unknown merge kind");
}

/// x + y of two sizes, folded when both are static.
OpFoldResult addSizes(LinalgBuilder &lb, OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> a = getConstantIntValue(x), b = getConstantIntValue(y);
  if (a && b)
    return lb.b.getIndexAttr(*a + *b);
  return arith::AddIOp::create(lb.b, lb.loc, lb.toValue(x), lb.toValue(y)).getResult();
}

} // namespace

Value seq::lowering::lowerMerge(LinalgBuilder &lb, Operation *op) {
  if (auto merge = dyn_cast<MergeOp>(op)) {
    ValueRange inputs = merge.getInputs();
    MergeKind kind = merge.getKind();
    size_t count = inputs.size();
    // An input's axis of static size 1 where the result's is not reads
    // index 0 there (broadcasts); the result's sizes are those of the
    // inputs that do not broadcast.
    ArrayRef<int64_t> out = cast<RankedTensorType>(merge.getType()).getShape();
    unsigned rank = out.size();
    IndexMath m{lb};
    SmallVector<OpFoldResult> sizes(rank); // null until an input gives the axis its length
    SmallVector<AffineMap> maps;
    Value misfit;
    for (Value input : inputs) {
      ArrayRef<int64_t> shape = cast<RankedTensorType>(input.getType()).getShape();
      SmallVector<AffineExpr> exprs;
      for (unsigned a = 0; a < rank; ++a) {
        bool broadcast = shape[a] == 1 && out[a] != 1;
        exprs.push_back(broadcast ? lb.b.getAffineConstantExpr(0) : lb.b.getAffineDimExpr(a));
        if (broadcast || shape[a] == 1)
          continue;
        // Lengths the verifier could not compare (one unknown) may differ
        // at run time (Keras broadcasts a length of 1 there): a misfit is
        // reported, and the loop keeps to the shortest, which every input
        // holds.
        OpFoldResult length = lb.dimOfr(input, a);
        if (sizes[a] && (!m.constant(sizes[a]) || !m.constant(length))) {
          Value differs = arith::CmpIOp::create(lb.b, lb.loc, arith::CmpIPredicate::ne,
                                                lb.toValue(sizes[a]), lb.toValue(length));
          misfit = misfit ? arith::OrIOp::create(lb.b, lb.loc, misfit, differs) : differs;
          length = m.min(sizes[a], length);
        }
        sizes[a] = length;
      }
      maps.push_back(AffineMap::get(rank, 0, exprs, lb.b.getContext()));
    }
    for (OpFoldResult &size : sizes)
      if (!size)
        size = lb.b.getIndexAttr(1);
    if (misfit)
      reportRowsIf(lb, op, inputs[0], misfit,
                   "layer '" + layerName(op) + "': inputs whose lengths differ along an "
                   "axis of unknown length (Keras broadcasts a length of 1 against "
                   "another; seqc merges equal lengths): give the model inputs that fit");
    maps.push_back(lb.identity(rank));
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    // Left to right in float32, the average divided at the end, as Keras.
    return lb.generic(inputs, lb.empty(sizes), maps, iters,
                  [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                    Value acc = a[0];
                    for (size_t i = 1; i < count; ++i)
                      acc = combine(b, l, kind, acc, a[i]);
                    if (kind != MergeKind::Average)
                      return acc;
                    Value n = arith::ConstantOp::create(
                        b, l, b.getF32FloatAttr(static_cast<float>(count)));
                    return arith::DivFOp::create(b, l, acc, n);
                  });
  }
  if (auto stack = dyn_cast<StackOp>(op)) {
    // Each input into its slice (i, ...) of the result.
    ValueRange inputs = stack.getInputs();
    SmallVector<OpFoldResult> sizes = lb.dims(inputs[0]);
    sizes.insert(sizes.begin(), lb.b.getIndexAttr(inputs.size()));
    Value result = lb.empty(sizes);
    for (auto [i, input] : llvm::enumerate(inputs)) {
      SmallVector<OpFoldResult> offsets(sizes.size(), lb.b.getIndexAttr(0));
      offsets[0] = lb.b.getIndexAttr(i);
      SmallVector<OpFoldResult> slice(sizes);
      slice[0] = lb.b.getIndexAttr(1);
      SmallVector<OpFoldResult> strides(sizes.size(), lb.b.getIndexAttr(1));
      result = tensor::InsertSliceOp::create(lb.b, lb.loc, input, result, offsets, slice,
                                             strides);
    }
    return result;
  }
  if (auto unstack = dyn_cast<UnstackOp>(op)) {
    // Slice (index, ...) of the input, without its leading axis.
    Value input = unstack.getInput();
    SmallVector<OpFoldResult> sizes = lb.dims(input);
    SmallVector<OpFoldResult> offsets(sizes.size(), lb.b.getIndexAttr(0));
    offsets[0] = lb.b.getIndexAttr(unstack.getIndex());
    sizes[0] = lb.b.getIndexAttr(1);
    SmallVector<OpFoldResult> strides(sizes.size(), lb.b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(
        lb.b, lb.loc, cast<RankedTensorType>(unstack.getType()), input, offsets, sizes,
        strides);
  }
  auto concat = dyn_cast<ConcatenateOp>(op);
  if (!concat)
    return nullptr;
  int64_t axis = concat.getAxis();
  ValueRange inputs = concat.getInputs();
  SmallVector<OpFoldResult> sizes = lb.dims(inputs[0]);
  for (Value input : inputs.drop_front())
    sizes[axis] = addSizes(lb, sizes[axis], lb.dimOfr(input, axis));
  Value result = lb.empty(sizes);
  OpFoldResult offset = lb.b.getIndexAttr(0);
  for (Value input : inputs) {
    SmallVector<OpFoldResult> offsets(sizes.size(), lb.b.getIndexAttr(0));
    offsets[axis] = offset;
    SmallVector<OpFoldResult> strides(sizes.size(), lb.b.getIndexAttr(1));
    result = tensor::InsertSliceOp::create(lb.b, lb.loc, input, result, offsets,
                                           lb.dims(input), strides);
    offset = addSizes(lb, offset, lb.dimOfr(input, axis));
  }
  return result;
}

// --seq-to-linalg: every seq op becomes linalg/tensor/scf/arith/math on
// tensors. Ops are lowered one at a time in program order; a
// seq.time_distributed moves its body into an scf.for, whose seq ops are then
// found and lowered in turn.
#include "LinalgBuilder.h"
#include "RuntimeChecks.h"

#include "seq/Conversion/Passes.h"
#include "seq/Dialect/Seq/IR/SeqDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>
#include <optional>

namespace seq {
#define GEN_PASS_DEF_CONVERTSEQTOLINALG
#include "seq/Conversion/Passes.h.inc"
} // namespace seq

using namespace mlir;
using namespace seq;
using namespace seq::lowering;

namespace {

/// x (B, T, C) placed at time offset padLeft of a (B, paddedLength, C)
/// tensor filled with `value`; x itself when nothing is padded.
Value padTime(LinalgBuilder &lb, Value x, const Window &w, double value) {
  IndexMath m{lb};
  if (m.constant(w.padLeft) == 0 &&
      m.constant(w.paddedLength) == m.constant(lb.dimOfr(x, 1)) &&
      m.constant(w.paddedLength))
    return x;
  Value padded = lb.full({lb.dimOfr(x, 0), w.paddedLength, lb.dimOfr(x, 2)}, value);
  SmallVector<OpFoldResult> offsets{m.c(0), w.padLeft, m.c(0)};
  SmallVector<OpFoldResult> strides(3, m.c(1));
  return tensor::InsertSliceOp::create(lb.b, lb.loc, x, padded, offsets,
                                       lb.dims(x), strides);
}

AffineExpr d(LinalgBuilder &lb, unsigned i) { return lb.b.getAffineDimExpr(i); }

SmallVector<utils::IteratorType> iterators(unsigned parallel, unsigned reduction) {
  SmallVector<utils::IteratorType> iters(parallel, utils::IteratorType::parallel);
  iters.append(reduction, utils::IteratorType::reduction);
  return iters;
}

Value add(OpBuilder &b, Location l, Value x, Value y) {
  return arith::AddFOp::create(b, l, x, y);
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

Value lowerConv1d(LinalgBuilder &lb, Conv1DOp op) {
  IndexMath m{lb};
  Value x = op.getInput(), kernel = op.getKernel();
  auto kType = cast<RankedTensorType>(kernel.getType());
  int64_t width = kType.getDimSize(0), filters = kType.getDimSize(2);
  int64_t stride = op.getStrides(), dilation = op.getDilationRate();
  int64_t span = dilation * (width - 1) + 1;
  Window w = window1d(m, lb.dimOfr(x, 1), span, stride, op.getPadding());
  w.paddedLength = fitWindow(lb, op, x, w.paddedLength, span, 1);
  Value padded = padTime(lb, x, w, 0.0);
  OpFoldResult outLength =
      m.add(m.div(m.sub(w.paddedLength, m.c(span)), m.c(stride)), m.c(1));
  SmallVector<OpFoldResult> outSizes{lb.dimOfr(x, 0), outLength, m.c(filters)};
  Value init = op.getBias() ? lb.broadcastLastAxis(op.getBias(), outSizes)
                            : lb.full(outSizes, 0.0);
  // out[b, o, f] += x[b, o*s + k*d, c] * w[k, c, f]: the named op, which
  // the CPU pipeline tiles and vectorizes (SeqCpuVectorizeConv).
  Value conv = linalg::Conv1DNwcWcfOp::create(
                   lb.b, lb.loc, TypeRange{init.getType()}, ValueRange{padded, kernel},
                   ValueRange{init}, lb.b.getI64TensorAttr({stride}),
                   lb.b.getI64TensorAttr({dilation}))
                   .getResult(0);
  return lb.activate(conv, op.getActivation(), op.getAlphaAttr());
}

Value lowerPool1d(LinalgBuilder &lb, Operation *op, Value x, int64_t pool,
                  int64_t stride, Padding padding, bool isMax) {
  IndexMath m{lb};
  OpFoldResult length = lb.dimOfr(x, 1);
  Window w = window1d(m, length, pool, stride, padding);
  w.paddedLength = fitWindow(lb, op, x, w.paddedLength, pool, 1);
  // Padded positions never win the max and are not counted by the average.
  Value padded = padTime(lb, x, w, isMax ? -INFINITY : 0.0);
  OpFoldResult outLength =
      m.add(m.div(m.sub(w.paddedLength, m.c(pool)), m.c(stride)), m.c(1));
  SmallVector<OpFoldResult> outSizes{lb.dimOfr(x, 0), outLength, lb.dimOfr(x, 2)};
  Value init = lb.full(outSizes, isMax ? -INFINITY : 0.0);
  Value windowShape = lb.empty({m.c(pool)});
  // out[b, o, c] = max / sum over k of x[b, o*s + k, c]: the named ops,
  // which the CPU pipeline vectorizes (SeqCpuVectorizeConv).
  auto strides = lb.b.getI64TensorAttr({stride});
  auto dilations = lb.b.getI64TensorAttr({1});
  SmallVector<Type, 1> types{init.getType()};
  SmallVector<Value, 2> ins{padded, windowShape};
  Value reduced =
      isMax ? linalg::PoolingNwcMaxOp::create(lb.b, lb.loc, types, ins, ValueRange{init},
                                              strides, dilations)
                  .getResult(0)
            : linalg::PoolingNwcSumOp::create(lb.b, lb.loc, types, ins, ValueRange{init},
                                              strides, dilations)
                  .getResult(0);
  if (isMax)
    return reduced;
  Value padLeft = lb.toValue(w.padLeft), lengthValue = lb.toValue(length);
  return lb.map(ValueRange{}, reduced, [&](OpBuilder &b, Location l,
                                           ValueRange a) -> Value {
    // count = min(o*s - padLeft + pool, T) - max(o*s - padLeft, 0)
    Value o = linalg::IndexOp::create(b, l, 1);
    Value start = arith::SubIOp::create(
        b, l,
        arith::MulIOp::create(b, l, o, arith::ConstantIndexOp::create(b, l, stride)),
        padLeft);
    Value zero = arith::ConstantIndexOp::create(b, l, 0);
    Value first = arith::MaxSIOp::create(b, l, start, zero);
    Value end = arith::AddIOp::create(b, l, start,
                                      arith::ConstantIndexOp::create(b, l, pool));
    Value last = arith::MinSIOp::create(b, l, end, lengthValue);
    Value count = arith::SubIOp::create(b, l, last, first);
    Value countI64 = arith::IndexCastOp::create(b, l, b.getI64Type(), count);
    Value countF = arith::SIToFPOp::create(b, l, b.getF32Type(), countI64);
    return arith::DivFOp::create(b, l, a[0], countF);
  });
}

} // namespace

Value seq::lowering::lowerGlobalPool(LinalgBuilder &lb, Value x, bool isMax,
                                     bool keepdims, RankedTensorType resultType,
                                     Value mask) {
  MLIRContext *ctx = lb.b.getContext();
  SmallVector<OpFoldResult> sizes{lb.dimOfr(x, 0), lb.dimOfr(x, 2)};
  Value init = lb.full(sizes, isMax ? -INFINITY : 0.0);
  // Loops (b, c, t).
  AffineMap xMap = AffineMap::get(3, 0, {d(lb, 0), d(lb, 2), d(lb, 1)}, ctx);
  AffineMap outMap = AffineMap::get(3, 0, {d(lb, 0), d(lb, 1)}, ctx);
  if (mask) {
    AffineMap maskMap = AffineMap::get(3, 0, {d(lb, 0), d(lb, 2)}, ctx);
    Value sums = lb.generic(ValueRange{x, mask}, init, {xMap, maskMap, outMap},
                            iterators(2, 1),
                            [](OpBuilder &b, Location l, ValueRange a) -> Value {
                              return add(b, l, arith::MulFOp::create(b, l, a[0], a[1]),
                                         a[2]);
                            });
    Value counts = lb.reduceLastAxis(mask, 0.0, [](OpBuilder &b, Location l,
                                                   ValueRange a) -> Value {
      return add(b, l, a[0], a[1]);
    });
    AffineMap rows = AffineMap::get(2, 0, {d(lb, 0)}, ctx);
    Value means = lb.generic(ValueRange{counts}, sums, {rows, lb.identity(2)},
                             iterators(2, 0),
                             [](OpBuilder &b, Location l, ValueRange a) -> Value {
                               return arith::DivFOp::create(b, l, a[1], a[0]);
                             });
    if (!keepdims)
      return means;
    return tensor::ExpandShapeOp::create(
        lb.b, lb.loc, resultType, means, ArrayRef<ReassociationIndices>{{0}, {1, 2}},
        ArrayRef<OpFoldResult>{lb.dimOfr(x, 0), lb.b.getIndexAttr(1), lb.dimOfr(x, 2)});
  }
  Value reduced = lb.generic(ValueRange{x}, init, {xMap, outMap}, iterators(2, 1),
                             [isMax](OpBuilder &b, Location l, ValueRange a) -> Value {
                               if (isMax)
                                 return arith::MaximumFOp::create(b, l, a[0], a[1]);
                               return add(b, l, a[0], a[1]);
                             });
  if (!isMax) {
    Value steps = arith::IndexCastOp::create(lb.b, lb.loc, lb.b.getI64Type(),
                                             lb.dim(x, 1));
    Value stepsF = arith::SIToFPOp::create(lb.b, lb.loc, lb.f32(), steps);
    reduced = lb.map(ValueRange{}, reduced,
                     [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                       return arith::DivFOp::create(b, l, a[0], stepsF);
                     });
  }
  if (!keepdims)
    return reduced;
  return tensor::ExpandShapeOp::create(
      lb.b, lb.loc, resultType, reduced,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}},
      ArrayRef<OpFoldResult>{lb.dimOfr(x, 0), lb.b.getIndexAttr(1), lb.dimOfr(x, 2)});
}

namespace {

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

Value lowerBatchNorm(LinalgBuilder &lb, BatchNormOp op) {
  Value x = op.getInput();
  unsigned rank = cast<RankedTensorType>(x.getType()).getRank();
  AffineMap id = lb.identity(rank);
  AffineMap channel = AffineMap::get(rank, 0, d(lb, rank - 1));
  float epsilon = op.getEpsilon().convertToFloat();
  return lb.generic(
      ValueRange{x, op.getGamma(), op.getBeta(), op.getMovingMean(),
                 op.getMovingVariance()},
      lb.empty(lb.dims(x)), {id, channel, channel, channel, channel, id},
      iterators(rank, 0), [epsilon](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value eps = arith::ConstantOp::create(b, l, b.getF32FloatAttr(epsilon));
        Value centered = arith::SubFOp::create(b, l, a[0], a[3]);
        Value stddev = math::SqrtOp::create(b, l, add(b, l, a[4], eps));
        Value normed = arith::DivFOp::create(b, l, centered, stddev);
        return add(b, l, arith::MulFOp::create(b, l, normed, a[1]), a[2]);
      });
}

/// x (B, d1..dn, C) viewed as (B, d1..dn, G, C/G): the sum and the sum of
/// squared deviations of every (sample, group) are reductions into (B, G)
/// over (d1..dn, C/G); then one elementwise pass normalizes.
Value lowerGroupNorm(LinalgBuilder &lb, GroupNormOp op) {
  Value x = op.getInput();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank(), channels = type.getDimSize(rank - 1);
  int64_t groups = op.getGroups(), perGroup = channels / groups;
  float epsilon = op.getEpsilon().convertToFloat();
  MLIRContext *ctx = lb.b.getContext();
  // Grouped view (rank + 1 axes): (B, d1..dn, G, C/G).
  SmallVector<int64_t> groupedShape(type.getShape().drop_back());
  groupedShape.append({groups, perGroup});
  SmallVector<ReassociationIndices> split;
  for (int64_t i = 0; i + 1 < rank; ++i)
    split.push_back({i});
  split.push_back({rank - 1, rank});
  SmallVector<OpFoldResult> groupedSizes = lb.dims(x);
  groupedSizes.pop_back();
  groupedSizes.append({lb.b.getIndexAttr(groups), lb.b.getIndexAttr(perGroup)});
  Value grouped = tensor::ExpandShapeOp::create(
      lb.b, lb.loc, RankedTensorType::get(groupedShape, lb.f32()), x, split,
      groupedSizes);
  // Loops in the grouped view's own order (b, d1..dn, g, k), so that x' is
  // read in memory order; the stats are at (b, g), the positions and k are
  // reductions.
  int64_t loops = rank + 1;
  AffineMap xMap = lb.identity(loops);
  AffineMap statMap = AffineMap::get(loops, 0, {d(lb, 0), d(lb, loops - 2)}, ctx);
  SmallVector<utils::IteratorType> reduceGroups(loops, utils::IteratorType::reduction);
  reduceGroups[0] = reduceGroups[loops - 2] = utils::IteratorType::parallel;
  SmallVector<OpFoldResult> statSizes{lb.dimOfr(x, 0), lb.b.getIndexAttr(groups)};
  Value sum = lb.generic(ValueRange{grouped}, lb.full(statSizes, 0.0), {xMap, statMap},
                         reduceGroups,
                         [](OpBuilder &b, Location l, ValueRange a) -> Value {
                           return accumulate(b, l, a[1], a[0]);
                         });
  // Values per group: the group's channels at every position (every axis
  // but the batch and the channels), as f32.
  IndexMath m{lb};
  OpFoldResult values = m.c(perGroup);
  for (int64_t i = 1; i + 1 < rank; ++i)
    values = m.mul(values, lb.dimOfr(x, i));
  Value count = arith::SIToFPOp::create(
      lb.b, lb.loc, lb.f32(),
      arith::IndexCastOp::create(lb.b, lb.loc, lb.b.getI64Type(),
                                 lb.toValue(values)));
  Value mean = lb.map(ValueRange{}, sum, [count](OpBuilder &b, Location l,
                                                 ValueRange a) -> Value {
    return arith::DivFOp::create(b, l, a[0], count);
  });
  Value squares = lb.generic(
      ValueRange{grouped, mean}, lb.full(statSizes, 0.0), {xMap, statMap, statMap},
      reduceGroups, [](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value centered = arith::SubFOp::create(b, l, a[0], a[1]);
        return accumulate(b, l, a[2], arith::MulFOp::create(b, l, centered, centered));
      });
  // 1 / sqrt(variance + epsilon) once per (sample, group), in place.
  Value inverse = lb.map(ValueRange{}, squares,
                         [count, epsilon](OpBuilder &b, Location l, ValueRange a) -> Value {
                           Value variance = arith::DivFOp::create(b, l, a[0], count);
                           Value eps = arith::ConstantOp::create(b, l, b.getF32FloatAttr(epsilon));
                           Value one = arith::ConstantOp::create(b, l, b.getF32FloatAttr(1.0f));
                           return arith::DivFOp::create(
                               b, l, one, math::SqrtOp::create(b, l, add(b, l, variance, eps)));
                         });
  // Normalize over the same loops, all parallel.
  AffineMap id = lb.identity(loops), stats = statMap;
  AffineMap channel = AffineMap::get(
      loops, 0, {d(lb, loops - 2) * perGroup + d(lb, loops - 1)}, ctx);
  Value normalized = lb.generic(
      ValueRange{grouped, mean, inverse, op.getGamma(), op.getBeta()},
      lb.empty(groupedSizes), {id, stats, stats, channel, channel, id},
      iterators(loops, 0), [](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value normed =
            arith::MulFOp::create(b, l, arith::SubFOp::create(b, l, a[0], a[1]), a[2]);
        return add(b, l, arith::MulFOp::create(b, l, normed, a[3]), a[4]);
      });
  return tensor::CollapseShapeOp::create(lb.b, lb.loc, type, normalized, split);
}

/// Each last-axis row of x times the factor `fn(sum of squares)` of its row
/// and, with a `scale`, scale per channel: UnitNormalization and
/// RMSNormalization.
Value scaleRowsBySquares(LinalgBuilder &lb, Value x, Value scale,
                         std::function<Value(OpBuilder &, Location, Value)> fn) {
  unsigned rank = cast<RankedTensorType>(x.getType()).getRank();
  Value squares = lb.reduceLastAxis(x, 0.0, [](OpBuilder &b, Location l,
                                              ValueRange a) -> Value {
    return accumulate(b, l, a[1], arith::MulFOp::create(b, l, a[0], a[0]));
  });
  // The factor once per row (a square root and a division), in place.
  Value factors = lb.map(ValueRange{}, squares,
                         [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                           return fn(b, l, a[0]);
                         });
  AffineMap id = lb.identity(rank), rows = id.dropResult(rank - 1);
  AffineMap channel = AffineMap::get(rank, 0, d(lb, rank - 1));
  SmallVector<Value> inputs{x, factors};
  SmallVector<AffineMap> maps{id, rows};
  if (scale) {
    inputs.push_back(scale);
    maps.push_back(channel);
  }
  maps.push_back(id);
  return lb.generic(inputs, lb.empty(lb.dims(x)), maps, iterators(rank, 0),
                    [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                      Value y = arith::MulFOp::create(b, l, a[0], a[1]);
                      return scale ? arith::MulFOp::create(b, l, y, a[2]) : y;
                    });
}

/// x / sqrt(max(sum(x^2), epsilon)) per last-axis row.
Value lowerUnitNorm(LinalgBuilder &lb, UnitNormOp op) {
  return scaleRowsBySquares(
      lb, op.getInput(), Value(), [&](OpBuilder &b, Location l, Value squares) {
        Value floor = arith::ConstantOp::create(b, l, op.getEpsilonAttr());
        Value one = arith::ConstantOp::create(b, l, b.getF32FloatAttr(1.0f));
        return arith::DivFOp::create(
            b, l, one,
            math::SqrtOp::create(b, l,
                                 arith::MaximumFOp::create(b, l, squares, floor)));
      });
}

/// x / sqrt(mean(x^2) + epsilon) * scale per last-axis row.
Value lowerRMSNorm(LinalgBuilder &lb, RMSNormOp op) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  float n = type.getDimSize(type.getRank() - 1);
  float epsilon = op.getEpsilon().convertToFloat();
  return scaleRowsBySquares(
      lb, op.getInput(), op.getScale(),
      [n, epsilon](OpBuilder &b, Location l, Value squares) {
        auto c = [&](float v) {
          return arith::ConstantOp::create(b, l, b.getF32FloatAttr(v));
        };
        Value mean = arith::DivFOp::create(b, l, squares, c(n));
        return arith::DivFOp::create(
            b, l, c(1.0f), math::SqrtOp::create(b, l, add(b, l, mean, c(epsilon))));
      });
}

Value lowerLayerNorm(LinalgBuilder &lb, LayerNormOp op) {
  Value x = op.getInput();
  auto type = cast<RankedTensorType>(x.getType());
  unsigned rank = type.getRank();
  float n = type.getDimSize(rank - 1);
  float epsilon = op.getEpsilon().convertToFloat();
  AffineMap id = lb.identity(rank), rows = id.dropResult(rank - 1);
  AffineMap channel = AffineMap::get(rank, 0, d(lb, rank - 1));
  Value sum = lb.reduceLastAxis(x, 0.0, [](OpBuilder &b, Location l,
                                          ValueRange a) -> Value {
    return accumulate(b, l, a[1], a[0]);
  });
  Value mean = lb.map(ValueRange{}, sum, [n](OpBuilder &b, Location l,
                                             ValueRange a) -> Value {
    return arith::DivFOp::create(b, l, a[0],
                                 arith::ConstantOp::create(b, l, b.getF32FloatAttr(n)));
  });
  SmallVector<OpFoldResult> rowSizes = lb.dims(x);
  rowSizes.pop_back();
  Value squares = lb.generic(
      ValueRange{x, mean}, lb.full(rowSizes, 0.0), {id, rows, rows},
      iterators(rank - 1, 1), [](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value centered = arith::SubFOp::create(b, l, a[0], a[1]);
        return accumulate(b, l, a[2], arith::MulFOp::create(b, l, centered, centered));
      });
  // 1 / sqrt(variance + epsilon) once per row, as Keras computes it.
  Value inverse = lb.map(ValueRange{}, squares, [n, epsilon](OpBuilder &b, Location l,
                                                             ValueRange a) -> Value {
    auto c = [&](float v) { return arith::ConstantOp::create(b, l, b.getF32FloatAttr(v)); };
    Value variance = arith::DivFOp::create(b, l, a[0], c(n));
    return arith::DivFOp::create(b, l, c(1.0f),
                                 math::SqrtOp::create(b, l, add(b, l, variance, c(epsilon))));
  });
  return lb.generic(
      ValueRange{x, mean, inverse, op.getGamma(), op.getBeta()},
      lb.empty(lb.dims(x)), {id, rows, rows, channel, channel, id},
      iterators(rank, 0), [](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value normed = arith::MulFOp::create(b, l, arith::SubFOp::create(b, l, a[0], a[1]), a[2]);
        return add(b, l, arith::MulFOp::create(b, l, normed, a[3]), a[4]);
      });
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

/// An id and whether it is a valid row of a `vocab`-row table.
std::pair<Value, Value> checkedId(OpBuilder &b, Location l, Value id,
                                  int64_t vocab) {
  Value asInt;
  Value integral = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
  if (isa<FloatType>(id.getType())) {
    asInt = arith::FPToSIOp::create(b, l, b.getI64Type(), id);
    Value back = arith::SIToFPOp::create(b, l, id.getType(), asInt);
    integral = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, back, id);
  } else {
    asInt = arith::ExtSIOp::create(b, l, b.getI64Type(), id);
    if (id.getType().getIntOrFloatBitWidth() == 64)
      asInt = id;
  }
  auto i64 = [&](int64_t v) {
    return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
  };
  Value low = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, asInt, i64(0));
  Value high =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, asInt, i64(vocab));
  Value valid = arith::AndIOp::create(b, l, arith::AndIOp::create(b, l, low, high),
                                      integral);
  Value clamped = arith::MinSIOp::create(
      b, l, arith::MaxSIOp::create(b, l, asInt, i64(0)), i64(vocab - 1));
  return {arith::IndexCastOp::create(b, l, b.getIndexType(), clamped), valid};
}

/// out[i...] = the number of boundaries b with !(x[i...] < b): a reduction
/// over the boundaries (TensorFlow's Bucketize, NaN in the last bucket).
Value lowerDiscretize(LinalgBuilder &lb, DiscretizeOp op) {
  Value x = op.getInput();
  unsigned rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<AffineExpr> outer;
  for (unsigned i = 0; i < rank; ++i)
    outer.push_back(d(lb, i));
  MLIRContext *ctx = lb.b.getContext();
  AffineMap xMap = AffineMap::get(rank + 1, 0, outer, ctx);
  AffineMap bMap = AffineMap::get(rank + 1, 0, d(lb, rank));
  return lb.generic(ValueRange{x, op.getBoundaries()}, lb.full(lb.dims(x), 0.0),
                    {xMap, bMap, xMap}, iterators(rank, 1),
                    [](OpBuilder &b, Location l, ValueRange a) -> Value {
                      Value notBelow = arith::CmpFOp::create(
                          b, l, arith::CmpFPredicate::UGE, a[0], a[1]);
                      Value one = arith::SelectOp::create(
                          b, l, notBelow,
                          arith::ConstantOp::create(b, l, b.getF32FloatAttr(1.0f)),
                          arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.0f)));
                      return add(b, l, a[2], one);
                    });
}

/// x (B, k): one_hot with k != 1 is out[b, j, t] = (x[b, j] == t); the
/// others reduce over j into out[b, t] by max (multi_hot, one_hot of one id)
/// or sum (count). An id that equals no t in [0, n) counts for none.
Value lowerCategoryEncoding(LinalgBuilder &lb, CategoryEncodingOp op) {
  Value x = op.getInput();
  int64_t n = op.getNumTokens();
  auto type = cast<RankedTensorType>(x.getType());
  bool rows = op.getMode() == CategoryMode::OneHot && type.getDimSize(1) != 1;
  bool count = op.getMode() == CategoryMode::Count;
  MLIRContext *ctx = lb.b.getContext();
  // 1 where x == t (t the token loop's index).
  auto hit = [](OpBuilder &b, Location l, Value id, unsigned tokenLoop) -> Value {
    Value t = arith::SIToFPOp::create(
        b, l, b.getF32Type(),
        arith::IndexCastOp::create(b, l, b.getI64Type(),
                                   linalg::IndexOp::create(b, l, tokenLoop)));
    Value equal = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, id, t);
    return arith::SelectOp::create(
        b, l, equal, arith::ConstantOp::create(b, l, b.getF32FloatAttr(1.0f)),
        arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.0f)));
  };
  SmallVector<OpFoldResult> sizes{lb.dimOfr(x, 0)};
  if (rows) {
    // Loops (b, j, t).
    sizes.push_back(lb.dimOfr(x, 1));
    sizes.push_back(lb.b.getIndexAttr(n));
    AffineMap xMap = AffineMap::get(3, 0, {d(lb, 0), d(lb, 1)}, ctx);
    return lb.generic(ValueRange{x}, lb.empty(sizes), {xMap, lb.identity(3)},
                      iterators(3, 0),
                      [&](OpBuilder &b, Location l, ValueRange a) {
                        return hit(b, l, a[0], 2);
                      });
  }
  // Loops (b, t, j), j reduced.
  sizes.push_back(lb.b.getIndexAttr(n));
  AffineMap xMap = AffineMap::get(3, 0, {d(lb, 0), d(lb, 2)}, ctx);
  AffineMap outMap = AffineMap::get(3, 0, {d(lb, 0), d(lb, 1)}, ctx);
  return lb.generic(ValueRange{x}, lb.full(sizes, 0.0), {xMap, outMap},
                    iterators(2, 1),
                    [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                      Value one = hit(b, l, a[0], 1);
                      if (count)
                        return add(b, l, a[1], one);
                      return arith::MaximumFOp::create(b, l, a[1], one);
                    });
}

Value lowerEmbedding(LinalgBuilder &lb, EmbeddingOp op) {
  Value ids = op.getIds(), table = op.getTable();
  auto idsType = cast<RankedTensorType>(ids.getType());
  int64_t vocab = cast<RankedTensorType>(table.getType()).getDimSize(0);
  unsigned rank = idsType.getRank();
  OpBuilder &b = lb.b;
  Location loc = lb.loc;

  // Count the invalid ids and report them; the lookup below clamps, so a bad
  // id never reads outside the table.
  std::string message = "layer '" + layerName(op) + "' (Embedding): ids outside [0, " +
                        std::to_string(vocab) + ") or not integers";
  Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  Value countInit = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, b.getI64Type());
  countInit = linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{countInit})
                  .getResult(0);
  SmallVector<utils::IteratorType> all(rank, utils::IteratorType::reduction);
  auto count = linalg::GenericOp::create(
      b, loc, TypeRange{countInit.getType()}, ValueRange{ids}, ValueRange{countInit},
      ArrayRef<AffineMap>{lb.identity(rank), AffineMap::get(rank, 0, b.getContext())},
      all, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value valid = checkedId(nb, l, a[0], vocab).second;
        Value one = arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(1));
        Value none = arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0));
        Value bad = arith::SelectOp::create(nb, l, valid, none, one);
        linalg::YieldOp::create(nb, l,
                                ValueRange{arith::AddIOp::create(nb, l, a[1], bad)});
      });
  Value badIds = tensor::ExtractOp::create(b, loc, count.getResult(0), ValueRange{});
  reportIf(lb, op, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, badIds, zero),
           badIds, message);

  // The lookup: one loop over the ids, each copying its table row whole (a
  // row copy LLVM vectorizes; an elementwise gather converted and clamped
  // the id again for every element, and was not vectorized).
  Value flat = ids;
  if (rank > 1) {
    ReassociationIndices all;
    for (unsigned i = 0; i < rank; ++i)
      all.push_back(i);
    flat = tensor::CollapseShapeOp::create(b, loc, ids,
                                           ArrayRef<ReassociationIndices>{all});
  }
  OpFoldResult width = lb.dimOfr(table, 1);
  auto lookup = scf::ForOp::create(
      b, loc, lb.index(0), lb.dim(flat, 0), lb.index(1),
      ValueRange{lb.fresh({lb.dimOfr(flat, 0), width})},
      [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
        LinalgBuilder body(nb, l);
        Value id = tensor::ExtractOp::create(nb, l, flat, ValueRange{i});
        Value row = checkedId(nb, l, id, vocab).first;
        OpFoldResult one = nb.getIndexAttr(1), origin = nb.getIndexAttr(0);
        Value tableRow = body.extractSlice(table, {row, origin}, {one, width});
        scf::YieldOp::create(
            nb, l, body.insertSlice(tableRow, acc[0], {i, origin}, {one, width}));
      });
  return lb.expandRows(lookup.getResult(0), ids,
                       cast<RankedTensorType>(op.getType()));
}

//===----------------------------------------------------------------------===//
// Shapes, Bidirectional and TimeDistributed
//===----------------------------------------------------------------------===//

Value lowerReshape(LinalgBuilder &lb, Operation *op, Value x,
                   RankedTensorType resultType) {
  Value rows = x;
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() > 2) {
    ReassociationIndices rest;
    for (int64_t i = 1; i < type.getRank(); ++i)
      rest.push_back(i);
    rows = tensor::CollapseShapeOp::create(lb.b, lb.loc, x,
                                           ArrayRef<ReassociationIndices>{{0}, rest});
  }
  int64_t rank = resultType.getRank();
  // An input with an axis of unknown size into sizes that are all known.
  auto rowsType = cast<RankedTensorType>(rows.getType());
  ArrayRef<int64_t> targetSizes = resultType.getShape().drop_front();
  if (rowsType.getRank() == 2 && rowsType.isDynamicDim(1) && !targetSizes.empty() &&
      !ShapedType::isDynamicShape(targetSizes))
    rows = fitRowWidth(lb, op, rows, ShapedType::getNumElements(targetSizes));
  if (rank == 2)
    return rows;
  IndexMath m{lb};
  SmallVector<OpFoldResult> sizes{lb.dimOfr(x, 0)};
  OpFoldResult known = m.c(1);
  int64_t inferred = -1;
  ReassociationIndices rest;
  for (int64_t i = 1; i < rank; ++i) {
    rest.push_back(i);
    if (resultType.isDynamicDim(i)) {
      inferred = i;
      sizes.push_back(m.c(0));
    } else {
      sizes.push_back(m.c(resultType.getDimSize(i)));
      known = m.mul(known, m.c(resultType.getDimSize(i)));
    }
  }
  if (inferred > 0)
    sizes[inferred] = m.div(lb.dimOfr(rows, 1), known);
  return tensor::ExpandShapeOp::create(lb.b, lb.loc, resultType, rows,
                                       ArrayRef<ReassociationIndices>{{0}, rest},
                                       sizes);
}

/// The Keras ReLU layer's formula, as reluLayer (ReferenceKernels.h) has it.
Value lowerRelu(LinalgBuilder &lb, ReluOp op) {
  float slope = op.getNegativeSlope().convertToFloat();
  float threshold = op.getThreshold().convertToFloat();
  std::optional<float> max;
  if (std::optional<APFloat> m = op.getMaxValue())
    max = m->convertToFloat();
  Value input = op.getInput();
  return lb.map(ValueRange{input}, lb.empty(lb.dims(input)),
                [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                  auto c = [&](float v) -> Value {
                    return arith::ConstantOp::create(b, l, b.getF32FloatAttr(v));
                  };
                  Value x = a[0], zero = c(0);
                  Value p;
                  if (threshold != 0) {
                    Value above = arith::CmpFOp::create(
                        b, l, arith::CmpFPredicate::OGT, x, c(threshold));
                    p = arith::SelectOp::create(b, l, above, x, zero);
                  } else {
                    p = arith::MaximumFOp::create(b, l, x, zero);
                  }
                  if (max)
                    p = arith::MinimumFOp::create(
                        b, l, arith::MaximumFOp::create(b, l, p, zero), c(*max));
                  if (slope == 0)
                    return p;
                  Value below = arith::MaximumFOp::create(
                      b, l, arith::SubFOp::create(b, l, c(threshold), x), zero);
                  return arith::SubFOp::create(
                      b, l, p, arith::MulFOp::create(b, l, c(slope), below));
                });
}

/// max(min(x, max), min): arith's minimumf/maximumf keep a NaN, as TF does.
Value lowerClip(LinalgBuilder &lb, ClipOp op) {
  Value input = op.getInput();
  return lb.map(ValueRange{input}, lb.empty(lb.dims(input)),
                [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                  auto c = [&](const APFloat &v) -> Value {
                    return arith::ConstantOp::create(b, l, b.getF32FloatAttr(v.convertToFloat()));
                  };
                  Value upper = arith::MinimumFOp::create(b, l, a[0], c(op.getMax()));
                  return arith::MaximumFOp::create(b, l, upper, c(op.getMin()));
                });
}

/// x >= 0 ? x : alpha * x with alpha (x's shape without the batch axis)
/// broadcast along its size-1 axes.
Value lowerPRelu(LinalgBuilder &lb, PReluOp op) {
  Value input = op.getInput(), alpha = op.getAlpha();
  auto alphaType = cast<RankedTensorType>(alpha.getType());
  unsigned rank = cast<RankedTensorType>(input.getType()).getRank();
  SmallVector<AffineExpr> alphaExprs;
  for (unsigned i = 1; i < rank; ++i)
    alphaExprs.push_back(alphaType.getDimSize(i - 1) == 1
                             ? lb.b.getAffineConstantExpr(0)
                             : lb.b.getAffineDimExpr(i));
  AffineMap alphaMap = AffineMap::get(rank, 0, alphaExprs, lb.b.getContext());
  SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
  return lb.generic(
      ValueRange{input, alpha}, lb.empty(lb.dims(input)),
      {lb.identity(rank), alphaMap, lb.identity(rank)}, par,
      [](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0));
        Value negative =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, a[0], zero);
        Value scaled = arith::MulFOp::create(b, l, a[1], a[0]);
        return arith::SelectOp::create(b, l, negative, scaled, a[0]);
      });
}

Value lowerRepeatVector(LinalgBuilder &lb, RepeatVectorOp op) {
  Value x = op.getInput();
  SmallVector<OpFoldResult> sizes{lb.dimOfr(x, 0), lb.b.getIndexAttr(op.getN()),
                                  lb.dimOfr(x, 1)};
  AffineMap in = AffineMap::get(3, 0, {d(lb, 0), d(lb, 2)}, lb.b.getContext());
  return lb.generic(ValueRange{x}, lb.empty(sizes), {in, lb.identity(3)},
                    iterators(3, 0),
                    [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

/// backward (B, T, u) with time reversed.
Value flipTime(LinalgBuilder &lb, Value backward) {
  Value last = arith::SubIOp::create(lb.b, lb.loc, lb.dim(backward, 1), lb.index(1));
  return lb.map(ValueRange{}, lb.empty(lb.dims(backward)),
                [&](OpBuilder &b, Location l, ValueRange) -> Value {
                  Value t = arith::SubIOp::create(b, l, last,
                                                  linalg::IndexOp::create(b, l, 1));
                  return tensor::ExtractOp::create(
                      b, l, backward,
                      ValueRange{linalg::IndexOp::create(b, l, 0), t,
                                 linalg::IndexOp::create(b, l, 2)});
                });
}

Value lowerBidirectional(LinalgBuilder &lb, BidirectionalOp op) {
  Value forward = op.getForward(), backward = op.getBackward();
  auto type = cast<RankedTensorType>(forward.getType());
  if (type.getRank() == 3)
    backward = flipTime(lb, backward);
  MergeMode mode = op.getMergeMode();
  if (mode != MergeMode::Concat)
    return lb.map(ValueRange{forward, backward}, lb.empty(lb.dims(forward)),
                  [mode](OpBuilder &b, Location l, ValueRange a) -> Value {
                    switch (mode) {
                    case MergeMode::Sum:
                      return add(b, l, a[0], a[1]);
                    case MergeMode::Mul:
                      return arith::MulFOp::create(b, l, a[0], a[1]);
                    default: {
                      Value half = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.5));
                      return arith::MulFOp::create(b, l, add(b, l, a[0], a[1]), half);
                    }
                    }
                  });
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = lb.dims(forward);
  int64_t fw = type.getDimSize(rank - 1);
  int64_t bw = cast<RankedTensorType>(backward.getType()).getDimSize(rank - 1);
  sizes.back() = lb.b.getIndexAttr(fw + bw);
  Value merged = lb.empty(sizes);
  SmallVector<OpFoldResult> strides(rank, lb.b.getIndexAttr(1));
  SmallVector<OpFoldResult> offsets(rank, lb.b.getIndexAttr(0));
  merged = tensor::InsertSliceOp::create(lb.b, lb.loc, forward, merged, offsets,
                                         lb.dims(forward), strides);
  offsets.back() = lb.b.getIndexAttr(fw);
  return tensor::InsertSliceOp::create(lb.b, lb.loc, backward, merged, offsets,
                                       lb.dims(backward), strides);
}

Value lowerTimeDistributed(LinalgBuilder &lb, TimeDistributedOp op) {
  Value x = op.getInput();
  auto inType = cast<RankedTensorType>(x.getType());
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  Block &body = op.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  auto stepOutType = cast<RankedTensorType>(yield.getValue().getType());
  for (int64_t i = 1; i < stepOutType.getRank(); ++i)
    if (stepOutType.isDynamicDim(i)) {
      op.emitError("the CPU backend needs static step shapes in TimeDistributed");
      return nullptr;
    }
  SmallVector<OpFoldResult> outSizes{lb.dimOfr(x, 0), lb.dimOfr(x, 1)};
  for (int64_t i = 1; i < stepOutType.getRank(); ++i)
    outSizes.push_back(lb.b.getIndexAttr(stepOutType.getDimSize(i)));
  Value init = lb.fresh(outSizes);
  Value result;
  auto loop = scf::ForOp::create(
      lb.b, lb.loc, lb.index(0), lb.dim(x, 1), lb.index(1), ValueRange{init},
      [&](OpBuilder &b, Location l, Value t, ValueRange iters) {
        LinalgBuilder sb(b, l);
        // One step: x[:, t, ...] without the time axis.
        SmallVector<int64_t> stepShape{inType.getDimSize(0)};
        SmallVector<OpFoldResult> offsets{b.getIndexAttr(0), t};
        SmallVector<OpFoldResult> sizes{sb.dimOfr(x, 0), b.getIndexAttr(1)};
        for (int64_t i = 2; i < inType.getRank(); ++i) {
          stepShape.push_back(inType.getDimSize(i));
          offsets.push_back(b.getIndexAttr(0));
          sizes.push_back(sb.dimOfr(x, i));
        }
        SmallVector<OpFoldResult> strides(inType.getRank(), b.getIndexAttr(1));
        Value step = tensor::ExtractSliceOp::create(
            b, l, RankedTensorType::get(stepShape, sb.f32()), x, offsets, sizes,
            strides);
        Type argType = body.getArgument(0).getType();
        if (step.getType() != argType)
          step = tensor::CastOp::create(b, l, argType, step);
        IRMapping mapping;
        mapping.map(body.getArgument(0), step);
        for (Operation &inner : body.without_terminator())
          b.clone(inner, mapping);
        Value y = mapping.lookup(yield.getValue());
        SmallVector<OpFoldResult> outOffsets(outType.getRank(), b.getIndexAttr(0));
        outOffsets[1] = t;
        SmallVector<OpFoldResult> outStepSizes{sb.dimOfr(iters[0], 0),
                                               b.getIndexAttr(1)};
        for (int64_t i = 1; i < stepOutType.getRank(); ++i)
          outStepSizes.push_back(b.getIndexAttr(stepOutType.getDimSize(i)));
        SmallVector<OpFoldResult> outStrides(outType.getRank(), b.getIndexAttr(1));
        Value updated = tensor::InsertSliceOp::create(b, l, y, iters[0], outOffsets,
                                                      outStepSizes, outStrides);
        scf::YieldOp::create(b, l, updated);
      });
  result = loop.getResult(0);
  return result;
}

//===----------------------------------------------------------------------===//
// Masking
//===----------------------------------------------------------------------===//

/// 1 where the step's id, or any of its features, differs from mask_value.
Value lowerSequenceMask(LinalgBuilder &lb, SequenceMaskOp op) {
  Value x = op.getInput();
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  float value = op.getMaskValue().convertToFloat();
  auto differs = [=](OpBuilder &b, Location l, Value v) -> Value {
    if (auto f = dyn_cast<FloatType>(element)) {
      Value c = arith::ConstantOp::create(b, l, b.getFloatAttr(f, value));
      return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, v, c);
    }
    Value c = arith::ConstantOp::create(
        b, l, b.getIntegerAttr(element, static_cast<int64_t>(value)));
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v, c);
  };
  SmallVector<OpFoldResult> sizes{lb.dimOfr(x, 0), lb.dimOfr(x, 1)};
  AffineMap rows = AffineMap::get(type.getRank(), 0, {d(lb, 0), d(lb, 1)},
                                  lb.b.getContext());
  return lb.generic(ValueRange{x}, lb.full(sizes, 0.0),
                    {lb.identity(type.getRank()), rows},
                    iterators(2, type.getRank() - 2),
                    [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                      Value one = arith::ConstantOp::create(b, l, b.getF32FloatAttr(1));
                      return arith::SelectOp::create(b, l, differs(b, l, a[0]), one,
                                                     a[1]);
                    });
}

/// x (B, T, ...) * mask (B, T).
Value lowerApplyMask(LinalgBuilder &lb, ApplyMaskOp op) {
  Value x = op.getInput();
  unsigned rank = cast<RankedTensorType>(x.getType()).getRank();
  AffineMap rows = AffineMap::get(rank, 0, {d(lb, 0), d(lb, 1)}, lb.b.getContext());
  return lb.generic(ValueRange{x, op.getMask()}, lb.empty(lb.dims(x)),
                    {lb.identity(rank), rows, lb.identity(rank)}, iterators(rank, 0),
                    [](OpBuilder &b, Location l, ValueRange a) -> Value {
                      return arith::MulFOp::create(b, l, a[0], a[1]);
                    });
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// The replacement of `op`, or null after emitting an error.
Value lower(LinalgBuilder &lb, Operation *op) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (auto o = dyn_cast<DenseOp>(op))
    return lb.linear(o.getInput(), o.getKernel(), o.getBias(), o.getActivation(),
                     o.getAlphaAttr());
  if (auto o = dyn_cast<LinearOp>(op))
    return lb.linear(o.getInput(), o.getWeight(), o.getBias(), o.getActivation(),
                     o.getAlphaAttr());
  if (isa<MergeOp, ConcatenateOp, StackOp, UnstackOp>(op))
    return lowerMerge(lb, op);
  if (isa<MatMulOp, AttentionOp>(op))
    return lowerAttention(lb, op);
  if (auto o = dyn_cast<BidirectionalOp>(op))
    return lowerBidirectional(lb, o);
  if (auto o = dyn_cast<TimeDistributedOp>(op))
    return lowerTimeDistributed(lb, o);
  if (auto o = dyn_cast<Conv1DOp>(op))
    return lowerConv1d(lb, o);
  if (auto o = dyn_cast<MaxPool1DOp>(op))
    return lowerPool1d(lb, o, o.getInput(), o.getPoolSize(), o.getStrides(),
                       o.getPadding(), /*isMax=*/true);
  if (auto o = dyn_cast<AvgPool1DOp>(op))
    return lowerPool1d(lb, o, o.getInput(), o.getPoolSize(), o.getStrides(),
                       o.getPadding(), /*isMax=*/false);
  if (auto o = dyn_cast<GlobalMaxPool1DOp>(op))
    return lowerGlobalPool(lb, o.getInput(), true, o.getKeepdims(), resultType);
  if (auto o = dyn_cast<GlobalAvgPool1DOp>(op))
    return lowerGlobalPool(lb, o.getInput(), false, o.getKeepdims(), resultType,
                           o.getMask());
  if (auto o = dyn_cast<SequenceMaskOp>(op))
    return lowerSequenceMask(lb, o);
  if (auto o = dyn_cast<ApplyMaskOp>(op))
    return lowerApplyMask(lb, o);
  if (isa<Conv2DOp, Conv3DOp, ConvTranspose1DOp, ConvTranspose2DOp,
          ConvTranspose3DOp, MaxPool2DOp, AvgPool2DOp, MaxPool3DOp, AvgPool3DOp,
          GlobalMaxPool2DOp, GlobalAvgPool2DOp, GlobalMaxPool3DOp,
          GlobalAvgPool3DOp, ZeroPaddingOp, CroppingOp, SliceOp, UpSamplingOp, ResizeOp,
          AdaptiveMaxPoolOp, AdaptiveAvgPoolOp, PermuteOp, ReverseOp>(op))
    return lowerSpatial(lb, op);
  if (auto o = dyn_cast<BatchNormOp>(op))
    return lowerBatchNorm(lb, o);
  if (auto o = dyn_cast<LayerNormOp>(op))
    return lowerLayerNorm(lb, o);
  if (auto o = dyn_cast<GroupNormOp>(op))
    return lowerGroupNorm(lb, o);
  if (auto o = dyn_cast<UnitNormOp>(op))
    return lowerUnitNorm(lb, o);
  if (auto o = dyn_cast<RMSNormOp>(op))
    return lowerRMSNorm(lb, o);
  if (auto o = dyn_cast<DropoutOp>(op))
    return o.getInput();
  if (auto o = dyn_cast<TruncateOp>(op)) {
    Value x = o.getInput();
    return lb.map(ValueRange{x}, lb.empty(lb.dims(x)),
                  [](OpBuilder &b, Location l, ValueRange a) -> Value {
                    return math::TruncOp::create(b, l, a[0]);
                  });
  }
  if (auto o = dyn_cast<DiscretizeOp>(op))
    return lowerDiscretize(lb, o);
  if (auto o = dyn_cast<CategoryEncodingOp>(op))
    return lowerCategoryEncoding(lb, o);
  if (auto o = dyn_cast<EmbeddingOp>(op))
    return lowerEmbedding(lb, o);
  if (auto o = dyn_cast<FlattenOp>(op))
    return lowerReshape(lb, op, o.getInput(), resultType);
  if (auto o = dyn_cast<ReshapeOp>(op))
    return lowerReshape(lb, op, o.getInput(), resultType);
  if (auto o = dyn_cast<RepeatVectorOp>(op))
    return lowerRepeatVector(lb, o);
  if (auto o = dyn_cast<ActivationOp>(op)) {
    if (o.getAxis())
      return lb.rowActivation(o.getInput(), o.getActivation(),
                              o.getNormalizedAxis());
    return lb.activate(o.getInput(), o.getActivation(), o.getAlphaAttr());
  }
  if (auto o = dyn_cast<ClipOp>(op))
    return lowerClip(lb, o);
  if (auto o = dyn_cast<ReluOp>(op))
    return lowerRelu(lb, o);
  if (auto o = dyn_cast<PReluOp>(op))
    return lowerPRelu(lb, o);
  op->emitError("the CPU backend cannot lower '")
      << op->getName() << "'";
  return nullptr;
}

/// The first seq op to lower: a recurrence's input projection waits for
/// the recurrence (isProjectionOfRecurrence).
Operation *firstSeqOp(Operation *root) {
  Operation *found = nullptr;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<SeqDialect>(op->getDialect()) && !isa<YieldOp>(op) &&
        !isProjectionOfRecurrence(op)) {
      found = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

struct ConvertSeqToLinalgPass
    : seq::impl::ConvertSeqToLinalgBase<ConvertSeqToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    while (Operation *op = firstSeqOp(module)) {
      OpBuilder b(op);
      LinalgBuilder lb(b, op->getLoc());
      SmallVector<Value, 2> replacements = isa<ConvLSTMOp>(op)
                                               ? lowerConvLSTM(lb, cast<ConvLSTMOp>(op))
                                               : lowerRecurrent(lb, op);
      if (replacements.empty())
        replacements = {lower(lb, op)};
      if (!replacements[0])
        return signalPassFailure();
      for (auto [result, replacement] :
           llvm::zip_equal(op->getResults(), replacements)) {
        if (replacement.getType() != result.getType())
          replacement = tensor::CastOp::create(b, op->getLoc(), result.getType(),
                                               replacement);
        result.replaceAllUsesWith(replacement);
      }
      // What the op's lowering read in its place (a recurrence's projection).
      SmallVector<Operation *> producers;
      for (Value operand : op->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && isProjectionOfRecurrence(producer))
          producers.push_back(producer);
      op->erase();
      for (Operation *producer : producers)
        producer->erase();
    }
  }
};

} // namespace

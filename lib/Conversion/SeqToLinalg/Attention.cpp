// seq.matmul and seq.attention: contractions as linalg.generic ops, the
// attention scores' softmax between them.
#include "LinalgBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace seq;
using namespace seq::lowering;

namespace {

SmallVector<utils::IteratorType> loops(unsigned parallel, unsigned reduction) {
  SmallVector<utils::IteratorType> iters(parallel, utils::IteratorType::parallel);
  iters.append(reduction, utils::IteratorType::reduction);
  return iters;
}

AffineMap map(LinalgBuilder &lb, unsigned dims, ArrayRef<AffineExpr> results) {
  return AffineMap::get(dims, 0, results, lb.b.getContext());
}

/// `x` with its last two axes swapped, as a new tensor.
Value swapLastAxes(LinalgBuilder &lb, Value x) {
  unsigned rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<OpFoldResult> sizes = lb.dims(x);
  std::swap(sizes[rank - 1], sizes[rank - 2]);
  SmallVector<AffineExpr> from;
  for (unsigned d = 0; d < rank; ++d)
    from.push_back(lb.b.getAffineDimExpr(d));
  std::swap(from[rank - 1], from[rank - 2]);
  return lb.generic(ValueRange{x}, lb.empty(sizes), {map(lb, rank, from), lb.identity(rank)},
                    loops(rank, 0),
                    [](OpBuilder &, Location, ValueRange a) -> Value { return a[0]; });
}

/// One operand of a per-head product: a rank-4 tensor whose axis 0 is the
/// batch and `headAxis` the head (read at head / `group`); the other two
/// axes, in order, are the matrix.
struct HeadOperand {
  Value tensor;
  unsigned headAxis;
  int64_t group = 1;
};

/// The matrix of `operand` (or of the result `into`) at batch `b`, head `h`.
Value headSlice(LinalgBuilder &lb, const HeadOperand &operand, Value b, Value h) {
  auto type = cast<RankedTensorType>(operand.tensor.getType());
  Value head = operand.group == 1
                   ? h
                   : arith::DivUIOp::create(lb.b, lb.loc, h, lb.index(operand.group))
                         .getResult();
  SmallVector<OpFoldResult> offsets(4, lb.b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = lb.dims(operand.tensor);
  SmallVector<OpFoldResult> strides(4, lb.b.getIndexAttr(1));
  offsets[0] = b;
  offsets[operand.headAxis] = head;
  sizes[0] = sizes[operand.headAxis] = lb.b.getIndexAttr(1);
  SmallVector<int64_t> matrix;
  for (unsigned a = 1; a < 4; ++a)
    if (a != operand.headAxis)
      matrix.push_back(type.getDimSize(a));
  return tensor::ExtractSliceOp::create(lb.b, lb.loc,
                                        RankedTensorType::get(matrix, lb.f32()),
                                        operand.tensor, offsets, sizes, strides);
}

/// into[b, h] = a[b, h] @ bm[b, h] for every batch row and head, each one
/// linalg.matmul on 2-D slices written in place: the CPU backend's
/// register-blocked GEMM kernel (its N, bm's last size, must be static).
Value headMatmuls(LinalgBuilder &lb, HeadOperand a, HeadOperand bm, HeadOperand into,
                  int64_t heads) {
  Value batch = lb.dim(into.tensor, 0);
  auto outer = scf::ForOp::create(
      lb.b, lb.loc, lb.index(0), batch, lb.index(1), ValueRange{into.tensor},
      [&](OpBuilder &ob, Location l, Value b, ValueRange batchIters) {
        LinalgBuilder olb(ob, l);
        auto inner = scf::ForOp::create(
            ob, l, olb.index(0), olb.index(heads), olb.index(1), batchIters,
            [&](OpBuilder &ib, Location il, Value h, ValueRange headIters) {
              LinalgBuilder ilb(ib, il);
              HeadOperand out = into;
              out.tensor = headIters[0];
              Value acc = ilb.fill(headSlice(ilb, out, b, h), 0.0);
              Value product =
                  linalg::MatmulOp::create(ib, il, TypeRange{acc.getType()},
                                           ValueRange{headSlice(ilb, a, b, h),
                                                      headSlice(ilb, bm, b, h)},
                                           ValueRange{acc})
                      .getResult(0);
              auto slice = cast<tensor::ExtractSliceOp>(acc.getDefiningOp<linalg::FillOp>()
                                                            .getDpsInits()[0]
                                                            .getDefiningOp());
              Value updated = tensor::InsertSliceOp::create(
                  ib, il, product, headIters[0], slice.getMixedOffsets(),
                  slice.getMixedSizes(), slice.getMixedStrides());
              scf::YieldOp::create(ib, il, updated);
            });
        scf::YieldOp::create(ob, l, inner.getResults());
      });
  return outer.getResult(0);
}

/// A dot attention's masks (each null when absent): query (b, i), key
/// (b, j), attention (b, i, j).
struct ScoreMasks {
  Value query, key, attention;
  SmallVector<Value> values() const {
    SmallVector<Value> all;
    for (Value m : {query, key, attention})
      if (m)
        all.push_back(m);
    return all;
  }
};

ScoreMasks scoreMasks(AttentionOp op) {
  return {op.getQueryMask(), op.getKeyMask(), op.getAttentionMask()};
}

/// Whether score (row, col) is seen, in a linalg body whose block arguments
/// before the last are `masks` and whose query step is loop `rowDim` and key
/// step loop `colDim`: every mask set there, causal and window allowing it.
/// Null where nothing can hide a score.
Value seesScore(OpBuilder &nb, Location l, AttentionOp op, ValueRange masks,
                unsigned rowDim, unsigned colDim) {
  bool causal = op.getCausal();
  std::optional<int64_t> window = op.getWindow();
  if (!causal && !window && masks.empty())
    return Value();
  Value zero = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(0));
  Value sees;
  for (Value m : masks) {
    Value set = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNE, m, zero);
    sees = sees ? arith::AndIOp::create(nb, l, sees, set).getResult() : set;
  }
  Value row = linalg::IndexOp::create(nb, l, rowDim);
  Value col = linalg::IndexOp::create(nb, l, colDim);
  if (causal) {
    Value past = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ule, col, row);
    sees = sees ? arith::AndIOp::create(nb, l, sees, past).getResult() : past;
  }
  if (window) {
    // |i - j| < w  <=>  j < i + w  and  i < j + w.
    Value w = arith::ConstantIndexOp::create(nb, l, *window);
    Value ahead = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, col,
                                        arith::AddIOp::create(nb, l, row, w));
    Value behind = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, row,
                                         arith::AddIOp::create(nb, l, col, w));
    Value near = arith::AndIOp::create(nb, l, ahead, behind);
    sees = sees ? arith::AndIOp::create(nb, l, sees, near).getResult() : near;
  }
  return sees;
}

/// An elementwise linalg.generic over `x` (scores or weights, whose query
/// step is loop `rowDim` and key step loop `colDim`) that also reads `masks`
/// through `maskMaps`: `body` maps x's element and whether that score is
/// seen (null where nothing can hide one) to the result's.
Value overScores(LinalgBuilder &lb, AttentionOp op, Value x, ArrayRef<Value> masks,
                 ArrayRef<AffineMap> maskMaps, unsigned rowDim, unsigned colDim,
                 function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  unsigned rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<AffineMap> maps(maskMaps);
  maps.push_back(lb.identity(rank));
  SmallVector<utils::IteratorType> parallel(rank, utils::IteratorType::parallel);
  return lb.generic(masks, x, maps, parallel,
                    [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                      Value sees = seesScore(nb, l, op, a.drop_back(), rowDim, colDim);
                      return body(nb, l, a.back(), sees);
                    });
}

/// The factor after the sum (dot: scale, additive: score_weight), then the
/// masks applied to `scores` in place: a hidden score is Keras' -0.7 *
/// FLT_MAX (weight 0; a row that sees nothing averages the values), or the
/// score plus the op's mask_offset. `scores` itself when nothing applies.
Value maskScores(LinalgBuilder &lb, AttentionOp op, Value scores, ArrayRef<Value> masks,
                 ArrayRef<AffineMap> maskMaps, unsigned rowDim, unsigned colDim) {
  bool additive = op.getScoreMode() == ScoreMode::Additive;
  std::optional<float> factor;
  if (auto a = additive ? op.getScoreWeightAttr() : op.getScaleAttr())
    factor = a.getValueAsDouble();
  if (!factor && !op.getCausal() && !op.getWindow() && masks.empty())
    return scores;
  return overScores(lb, op, scores, masks, maskMaps, rowDim, colDim,
                    [&](OpBuilder &nb, Location l, Value s, Value sees) -> Value {
    if (factor)
      s = arith::MulFOp::create(
          nb, l, s, arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(*factor)));
    if (!sees)
      return s;
    Value hidden;
    if (FloatAttr offset = op.getMaskOffsetAttr())
      hidden = arith::AddFOp::create(nb, l, s, arith::ConstantOp::create(nb, l, offset));
    else
      hidden = arith::ConstantOp::create(
          nb, l, nb.getF32FloatAttr(-0.7f * std::numeric_limits<float>::max()));
    return arith::SelectOp::create(nb, l, sees, s, hidden);
  });
}

/// The softmax `weights` with a hidden score's weight 0 where the op has
/// zero_hidden (masks and loops as maskScores'); `weights` itself otherwise.
Value zeroHiddenWeights(LinalgBuilder &lb, AttentionOp op, Value weights,
                        ArrayRef<Value> masks, ArrayRef<AffineMap> maskMaps,
                        unsigned rowDim, unsigned colDim) {
  if (!op.getZeroHidden() || (!op.getCausal() && !op.getWindow() && masks.empty()))
    return weights;
  return overScores(lb, op, weights, masks, maskMaps, rowDim, colDim,
                    [](OpBuilder &nb, Location l, Value w, Value sees) -> Value {
    Value zero = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(0));
    return arith::SelectOp::create(nb, l, sees, w, zero);
  });
}

/// Row `b` of a mask whose axis 0 is the batch: (b, ...) -> (...).
Value maskRow(LinalgBuilder &lb, Value mask, Value b) {
  auto type = cast<RankedTensorType>(mask.getType());
  unsigned rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, lb.b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = lb.dims(mask);
  SmallVector<OpFoldResult> strides(rank, lb.b.getIndexAttr(1));
  offsets[0] = b;
  sizes[0] = lb.b.getIndexAttr(1);
  auto rowType = RankedTensorType::get(type.getShape().drop_front(), lb.f32());
  return tensor::ExtractSliceOp::create(lb.b, lb.loc, rowType, mask, offsets, sizes, strides);
}

/// Dot attention one (batch row, head) at a time, the softmax fused between
/// its two GEMMs: the (tq, tk) score tile of q[b, :, h] @ kt[b, h/g] is
/// scaled and masked, turned into softmax weights and multiplied by
/// v[b, :, h/g] into out[b, :, h] while it is in cache; the scores of the
/// whole batch never exist. Needs static key steps and value width (the
/// GEMMs' N).
Value fusedDotAttention(LinalgBuilder &lb, AttentionOp op, Value kt, int64_t group) {
  Value q = op.getQuery(), v = op.getValue();
  int64_t heads = cast<RankedTensorType>(q.getType()).getDimSize(2);
  SmallVector<OpFoldResult> outSizes{lb.dimOfr(q, 0), lb.dimOfr(q, 1), lb.dimOfr(q, 2),
                                     lb.dimOfr(v, 3)};
  SmallVector<OpFoldResult> tileSizes{lb.dimOfr(q, 1), lb.dimOfr(kt, 3)};
  ScoreMasks masks = scoreMasks(op);
  auto outer = scf::ForOp::create(
      lb.b, lb.loc, lb.index(0), lb.dim(q, 0), lb.index(1), ValueRange{lb.fresh(outSizes)},
      [&](OpBuilder &ob, Location l, Value b, ValueRange batchIters) {
        LinalgBuilder olb(ob, l);
        // This batch row's masks: query (i), key (j), attention (i, j).
        SmallVector<Value> rows;
        SmallVector<AffineMap> maps;
        AffineExpr i = ob.getAffineDimExpr(0), j = ob.getAffineDimExpr(1);
        if (masks.query) {
          rows.push_back(maskRow(olb, masks.query, b));
          maps.push_back(AffineMap::get(2, 0, {i}, ob.getContext()));
        }
        if (masks.key) {
          rows.push_back(maskRow(olb, masks.key, b));
          maps.push_back(AffineMap::get(2, 0, {j}, ob.getContext()));
        }
        if (masks.attention) {
          rows.push_back(maskRow(olb, masks.attention, b));
          maps.push_back(AffineMap::get(2, 0, {i, j}, ob.getContext()));
        }
        auto inner = scf::ForOp::create(
            ob, l, olb.index(0), olb.index(heads), olb.index(1), batchIters,
            [&](OpBuilder &ib, Location il, Value h, ValueRange headIters) {
              LinalgBuilder ilb(ib, il);
              Value tile = ilb.full(tileSizes, 0.0);
              Value scores =
                  linalg::MatmulOp::create(ib, il, TypeRange{tile.getType()},
                                           ValueRange{headSlice(ilb, {q, 2}, b, h),
                                                      headSlice(ilb, {kt, 1, group}, b, h)},
                                           ValueRange{tile})
                      .getResult(0);
              scores = maskScores(ilb, op, scores, rows, maps, /*rowDim=*/0, /*colDim=*/1);
              Value weights = zeroHiddenWeights(
                  ilb, op, ilb.rowActivation(scores, Activation::Softmax, 1), rows, maps,
                  /*rowDim=*/0, /*colDim=*/1);
              HeadOperand into{headIters[0], 2};
              Value acc = ilb.fill(headSlice(ilb, into, b, h), 0.0);
              Value product =
                  linalg::MatmulOp::create(ib, il, TypeRange{acc.getType()},
                                           ValueRange{weights, headSlice(ilb, {v, 2, group}, b, h)},
                                           ValueRange{acc})
                      .getResult(0);
              auto slice = cast<tensor::ExtractSliceOp>(
                  acc.getDefiningOp<linalg::FillOp>().getDpsInits()[0].getDefiningOp());
              scf::YieldOp::create(ib, il,
                                   tensor::InsertSliceOp::create(
                                       ib, il, product, headIters[0], slice.getMixedOffsets(),
                                       slice.getMixedSizes(), slice.getMixedStrides())
                                       .getResult());
            });
        scf::YieldOp::create(ob, l, inner.getResults());
      });
  return outer.getResult(0);
}

// The contractions below run the reduction outside their innermost loop,
// which walks a contiguous output row: the innermost loop is then an
// elementwise multiply-add that LLVM vectorizes without reassociating sums.

Value lowerMatMul(LinalgBuilder &lb, MatMulOp op) {
  Value a = op.getA(), b = op.getB();
  if (op.getTransposeB())
    b = swapLastAxes(lb, b);
  // Loops (s, i, l, j): out[s, i, j] += a[s, i, l] * b[s, l, j].
  AffineExpr s = lb.b.getAffineDimExpr(0), i = lb.b.getAffineDimExpr(1),
             l = lb.b.getAffineDimExpr(2), j = lb.b.getAffineDimExpr(3);
  Value init = lb.full({lb.dimOfr(a, 0), lb.dimOfr(a, 1), lb.dimOfr(b, 2)}, 0.0);
  SmallVector<utils::IteratorType> iters = loops(4, 0);
  iters[2] = utils::IteratorType::reduction;
  return lb.generic(ValueRange{a, b}, init,
                    {map(lb, 4, {s, i, l}), map(lb, 4, {s, l, j}), map(lb, 4, {s, i, j})},
                    iters, [](OpBuilder &b, Location loc, ValueRange x) -> Value {
                      Value p = arith::MulFOp::create(b, loc, x[0], x[1]);
                      return arith::AddFOp::create(b, loc, x[2], p);
                    });
}

Value lowerAttention(LinalgBuilder &lb, AttentionOp op) {
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  auto qType = cast<RankedTensorType>(q.getType());
  auto kType = cast<RankedTensorType>(k.getType());
  int64_t group = qType.getDimSize(2) / kType.getDimSize(2);
  bool additive = op.getScoreMode() == ScoreMode::Additive;
  std::optional<float> scale;
  if (auto a = op.getScaleAttr())
    scale = a.getValueAsDouble();
  auto dimE = [&](unsigned i) { return lb.b.getAffineDimExpr(i); };

  // scores (b, h, i, j) = sum over f of score(q[b, i, h, f], kt[b, h/g, f, j])
  // with the key's steps last (kt): dot scores as one GEMM per batch row
  // and head where the key's steps are static, else (and additive scores)
  // loops (b, h, i, f, j).
  Value kt = lb.generic(
      ValueRange{k},
      lb.empty({lb.dimOfr(k, 0), lb.dimOfr(k, 2), lb.dimOfr(k, 3), lb.dimOfr(k, 1)}),
      {map(lb, 4, {dimE(0), dimE(3), dimE(1), dimE(2)}), lb.identity(4)}, loops(4, 0),
      [](OpBuilder &, Location, ValueRange a) -> Value { return a[0]; });
  AffineExpr b = dimE(0), h = dimE(1), i = dimE(2), f = dimE(3), j = dimE(4);
  AffineExpr kh = group == 1 ? h : h.floorDiv(group);
  SmallVector<Value> inputs{q, kt};
  SmallVector<AffineMap> maps{map(lb, 5, {b, i, h, f}), map(lb, 5, {b, kh, f, j})};
  Value featureScale = op.getFeatureScale();
  if (featureScale) {
    inputs.push_back(featureScale);
    maps.push_back(map(lb, 5, {f}));
  }
  maps.push_back(map(lb, 5, {b, h, i, j}));
  // headMatmuls zeroes each slice it computes: its result needs no fill.
  bool staticKeySteps = !ShapedType::isDynamic(kType.getDimSize(1));
  bool staticValueWidth =
      !ShapedType::isDynamic(cast<RankedTensorType>(v.getType()).getDimSize(3));
  if (!additive && staticKeySteps && staticValueWidth && !op.getWeights())
    return fusedDotAttention(lb, op, kt, group);
  SmallVector<OpFoldResult> scoreSizes{lb.dimOfr(q, 0), lb.dimOfr(q, 2), lb.dimOfr(q, 1),
                                       lb.dimOfr(k, 1)};
  SmallVector<utils::IteratorType> reduceAxis3 = loops(5, 0);
  reduceAxis3[3] = utils::IteratorType::reduction;
  int64_t heads = qType.getDimSize(2);
  Value scores = !additive && staticKeySteps
      ? headMatmuls(lb, {q, 2}, {kt, 1, group}, {lb.fresh(scoreSizes), 1}, heads)
      : lb.generic(
      inputs, lb.full(scoreSizes, 0.0), maps, reduceAxis3, [&](OpBuilder &nb, Location l, ValueRange x) -> Value {
        Value acc = x.back();
        if (!additive)
          return arith::AddFOp::create(nb, l, acc, arith::MulFOp::create(nb, l, x[0], x[1]));
        Value sum = arith::AddFOp::create(nb, l, x[0], x[1]);
        if (scale)
          sum = arith::MulFOp::create(
              nb, l, arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(*scale)), sum);
        Value t = scalarActivation(nb, l, Activation::Tanh, 0, sum);
        if (featureScale)
          t = arith::MulFOp::create(nb, l, x[2], t);
        return arith::AddFOp::create(nb, l, acc, t);
      });

  // The factor after the sum, and the masks.
  AffineExpr sb = dimE(0), si = dimE(2), sj = dimE(3);
  ScoreMasks masks = scoreMasks(op);
  SmallVector<AffineMap> maskMaps;
  if (masks.query)
    maskMaps.push_back(AffineMap::get(4, 0, {sb, si}, lb.b.getContext()));
  if (masks.key)
    maskMaps.push_back(AffineMap::get(4, 0, {sb, sj}, lb.b.getContext()));
  if (masks.attention)
    maskMaps.push_back(AffineMap::get(4, 0, {sb, si, sj}, lb.b.getContext()));
  scores = maskScores(lb, op, scores, masks.values(), maskMaps, /*rowDim=*/2, /*colDim=*/3);
  Value weights = zeroHiddenWeights(lb, op, lb.rowActivation(scores, Activation::Softmax, 3),
                                    masks.values(), maskMaps, /*rowDim=*/2, /*colDim=*/3);
  if (op.getWeights())
    return weights; // (b, h, i, j): what Keras returns as the scores

  // out (b, i, h, c) = sum over j of weights[b, h, i, j] * v[b, j, h/g, c]:
  // one GEMM per batch row and head, or loops (b, i, h, j, c).
  AffineExpr ob = dimE(0), oi = dimE(1), oh = dimE(2), oj = dimE(3), oc = dimE(4);
  AffineExpr ovh = group == 1 ? oh : oh.floorDiv(group);
  SmallVector<OpFoldResult> outSizes{lb.dimOfr(q, 0), lb.dimOfr(q, 1), lb.dimOfr(q, 2),
                                     lb.dimOfr(v, 3)};
  if (!ShapedType::isDynamic(cast<RankedTensorType>(v.getType()).getDimSize(3)))
    return headMatmuls(lb, {weights, 1}, {v, 2, group}, {lb.fresh(outSizes), 2}, heads);
  return lb.generic(ValueRange{weights, v}, lb.full(outSizes, 0.0),
                    {map(lb, 5, {ob, oh, oi, oj}), map(lb, 5, {ob, oj, ovh, oc}),
                     map(lb, 5, {ob, oi, oh, oc})},
                    reduceAxis3, [](OpBuilder &nb, Location l, ValueRange x) -> Value {
                      Value p = arith::MulFOp::create(nb, l, x[0], x[1]);
                      return arith::AddFOp::create(nb, l, x[2], p);
                    });
}

} // namespace

Value seq::lowering::lowerAttention(LinalgBuilder &lb, Operation *op) {
  if (auto o = dyn_cast<MatMulOp>(op))
    return lowerMatMul(lb, o);
  if (auto o = dyn_cast<AttentionOp>(op))
    return ::lowerAttention(lb, o);
  return nullptr;
}

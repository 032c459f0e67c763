// seq.matmul and seq.attention: contractions as linalg.generic ops, the
// attention scores' softmax between them.
#include "LinalgBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

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

Value lowerMatMul(LinalgBuilder &lb, MatMulOp op) {
  Value a = op.getA(), b = op.getB();
  bool t = op.getTransposeB();
  // Loops (s, i, j, l): out[s, i, j] += a[s, i, l] * b[s, l, j].
  AffineExpr s = lb.b.getAffineDimExpr(0), i = lb.b.getAffineDimExpr(1),
             j = lb.b.getAffineDimExpr(2), l = lb.b.getAffineDimExpr(3);
  Value init = lb.full({lb.dimOfr(a, 0), lb.dimOfr(a, 1), lb.dimOfr(b, t ? 1 : 2)}, 0.0);
  return lb.generic(ValueRange{a, b}, init,
                    {map(lb, 4, {s, i, l}), map(lb, 4, t ? ArrayRef<AffineExpr>{s, j, l}
                                                         : ArrayRef<AffineExpr>{s, l, j}),
                     map(lb, 4, {s, i, j})},
                    loops(3, 1), [](OpBuilder &b, Location loc, ValueRange x) -> Value {
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
  std::optional<float> scale, weight;
  if (auto a = op.getScaleAttr())
    scale = a.getValueAsDouble();
  if (auto a = op.getScoreWeightAttr())
    weight = a.getValueAsDouble();
  auto dimE = [&](unsigned i) { return lb.b.getAffineDimExpr(i); };

  // scores (b, h, i, j) = sum over f of score(q[b, i, h, f], k[b, j, h/g, f]).
  AffineExpr b = dimE(0), h = dimE(1), i = dimE(2), j = dimE(3), f = dimE(4);
  AffineExpr kh = group == 1 ? h : h.floorDiv(group);
  SmallVector<Value> inputs{q, k};
  SmallVector<AffineMap> maps{map(lb, 5, {b, i, h, f}), map(lb, 5, {b, j, kh, f})};
  Value featureScale = op.getFeatureScale();
  if (featureScale) {
    inputs.push_back(featureScale);
    maps.push_back(map(lb, 5, {f}));
  }
  maps.push_back(map(lb, 5, {b, h, i, j}));
  Value init = lb.full({lb.dimOfr(q, 0), lb.dimOfr(q, 2), lb.dimOfr(q, 1), lb.dimOfr(k, 1)},
                       0.0);
  Value scores = lb.generic(
      inputs, init, maps, loops(4, 1), [&](OpBuilder &nb, Location l, ValueRange x) -> Value {
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

  // The factor after the sum, and the masks: a hidden score is Keras'
  // -0.7 * FLT_MAX (weight 0; a row that sees nothing averages the values).
  std::optional<float> factor = additive ? weight : scale;
  bool causal = op.getCausal();
  std::optional<int64_t> window = op.getWindow();
  Value queryMask = op.getQueryMask(), keyMask = op.getKeyMask();
  if (factor || causal || window || queryMask || keyMask) {
    // Scores (b, h, i, j); masks (b, i) and (b, j).
    SmallVector<Value> masks;
    SmallVector<AffineMap> maskMaps;
    AffineExpr sb = dimE(0), si = dimE(2), sj = dimE(3);
    if (queryMask) {
      masks.push_back(queryMask);
      maskMaps.push_back(AffineMap::get(4, 0, {sb, si}, lb.b.getContext()));
    }
    if (keyMask) {
      masks.push_back(keyMask);
      maskMaps.push_back(AffineMap::get(4, 0, {sb, sj}, lb.b.getContext()));
    }
    maskMaps.push_back(lb.identity(4));
    SmallVector<utils::IteratorType> parallel(4, utils::IteratorType::parallel);
    scores = lb.generic(masks, scores, maskMaps, parallel,
                        [&](OpBuilder &nb, Location l, ValueRange x) -> Value {
      Value s = x.back();
      Value zero = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(0));
      if (factor)
        s = arith::MulFOp::create(
            nb, l, s, arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(*factor)));
      if (!causal && !window && masks.empty())
        return s;
      Value sees;
      for (Value m : x.drop_back()) {
        Value set = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNE, m, zero);
        sees = sees ? arith::AndIOp::create(nb, l, sees, set).getResult() : set;
      }
      Value row = linalg::IndexOp::create(nb, l, 2), col = linalg::IndexOp::create(nb, l, 3);
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
      Value hidden = arith::ConstantOp::create(
          nb, l, nb.getF32FloatAttr(-0.7f * std::numeric_limits<float>::max()));
      return arith::SelectOp::create(nb, l, sees, s, hidden);
    });
  }
  Value weights = lb.rowActivation(scores, Activation::Softmax, 3);

  // out (b, i, h, c) = sum over j of weights[b, h, i, j] * v[b, j, h/g, c].
  AffineExpr ob = dimE(0), oi = dimE(1), oh = dimE(2), oc = dimE(3), oj = dimE(4);
  AffineExpr ovh = group == 1 ? oh : oh.floorDiv(group);
  Value out = lb.full({lb.dimOfr(q, 0), lb.dimOfr(q, 1), lb.dimOfr(q, 2), lb.dimOfr(v, 3)}, 0.0);
  return lb.generic(ValueRange{weights, v}, out,
                    {map(lb, 5, {ob, oh, oi, oj}), map(lb, 5, {ob, oj, ovh, oc}),
                     map(lb, 5, {ob, oi, oh, oc})},
                    loops(4, 1), [](OpBuilder &nb, Location l, ValueRange x) -> Value {
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

#include "LinalgBuilder.h"

#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace seq;
using namespace seq::lowering;

Value LinalgBuilder::index(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value LinalgBuilder::f32Const(double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

OpFoldResult LinalgBuilder::dimOfr(Value t, int64_t i) {
  auto type = cast<RankedTensorType>(t.getType());
  if (!type.isDynamicDim(i))
    return b.getIndexAttr(type.getDimSize(i));
  return tensor::DimOp::create(b, loc, t, i).getResult();
}

Value LinalgBuilder::dim(Value t, int64_t i) { return toValue(dimOfr(t, i)); }

SmallVector<OpFoldResult> LinalgBuilder::dims(Value t) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0, e = cast<RankedTensorType>(t.getType()).getRank(); i < e;
       ++i)
    sizes.push_back(dimOfr(t, i));
  return sizes;
}

Value LinalgBuilder::toValue(OpFoldResult ofr) {
  if (auto v = dyn_cast<Value>(ofr))
    return v;
  return index(cast<IntegerAttr>(cast<Attribute>(ofr)).getInt());
}

Value LinalgBuilder::empty(ArrayRef<OpFoldResult> sizes) {
  return tensor::EmptyOp::create(b, loc, sizes, f32());
}

Value LinalgBuilder::fresh(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  for (OpFoldResult size : sizes) {
    if (auto attr = dyn_cast<Attribute>(size)) {
      shape.push_back(cast<IntegerAttr>(attr).getInt());
    } else {
      shape.push_back(ShapedType::kDynamic);
      dynamic.push_back(cast<Value>(size));
    }
  }
  return bufferization::AllocTensorOp::create(
      b, loc, RankedTensorType::get(shape, f32()), dynamic);
}

Value LinalgBuilder::fill(Value init, double value) {
  return linalg::FillOp::create(b, loc, ValueRange{f32Const(value)},
                                ValueRange{init})
      .getResult(0);
}

Value LinalgBuilder::generic(ValueRange inputs, Value init,
                             ArrayRef<AffineMap> maps,
                             ArrayRef<utils::IteratorType> iters, ScalarFn fn) {
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                ValueRange{fn(nested, nestedLoc, args)});
      });
  return op.getResult(0);
}

Value LinalgBuilder::map(ValueRange inputs, Value init, ScalarFn fn) {
  unsigned rank = cast<RankedTensorType>(init.getType()).getRank();
  SmallVector<AffineMap> maps(inputs.size() + 1, identity(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return generic(inputs, init, maps, iters, fn);
}

Value LinalgBuilder::reduceLastAxis(Value t, double initial, ScalarFn fn) {
  return reduceAxis(t, cast<RankedTensorType>(t.getType()).getRank() - 1,
                    initial, fn);
}

Value LinalgBuilder::broadcastLastAxisInto(Value vec, Value init) {
  unsigned rank = cast<RankedTensorType>(init.getType()).getRank();
  AffineMap last = AffineMap::get(rank, 0, b.getAffineDimExpr(rank - 1));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return generic(ValueRange{vec}, init, {last, identity(rank)}, iters,
                 [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

Value LinalgBuilder::activate(Value t, Activation act, FloatAttr alphaAttr) {
  if (act == Activation::Linear)
    return t;
  float alpha = alphaAttr ? alphaAttr.getValueAsDouble() : 0.0f;
  return activate(t, act, alpha);
}

Value LinalgBuilder::activate(Value t, Activation act, float alpha) {
  if (act == Activation::Linear)
    return t;
  if (!shapes::isRowActivation(act)) {
    return map(ValueRange{}, t, [&](OpBuilder &nb, Location l, ValueRange args) {
      return scalarActivation(nb, l, act, alpha, args[0]);
    });
  }
  return rowActivation(t, act,
                       cast<RankedTensorType>(t.getType()).getRank() - 1);
}

Value LinalgBuilder::reduceAxis(Value t, unsigned axis, double initial,
                                ScalarFn fn) {
  unsigned rank = cast<RankedTensorType>(t.getType()).getRank();
  SmallVector<OpFoldResult> sizes = dims(t);
  sizes.erase(sizes.begin() + axis);
  Value init = full(sizes, initial);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters[axis] = utils::IteratorType::reduction;
  AffineMap reduced = identity(rank).dropResult(axis);
  return generic(ValueRange{t}, init, {identity(rank), reduced}, iters, fn);
}

Value LinalgBuilder::rowActivation(Value t, Activation act, unsigned axis) {
  // Softmax / log_softmax over `axis`; subtracting the maximum keeps exp()
  // in range without changing the result.
  unsigned rank = cast<RankedTensorType>(t.getType()).getRank();
  AffineMap id = identity(rank), reduced = id.dropResult(axis);
  SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
  Value max = reduceAxis(t, axis, -INFINITY,
                         [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                           return arith::MaximumFOp::create(nb, l, args[0], args[1]);
                         });
  Value exps = generic(ValueRange{t, max}, empty(dims(t)), {id, reduced, id},
                       par, [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                         Value d = arith::SubFOp::create(nb, l, args[0], args[1]);
                         return math::ExpOp::create(nb, l, d);
                       });
  Value sum = reduceAxis(exps, axis, 0.0,
                         [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                           return accumulate(nb, l, args[1], args[0]);
                         });
  if (act == Activation::LogSoftmax) {
    // x - max - log(sum): exact where exp(x - max) / sum would underflow.
    return generic(ValueRange{max, sum}, t, {reduced, reduced, id}, par,
                   [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                     Value shifted =
                         arith::SubFOp::create(nb, l, args[2], args[0]);
                     Value logSum = math::LogOp::create(nb, l, args[1]);
                     return arith::SubFOp::create(nb, l, shifted, logSum);
                   });
  }
  return generic(ValueRange{sum}, exps, {reduced, id}, par,
                 [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                   return arith::DivFOp::create(nb, l, args[1], args[0]);
                 });
}

Value LinalgBuilder::collapseToRows(Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t rank = type.getRank();
  if (rank == 2)
    return t;
  ReassociationIndices lead;
  for (int64_t i = 0; i + 1 < rank; ++i)
    lead.push_back(i);
  return tensor::CollapseShapeOp::create(
      b, loc, t, ArrayRef<ReassociationIndices>{lead, {rank - 1}});
}

Value LinalgBuilder::expandRows(Value rows, Value like,
                                RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  if (rank == 2)
    return rows;
  SmallVector<OpFoldResult> sizes;
  ReassociationIndices lead;
  for (int64_t i = 0; i + 1 < rank; ++i) {
    sizes.push_back(dimOfr(like, i));
    lead.push_back(i);
  }
  sizes.push_back(dimOfr(rows, 1));
  return tensor::ExpandShapeOp::create(
      b, loc, resultType, rows, ArrayRef<ReassociationIndices>{lead, {rank - 1}},
      sizes);
}

Value LinalgBuilder::linear(Value x, Value weight, Value bias, Activation act,
                            FloatAttr alpha) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  Value rows = collapseToRows(x);
  SmallVector<OpFoldResult> accSizes{dimOfr(rows, 0), dimOfr(weight, 1)};
  Value acc = bias ? broadcastLastAxis(bias, accSizes) : full(accSizes, 0.0);
  Value product = linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                                           ValueRange{rows, weight},
                                           ValueRange{acc})
                      .getResult(0);
  Value activated = activate(product, act, alpha);
  SmallVector<int64_t> shape(xType.getShape());
  shape.back() = wType.getDimSize(1);
  return expandRows(activated, x, RankedTensorType::get(shape, f32()));
}

Value LinalgBuilder::timeStep(Value x, Value t, int64_t col, int64_t width) {
  auto type = cast<RankedTensorType>(x.getType());
  auto resultType = RankedTensorType::get({type.getDimSize(0), width}, f32());
  SmallVector<OpFoldResult> offsets{b.getIndexAttr(0), t, b.getIndexAttr(col)};
  SmallVector<OpFoldResult> sizes{dimOfr(x, 0), b.getIndexAttr(1),
                                  b.getIndexAttr(width)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, resultType, x, offsets, sizes,
                                        strides);
}

Value LinalgBuilder::extractSlice(Value from, ArrayRef<OpFoldResult> offsets,
                                  ArrayRef<OpFoldResult> sizes, RankedTensorType type) {
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  if (type)
    return tensor::ExtractSliceOp::create(b, loc, type, from, offsets, sizes, strides);
  return tensor::ExtractSliceOp::create(b, loc, from, offsets, sizes, strides);
}

Value LinalgBuilder::insertSlice(Value part, Value into, ArrayRef<OpFoldResult> offsets,
                                 ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, part, into, offsets, sizes, strides);
}

Value LinalgBuilder::copyInto(Value from, Value to) {
  return linalg::CopyOp::create(b, loc, ValueRange{from}, ValueRange{to}).getResult(0);
}

Value LinalgBuilder::stateRow(Value states, int64_t index) {
  SmallVector<OpFoldResult> offsets(dims(states).size(), b.getIndexAttr(0));
  offsets[0] = b.getIndexAttr(index);
  SmallVector<OpFoldResult> sizes = dims(states);
  sizes[0] = b.getIndexAttr(1);
  auto shape = cast<RankedTensorType>(states.getType()).getShape();
  return extractSlice(states, offsets, sizes,
                      RankedTensorType::get(shape.drop_front(), f32()));
}

Value LinalgBuilder::stackStates(ValueRange rows) {
  SmallVector<OpFoldResult> rowSizes = dims(rows[0]);
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(rows.size())};
  sizes.append(rowSizes);
  Value stacked = empty(sizes);
  SmallVector<OpFoldResult> offsets(sizes.size(), b.getIndexAttr(0)),
      sliceSizes = sizes;
  sliceSizes[0] = b.getIndexAttr(1);
  for (auto [i, row] : llvm::enumerate(rows)) {
    offsets[0] = b.getIndexAttr(i);
    stacked = insertSlice(row, stacked, offsets, sliceSizes);
  }
  return stacked;
}

Value LinalgBuilder::columns(Value x, int64_t col, int64_t width) {
  auto type = cast<RankedTensorType>(x.getType());
  if (col == 0 && type.getDimSize(1) == width)
    return x;
  auto resultType = RankedTensorType::get({type.getDimSize(0), width}, f32());
  SmallVector<OpFoldResult> offsets{b.getIndexAttr(0), b.getIndexAttr(col)};
  SmallVector<OpFoldResult> sizes{dimOfr(x, 0), b.getIndexAttr(width)};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, resultType, x, offsets, sizes,
                                        strides);
}

//===----------------------------------------------------------------------===//
// Scalar activations, with the formulas of the reference kernels
// (lib/Runtime/Activations.cpp).
//===----------------------------------------------------------------------===//

namespace {
struct Scalar {
  OpBuilder &b;
  Location loc;
  Value c(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaximumFOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinimumFOp::create(b, loc, x, y); }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value expm1(Value x) { return math::ExpM1Op::create(b, loc, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value clamp(Value x, double lo, double hi) { return min(max(x, c(lo)), c(hi)); }
  /// e^z = 2^k (1 + q) for z within [-87, 88]: z = k ln 2 + r with
  /// |r| <= ln 2 / 2 (ln 2 in Cephes' two parts), q = e^r - 1 = r + r^2 P(r)
  /// with P of degree 4 (a Chebyshev fit on that interval, within 0.1 ulp
  /// of e^r: Cephes' degree 5 is more than float needs). k comes rounded
  /// from adding 1.5 * 2^23 + 127 (then every float has unit spacing, and
  /// the low mantissa bits of the sum are k + 127), so 2^k is that sum's
  /// bits shifted into the exponent field: one FMA and one shift where a
  /// round, a conversion and an integer add were (the LSTM cell is bound by
  /// its count of vector operations). Without math.exp's handling of
  /// infinities and of the subnormal range, which sigmoid and tanh do not
  /// need once their argument is clamped; and e^z - 1 = 2^k q + (2^k - 1)
  /// comes without cancellation.
  /// With `negated`, the parts of e^-z: the sign goes into the constants
  /// (z * -log2(e), -z - k ln 2 as one FMA), not into an instruction of its
  /// own.
  std::pair<Value, Value> expParts(Value z, bool negated = false) {
    constexpr double kShifter = 12582912.0 + 127.0; // 1.5 * 2^23 + bias
    double sign = negated ? -1 : 1;
    Value shifted = add(mul(z, c(sign * M_LOG2E)), c(kShifter));
    Value k = sub(shifted, c(kShifter));
    Value r = negated ? sub(mul(k, c(-0.693359375)), z)
                      : sub(z, mul(k, c(0.693359375)));
    r = sub(r, mul(k, c(-2.12194440e-4)));
    // P by Estrin's scheme: two FMAs deep after r^2, where Horner takes four.
    Value r2 = mul(r, r);
    auto linear = [&](double c0, double c1) { return add(mul(c(c1), r), c(c0)); };
    Value upper = add(linear(4.1666464976e-2, 8.3631755655e-3),
                      mul(r2, c(1.3933643522e-3)));
    Value p = add(linear(5.0000000135e-1, 1.6666577003e-1), mul(r2, upper));
    Value q = add(mul(p, r2), r);
    Type i32 = b.getI32Type();
    Value bits = arith::ShLIOp::create(
        b, loc, arith::BitcastOp::create(b, loc, i32, shifted),
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(23)));
    return {arith::BitcastOp::create(b, loc, b.getF32Type(), bits), q};
  }
  /// A value as numerator / denominator: a product of activations then
  /// takes one division (the LSTM cell's, which is bound by its count of
  /// vector operations, a division among the dearest). A true division:
  /// the divider works beside the vector ports, and a reciprocal estimate
  /// refined by Newton's step (`arcp`), four port operations instead of
  /// one, made the LSTM benchmarks 1-2% slower.
  struct Fraction {
    Value num, den;
  };
  Value value(Fraction f) { return div(f.num, f.den); }
  /// 1 / (1 + e^-x), the form of Keras / TensorFlow: relative accuracy in
  /// the negative tail, where 0.5 + 0.5 tanh(x / 2) cancels to 0 below
  /// x = -17. e^-x with -x clamped into [-87, 88]: 1 beyond x = 87, a value
  /// below the normal range before x = -88. Within 3 ulps.
  Fraction sigmoidFraction(Value x) {
    auto [scale, q] = expParts(clamp(x, -88, 87), /*negated=*/true);
    return {c(1), add(c(1), add(mul(scale, q), scale))};
  }
  Value sigmoid(Value x) { return value(sigmoidFraction(x)); }
  /// (e^2x - 1) / (e^2x + 1) with e^2x - 1 from expParts (no cancellation
  /// for small x, where it is 2x to an ulp) and 2x clamped into [-20, 20]
  /// (tanh is +-1 in float beyond 9). One exp and one division, as cheap
  /// as math.tanh's rational approximation and within 3 ulps, where that
  /// one reaches 4.2 (it saturates at 7.9).
  Fraction tanhFraction(Value x) {
    auto [scale, q] = expParts(clamp(add(x, x), -20, 20));
    Value em1 = add(mul(scale, q), sub(scale, c(1)));
    return {em1, add(em1, c(2))};
  }
  Value tanh(Value x) { return value(tanhFraction(x)); }
  /// sigmoid(x) tanh(y) with one division: 1 + e^-x and e^2y + 1 are at
  /// least 1, and their product overflows to infinity only where the exact
  /// result is below 1.5e-30, which then comes out 0 (as a subnormal
  /// flushes), never NaN.
  Value sigmoidTimesTanh(Value x, Value y) {
    Fraction s = sigmoidFraction(x), t = tanhFraction(y);
    return div(t.num, mul(s.den, t.den));
  }
  /// log(1 + exp(-|x|)) + max(x, 0): never overflows.
  Value softplus(Value x) {
    Value tail = math::Log1pOp::create(b, loc, exp(sub(c(0), abs(x))));
    return add(tail, max(x, c(0)));
  }
};
} // namespace

Value seq::lowering::accumulate(OpBuilder &b, Location loc, Value acc, Value x) {
  return arith::AddFOp::create(b, loc, acc, x, arith::FastMathFlags::reassoc);
}

Value seq::lowering::scalarActivation(OpBuilder &b, Location loc,
                                      Activation act, float alpha, Value x) {
  constexpr double kSeluAlpha = 1.6732632423543772;
  constexpr double kSeluScale = 1.0507009873554805;
  constexpr double kSqrt2OverPi = 0.7978845608028654;
  Scalar s{b, loc};
  using P = arith::CmpFPredicate;
  switch (act) {
  case Activation::Linear:
    return x;
  case Activation::Relu:
    return s.max(x, s.c(0));
  case Activation::Tanh:
    return s.tanh(x);
  case Activation::Sigmoid:
    return s.sigmoid(x);
  case Activation::HardSigmoidKeras2:
    return s.clamp(s.add(s.mul(s.c(0.2), x), s.c(0.5)), 0, 1);
  case Activation::HardSigmoidKeras3:
    return s.div(s.clamp(s.add(x, s.c(3)), 0, 6), s.c(6));
  case Activation::Elu:
    return s.select(s.cmp(P::OGT, x, s.c(0)), x, s.mul(s.c(alpha), s.expm1(x)));
  case Activation::Selu:
    return s.mul(s.c(kSeluScale),
                 s.select(s.cmp(P::OGT, x, s.c(0)), x,
                          s.mul(s.c(kSeluAlpha), s.expm1(x))));
  case Activation::Gelu: {
    // 0.5 x (1 + erf(x / sqrt 2)) as 0.5 x erfc(-x / sqrt 2) (TensorFlow's
    // form): 1 + erf cancels to 0 in the negative tail, erfc does not.
    Value erfc = math::ErfcOp::create(b, loc, s.mul(x, s.c(-M_SQRT1_2)));
    return s.mul(s.mul(s.c(0.5), x), erfc);
  }
  case Activation::GeluTanh: {
    Value cube = s.mul(s.mul(x, x), x);
    Value inner = s.mul(s.c(kSqrt2OverPi), s.add(x, s.mul(s.c(0.044715), cube)));
    // 0.5 x (1 + tanh(u)) = x sigmoid(2u): 1 + tanh(u) cancels to 0 in the
    // negative tail, the sigmoid does not.
    return s.mul(x, s.sigmoid(s.mul(s.c(2), inner)));
  }
  case Activation::Swish:
    return s.mul(x, s.sigmoid(x));
  case Activation::Softplus:
    return s.softplus(x);
  case Activation::Softsign:
    return s.div(x, s.add(s.c(1), s.abs(x)));
  case Activation::LeakyRelu:
    return s.select(s.cmp(P::OGE, x, s.c(0)), x, s.mul(s.c(alpha), x));
  case Activation::Exponential:
    return s.exp(x);
  case Activation::Relu6:
    return s.clamp(x, 0, 6);
  case Activation::HardSilu:
    return s.mul(x, s.div(s.clamp(s.add(x, s.c(3)), 0, 6), s.c(6)));
  case Activation::Mish: {
    // tanh(softplus(x)) = w / (w + 2) with w = e^x (e^x + 2): one exp and a
    // division instead of exp, log1p and tanh, and as accurate where the
    // result is tiny. Beyond x = 20 it is 1 in float (and w would overflow).
    Value e = s.exp(s.min(x, s.c(20)));
    Value w = s.mul(e, s.add(e, s.c(2)));
    Value t = s.div(w, s.add(w, s.c(2)));
    return s.mul(x, s.select(s.cmp(P::OGT, x, s.c(20)), s.c(1), t));
  }
  case Activation::Celu: {
    Value neg = s.min(x, s.c(0));
    return s.add(s.max(x, s.c(0)),
                 s.mul(s.c(alpha), s.expm1(s.div(neg, s.c(alpha)))));
  }
  case Activation::HardTanh:
    return s.clamp(x, -1, 1);
  case Activation::LogSigmoid:
    return s.sub(s.c(0), s.softplus(s.sub(s.c(0), x)));
  case Activation::SparsePlus: {
    Value xp1 = s.add(x, s.c(1));
    Value quad = s.mul(s.c(0.25), s.mul(xp1, xp1));
    return s.select(s.cmp(P::OLE, x, s.c(-1)), s.c(0),
                    s.select(s.cmp(P::OLT, x, s.c(1)), quad, x));
  }
  case Activation::Squareplus: {
    // (x + sqrt(x^2 + 4)) / 2 without the cancellation of x + sqrt(...) for
    // x < 0 (2 / (sqrt(x^2 + 4) - x) there) and without x^2 overflowing
    // (sqrt(x^2 + 4) rounds to |x| beyond 2^12).
    Value ax = s.abs(x);
    Value root = s.select(s.cmp(P::OGT, ax, s.c(4096)), ax,
                          math::SqrtOp::create(b, loc, s.add(s.mul(x, x), s.c(4))));
    return s.select(s.cmp(P::OGE, x, s.c(0)),
                    s.add(s.mul(s.c(0.5), x), s.mul(s.c(0.5), root)),
                    s.div(s.c(2), s.sub(root, x)));
  }
  case Activation::TanhShrink:
    return s.sub(x, s.tanh(x));
  case Activation::SoftShrink:
    return s.select(s.cmp(P::OGT, x, s.c(0.5)), s.sub(x, s.c(0.5)),
                    s.select(s.cmp(P::OLT, x, s.c(-0.5)), s.add(x, s.c(0.5)),
                             s.c(0)));
  case Activation::HardShrink:
    return s.select(s.cmp(P::OGT, s.abs(x), s.c(0.5)), x, s.c(0));
  case Activation::SparseSigmoid:
    return s.select(s.cmp(P::OLE, x, s.c(-1)), s.c(0),
                    s.select(s.cmp(P::OGE, x, s.c(1)), s.c(1),
                             s.mul(s.c(0.5), s.add(x, s.c(1)))));
  case Activation::ThresholdedRelu:
    return s.select(s.cmp(P::OGT, x, s.c(alpha)), x, s.c(0));
  case Activation::Sqrt:
    return math::SqrtOp::create(b, loc, x);
  case Activation::Rsqrt:
    // 1 / sqrt(x), both correctly rounded (math.rsqrt may be an estimate).
    return s.div(s.c(1), math::SqrtOp::create(b, loc, x));
  case Activation::Log:
    return math::LogOp::create(b, loc, x);
  case Activation::Abs:
    return s.abs(x);
  case Activation::Reciprocal:
    return s.div(s.c(alpha), x);
  case Activation::Softmax:
  case Activation::LogSoftmax:
    break;
  }
  llvm_unreachable("softmax is not elementwise");
}

Value seq::lowering::cellActivation(OpBuilder &b, Location loc, Activation act,
                                    Value x) {
  return scalarActivation(b, loc, act, shapes::cellAlpha(act), x);
}

Value seq::lowering::lstmCellState(OpBuilder &b, Location loc, Activation rec,
                                   Activation act, Value i, Value f, Value g,
                                   Value c) {
  Scalar s{b, loc};
  if (rec == Activation::Sigmoid && act == Activation::Tanh)
    return s.add(s.div(c, s.sigmoidFraction(f).den), s.sigmoidTimesTanh(i, g));
  auto apply = [&](Activation a, Value x) { return cellActivation(b, loc, a, x); };
  return s.add(s.mul(apply(rec, f), c), s.mul(apply(rec, i), apply(act, g)));
}

Value seq::lowering::lstmCellOutput(OpBuilder &b, Location loc, Activation rec,
                                    Activation act, Value o, Value c) {
  Scalar s{b, loc};
  if (rec == Activation::Sigmoid && act == Activation::Tanh)
    return s.sigmoidTimesTanh(o, c);
  return s.mul(cellActivation(b, loc, rec, o), cellActivation(b, loc, act, c));
}

Value seq::lowering::padAxes(LinalgBuilder &lb, Value x, ArrayRef<Window> ws,
                             double value, int64_t firstAxis) {
  IndexMath m{lb};
  SmallVector<OpFoldResult> kept = lb.dims(x), sizes = kept,
                            offsets(kept.size(), m.c(0));
  bool cropped = false, padding = false;
  for (auto [i, w] : llvm::enumerate(ws)) {
    int64_t axis = firstAxis + i;
    if (std::optional<int64_t> read = readLength(m, kept[axis], w)) {
      kept[axis] = m.c(*read);
      cropped = true;
    }
    auto length = m.constant(kept[axis]);
    padding |= !(m.constant(w.padLeft) == 0 && length &&
                 m.constant(w.paddedLength) == length);
    sizes[axis] = w.paddedLength;
    offsets[axis] = w.padLeft;
  }
  Value part = cropped ? lb.extractSlice(x, SmallVector<OpFoldResult>(kept.size(), m.c(0)), kept)
                       : x;
  if (!padding)
    return part;
  return lb.insertSlice(part, lb.full(sizes, value), offsets, kept);
}

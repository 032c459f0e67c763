// Lowering of the spatial seq ops, channels last: Conv2D/3D of one group of
// at least 8 channels to one GEMM over gathered receptive fields, else to
// linalg.conv_2d_nhwc_hwcf / conv_3d_ndhwc_dhwcf (a depthwise Conv2D to
// linalg.depthwise_conv_2d_nhwc_hwc), Conv1D/2D/3DTranspose to the stride-1
// conv_1d/2d/3d of the input spread into zeros, the poolings to
// linalg.pooling_nhwc_* / pooling_ndhwc_*, global pooling as one reduction,
// zero padding / cropping as insert_slice / extract_slice, nearest
// upsampling as a generic reading x[o / s], bilinear upsampling one axis at a
// time, resize one axis at a time (the last spatial axis first), adaptive
// pooling one axis at a time (a reduction over the largest window's taps),
// permute as linalg.transpose. Padding ("same") is an insert_slice into
// a filled tensor (0, or -inf for max pooling) in front of the named op.
#include "LinalgBuilder.h"
#include "RuntimeChecks.h"

#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace seq;
using namespace seq::lowering;

namespace {

using Sizes = SmallVector<OpFoldResult>;

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// The windows of op's every spatial axis of x (B, d1..dn, C), each cut to
/// one window where it fits only once (cutToOneWindow), a dynamic one fitted
/// (fitWindow).
SmallVector<Window> windows(LinalgBuilder &lb, Operation *op, Value x,
                            ArrayRef<int64_t> spans, ArrayRef<int64_t> strides,
                            Padding padding) {
  IndexMath m{lb};
  SmallVector<Window> result;
  for (size_t i = 0; i < spans.size(); ++i) {
    Window w = cutToOneWindow(
        m, window1d(m, lb.dimOfr(x, i + 1), spans[i], strides[i], padding), spans[i],
        strides[i]);
    w.paddedLength = fitWindow(lb, op, x, w.paddedLength, spans[i], i + 1);
    result.push_back(w);
  }
  return result;
}

/// (B, o1..on, channels): each o = (padded - span) / stride + 1.
Sizes outputSizes(LinalgBuilder &lb, Value x, ArrayRef<Window> ws,
                  ArrayRef<int64_t> spans, ArrayRef<int64_t> strides,
                  OpFoldResult channels) {
  IndexMath m{lb};
  Sizes sizes{lb.dimOfr(x, 0)};
  for (size_t i = 0; i < ws.size(); ++i)
    sizes.push_back(m.add(
        m.div(m.sub(ws[i].paddedLength, m.c(spans[i])), m.c(strides[i])), m.c(1)));
  sizes.push_back(channels);
  return sizes;
}

} // namespace

Value seq::lowering::namedConv(LinalgBuilder &lb, int64_t spatial, Value x,
                               Value kernel, Value init, ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> dilations) {
  auto stridesAttr = lb.b.getI64TensorAttr(strides);
  auto dilationsAttr = lb.b.getI64TensorAttr(dilations);
  Type type = init.getType();
  TypeRange types(type);
  if (spatial == 1)
    return linalg::Conv1DNwcWcfOp::create(lb.b, lb.loc, types, ValueRange{x, kernel},
                                          ValueRange{init}, stridesAttr, dilationsAttr)
        .getResult(0);
  if (spatial == 2)
    return linalg::Conv2DNhwcHwcfOp::create(lb.b, lb.loc, types, ValueRange{x, kernel},
                                            ValueRange{init}, stridesAttr, dilationsAttr)
        .getResult(0);
  return linalg::Conv3DNdhwcDhwcfOp::create(lb.b, lb.loc, types, ValueRange{x, kernel},
                                            ValueRange{init}, stridesAttr, dilationsAttr)
      .getResult(0);
}

namespace {

/// A 2-D convolution with one input channel per group (DepthwiseConv2D) as
/// linalg.depthwise_conv_2d_nhwc_hwc: with M filters per group, channel c is
/// first repeated M times (x'[..., c*M + m] = x[..., c]), so that filter
/// c*M + m reads channel c*M + m; the kernel (kh, kw, 1, C*M) is (kh, kw, C*M).
Value depthwiseConv2d(LinalgBuilder &lb, Value padded, Value kernel, Value init,
                      int64_t groupFilters, ArrayRef<int64_t> strides,
                      ArrayRef<int64_t> dilations) {
  IndexMath m{lb};
  ArrayRef<int64_t> k = typeOf(kernel).getShape();
  Value x = padded;
  if (groupFilters > 1) {
    Sizes sizes = lb.dims(padded);
    sizes.back() = m.c(k[3]);
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < 3; ++i)
      exprs.push_back(lb.b.getAffineDimExpr(i));
    exprs.push_back(lb.b.getAffineDimExpr(3).floorDiv(groupFilters));
    AffineMap repeat = AffineMap::get(4, 0, exprs, lb.b.getContext());
    x = lb.generic(ValueRange{padded}, lb.empty(sizes), {repeat, lb.identity(4)},
                   SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
                   [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  }
  auto flatType = RankedTensorType::get({k[0], k[1], k[3]}, lb.f32());
  Value flatKernel = tensor::CollapseShapeOp::create(
      lb.b, lb.loc, flatType, kernel,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
  return linalg::DepthwiseConv2DNhwcHwcOp::create(
             lb.b, lb.loc, TypeRange(init.getType()), ValueRange{x, flatKernel},
             ValueRange{init}, lb.b.getI64TensorAttr(strides),
             lb.b.getI64TensorAttr(dilations))
      .getResult(0);
}

template <typename ConvOp> Value lowerConv(LinalgBuilder &lb, ConvOp op) {
  constexpr int64_t spatial = ConvOp::kSpatialRank;
  IndexMath m{lb};
  Value x = op.getInput(), kernel = op.getKernel();
  ArrayRef<int64_t> k = typeOf(kernel).getShape();
  ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilationRate();
  SmallVector<int64_t> spans;
  for (int64_t i = 0; i < spatial; ++i)
    spans.push_back(dilations[i] * (k[i] - 1) + 1);
  SmallVector<Window> ws = windows(lb, op, x, spans, strides, op.getPadding());
  Value padded = padAxes(lb, x, ws, 0.0, /*firstAxis=*/1);
  int64_t filters = k[spatial + 1], groupChannels = k[spatial];
  Sizes outSizes = outputSizes(lb, x, ws, spans, strides, m.c(filters));
  Value out = op.getBias() ? lb.broadcastLastAxis(op.getBias(), outSizes)
                           : lb.full(outSizes, 0.0);
  int64_t groups = op.getGroups();
  if (groups == 1) {
    out = namedConv(lb, spatial, padded, kernel, out, strides, dilations);
  } else if (spatial == 2 && groupChannels == 1) {
    out = depthwiseConv2d(lb, padded, kernel, out, filters / groups, strides,
                          dilations);
  } else {
    // Filter group g reads channel group g: one named convolution per group
    // on channel and filter slices.
    int64_t groupFilters = filters / groups;
    for (int64_t g = 0; g < groups; ++g) {
      Sizes xOffsets(spatial + 2, m.c(0)), xSizes = lb.dims(padded);
      xOffsets.back() = m.c(g * groupChannels);
      xSizes.back() = m.c(groupChannels);
      Sizes kOffsets(spatial + 2, m.c(0)), kSizes = lb.dims(kernel);
      kOffsets.back() = m.c(g * groupFilters);
      kSizes.back() = m.c(groupFilters);
      Sizes oOffsets(spatial + 2, m.c(0)), oSizes = outSizes;
      oOffsets.back() = m.c(g * groupFilters);
      oSizes.back() = m.c(groupFilters);
      Value part = namedConv(lb, spatial, lb.extractSlice(padded, xOffsets, xSizes),
                             lb.extractSlice(kernel, kOffsets, kSizes),
                             lb.extractSlice(out, oOffsets, oSizes), strides, dilations);
      out = lb.insertSlice(part, out, oOffsets, oSizes);
    }
  }
  return lb.activate(out, op.getActivation(), op.getAlphaAttr());
}

/// The kernel of the convolution that a transposed one is: Keras'
/// (k..., F, C) flipped along every spatial axis, F and C swapped.
Value flippedKernel(LinalgBuilder &lb, Value kernel, int64_t spatial) {
  IndexMath m{lb};
  ArrayRef<int64_t> k = typeOf(kernel).getShape();
  Sizes sizes;
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < spatial; ++i) {
    sizes.push_back(m.c(k[i]));
    exprs.push_back(k[i] - 1 - lb.b.getAffineDimExpr(i));
  }
  sizes.append({m.c(k[spatial + 1]), m.c(k[spatial])});
  exprs.append({lb.b.getAffineDimExpr(spatial + 1), lb.b.getAffineDimExpr(spatial)});
  int64_t rank = spatial + 2;
  AffineMap read = AffineMap::get(rank, 0, exprs, lb.b.getContext());
  return lb.generic(ValueRange{kernel}, lb.empty(sizes), {read, lb.identity(rank)},
                    SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
                    [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

/// A transposed convolution as the convolution it equals: the input spread
/// `stride` apart into zeros (with span - 1 - pad zeros before it and enough
/// after for every output), then a stride-1 convolution with the flipped
/// kernel and the same dilation; the named convolution then vectorizes.
template <typename ConvOp>
Value lowerConvTranspose(LinalgBuilder &lb, ConvOp op) {
  constexpr int64_t spatial = ConvOp::kSpatialRank;
  IndexMath m{lb};
  Value x = op.getInput(), kernel = op.getKernel();
  ArrayRef<int64_t> k = typeOf(kernel).getShape();
  ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilationRate();
  std::optional<ArrayRef<int64_t>> outputPadding = op.getOutputPadding();
  int64_t filters = k[spatial];
  Sizes spreadSizes{lb.dimOfr(x, 0)}, offsets{m.c(0)}, steps{m.c(1)};
  Sizes outSizes{lb.dimOfr(x, 0)};
  for (int64_t i = 0; i < spatial; ++i) {
    // The output length is n * stride plus a part that does not depend on n
    // (the length for n = 0).
    shapes::TransposedAxis tail = shapes::transposedAxis(
        0, k[i], strides[i], dilations[i], op.getPadding(),
        outputPadding ? (*outputPadding)[i] : -1);
    int64_t span = dilations[i] * (k[i] - 1) + 1;
    OpFoldResult length =
        m.add(m.mul(lb.dimOfr(x, i + 1), m.c(strides[i])), m.c(tail.length));
    outSizes.push_back(length);
    spreadSizes.push_back(m.add(length, m.c(span - 1)));
    offsets.push_back(m.c(span - 1 - tail.padBefore));
    steps.push_back(m.c(strides[i]));
  }
  spreadSizes.push_back(lb.dimOfr(x, spatial + 1));
  offsets.push_back(m.c(0));
  steps.push_back(m.c(1));
  outSizes.push_back(m.c(filters));
  Value spread = tensor::InsertSliceOp::create(lb.b, lb.loc, x,
                                               lb.full(spreadSizes, 0.0), offsets,
                                               lb.dims(x), steps);
  Value out = op.getBias() ? lb.broadcastLastAxis(op.getBias(), outSizes)
                           : lb.full(outSizes, 0.0);
  out = namedConv(lb, spatial, spread, flippedKernel(lb, kernel, spatial), out,
                  SmallVector<int64_t>(spatial, 1), dilations);
  return lb.activate(out, op.getActivation(), op.getAlphaAttr());
}

template <typename PoolOp>
Value lowerPool(LinalgBuilder &lb, PoolOp op, bool isMax) {
  constexpr int64_t spatial = PoolOp::kSpatialRank;
  IndexMath m{lb};
  Value x = op.getInput();
  ArrayRef<int64_t> pool = op.getPoolSize(), strides = op.getStrides();
  SmallVector<Window> ws = windows(lb, op, x, pool, strides, op.getPadding());
  // Padded positions never win the max and are not counted by the average.
  Value padded = padAxes(lb, x, ws, isMax ? -INFINITY : 0.0, /*firstAxis=*/1);
  Sizes outSizes = outputSizes(lb, x, ws, pool, strides, lb.dimOfr(x, spatial + 1));
  Value init = lb.full(outSizes, isMax ? -INFINITY : 0.0);
  Sizes windowSizes;
  for (int64_t p : pool)
    windowSizes.push_back(m.c(p));
  Value window = lb.empty(windowSizes);
  auto stridesAttr = lb.b.getI64TensorAttr(strides);
  auto dilationsAttr = lb.b.getI64TensorAttr(SmallVector<int64_t>(spatial, 1));
  Type type = init.getType();
  TypeRange types(type);
  SmallVector<Value> inputs{padded, window};
  ValueRange ins(inputs);
  Value reduced;
  if (spatial == 2 && isMax)
    reduced = linalg::PoolingNhwcMaxOp::create(lb.b, lb.loc, types, ins, ValueRange{init},
                                               stridesAttr, dilationsAttr)
                  .getResult(0);
  else if (spatial == 2)
    reduced = linalg::PoolingNhwcSumOp::create(lb.b, lb.loc, types, ins, ValueRange{init},
                                               stridesAttr, dilationsAttr)
                  .getResult(0);
  else if (isMax)
    reduced = linalg::PoolingNdhwcMaxOp::create(lb.b, lb.loc, types, ins, ValueRange{init},
                                                stridesAttr, dilationsAttr)
                  .getResult(0);
  else
    reduced = linalg::PoolingNdhwcSumOp::create(lb.b, lb.loc, types, ins, ValueRange{init},
                                                stridesAttr, dilationsAttr)
                  .getResult(0);
  if (isMax)
    return reduced;
  if (op.getPadding() == Padding::Valid) {
    int64_t count = 1;
    for (int64_t p : pool)
      count *= p;
    return lb.map(ValueRange{}, reduced, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
      return arith::MulFOp::create(
          b, l, a[0], arith::ConstantOp::create(b, l, b.getF32FloatAttr(1.0f / count)));
    });
  }
  // Divide each window by its count of real elements: the product over the
  // axes of min(o*s - padLeft + pool, n) - max(o*s - padLeft, 0).
  SmallVector<Value> padLeft, lengths;
  for (int64_t i = 0; i < spatial; ++i) {
    padLeft.push_back(lb.toValue(ws[i].padLeft));
    lengths.push_back(lb.dim(x, i + 1));
  }
  return lb.map(ValueRange{}, reduced, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
    Value count = index(1);
    for (int64_t i = 0; i < spatial; ++i) {
      Value o = linalg::IndexOp::create(b, l, i + 1);
      Value start = arith::SubIOp::create(
          b, l, arith::MulIOp::create(b, l, o, index(strides[i])), padLeft[i]);
      Value first = arith::MaxSIOp::create(b, l, start, index(0));
      Value last = arith::MinSIOp::create(
          b, l, arith::AddIOp::create(b, l, start, index(pool[i])), lengths[i]);
      count = arith::MulIOp::create(b, l, count, arith::SubIOp::create(b, l, last, first));
    }
    Value countF = arith::SIToFPOp::create(
        b, l, b.getF32Type(), arith::IndexCastOp::create(b, l, b.getI64Type(), count));
    return arith::DivFOp::create(b, l, a[0], countF);
  });
}

/// (B, d1..dn, C): the spatial axes collapsed into one, then reduced.
template <typename GlobalPoolOp>
Value lowerGlobalPoolNd(LinalgBuilder &lb, GlobalPoolOp op, bool isMax) {
  Value x = op.getInput();
  int64_t rank = typeOf(x).getRank();
  ReassociationIndices middle;
  for (int64_t i = 1; i + 1 < rank; ++i)
    middle.push_back(i);
  Value rows = tensor::CollapseShapeOp::create(
      lb.b, lb.loc, x, ArrayRef<ReassociationIndices>{{0}, middle, {rank - 1}});
  Value reduced = lowerGlobalPool(lb, rows, isMax, /*keepdims=*/false, nullptr);
  if (!op.getKeepdims())
    return reduced;
  ReassociationIndices rest;
  Sizes sizes{lb.dimOfr(x, 0)};
  for (int64_t i = 1; i < rank; ++i) {
    rest.push_back(i);
    sizes.push_back(i + 1 < rank ? lb.b.getIndexAttr(1) : lb.dimOfr(x, rank - 1));
  }
  return tensor::ExpandShapeOp::create(lb.b, lb.loc, typeOf(op.getOutput()), reduced,
                                       ArrayRef<ReassociationIndices>{{0}, rest}, sizes);
}

Value lowerZeroPadding(LinalgBuilder &lb, ZeroPaddingOp op) {
  IndexMath m{lb};
  Value x = op.getInput();
  Sizes sizes{lb.dimOfr(x, 0)}, offsets{m.c(0)};
  for (size_t i = 0; i < op.getLow().size(); ++i) {
    sizes.push_back(m.add(lb.dimOfr(x, i + 1), m.c(op.getLow()[i] + op.getHigh()[i])));
    offsets.push_back(m.c(op.getLow()[i]));
  }
  return lb.insertSlice(x, lb.full(sizes, 0.0), offsets, lb.dims(x));
}

/// An axis of unknown length that the cropping would leave empty or less
/// is reported, and kept empty (its slice reads nothing).
Value lowerCropping(LinalgBuilder &lb, CroppingOp op) {
  IndexMath m{lb};
  Value x = op.getInput();
  Sizes sizes{lb.dimOfr(x, 0)}, offsets{m.c(0)};
  for (size_t i = 0; i < op.getLow().size(); ++i) {
    int64_t cropped = op.getLow()[i] + op.getHigh()[i];
    OpFoldResult length = lb.dimOfr(x, i + 1), kept = m.sub(length, m.c(cropped));
    reportShort(lb, op, x, kept, 1,
                "layer '" + layerName(op) + "': inputs no longer than its cropping of " +
                    std::to_string(cropped) + " along axis " + std::to_string(i + 1));
    sizes.push_back(m.max(kept, m.c(0)));
    offsets.push_back(m.min(m.c(op.getLow()[i]), length));
  }
  return lb.extractSlice(x, offsets, sizes);
}

/// An axis of unknown length too short for the window is reported, and the
/// result is then zeros: the slice is read only when every axis holds it.
Value lowerSlice(LinalgBuilder &lb, SliceOp op) {
  IndexMath m{lb};
  Value x = op.getInput();
  Sizes sizes{lb.dimOfr(x, 0)}, offsets{m.c(0)};
  Value tooShort;
  for (size_t i = 0; i < op.getSizes().size(); ++i) {
    int64_t start = op.getStarts()[i], needed = op.requiredLength(i);
    OpFoldResult length = lb.dimOfr(x, i + 1);
    sizes.push_back(m.c(op.getSizes()[i]));
    offsets.push_back(start >= 0 ? m.c(start) : m.add(length, m.c(start)));
    if (m.constant(length))
      continue;
    reportShort(lb, op, x, length, needed,
                "layer '" + layerName(op) + "': inputs shorter than the " +
                    std::to_string(needed) + " elements its slice takes along axis " +
                    std::to_string(i + 1));
    Value shortAxis = arith::CmpIOp::create(lb.b, lb.loc, arith::CmpIPredicate::slt,
                                            lb.toValue(length), lb.index(needed));
    tooShort = tooShort ? arith::OrIOp::create(lb.b, lb.loc, tooShort, shortAxis).getResult()
                        : shortAxis;
  }
  if (!tooShort)
    return lb.extractSlice(x, offsets, sizes);
  Type type = op.getOutput().getType();
  auto choice = scf::IfOp::create(lb.b, lb.loc, TypeRange{type}, tooShort,
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(lb.b);
  lb.b.setInsertionPointToStart(&choice.getThenRegion().front());
  scf::YieldOp::create(lb.b, lb.loc, lb.full(sizes, 0.0));
  lb.b.setInsertionPointToStart(&choice.getElseRegion().front());
  scf::YieldOp::create(lb.b, lb.loc, lb.extractSlice(x, offsets, sizes));
  return choice.getResult(0);
}

Sizes upsampledSizes(LinalgBuilder &lb, Value x, ArrayRef<int64_t> factors) {
  IndexMath m{lb};
  Sizes sizes{lb.dimOfr(x, 0)};
  for (size_t i = 0; i < factors.size(); ++i)
    sizes.push_back(m.mul(lb.dimOfr(x, i + 1), m.c(factors[i])));
  return sizes;
}

/// The linalg.index of every loop of a `rank`-deep generic.
SmallVector<Value> indices(OpBuilder &b, Location l, int64_t rank) {
  SmallVector<Value> index;
  for (int64_t i = 0; i < rank; ++i)
    index.push_back(linalg::IndexOp::create(b, l, i));
  return index;
}

/// (i + 0.5) * scale in f32: output position i's half-pixel centre in the
/// source axis (TensorFlow's rule for resizing and linear upsampling).
Value sourceCentre(OpBuilder &b, Location l, Value i, float scale) {
  auto f32 = [&](float v) {
    return arith::ConstantOp::create(b, l, b.getF32FloatAttr(v));
  };
  Value t = arith::SIToFPOp::create(
      b, l, b.getF32Type(), arith::IndexCastOp::create(b, l, b.getI64Type(), i));
  return arith::MulFOp::create(b, l, arith::AddFOp::create(b, l, t, f32(0.5f)),
                               f32(scale));
}

/// x at `index` with axis `axis` at the real position `in`: linear between
/// the elements at floor(in) and ceil(in), both clamped to [0, last].
Value lerpAlongAxis(OpBuilder &b, Location l, Value x, ArrayRef<Value> index,
                    int64_t axis, Value in, Value last) {
  auto toIndex = [&](Value v) -> Value {
    return arith::IndexCastOp::create(b, l, b.getIndexType(),
                                      arith::FPToSIOp::create(b, l, b.getI64Type(), v));
  };
  Value below = math::FloorOp::create(b, l, in);
  Value above = math::CeilOp::create(b, l, in);
  Value zero = arith::ConstantIndexOp::create(b, l, 0);
  SmallVector<Value> loIndex(index), hiIndex(index);
  loIndex[axis] = arith::MaxSIOp::create(b, l, toIndex(below), zero);
  hiIndex[axis] = arith::MinSIOp::create(b, l, toIndex(above), last);
  Value a = tensor::ExtractOp::create(b, l, x, loIndex);
  Value c = tensor::ExtractOp::create(b, l, x, hiIndex);
  Value lerp = arith::SubFOp::create(b, l, in, below);
  return arith::AddFOp::create(
      b, l, a, arith::MulFOp::create(b, l, arith::SubFOp::create(b, l, c, a), lerp));
}

/// x grown `factor` times along `axis` by linear interpolation with
/// half-pixel centres, as the reference kernel (upsampling) computes it.
Value interpolateAxis(LinalgBuilder &lb, Value x, int64_t axis, int64_t factor) {
  int64_t rank = typeOf(x).getRank();
  SmallVector<int64_t> size(rank - 1, 1);
  size[axis - 1] = factor;
  Value length = lb.dim(x, axis);
  return lb.map(ValueRange{}, lb.empty(upsampledSizes(lb, x, size)),
                [&](OpBuilder &b, Location l, ValueRange) -> Value {
                  SmallVector<Value> index = indices(b, l, rank);
                  Value in = arith::SubFOp::create(
                      b, l, sourceCentre(b, l, index[axis], 1.0f / factor),
                      arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.5f)));
                  Value last = arith::SubIOp::create(
                      b, l, length, arith::ConstantIndexOp::create(b, l, 1));
                  return lerpAlongAxis(b, l, x, index, axis, in, last);
                });
}

Value lowerUpSampling(LinalgBuilder &lb, UpSamplingOp op) {
  Value x = op.getInput();
  ArrayRef<int64_t> factors = op.getSize();
  int64_t rank = typeOf(x).getRank();
  if (op.getInterpolation() == Interpolation::Bilinear) {
    for (int64_t i = 1; i < rank; ++i)
      if (factors[i - 1] > 1)
        x = interpolateAxis(lb, x, i, factors[i - 1]);
    return x;
  }
  // out[b, i1, ..] = x[b, i1 / s1, ..].
  SmallVector<AffineExpr> exprs{lb.b.getAffineDimExpr(0)};
  for (int64_t i = 1; i < rank; ++i)
    exprs.push_back(lb.b.getAffineDimExpr(i).floorDiv(factors[i - 1]));
  AffineMap in = AffineMap::get(rank, 0, exprs, lb.b.getContext());
  return lb.generic(ValueRange{x}, lb.empty(upsampledSizes(lb, x, factors)),
                    {in, lb.identity(rank)},
                    SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
                    [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

/// x resized to `out` along `axis` (static sizes) as the reference kernel
/// (resize) computes it: TensorFlow's half-pixel nearest or linear rule.
Value resizeAxis(LinalgBuilder &lb, Value x, int64_t axis, int64_t out,
                 bool bilinear) {
  int64_t rank = typeOf(x).getRank();
  int64_t length = typeOf(x).getDimSize(axis);
  Sizes sizes;
  for (int64_t i = 0; i < rank; ++i)
    sizes.push_back(i == axis ? OpFoldResult(lb.b.getIndexAttr(out))
                              : lb.dimOfr(x, i));
  float scale = static_cast<float>(length) / static_cast<float>(out);
  return lb.map(ValueRange{}, lb.empty(sizes),
                [&](OpBuilder &b, Location l, ValueRange) -> Value {
                  auto f32 = [&](float v) {
                    return arith::ConstantOp::create(b, l, b.getF32FloatAttr(v));
                  };
                  auto toIndex = [&](Value v) -> Value {
                    return arith::IndexCastOp::create(
                        b, l, b.getIndexType(),
                        arith::FPToSIOp::create(b, l, b.getI64Type(), v));
                  };
                  SmallVector<Value> index = indices(b, l, rank);
                  Value centre = sourceCentre(b, l, index[axis], scale);
                  Value last = arith::ConstantIndexOp::create(b, l, length - 1);
                  if (!bilinear) {
                    SmallVector<Value> source(index);
                    source[axis] = arith::MinSIOp::create(
                        b, l, toIndex(math::FloorOp::create(b, l, centre)), last);
                    return tensor::ExtractOp::create(b, l, x, source);
                  }
                  Value in = arith::SubFOp::create(b, l, centre, f32(0.5f));
                  return lerpAlongAxis(b, l, x, index, axis, in, last);
                });
}

Value lowerResize(LinalgBuilder &lb, ResizeOp op) {
  Value x = op.getInput();
  ArrayRef<int64_t> size = op.getSize();
  bool bilinear = op.getInterpolation() == Interpolation::Bilinear;
  for (int64_t i = static_cast<int64_t>(size.size()); i >= 1; --i)
    if (typeOf(x).getDimSize(i) != size[i - 1])
      x = resizeAxis(lb, x, i, size[i - 1], bilinear);
  return x;
}

/// x pooled along `axis` (static length) to `out` outputs by Keras' adaptive
/// windows, as the reference kernel (adaptivePooling) computes them: a
/// reduction over the largest window's taps, a tap past its own window's end
/// skipped; an average then divides by its window's size.
Value adaptivePoolAxis(LinalgBuilder &lb, Value x, int64_t axis, int64_t out,
                       bool isMax) {
  const int64_t rank = typeOf(x).getRank();
  const int64_t length = typeOf(x).getDimSize(axis);
  int64_t taps = 1;
  for (int64_t t = 0; t < out; ++t)
    taps = std::max(taps, ((t + 1) * length + out - 1) / out - t * length / out);
  Sizes sizes;
  for (int64_t i = 0; i < rank; ++i)
    sizes.push_back(i == axis ? OpFoldResult(lb.b.getIndexAttr(out))
                              : lb.dimOfr(x, i));
  // The window [start, end) of output t: floor(t*L/out), ceil((t+1)*L/out).
  auto window = [&](OpBuilder &b, Location l, Value t) {
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
    Value start = arith::DivUIOp::create(
        b, l, arith::MulIOp::create(b, l, t, c(length)), c(out));
    Value next = arith::AddIOp::create(b, l, t, c(1));
    Value end = arith::DivUIOp::create(
        b, l,
        arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, next, c(length)),
                              c(out - 1)),
        c(out));
    return std::make_pair(start, end);
  };
  MLIRContext *ctx = lb.b.getContext();
  SmallVector<AffineExpr> outDims;
  for (int64_t i = 0; i < rank; ++i)
    outDims.push_back(getAffineDimExpr(i, ctx));
  // As in linalg's pooling ops, a shape-only operand of the window's taps
  // gives the reduction its extent.
  Value tapsShape = lb.empty({lb.b.getIndexAttr(taps)});
  SmallVector<AffineMap> maps{
      AffineMap::get(rank + 1, 0, {getAffineDimExpr(rank, ctx)}, ctx),
      AffineMap::get(rank + 1, 0, outDims, ctx)};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  Value init = lb.full(sizes, isMax ? -INFINITY : 0.0);
  Value pooled = lb.generic(
      ValueRange{tapsShape}, init, maps, iters,
      [&](OpBuilder &b, Location l, ValueRange args) -> Value {
        SmallVector<Value> index;
        for (int64_t i = 0; i < rank; ++i)
          index.push_back(linalg::IndexOp::create(b, l, i));
        Value tap = linalg::IndexOp::create(b, l, rank);
        auto [start, end] = window(b, l, index[axis]);
        Value at = arith::AddIOp::create(b, l, start, tap);
        Value inside =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, at, end);
        index[axis] = arith::MinUIOp::create(
            b, l, at, arith::ConstantIndexOp::create(b, l, length - 1));
        Value v = tensor::ExtractOp::create(b, l, x, index);
        Value acc = args[1];
        Value combined = isMax ? arith::MaximumFOp::create(b, l, acc, v).getResult()
                               : arith::AddFOp::create(b, l, acc, v).getResult();
        return arith::SelectOp::create(b, l, inside, combined, acc);
      });
  if (isMax)
    return pooled;
  return lb.map(ValueRange{}, pooled,
                [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                  auto [start, end] =
                      window(b, l, linalg::IndexOp::create(b, l, axis));
                  Value count = arith::SIToFPOp::create(
                      b, l, b.getF32Type(),
                      arith::IndexCastOp::create(
                          b, l, b.getI64Type(),
                          arith::SubIOp::create(b, l, end, start)));
                  return arith::DivFOp::create(b, l, args[0], count);
                });
}

template <typename AdaptivePoolOp>
Value lowerAdaptivePool(LinalgBuilder &lb, AdaptivePoolOp op, bool isMax) {
  Value x = op.getInput();
  ArrayRef<int64_t> size = op.getOutputSize();
  for (int64_t i = 1; i <= static_cast<int64_t>(size.size()); ++i)
    if (typeOf(x).getDimSize(i) != size[i - 1])
      x = adaptivePoolAxis(lb, x, i, size[i - 1], isMax);
  return x;
}

/// Each output element reads the input's at n - 1 - i along the axis.
Value lowerReverse(LinalgBuilder &lb, ReverseOp op) {
  Value x = op.getInput();
  int64_t rank = typeOf(x).getRank(), axis = op.getAxis();
  Value last = arith::SubIOp::create(lb.b, lb.loc, lb.dim(x, axis),
                                     arith::ConstantIndexOp::create(lb.b, lb.loc, 1));
  return lb.generic(ValueRange{}, lb.empty(lb.dims(x)), {lb.identity(rank)},
                    SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
                    [&](OpBuilder &b, Location l, ValueRange) -> Value {
                      SmallVector<Value> index;
                      for (int64_t i = 0; i < rank; ++i)
                        index.push_back(linalg::IndexOp::create(b, l, i));
                      index[axis] = arith::SubIOp::create(b, l, last, index[axis]);
                      return tensor::ExtractOp::create(b, l, x, index);
                    });
}

Value lowerPermute(LinalgBuilder &lb, PermuteOp op) {
  Value x = op.getInput();
  SmallVector<int64_t> permutation{0};
  Sizes sizes{lb.dimOfr(x, 0)};
  for (int64_t d : op.getDims()) {
    permutation.push_back(d);
    sizes.push_back(lb.dimOfr(x, d));
  }
  return linalg::TransposeOp::create(lb.b, lb.loc, x, lb.empty(sizes), permutation)
      .getResult()[0];
}

} // namespace

Value seq::lowering::lowerSpatial(LinalgBuilder &lb, Operation *op) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<Conv2DOp, Conv3DOp>([&](auto o) { return lowerConv(lb, o); })
      .Case<ConvTranspose1DOp, ConvTranspose2DOp, ConvTranspose3DOp>(
          [&](auto o) { return lowerConvTranspose(lb, o); })
      .Case<MaxPool2DOp, MaxPool3DOp>([&](auto o) { return lowerPool(lb, o, true); })
      .Case<AvgPool2DOp, AvgPool3DOp>([&](auto o) { return lowerPool(lb, o, false); })
      .Case<GlobalMaxPool2DOp, GlobalMaxPool3DOp>(
          [&](auto o) { return lowerGlobalPoolNd(lb, o, true); })
      .Case<GlobalAvgPool2DOp, GlobalAvgPool3DOp>(
          [&](auto o) { return lowerGlobalPoolNd(lb, o, false); })
      .Case([&](ZeroPaddingOp o) { return lowerZeroPadding(lb, o); })
      .Case([&](CroppingOp o) { return lowerCropping(lb, o); })
      .Case([&](SliceOp o) { return lowerSlice(lb, o); })
      .Case([&](UpSamplingOp o) { return lowerUpSampling(lb, o); })
      .Case([&](ResizeOp o) { return lowerResize(lb, o); })
      .Case([&](AdaptiveMaxPoolOp o) { return lowerAdaptivePool(lb, o, true); })
      .Case([&](AdaptiveAvgPoolOp o) { return lowerAdaptivePool(lb, o, false); })
      .Case([&](PermuteOp o) { return lowerPermute(lb, o); })
      .Case([&](ReverseOp o) { return lowerReverse(lb, o); })
      .Default([](Operation *op) -> Value {
        op->emitError("the CPU backend cannot lower '") << op->getName() << "'";
        return nullptr;
      });
}

#include "PoolingKernel.h"
#include "WindowAttrs.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

bool isPooling(Operation *op) {
  return isa<linalg::PoolingNwcMaxOp, linalg::PoolingNwcSumOp, linalg::PoolingNhwcMaxOp,
             linalg::PoolingNhwcSumOp, linalg::PoolingNdhwcMaxOp, linalg::PoolingNdhwcSumOp>(
      op);
}

bool isMax(Operation *op) {
  return isa<linalg::PoolingNwcMaxOp, linalg::PoolingNhwcMaxOp, linalg::PoolingNdhwcMaxOp>(op);
}

} // namespace

bool seq::cpu::emitPooling(linalg::LinalgOp op, const VectorTarget &target) {
  if (!isPooling(op) || !op.hasPureBufferSemantics())
    return false;
  Value x = op.getDpsInputs()[0], window = op.getDpsInputs()[1];
  Value out = op.getDpsInits()[0];
  auto xType = cast<MemRefType>(x.getType());
  auto outType = cast<MemRefType>(out.getType());
  auto windowType = cast<MemRefType>(window.getType());
  int64_t rank = outType.getRank(), spatial = rank - 2;
  int64_t channels = outType.getShape().back();
  if (!xType.getElementType().isF32() || !outType.getElementType().isF32() ||
      !xType.isLastDimUnitStride() || !outType.isLastDimUnitStride() ||
      !windowType.hasStaticShape() || ShapedType::isDynamic(channels))
    return false;
  SmallVector<int64_t> extents(windowType.getShape());
  SmallVector<int64_t> strides = seq::cpu::windowAttr(op, "strides"),
                       dilations = seq::cpu::windowAttr(op, "dilations");
  int64_t taps = 1;
  for (int64_t e : extents)
    taps *= e;

  OpBuilder b(op);
  Location loc = op.getLoc();
  auto index = [&](OpBuilder &nb, int64_t v) {
    return arith::ConstantIndexOp::create(nb, loc, v).getResult();
  };
  int64_t lanes = target.lanes;
  auto vec = VectorType::get({lanes}, b.getF32Type());
  bool max = isMax(op);
  auto combine = [&](OpBuilder &nb, Value acc, Value v) -> Value {
    if (max)
      return arith::MaximumFOp::create(nb, loc, acc, v);
    return arith::AddFOp::create(nb, loc, acc, v);
  };

  // Every output position (b, o...), one row at a time.
  Value rows = memref::DimOp::create(b, loc, out, 0);
  SmallVector<OpFoldResult> basis;
  for (int64_t i = 1; i <= spatial; ++i) {
    Value size = memref::DimOp::create(b, loc, out, i);
    rows = arith::MulIOp::create(b, loc, rows, size);
    basis.push_back(outType.isDynamicDim(i) ? OpFoldResult(size)
                                            : OpFoldResult(b.getIndexAttr(outType.getDimSize(i))));
  }
  scf::ForOp::create(
      b, loc, index(b, 0), rows, index(b, 1), ValueRange{},
      [&](OpBuilder &nb, Location, Value row, ValueRange) {
        SmallVector<Value> position =
            affine::AffineDelinearizeIndexOp::create(nb, loc, row, basis, false).getResults();
        // Channel vectors: full ones, then a masked tail.
        auto channelBlock = [&](OpBuilder &cb, Value c, int64_t width) {
          Value mask;
          if (width < lanes)
            mask = vector::ConstantMaskOp::create(
                cb, loc, VectorType::get({lanes}, cb.getI1Type()), ArrayRef<int64_t>{width});
          Value zero = arith::ConstantOp::create(
              cb, loc, DenseElementsAttr::get(vec, cb.getF32FloatAttr(0)));
          auto load = [&](OpBuilder &lb, Value mem, ValueRange at) -> Value {
            if (!mask)
              return vector::LoadOp::create(lb, loc, vec, mem, at);
            return vector::MaskedLoadOp::create(lb, loc, vec, mem, at, mask, zero);
          };
          SmallVector<Value> outAt(position);
          outAt.push_back(c);
          Value start = load(cb, out, outAt);
          auto loop = scf::ForOp::create(
              cb, loc, index(cb, 0), index(cb, taps), index(cb, 1), ValueRange{start},
              [&](OpBuilder &tb, Location, Value tap, ValueRange acc) {
                SmallVector<Value> tapAt{tap};
                if (spatial > 1)
                  tapAt = affine::AffineDelinearizeIndexOp::create(tb, loc, tap, extents, true)
                              .getResults();
                SmallVector<Value> at{position[0]};
                for (int64_t i = 0; i < spatial; ++i) {
                  Value first = arith::MulIOp::create(tb, loc, position[1 + i],
                                                      index(tb, strides[i]));
                  Value offset = arith::MulIOp::create(tb, loc, tapAt[i], index(tb, dilations[i]));
                  at.push_back(arith::AddIOp::create(tb, loc, first, offset));
                }
                at.push_back(c);
                scf::YieldOp::create(tb, loc, combine(tb, acc[0], load(tb, x, at)));
              });
          if (mask)
            vector::MaskedStoreOp::create(cb, loc, out, outAt, mask, loop.getResult(0));
          else
            vector::StoreOp::create(cb, loc, loop.getResult(0), out, outAt);
        };
        int64_t full = channels / lanes * lanes;
        if (full > 0)
          scf::ForOp::create(nb, loc, index(nb, 0), index(nb, full), index(nb, lanes),
                             ValueRange{}, [&](OpBuilder &cb, Location, Value c, ValueRange) {
                               channelBlock(cb, c, lanes);
                               scf::YieldOp::create(cb, loc);
                             });
        if (channels > full)
          channelBlock(nb, index(nb, full), channels - full);
        scf::YieldOp::create(nb, loc);
      });
  op->erase();
  return true;
}

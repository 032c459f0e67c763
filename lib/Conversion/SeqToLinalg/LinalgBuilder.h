// Building blocks of the seq -> linalg lowering: shapes with dynamic sizes,
// elementwise generics, GEMMs and activations, all on f32 tensors.
#ifndef SEQ_LIB_CONVERSION_SEQTOLINALG_LINALGBUILDER_H
#define SEQ_LIB_CONVERSION_SEQTOLINALG_LINALGBUILDER_H

#include "seq/Dialect/Seq/IR/SeqOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <functional>

namespace seq::lowering {

using mlir::OpFoldResult;
using mlir::Value;

/// Computes a scalar from the block arguments of an elementwise generic.
using ScalarFn =
    std::function<Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

class LinalgBuilder {
public:
  LinalgBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::OpBuilder &b;
  mlir::Location loc;

  mlir::Type f32() { return b.getF32Type(); }
  Value index(int64_t v);
  Value f32Const(double v);
  /// Size `i` of `t`: an attribute when static, tensor.dim otherwise.
  OpFoldResult dimOfr(Value t, int64_t i);
  Value dim(Value t, int64_t i);
  llvm::SmallVector<OpFoldResult> dims(Value t);
  Value toValue(OpFoldResult ofr);

  Value empty(llvm::ArrayRef<OpFoldResult> sizes);
  /// A tensor of undefined contents that is never merged with another one
  /// (bufferization.alloc_tensor; CSE merges equal tensor.empty ops, which
  /// would make two loop-carried buffers one).
  Value fresh(llvm::ArrayRef<OpFoldResult> sizes);
  Value fill(Value init, double value);
  Value full(llvm::ArrayRef<OpFoldResult> sizes, double value) {
    return fill(empty(sizes), value);
  }

  /// linalg.generic with one f32 result; all loops parallel unless `iters`
  /// says otherwise. `maps` has one map per input plus one for `init`.
  Value generic(mlir::ValueRange inputs, Value init,
                llvm::ArrayRef<mlir::AffineMap> maps,
                llvm::ArrayRef<mlir::utils::IteratorType> iters, ScalarFn fn);
  /// Elementwise over `init`'s shape; every input has that shape. The body
  /// sees the inputs, then init's element.
  Value map(mlir::ValueRange inputs, Value init, ScalarFn fn);
  /// Reduces the last axis of `t` (rank r) into a rank r-1 tensor that starts
  /// at `initial`; `fn(element, accumulator)`.
  Value reduceLastAxis(Value t, double initial, ScalarFn fn);
  /// vec (n) broadcast into a (..., n) tensor of `sizes`.
  Value broadcastLastAxis(Value vec, llvm::ArrayRef<OpFoldResult> sizes) {
    return broadcastLastAxisInto(vec, empty(sizes));
  }
  Value broadcastLastAxisInto(Value vec, Value init);

  /// Applies `act` to every element; softmax and log_softmax normalise the
  /// last axis. The result is a new tensor except for elementwise
  /// activations, which write `t` in place.
  Value activate(Value t, Activation act, mlir::FloatAttr alpha);
  Value activate(Value t, Activation act, float alpha);
  /// Softmax or log_softmax of `t` over `axis`, as a new tensor.
  Value rowActivation(Value t, Activation act, unsigned axis);
  /// Reduces `axis` of `t` like reduceLastAxis.
  Value reduceAxis(Value t, unsigned axis, double initial, ScalarFn fn);

  /// x (..., k) @ weight (k, n) + bias (n) then `act`; result (..., n).
  Value linear(Value x, Value weight, Value bias, Activation act,
               mlir::FloatAttr alpha);

  /// (d0, ..., dn) -> (d0*...*d(n-1), dn).
  Value collapseToRows(Value t);
  /// rows (M, n) -> (like[0], ..., like[r-2], n).
  Value expandRows(Value rows, Value like, mlir::RankedTensorType resultType);

  /// `x`[:, t, col:col+width] of a (B, T, W) tensor, as (B, width).
  Value timeStep(Value x, Value t, int64_t col, int64_t width);
  /// Columns [col, col+width) of a (B, W) tensor.
  Value columns(Value x, int64_t col, int64_t width);

  mlir::AffineMap identity(unsigned rank) {
    return mlir::AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  }
};

/// One scalar activation (not softmax or log_softmax) of an f32 value.
Value scalarActivation(mlir::OpBuilder &b, mlir::Location loc, Activation act,
                       float alpha, Value x);

/// Lowers the seq recurrences (kernel level, and the layer-level recurrent
/// ops through their input projection). Returns the result, or null when
/// `op` is not recurrent.
Value lowerRecurrent(LinalgBuilder &lb, mlir::Operation *op);

} // namespace seq::lowering

#endif

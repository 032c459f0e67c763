// Building blocks of the seq -> linalg lowering: shapes with dynamic sizes,
// elementwise generics, GEMMs and activations, all on f32 tensors.
#ifndef SEQ_LIB_CONVERSION_SEQTOLINALG_LINALGBUILDER_H
#define SEQ_LIB_CONVERSION_SEQTOLINALG_LINALGBUILDER_H

#include "seq/Dialect/Seq/IR/SeqOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
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
  /// The unit-stride slice of `from` at `offsets` of `sizes`; with `type`,
  /// rank-reduced to it.
  Value extractSlice(Value from, llvm::ArrayRef<OpFoldResult> offsets,
                     llvm::ArrayRef<OpFoldResult> sizes,
                     mlir::RankedTensorType type = nullptr);
  /// `into` with `part` written at `offsets` (unit strides; `sizes` are the
  /// slice's, which `part` may hold rank-reduced).
  Value insertSlice(Value part, Value into, llvm::ArrayRef<OpFoldResult> offsets,
                    llvm::ArrayRef<OpFoldResult> sizes);
  /// `to` overwritten by `from` (linalg.copy).
  Value copyInto(Value from, Value to);
  /// State `index` of a recurrent op's (states, B, ...) initial or final
  /// state, as a (B, ...) tensor.
  Value stateRow(Value states, int64_t index);
  /// The (states, B, ...) tensor of the (B, ...) `rows`, h first.
  Value stackStates(mlir::ValueRange rows);

  mlir::AffineMap identity(unsigned rank) {
    return mlir::AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  }
};

/// Index arithmetic that stays an attribute while both sides are constant.
struct IndexMath {
  LinalgBuilder &lb;
  std::optional<int64_t> constant(OpFoldResult v) {
    if (auto attr = llvm::dyn_cast<mlir::Attribute>(v))
      return llvm::cast<mlir::IntegerAttr>(attr).getInt();
    return std::nullopt;
  }
  template <typename Op>
  OpFoldResult apply(OpFoldResult x, OpFoldResult y,
                     int64_t (*fold)(int64_t, int64_t)) {
    auto cx = constant(x), cy = constant(y);
    if (cx && cy)
      return lb.b.getIndexAttr(fold(*cx, *cy));
    return Op::create(lb.b, lb.loc, lb.toValue(x), lb.toValue(y)).getResult();
  }
  OpFoldResult c(int64_t v) { return lb.b.getIndexAttr(v); }
  OpFoldResult add(OpFoldResult x, OpFoldResult y) {
    return apply<mlir::arith::AddIOp>(x, y, [](int64_t a, int64_t b) { return a + b; });
  }
  OpFoldResult sub(OpFoldResult x, OpFoldResult y) {
    return apply<mlir::arith::SubIOp>(x, y, [](int64_t a, int64_t b) { return a - b; });
  }
  OpFoldResult mul(OpFoldResult x, OpFoldResult y) {
    return apply<mlir::arith::MulIOp>(x, y, [](int64_t a, int64_t b) { return a * b; });
  }
  /// Both operands non-negative.
  OpFoldResult div(OpFoldResult x, OpFoldResult y) {
    return apply<mlir::arith::DivUIOp>(x, y, [](int64_t a, int64_t b) { return a / b; });
  }
  OpFoldResult max(OpFoldResult x, OpFoldResult y) {
    return apply<mlir::arith::MaxSIOp>(x, y,
                                 [](int64_t a, int64_t b) { return std::max(a, b); });
  }
  OpFoldResult min(OpFoldResult x, OpFoldResult y) {
    return apply<mlir::arith::MinSIOp>(x, y,
                                 [](int64_t a, int64_t b) { return std::min(a, b); });
  }
};

/// Left padding and padded length of a 1-D window along time, as the
/// reference kernels compute them (lib/Runtime/Convolution.cpp window1d).
struct Window {
  OpFoldResult padLeft, paddedLength;
};

inline Window window1d(IndexMath &m, OpFoldResult length, int64_t window,
                       int64_t stride, Padding padding) {
  switch (padding) {
  case Padding::Valid:
    return {m.c(0), length};
  case Padding::Same: {
    OpFoldResult out = m.div(m.add(length, m.c(stride - 1)), m.c(stride));
    OpFoldResult needed = m.add(m.mul(m.sub(out, m.c(1)), m.c(stride)), m.c(window));
    OpFoldResult total = m.max(m.sub(needed, length), m.c(0));
    return {m.div(total, m.c(2)), m.add(length, total)};
  }
  case Padding::Causal:
    return {m.c(window - 1), m.add(length, m.c(window - 1))};
  }
  llvm_unreachable("unknown padding");
}

/// `w` where the window fits only once along its axis (a static padded
/// length below span + stride): the padded length cut to the span. linalg's
/// decomposition of such a convolution (conv_2d to conv_1d, a window and an
/// output of one position) takes that axis of the input to be one too.
inline Window cutToOneWindow(IndexMath &m, Window w, int64_t span, int64_t stride) {
  if (std::optional<int64_t> padded = m.constant(w.paddedLength);
      padded && *padded > span && *padded < span + stride)
    w.paddedLength = m.c(span);
  return w;
}

/// The length of an input axis of `length` that window `w` reads when it
/// ends inside the input (static lengths, after cutToOneWindow), else none.
inline std::optional<int64_t> readLength(IndexMath &m, OpFoldResult length,
                                         const Window &w) {
  auto n = m.constant(length), padLeft = m.constant(w.padLeft),
       padded = m.constant(w.paddedLength);
  if (n && padLeft && padded && *padLeft + *n > *padded)
    return *padded - *padLeft;
  return std::nullopt;
}

/// x placed at offset padLeft of axes firstAxis, firstAxis + 1, ... (one
/// window each) of a tensor of the padded sizes filled with `value`,
/// without the elements past the padded length (which no window reads,
/// readLength); that part of x itself where nothing is padded.
Value padAxes(LinalgBuilder &lb, Value x, llvm::ArrayRef<Window> ws, double value,
              int64_t firstAxis);

/// `acc + x` as the step of a sum over an axis: reassociable, so that LLVM
/// vectorizes the loop with partial sums instead of one serial chain.
Value accumulate(mlir::OpBuilder &b, mlir::Location loc, Value acc, Value x);

/// One scalar activation (not softmax or log_softmax) of an f32 value.
Value scalarActivation(mlir::OpBuilder &b, mlir::Location loc, Activation act,
                       float alpha, Value x);

/// A recurrent cell's activation (its alpha the one Keras fixes for it).
Value cellActivation(mlir::OpBuilder &b, mlir::Location loc, Activation act,
                     Value x);

/// The LSTM cell's pointwise update from its gates' preactivations, the one
/// definition for LSTM and ConvLSTM: the new state rec(f) c + rec(i) act(g)
/// and the output rec(o) act(c). With Keras' default activations (sigmoid,
/// tanh) each product of activations takes one division.
Value lstmCellState(mlir::OpBuilder &b, mlir::Location loc, Activation rec,
                    Activation act, Value i, Value f, Value g, Value c);
Value lstmCellOutput(mlir::OpBuilder &b, mlir::Location loc, Activation rec,
                     Activation act, Value o, Value c);

/// init + x (B, d1..dn, C) convolved "valid" with kernel (k1..kn, C, F):
/// conv_1d_nwc_wcf, conv_2d_nhwc_hwcf or conv_3d_ndhwc_dhwcf (Spatial.cpp).
Value namedConv(LinalgBuilder &lb, int64_t spatial, Value x, Value kernel,
                Value init, llvm::ArrayRef<int64_t> strides,
                llvm::ArrayRef<int64_t> dilations);

/// Lowers seq.conv_lstm (ConvRecurrence.cpp): its output, then its final
/// state when it has one.
llvm::SmallVector<Value, 2> lowerConvLSTM(LinalgBuilder &lb, ConvLSTMOp op);

/// Lowers Conv2D/3D, the 2-D/3-D and global poolings, zero padding,
/// cropping, upsampling and permute (Spatial.cpp). Returns the result, or
/// null after an error.
Value lowerSpatial(LinalgBuilder &lb, mlir::Operation *op);

/// The global max or average of x (B, T, C) over T: (B, C), or (B, 1, C)
/// with keepdims (SeqToLinalg.cpp). A `mask` (B, T), only for the average,
/// makes it the mean of the unmasked steps.
Value lowerGlobalPool(LinalgBuilder &lb, Value x, bool isMax, bool keepdims,
                      mlir::RankedTensorType resultType, Value mask = nullptr);

/// Lowers seq.merge, seq.concatenate and seq.stack (Merge.cpp); null for
/// other ops.
Value lowerMerge(LinalgBuilder &lb, mlir::Operation *op);

/// Lowers seq.matmul and seq.attention (Attention.cpp); null for other ops.
Value lowerAttention(LinalgBuilder &lb, mlir::Operation *op);

/// Lowers the seq recurrences (kernel level, and the layer-level recurrent
/// ops through their input projection). Returns the op's results (output,
/// then the final state when it has one), or nothing when `op` is not
/// recurrent.
llvm::SmallVector<Value, 2> lowerRecurrent(LinalgBuilder &lb, mlir::Operation *op);

/// Whether `op` is a linear op that computes the input projection of one
/// recurrence and nothing else: lowerRecurrent reads it as its parts (it
/// may compute it step by step), so it is lowered with the recurrence,
/// not before it.
bool isProjectionOfRecurrence(mlir::Operation *op);

} // namespace seq::lowering

#endif

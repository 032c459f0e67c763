// seq.conv_lstm (Keras ConvLSTM1D/2D/3D) as one scf.for over the steps.
// The input is padded once, so each step convolves its slice "valid". h
// lives inside a zero border as wide as the recurrent kernel's "same"
// padding, so the recurrent convolution reads it with no copy per step. The
// bordered h, c, the gate tensor and the output sequence are iter_args
// written in place by destination-passing ops, as in Recurrences.cpp, so the
// loop allocates nothing.
#include "LinalgBuilder.h"
#include "RuntimeChecks.h"

#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace seq;
using namespace seq::lowering;

namespace {

using Sizes = SmallVector<OpFoldResult>;

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// `shape` without axis `axis`.
SmallVector<int64_t> without(ArrayRef<int64_t> shape, size_t axis) {
  SmallVector<int64_t> result(shape);
  result.erase(result.begin() + axis);
  return result;
}

} // namespace

SmallVector<Value, 2> seq::lowering::lowerConvLSTM(LinalgBuilder &lb, ConvLSTMOp op) {
  IndexMath m{lb};
  const int64_t n = op.getSpatialRank();
  Value x = op.getInput(), kernel = op.getKernel(), rk = op.getRecurrentKernel();
  ArrayRef<int64_t> k = typeOf(kernel).getShape(), r = typeOf(rk).getShape();
  const int64_t u = r[n];
  ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilationRate();
  SmallVector<int64_t> ones(n, 1);
  Activation act = op.getActivation(), rec = op.getRecurrentActivation();
  OpFoldResult batch = lb.dimOfr(x, 0), steps = lb.dimOfr(x, 1);

  // The input padded along its spatial axes, once for every step; the
  // state's sizes are the input convolution's output sizes.
  Sizes state{batch};
  SmallVector<Window> ws;
  for (int64_t i = 0; i < n; ++i) {
    int64_t span = dilations[i] * (k[i] - 1) + 1;
    Window w = cutToOneWindow(
        m, window1d(m, lb.dimOfr(x, i + 2), span, strides[i], op.getPadding()), span,
        strides[i]);
    w.paddedLength = fitWindow(lb, op, x, w.paddedLength, span, i + 2);
    ws.push_back(w);
    state.push_back(m.add(m.div(m.sub(w.paddedLength, m.c(span)), m.c(strides[i])),
                          m.c(1)));
  }
  state.push_back(m.c(u));
  Value xPadded = padAxes(lb, x, ws, 0.0, /*firstAxis=*/2);

  // h at offset (r - 1) / 2 of a zero border r - 1 wide along each axis.
  Sizes bordered{batch}, hOffsets{m.c(0)};
  for (int64_t i = 0; i < n; ++i) {
    bordered.push_back(m.add(state[i + 1], m.c(r[i] - 1)));
    hOffsets.push_back(m.c((r[i] - 1) / 2));
  }
  bordered.push_back(m.c(u));
  hOffsets.push_back(m.c(0));
  Sizes gateSizes = state;
  gateSizes.back() = m.c(4 * u);

  auto stateType = RankedTensorType::get(
      shapes::convLstm(typeOf(x).getShape(), k.take_front(n), strides, dilations,
                       op.getPadding(), u, /*returnSequences=*/false),
      lb.f32());
  auto frameType =
      RankedTensorType::get(without(typeOf(xPadded).getShape(), 1), lb.f32());

  // The state starts at zero or as a copy of the initial state (which the
  // loop must not write).
  Value h0 = lb.fill(lb.fresh(bordered), 0.0), c0 = lb.fresh(state);
  if (Value initial = op.getInitialState()) {
    h0 = lb.insertSlice(lb.stateRow(initial, 0), h0, hOffsets, state);
    c0 = lb.copyInto(lb.stateRow(initial, 1), c0);
  } else {
    c0 = lb.fill(c0, 0.0);
  }
  SmallVector<Value> inits{h0, c0, lb.fresh(gateSizes)};
  Sizes sequence = state;
  sequence.insert(sequence.begin() + 1, steps);
  if (op.getReturnSequences())
    inits.push_back(lb.fresh(sequence));

  auto body = [&](OpBuilder &nb, Location l, Value s, ValueRange iters) {
    LinalgBuilder sb(nb, l);
    Value t = s;
    if (op.getGoBackwards())
      t = arith::SubIOp::create(
          nb, l, arith::SubIOp::create(nb, l, sb.toValue(steps), sb.index(1)), s);
    Sizes frameOffsets(n + 3, nb.getIndexAttr(0));
    frameOffsets[1] = t;
    Sizes frameSizes = sb.dims(xPadded);
    frameSizes[1] = nb.getIndexAttr(1);
    Value frame = sb.extractSlice(xPadded, frameOffsets, frameSizes, frameType);

    Value gates = op.getBias() ? sb.broadcastLastAxisInto(op.getBias(), iters[2])
                               : sb.fill(iters[2], 0.0);
    gates = namedConv(sb, n, frame, kernel, gates, strides, dilations);
    gates = namedConv(sb, n, iters[0], rk, gates, ones, ones);
    auto gate = [&](int64_t index) {
      Sizes offsets(n + 2, nb.getIndexAttr(0));
      offsets.back() = nb.getIndexAttr(index * u);
      return sb.extractSlice(gates, offsets, state, stateType);
    };
    // c = f * c + i * act(g), then h = o * act(c), each gate block read
    // straight from the gate tensor.
    Value c = sb.map(ValueRange{gate(0), gate(1), gate(2)}, iters[1],
                     [&](OpBuilder &b, Location bl, ValueRange a) {
                       return lstmCellState(b, bl, rec, act, a[0], a[1], a[2], a[3]);
                     });
    Value interior = sb.extractSlice(iters[0], hOffsets, state, stateType);
    Value h = sb.map(ValueRange{gate(3), c}, interior,
                     [&](OpBuilder &b, Location bl, ValueRange a) {
                       return lstmCellOutput(b, bl, rec, act, a[0], a[1]);
                     });
    SmallVector<Value> yields{sb.insertSlice(h, iters[0], hOffsets, state), c, gates};
    if (op.getReturnSequences()) {
      Sizes offsets(n + 3, nb.getIndexAttr(0));
      offsets[1] = s;
      Sizes sizes = sequence;
      sizes[1] = nb.getIndexAttr(1);
      yields.push_back(sb.insertSlice(h, iters[3], offsets, sizes));
    }
    scf::YieldOp::create(nb, l, yields);
  };
  auto loop = scf::ForOp::create(lb.b, lb.loc, lb.index(0), lb.toValue(steps),
                                 lb.index(1), inits, body);
  Value h = lb.extractSlice(loop.getResult(0), hOffsets, state, stateType);
  SmallVector<Value, 2> results{op.getReturnSequences() ? loop.getResult(3) : h};
  if (op.getFinalState())
    results.push_back(lb.stackStates({h, loop.getResult(1)}));
  return results;
}

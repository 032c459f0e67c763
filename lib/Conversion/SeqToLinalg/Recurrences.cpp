// The time loops of LSTM, GRU and SimpleRNN. The state, a gate scratch
// buffer and the output sequence are iter_args of one scf.for, each step
// writes them with destination-passing linalg ops, so one-shot bufferization
// keeps every buffer in place and the loop allocates nothing.
#include "LinalgBuilder.h"

#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace seq;
using namespace seq::lowering;

namespace {

enum class Cell { LSTM, GRU, SimpleRNN };

struct Recurrence {
  Cell cell;
  Value projection;     // (B, T, gates*u)
  Value recurrentKernel; // (u, gates*u)
  Value recurrentBias;  // (gates*u) or null; GRU with reset_after only
  Activation activation = Activation::Tanh;
  Activation recurrentActivation = Activation::Sigmoid;
  bool returnSequences = false, goBackwards = false, resetAfter = false;
};

Value matmulInto(LinalgBuilder &lb, Value lhs, Value rhs, Value acc) {
  return linalg::MatmulOp::create(lb.b, lb.loc, TypeRange{acc.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{acc})
      .getResult(0);
}

Value copyInto(LinalgBuilder &lb, Value from, Value to) {
  return linalg::CopyOp::create(lb.b, lb.loc, ValueRange{from}, ValueRange{to})
      .getResult(0);
}

/// Columns [col, col+width) of a 2-D constant weight.
Value weightColumns(LinalgBuilder &lb, Value w, int64_t col, int64_t width) {
  return lb.columns(w, col, width);
}

/// GRU reset_after: h U + b_rec for all three gates in one matmul, into
/// `scratch`.
Value gruRecurrentTerms(LinalgBuilder &lb, const Recurrence &r, Value h, Value scratch) {
  Value hu = r.recurrentBias ? lb.broadcastLastAxisInto(r.recurrentBias, scratch)
                             : lb.fill(scratch, 0.0);
  return matmulInto(lb, h, r.recurrentKernel, hu);
}

Value buildRecurrence(LinalgBuilder &lb, const Recurrence &r) {
  OpBuilder &b = lb.b;
  Location loc = lb.loc;
  auto kernelType = cast<RankedTensorType>(r.recurrentKernel.getType());
  int64_t u = kernelType.getDimSize(0);
  int64_t width = kernelType.getDimSize(1);
  OpFoldResult batch = lb.dimOfr(r.projection, 0);
  OpFoldResult steps = lb.dimOfr(r.projection, 1);
  Value stepsValue = lb.toValue(steps);
  Activation act = r.activation, rec = r.recurrentActivation;

  // iter_args: h, [c], scratch..., [sequence].
  SmallVector<Value> inits{lb.fill(lb.fresh({batch, b.getIndexAttr(u)}), 0.0)};
  if (r.cell == Cell::LSTM)
    inits.push_back(lb.fill(lb.fresh({batch, b.getIndexAttr(u)}), 0.0));
  bool twoProducts = r.cell == Cell::GRU && !r.resetAfter;
  if (twoProducts) {
    inits.push_back(lb.fresh({batch, b.getIndexAttr(2 * u)})); // z, r
    inits.push_back(lb.fresh({batch, b.getIndexAttr(u)}));     // r * h
    inits.push_back(lb.fresh({batch, b.getIndexAttr(u)}));     // candidate
  } else {
    inits.push_back(lb.fresh({batch, b.getIndexAttr(width)}));
  }
  size_t sequenceArg = inits.size();
  if (r.returnSequences)
    inits.push_back(lb.fresh({batch, steps, b.getIndexAttr(u)}));

  auto body = [&](OpBuilder &nb, Location l, Value t, ValueRange iters) {
    LinalgBuilder sb(nb, l);
    Value step = t;
    if (r.goBackwards) {
      Value last = arith::SubIOp::create(nb, l, stepsValue, sb.index(1));
      step = arith::SubIOp::create(nb, l, last, t);
    }
    Value h = iters[0];
    SmallVector<Value> yields;
    auto activation = [&](Activation a) {
      return [a](OpBuilder &bb, Location ll, Value x) {
        return scalarActivation(bb, ll, a, shapes::cellAlpha(a), x);
      };
    };
    auto ra = activation(rec), aa = activation(act);
    // A whole (B, u) block through an activation: softmax and log_softmax
    // need their row, so a cell with one of them is built from block-wide
    // steps instead of one fused elementwise body.
    bool rowCell = shapes::isRowActivation(act) ||
                   (r.cell != Cell::SimpleRNN && shapes::isRowActivation(rec));
    auto blockAct = [&](Value block, Activation a) {
      return sb.activate(block, a, shapes::cellAlpha(a));
    };
    auto mix = [](OpBuilder &bb, Location ll, Value z, Value cand, Value hOld) {
      // z * h + (1 - z) * candidate
      Value one = arith::ConstantOp::create(bb, ll, bb.getF32FloatAttr(1));
      Value keep = arith::MulFOp::create(bb, ll, z, hOld);
      Value take = arith::MulFOp::create(
          bb, ll, arith::SubFOp::create(bb, ll, one, z), cand);
      return arith::AddFOp::create(bb, ll, keep, take).getResult();
    };

    if (rowCell) {
      switch (r.cell) {
      case Cell::LSTM: {
        Value c = iters[1], scratch = iters[2];
        Value gates =
            copyInto(sb, sb.timeStep(r.projection, step, 0, width), scratch);
        gates = matmulInto(sb, h, r.recurrentKernel, gates);
        Value i = blockAct(sb.columns(gates, 0, u), rec);
        Value f = blockAct(sb.columns(gates, u, u), rec);
        Value g = blockAct(sb.columns(gates, 2 * u, u), act);
        Value o = blockAct(sb.columns(gates, 3 * u, u), rec);
        Value cNew = sb.map(ValueRange{i, f, g}, c,
                            [](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                              Value fc = arith::MulFOp::create(bb, ll, a[1], a[3]);
                              Value ig = arith::MulFOp::create(bb, ll, a[0], a[2]);
                              return arith::AddFOp::create(bb, ll, fc, ig);
                            });
        Value actC = blockAct(cNew, act);
        Value hNew = sb.map(ValueRange{o, actC}, h,
                            [](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                              return arith::MulFOp::create(bb, ll, a[0], a[1]);
                            });
        yields = {hNew, cNew, gates};
        break;
      }
      case Cell::SimpleRNN: {
        Value scratch = iters[1];
        Value pre = copyInto(sb, sb.timeStep(r.projection, step, 0, u), scratch);
        pre = matmulInto(sb, h, r.recurrentKernel, pre);
        yields = {copyInto(sb, blockAct(pre, act), h), pre};
        break;
      }
      case Cell::GRU: {
        auto add = [](OpBuilder &bb, Location ll, ValueRange a) -> Value {
          return arith::AddFOp::create(bb, ll, a[0], a[1]);
        };
        Value z, rg, cand;
        SmallVector<Value> scratchYields;
        if (r.resetAfter) {
          Value hu = gruRecurrentTerms(sb, r, h, iters[1]);
          z = blockAct(sb.map(ValueRange{sb.timeStep(r.projection, step, 0, u)},
                              sb.columns(hu, 0, u), add),
                       rec);
          rg = blockAct(sb.map(ValueRange{sb.timeStep(r.projection, step, u, u)},
                               sb.columns(hu, u, u), add),
                        rec);
          // x_h + r * (h U_h + b_h)
          Value pre = sb.map(
              ValueRange{sb.timeStep(r.projection, step, 2 * u, u), rg},
              sb.columns(hu, 2 * u, u),
              [](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                Value gated = arith::MulFOp::create(bb, ll, a[1], a[2]);
                return arith::AddFOp::create(bb, ll, a[0], gated);
              });
          cand = blockAct(pre, act);
          scratchYields = {hu};
        } else {
          Value zrBuf = iters[1], rhBuf = iters[2], candBuf = iters[3];
          Value zr =
              copyInto(sb, sb.timeStep(r.projection, step, 0, 2 * u), zrBuf);
          zr = matmulInto(sb, h, weightColumns(sb, r.recurrentKernel, 0, 2 * u),
                          zr);
          z = blockAct(sb.columns(zr, 0, u), rec);
          rg = blockAct(sb.columns(zr, u, u), rec);
          Value rh = sb.map(ValueRange{rg, h}, rhBuf,
                            [](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                              return arith::MulFOp::create(bb, ll, a[0], a[1]);
                            });
          Value pre =
              copyInto(sb, sb.timeStep(r.projection, step, 2 * u, u), candBuf);
          pre = matmulInto(sb, rh,
                           weightColumns(sb, r.recurrentKernel, 2 * u, u), pre);
          cand = blockAct(pre, act);
          scratchYields = {zr, rh, pre};
        }
        Value hNew = sb.map(ValueRange{z, cand}, h,
                            [&](OpBuilder &bb, Location ll, ValueRange a) {
                              return mix(bb, ll, a[0], a[1], a[2]);
                            });
        yields = {hNew};
        yields.append(scratchYields);
        break;
      }
      }
    } else switch (r.cell) {
    case Cell::LSTM: {
      Value c = iters[1], scratch = iters[2];
      Value gates = copyInto(sb, sb.timeStep(r.projection, step, 0, width), scratch);
      gates = matmulInto(sb, h, r.recurrentKernel, gates);
      SmallVector<Value> blocks;
      for (int64_t g = 0; g < 4; ++g)
        blocks.push_back(sb.columns(gates, g * u, u));
      unsigned rank = 2;
      SmallVector<AffineMap> maps(6, sb.identity(rank));
      SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
      auto cellOp = linalg::GenericOp::create(
          nb, l, TypeRange{h.getType(), c.getType()}, blocks, ValueRange{h, c},
          maps, par, [&](OpBuilder &bb, Location ll, ValueRange a) {
            Value i = ra(bb, ll, a[0]), f = ra(bb, ll, a[1]);
            Value g = aa(bb, ll, a[2]), o = ra(bb, ll, a[3]);
            Value fc = arith::MulFOp::create(bb, ll, f, a[5]);
            Value ig = arith::MulFOp::create(bb, ll, i, g);
            Value cNew = arith::AddFOp::create(bb, ll, fc, ig);
            Value hNew = arith::MulFOp::create(bb, ll, o, aa(bb, ll, cNew));
            linalg::YieldOp::create(bb, ll, ValueRange{hNew, cNew});
          });
      yields = {cellOp.getResult(0), cellOp.getResult(1), gates};
      break;
    }
    case Cell::SimpleRNN: {
      Value scratch = iters[1];
      Value pre = copyInto(sb, sb.timeStep(r.projection, step, 0, u), scratch);
      pre = matmulInto(sb, h, r.recurrentKernel, pre);
      Value hNew = sb.map(ValueRange{pre}, h,
                          [&](OpBuilder &bb, Location ll, ValueRange a) {
                            return aa(bb, ll, a[0]);
                          });
      yields = {hNew, pre};
      break;
    }
    case Cell::GRU: {
      if (r.resetAfter) {
        Value hu = gruRecurrentTerms(sb, r, h, iters[1]);
        SmallVector<Value> inputs;
        for (int64_t g = 0; g < 3; ++g)
          inputs.push_back(sb.timeStep(r.projection, step, g * u, u));
        for (int64_t g = 0; g < 3; ++g)
          inputs.push_back(sb.columns(hu, g * u, u));
        Value hNew = sb.map(inputs, h, [&](OpBuilder &bb, Location ll,
                                           ValueRange a) -> Value {
          Value z = ra(bb, ll, arith::AddFOp::create(bb, ll, a[0], a[3]));
          Value rg = ra(bb, ll, arith::AddFOp::create(bb, ll, a[1], a[4]));
          Value cand = aa(bb, ll,
                          arith::AddFOp::create(
                              bb, ll, a[2], arith::MulFOp::create(bb, ll, rg, a[5])));
          Value one = arith::ConstantOp::create(bb, ll, bb.getF32FloatAttr(1));
          Value keep = arith::MulFOp::create(bb, ll, z, a[6]);
          Value take = arith::MulFOp::create(
              bb, ll, arith::SubFOp::create(bb, ll, one, z), cand);
          return arith::AddFOp::create(bb, ll, keep, take);
        });
        yields = {hNew, hu};
      } else {
        // z, r from h U[:, :2u]; the candidate from (r * h) U[:, 2u:].
        Value zrBuf = iters[1], rhBuf = iters[2], candBuf = iters[3];
        Value zr = copyInto(sb, sb.timeStep(r.projection, step, 0, 2 * u), zrBuf);
        zr = matmulInto(sb, h, weightColumns(sb, r.recurrentKernel, 0, 2 * u), zr);
        Value rh = sb.map(ValueRange{sb.columns(zr, u, u), h}, rhBuf,
                          [&](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                            return arith::MulFOp::create(bb, ll, ra(bb, ll, a[0]),
                                                         a[1]);
                          });
        Value cand =
            copyInto(sb, sb.timeStep(r.projection, step, 2 * u, u), candBuf);
        cand = matmulInto(sb, rh, weightColumns(sb, r.recurrentKernel, 2 * u, u),
                          cand);
        Value hNew = sb.map(ValueRange{sb.columns(zr, 0, u), cand}, h,
                            [&](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                              Value z = ra(bb, ll, a[0]);
                              Value hh = aa(bb, ll, a[1]);
                              Value one = arith::ConstantOp::create(
                                  bb, ll, bb.getF32FloatAttr(1));
                              Value keep = arith::MulFOp::create(bb, ll, z, a[2]);
                              Value take = arith::MulFOp::create(
                                  bb, ll, arith::SubFOp::create(bb, ll, one, z), hh);
                              return arith::AddFOp::create(bb, ll, keep, take);
                            });
        yields = {hNew, zr, rh, cand};
      }
      break;
    }
    }
    if (r.returnSequences) {
      Value sequence = iters[sequenceArg];
      SmallVector<OpFoldResult> offsets{nb.getIndexAttr(0), t, nb.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes{sb.dimOfr(sequence, 0), nb.getIndexAttr(1),
                                      nb.getIndexAttr(u)};
      SmallVector<OpFoldResult> strides(3, nb.getIndexAttr(1));
      yields.push_back(tensor::InsertSliceOp::create(nb, l, yields[0], sequence,
                                                     offsets, sizes, strides));
    }
    scf::YieldOp::create(nb, l, yields);
  };

  auto loop = scf::ForOp::create(b, loc, lb.index(0), stepsValue, lb.index(1),
                                 inits, body);
  return r.returnSequences ? loop.getResult(sequenceArg) : loop.getResult(0);
}

} // namespace

Value seq::lowering::lowerRecurrent(LinalgBuilder &lb, Operation *op) {
  Recurrence r;
  auto project = [&](Value x, Value kernel, Value bias) {
    return lb.linear(x, kernel, bias, Activation::Linear, nullptr);
  };
  if (auto o = dyn_cast<LSTMRecurrenceOp>(op)) {
    r = {Cell::LSTM, o.getInputProjection(), o.getRecurrentKernel(), nullptr,
         o.getActivation(), o.getRecurrentActivation(), o.getReturnSequences(),
         o.getGoBackwards(), false};
  } else if (auto o = dyn_cast<GRURecurrenceOp>(op)) {
    r = {Cell::GRU, o.getInputProjection(), o.getRecurrentKernel(),
         o.getRecurrentBias(), o.getActivation(), o.getRecurrentActivation(),
         o.getReturnSequences(), o.getGoBackwards(), o.getResetAfter()};
  } else if (auto o = dyn_cast<SimpleRNNRecurrenceOp>(op)) {
    r = {Cell::SimpleRNN, o.getInputProjection(), o.getRecurrentKernel(),
         nullptr, o.getActivation(), Activation::Sigmoid,
         o.getReturnSequences(), o.getGoBackwards(), false};
  } else if (auto o = dyn_cast<LSTMOp>(op)) {
    r = {Cell::LSTM, project(o.getInput(), o.getKernel(), o.getBias()),
         o.getRecurrentKernel(), nullptr, o.getActivation(),
         o.getRecurrentActivation(), o.getReturnSequences(), o.getGoBackwards(),
         false};
  } else if (auto o = dyn_cast<SimpleRNNOp>(op)) {
    r = {Cell::SimpleRNN, project(o.getInput(), o.getKernel(), o.getBias()),
         o.getRecurrentKernel(), nullptr, o.getActivation(), Activation::Sigmoid,
         o.getReturnSequences(), o.getGoBackwards(), false};
  } else if (auto o = dyn_cast<GRUOp>(op)) {
    Value inputBias = o.getBias(), recurrentBias;
    if (o.getResetAfter() && inputBias) {
      // (2, 3u): row 0 input bias, row 1 recurrent bias.
      int64_t width = cast<RankedTensorType>(inputBias.getType()).getDimSize(1);
      auto rowType = RankedTensorType::get({width}, lb.f32());
      auto row = [&](int64_t i) -> Value {
        SmallVector<OpFoldResult> offsets{lb.b.getIndexAttr(i), lb.b.getIndexAttr(0)};
        SmallVector<OpFoldResult> sizes{lb.b.getIndexAttr(1), lb.b.getIndexAttr(width)};
        SmallVector<OpFoldResult> strides(2, lb.b.getIndexAttr(1));
        return tensor::ExtractSliceOp::create(lb.b, lb.loc, rowType, inputBias,
                                              offsets, sizes, strides);
      };
      recurrentBias = row(1);
      inputBias = row(0);
    }
    r = {Cell::GRU, project(o.getInput(), o.getKernel(), inputBias),
         o.getRecurrentKernel(), recurrentBias, o.getActivation(),
         o.getRecurrentActivation(), o.getReturnSequences(), o.getGoBackwards(),
         o.getResetAfter()};
  } else {
    return nullptr;
  }
  return buildRecurrence(lb, r);
}

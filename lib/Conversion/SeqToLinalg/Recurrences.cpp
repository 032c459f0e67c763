// The time loops of LSTM, GRU and SimpleRNN. The state, a gate scratch
// buffer and the output sequence are iter_args of one scf.for, each step
// writes them with destination-passing linalg ops, so one-shot bufferization
// keeps every buffer in place and the loop allocates nothing.
//
// With a mask, a step computes only the rows that take it: their indices
// are listed, their state and input projection rows gathered into dense
// blocks (loop-carried buffers too), the recurrent GEMM and the cell run on
// those k rows, and the new state is scattered back; the other rows keep
// theirs. A step no row takes is skipped, one every row takes runs on the
// batch as it is. So a batch of sequences of different lengths costs the sum
// of their lengths, not batch x longest, and the input projection stays one
// GEMM over all rows.
#include "LinalgBuilder.h"

#include "seq/Conversion/Passes.h"

#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace seq;
using namespace seq::lowering;

namespace {

enum class Cell { LSTM, GRU, SimpleRNN };

/// At a batch of this many rows or more, each step computes its own rows of
/// the input projection, x_t @ kernel + bias, into a buffer that stays in the
/// cache, instead of reading them from one GEMM over all steps before the
/// loop: that GEMM's (B, T, gates*u) output is far from the cache when the
/// steps read it, a page per row (LSTM(128) at batch 64 and LSTM(256) at
/// batch 32: 3-5% faster). With fewer rows a step would read the input
/// kernel for them alone (LSTM(256) at batch 1: 1.7x slower, at 16 2%).
constexpr int64_t kStepwiseProjectionRows = 32;

/// ...and where a row of the projection before the loop takes this many
/// floats or more (steps x gates*u; or its steps are not known when
/// compiling). A GRU's step only moves where the projection is read from,
/// which pays once the projection has left the cache: a shorter one stays in
/// it whole (GRU(64) and GRU(128) over 10 steps gained 0-1%). An LSTM's or a
/// SimpleRNN's step is one GEMM kernel (stepProjectionFuses), which pays at
/// any length, so its bound is kFusedStepRowFloats at most. Below a bound the
/// second loop would only add code and compile time. A hidden option, so
/// that tests can take the stepwise path with small models.
llvm::cl::opt<int64_t> stepwiseRowFloats(
    "seq-stepwise-projection-row-floats", llvm::cl::Hidden, llvm::cl::init(8192),
    llvm::cl::desc("Floats per row of a recurrence's input projection from which a "
                   "batch of 32 rows or more computes it step by step"));

/// Whether a stepwise step computes its input projection into the recurrent
/// product's accumulator, which the GEMM kernel then runs in the same
/// register blocks as that product (LeadingProduct in GemmKernel.cpp): a cell
/// with a single recurrent product over all the projection's columns. That
/// pays at any length (the seed model's LSTM(64) over 10 steps: 4-5% faster
/// at 32 to 1024 rows; LSTMs of 16 to 128 units over 4 to 10 steps 3.5-7%);
/// a GRU's step keeps the projection's rows in a buffer of their own.
bool stepProjectionFuses(Cell cell) {
  return cell == Cell::LSTM || cell == Cell::SimpleRNN;
}

/// The bound on a fused step's projection rows: below it a call's
/// recurrence takes under a microsecond per row (LSTM(16) over 10 steps:
/// 0.5; a model of a few units over a few steps, the test fixtures' kind),
/// where the fused step saves nanoseconds and its second loop costs 0.2-0.5
/// s of compile time (a recurrent model compiles 50-80% slower with both).
constexpr int64_t kFusedStepRowFloats = 1024;

struct Recurrence {
  Cell cell;
  /// The input projection (B, T, gates*u); null where `input` is set.
  Value projection;
  Value recurrentKernel; // (u, gates*u)
  Value recurrentBias;  // (gates*u) or null; GRU with reset_after only
  Activation activation = Activation::Tanh;
  Activation recurrentActivation = Activation::Sigmoid;
  bool returnSequences = false, goBackwards = false, resetAfter = false;
  Value mask; // (B, T) or null
  bool zeroOutputForMask = false;
  Value initialState; // (states, B, u) or null
  bool finalState = false; // whether the op returns its final state
  /// The input projection as its parts, where it is input (B, T, F) @
  /// inputKernel (F, gates*u) + inputBias (or no bias): buildRecurrence
  /// projects, before the loop or step by step.
  Value input, inputKernel, inputBias;
};

/// `mask`[:, step] as a (B) tensor.
Value maskColumn(LinalgBuilder &lb, Value mask, Value step) {
  auto type = cast<RankedTensorType>(mask.getType());
  auto resultType = RankedTensorType::get({type.getDimSize(0)}, lb.f32());
  SmallVector<OpFoldResult> offsets{lb.b.getIndexAttr(0), step};
  SmallVector<OpFoldResult> sizes{lb.dimOfr(mask, 0), lb.b.getIndexAttr(1)};
  SmallVector<OpFoldResult> strides(2, lb.b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(lb.b, lb.loc, resultType, mask, offsets,
                                        sizes, strides);
}

/// The map (d0, d1) -> (d0): one value per batch row of a (B, n) body.
AffineMap rowMap(LinalgBuilder &lb) {
  return AffineMap::get(2, 0, lb.b.getAffineDimExpr(0), lb.b.getContext());
}

/// `keep` where the row's mask entry is nonzero, else `otherwise`.
Value selectByMask(OpBuilder &b, Location l, Value m, Value keep, Value otherwise) {
  Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0));
  Value on = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, m, zero);
  return arith::SelectOp::create(b, l, on, keep, otherwise);
}

/// The body of a map that copies its first input.
Value firstInput(OpBuilder &, Location, ValueRange a) { return a[0]; }

/// lb.map over a (B, n) `init`, except that rows whose `rowMask` (B) entry
/// is 0 keep init's values. A null `rowMask` is a plain map.
Value maskedMap(LinalgBuilder &lb, ValueRange inputs, Value init, Value rowMask,
                ScalarFn fn) {
  if (!rowMask)
    return lb.map(inputs, init, fn);
  SmallVector<Value> all(inputs);
  all.push_back(rowMask);
  SmallVector<AffineMap> maps(inputs.size(), lb.identity(2));
  maps.push_back(rowMap(lb));
  maps.push_back(lb.identity(2));
  SmallVector<utils::IteratorType> par(2, utils::IteratorType::parallel);
  size_t n = inputs.size();
  return lb.generic(all, init, maps, par,
                    [&](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                      SmallVector<Value> args(a.take_front(n));
                      args.push_back(a[n + 1]);
                      return selectByMask(bb, ll, a[n], fn(bb, ll, args), a[n + 1]);
                    });
}

Value matmulInto(LinalgBuilder &lb, Value lhs, Value rhs, Value acc) {
  return linalg::MatmulOp::create(lb.b, lb.loc, TypeRange{acc.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{acc})
      .getResult(0);
}

/// Columns [col, col+width) of a 2-D constant weight.
Value weightColumns(LinalgBuilder &lb, Value w, int64_t col, int64_t width) {
  return lb.columns(w, col, width);
}

/// `acc` set by `start` (to the step's input projection, a bias, zeros),
/// plus lhs @ rhs, marked kRecurrentProductAttr. Where `lhsIsZero` holds
/// (the first step of a state that starts at zero) the product is zero and
/// is left out: a tenth of the recurrent GEMMs of a 10-step sequence.
/// `start` runs in each branch, so that the GEMM kernel still folds it into
/// its accumulators.
Value startPlusProduct(LinalgBuilder &lb, Value lhsIsZero, Value acc,
                       function_ref<Value(LinalgBuilder &, Value)> start,
                       Value lhs, Value rhs) {
  auto product = [&]() {
    Value result = matmulInto(lb, lhs, rhs, start(lb, acc));
    result.getDefiningOp()->setAttr(kRecurrentProductAttr, lb.b.getUnitAttr());
    return result;
  };
  if (!lhsIsZero)
    return product();
  auto choice = scf::IfOp::create(lb.b, lb.loc, TypeRange{acc.getType()},
                                  lhsIsZero, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(lb.b);
  lb.b.setInsertionPointToStart(&choice.getThenRegion().front());
  scf::YieldOp::create(lb.b, lb.loc, start(lb, acc));
  lb.b.setInsertionPointToStart(&choice.getElseRegion().front());
  scf::YieldOp::create(lb.b, lb.loc, product());
  return choice.getResult(0);
}

/// Marks the matmul that computes `projection` (through a reshape or a
/// cast) with kStreamedOutputAttr.
void markStreamed(Value projection) {
  while (Operation *producer = projection.getDefiningOp()) {
    if (isa<tensor::CastOp, tensor::ExpandShapeOp>(producer)) {
      projection = producer->getOperand(0);
      continue;
    }
    if (isa<linalg::MatmulOp>(producer))
      producer->setAttr(kStreamedOutputAttr, UnitAttr::get(producer->getContext()));
    return;
  }
}

/// The op's output, then its final state when it returns one: the time
/// loop over `projection` (B, T, gates*u), or where `stepwise`, over the
/// rows of r.input @ r.inputKernel + r.inputBias that each step computes.
SmallVector<Value, 2> buildLoop(LinalgBuilder &lb, const Recurrence &r,
                                Value projection, bool stepwise) {
  OpBuilder &b = lb.b;
  Location loc = lb.loc;
  auto kernelType = cast<RankedTensorType>(r.recurrentKernel.getType());
  int64_t u = kernelType.getDimSize(0);
  int64_t width = kernelType.getDimSize(1);
  Value sized = r.input ? r.input : r.projection;
  OpFoldResult batch = lb.dimOfr(sized, 0);
  OpFoldResult steps = lb.dimOfr(sized, 1);
  Value stepsValue = lb.toValue(steps);
  int64_t projectionWidth =
      r.input ? cast<RankedTensorType>(r.inputKernel.getType()).getDimSize(1)
              : cast<RankedTensorType>(r.projection.getType()).getDimSize(2);

  Activation act = r.activation, rec = r.recurrentActivation;

  // iter_args: h, [c], scratch..., [sequence]. The state starts at zero
  // or as a copy of the initial state (which the loop must not write).
  auto startState = [&](int64_t index) {
    Value fresh = lb.fresh({batch, b.getIndexAttr(u)});
    return r.initialState ? lb.copyInto(lb.stateRow(r.initialState, index), fresh)
                          : lb.fill(fresh, 0.0);
  };
  SmallVector<Value> inits{startState(0)};
  if (r.cell == Cell::LSTM)
    inits.push_back(startState(1));
  bool twoProducts = r.cell == Cell::GRU && !r.resetAfter;
  if (twoProducts) {
    inits.push_back(lb.fresh({batch, b.getIndexAttr(2 * u)})); // z, r
    inits.push_back(lb.fresh({batch, b.getIndexAttr(u)}));     // r * h
    inits.push_back(lb.fresh({batch, b.getIndexAttr(u)}));     // candidate
  } else {
    inits.push_back(lb.fresh({batch, b.getIndexAttr(width)}));
  }
  size_t stateCount = r.cell == Cell::LSTM ? 2 : 1;
  size_t cellArgs = inits.size();
  // Where stepwise: the step's rows of the input projection, in a buffer of
  // their own, or computed into the recurrent product's accumulator.
  bool projectionIntoProduct = stepwise && stepProjectionFuses(r.cell);
  size_t stepRowsArg = inits.size();
  if (stepwise && !projectionIntoProduct)
    inits.push_back(lb.fresh({batch, b.getIndexAttr(projectionWidth)}));
  // With a mask, a step runs the cell on the rows it takes only, gathered
  // into dense blocks: their indices, then their h, [c] and projection.
  size_t compactArg = inits.size();
  if (r.mask) {
    SmallVector<int64_t> shape{ShapedType::kDynamic};
    SmallVector<Value> dynamic;
    if (auto size = getConstantIntValue(batch))
      shape[0] = *size;
    else
      dynamic.push_back(cast<Value>(batch));
    inits.push_back(bufferization::AllocTensorOp::create(
        b, loc, RankedTensorType::get(shape, b.getIndexType()), dynamic));
    for (size_t s = 0; s < stateCount; ++s)
      inits.push_back(lb.fresh({batch, b.getIndexAttr(u)}));
    inits.push_back(lb.fresh({batch, b.getIndexAttr(projectionWidth)}));
  }
  size_t sequenceArg = inits.size();
  if (r.returnSequences)
    inits.push_back(lb.fresh({batch, steps, b.getIndexAttr(u)}));
  // The final output of zero_output_for_mask needs the last step's mask.
  bool keepLastMask = r.mask && r.zeroOutputForMask && !r.returnSequences;
  size_t lastMaskArg = inits.size();
  if (keepLastMask)
    inits.push_back(lb.fill(lb.fresh({batch}), 1.0));
  // A masked step emits the previous output: the state, but zeros before
  // the row's first unmasked step, which differs from the state only when
  // that starts nonzero. `seen` (B) is 1 from a row's first unmasked step.
  bool trackSeen = r.mask && r.initialState && !r.zeroOutputForMask;
  size_t seenArg = inits.size();
  if (trackSeen)
    inits.push_back(lb.fill(lb.fresh({batch}), 0.0));

  auto body = [&](OpBuilder &nb, Location l, Value t, ValueRange iters) {
    LinalgBuilder sb(nb, l);
    Value step = t;
    if (r.goBackwards) {
      Value last = arith::SubIOp::create(nb, l, stepsValue, sb.index(1));
      step = arith::SubIOp::create(nb, l, last, t);
    }
    Value m = r.mask ? maskColumn(sb, r.mask, step) : Value();
    // h is zero at the first step unless the op is given a state.
    Value hIsZero =
        r.initialState ? Value()
                       : arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, t,
                                               sb.index(0));
    // The step's rows of the input projection, r.input[:, step] @
    // r.inputKernel + r.inputBias, computed into `acc`.
    auto projectInto = [&](LinalgBuilder &x, Value acc) {
      Value start = r.inputBias ? x.broadcastLastAxisInto(r.inputBias, acc)
                                : x.fill(acc, 0.0);
      int64_t features = cast<RankedTensorType>(r.input.getType()).getDimSize(2);
      return matmulInto(x, x.timeStep(r.input, step, 0, features), r.inputKernel, start);
    };
    // `from` (the step's projection columns; null: projectInto) into
    // `scratch`, plus lhs @ kernel.
    auto projected = [&](Value from, Value scratch, Value lhs, Value kernel) {
      return startPlusProduct(
          sb, hIsZero, scratch,
          [&](LinalgBuilder &x, Value acc) {
            return from ? x.copyInto(from, acc) : projectInto(x, acc);
          },
          lhs, kernel);
    };
    // GRU reset_after: h U + b_rec for all three gates in one matmul.
    auto gruRecurrentTerms = [&](Value h, Value scratch) {
      return startPlusProduct(
          sb, hIsZero, scratch,
          [&](LinalgBuilder &x, Value acc) {
            return r.recurrentBias ? x.broadcastLastAxisInto(r.recurrentBias, acc)
                                   : x.fill(acc, 0.0);
          },
          h, r.recurrentKernel);
    };
    Value seen;
    if (trackSeen)
      seen = sb.map(ValueRange{m}, iters[seenArg],
                    [](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                      return arith::MaximumFOp::create(bb, ll, a[0], a[1]);
                    });
    auto activation = [&](Activation a) {
      return [a](OpBuilder &bb, Location ll, Value x) {
        return cellActivation(bb, ll, a, x);
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

    // One time step of the cell on the rows of `state` (h, [c], scratch...),
    // reading the step's input projection through `proj(col, width)`. With a
    // row mask `mm`, masked rows keep their state.
    auto cellStep = [&](llvm::function_ref<Value(int64_t, int64_t)> proj,
                        ValueRange iters, Value m) {
      Value h = iters[0];
      SmallVector<Value> yields;
      if (rowCell) {
        switch (r.cell) {
        case Cell::LSTM: {
          Value c = iters[1], scratch = iters[2];
          Value gates = projected(proj(0, width), scratch, h, r.recurrentKernel);
          Value i = blockAct(sb.columns(gates, 0, u), rec);
          Value f = blockAct(sb.columns(gates, u, u), rec);
          Value g = blockAct(sb.columns(gates, 2 * u, u), act);
          Value o = blockAct(sb.columns(gates, 3 * u, u), rec);
          Value cNew = maskedMap(sb, ValueRange{i, f, g}, c, m,
                              [](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                                Value fc = arith::MulFOp::create(bb, ll, a[1], a[3]);
                                Value ig = arith::MulFOp::create(bb, ll, a[0], a[2]);
                                return arith::AddFOp::create(bb, ll, fc, ig);
                              });
          Value actC = blockAct(cNew, act);
          Value hNew = maskedMap(sb, ValueRange{o, actC}, h, m,
                              [](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                                return arith::MulFOp::create(bb, ll, a[0], a[1]);
                              });
          yields = {hNew, cNew, gates};
          break;
        }
        case Cell::SimpleRNN: {
          Value scratch = iters[1];
          Value pre = projected(proj(0, u), scratch, h, r.recurrentKernel);
          Value hNew = maskedMap(sb, ValueRange{blockAct(pre, act)}, h, m,
                                 firstInput);
          yields = {hNew, pre};
          break;
        }
        case Cell::GRU: {
          auto add = [](OpBuilder &bb, Location ll, ValueRange a) -> Value {
            return arith::AddFOp::create(bb, ll, a[0], a[1]);
          };
          Value z, rg, cand;
          SmallVector<Value> scratchYields;
          if (r.resetAfter) {
            Value hu = gruRecurrentTerms(h, iters[1]);
            z = blockAct(sb.map(ValueRange{proj(0, u)},
                                sb.columns(hu, 0, u), add),
                         rec);
            rg = blockAct(sb.map(ValueRange{proj(u, u)},
                                 sb.columns(hu, u, u), add),
                          rec);
            // x_h + r * (h U_h + b_h)
            Value pre = sb.map(
                ValueRange{proj(2 * u, u), rg},
                sb.columns(hu, 2 * u, u),
                [](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                  Value gated = arith::MulFOp::create(bb, ll, a[1], a[2]);
                  return arith::AddFOp::create(bb, ll, a[0], gated);
                });
            cand = blockAct(pre, act);
            scratchYields = {hu};
          } else {
            Value zrBuf = iters[1], rhBuf = iters[2], candBuf = iters[3];
            Value zr = projected(proj(0, 2 * u), zrBuf, h,
                                 weightColumns(sb, r.recurrentKernel, 0, 2 * u));
            z = blockAct(sb.columns(zr, 0, u), rec);
            rg = blockAct(sb.columns(zr, u, u), rec);
            Value rh = sb.map(ValueRange{rg, h}, rhBuf,
                              [](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                                return arith::MulFOp::create(bb, ll, a[0], a[1]);
                              });
            Value pre = projected(proj(2 * u, u), candBuf, rh,
                                  weightColumns(sb, r.recurrentKernel, 2 * u, u));
            cand = blockAct(pre, act);
            scratchYields = {zr, rh, pre};
          }
          Value hNew = maskedMap(sb, ValueRange{z, cand}, h, m,
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
        Value gates = projected(proj(0, width), scratch, h, r.recurrentKernel);
        SmallVector<Value> blocks;
        for (int64_t g = 0; g < 4; ++g)
          blocks.push_back(sb.columns(gates, g * u, u));
        unsigned rank = 2;
        SmallVector<AffineMap> maps(4, sb.identity(rank));
        if (m) {
          blocks.push_back(m);
          maps.push_back(rowMap(sb));
        }
        maps.append(2, sb.identity(rank));
        SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
        auto cellOp = linalg::GenericOp::create(
            nb, l, TypeRange{h.getType(), c.getType()}, blocks, ValueRange{h, c},
            maps, par, [&](OpBuilder &bb, Location ll, ValueRange a) {
              Value hOld = a[a.size() - 2], cOld = a[a.size() - 1];
              Value cNew = lstmCellState(bb, ll, rec, act, a[0], a[1], a[2], cOld);
              Value hNew = lstmCellOutput(bb, ll, rec, act, a[3], cNew);
              if (m) {
                hNew = selectByMask(bb, ll, a[4], hNew, hOld);
                cNew = selectByMask(bb, ll, a[4], cNew, cOld);
              }
              linalg::YieldOp::create(bb, ll, ValueRange{hNew, cNew});
            });
        yields = {cellOp.getResult(0), cellOp.getResult(1), gates};
        break;
      }
      case Cell::SimpleRNN: {
        Value scratch = iters[1];
        Value pre = projected(proj(0, u), scratch, h, r.recurrentKernel);
        Value hNew = maskedMap(sb, ValueRange{pre}, h, m,
                            [&](OpBuilder &bb, Location ll, ValueRange a) {
                              return aa(bb, ll, a[0]);
                            });
        yields = {hNew, pre};
        break;
      }
      case Cell::GRU: {
        if (r.resetAfter) {
          Value hu = gruRecurrentTerms(h, iters[1]);
          SmallVector<Value> inputs;
          for (int64_t g = 0; g < 3; ++g)
            inputs.push_back(proj(g * u, u));
          for (int64_t g = 0; g < 3; ++g)
            inputs.push_back(sb.columns(hu, g * u, u));
          Value hNew = maskedMap(sb, inputs, h, m, [&](OpBuilder &bb, Location ll,
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
          Value zr = projected(proj(0, 2 * u), zrBuf, h,
                               weightColumns(sb, r.recurrentKernel, 0, 2 * u));
          Value rh = sb.map(ValueRange{sb.columns(zr, u, u), h}, rhBuf,
                            [&](OpBuilder &bb, Location ll, ValueRange a) -> Value {
                              return arith::MulFOp::create(bb, ll, ra(bb, ll, a[0]),
                                                           a[1]);
                            });
          Value cand = projected(proj(2 * u, u), candBuf, rh,
                                 weightColumns(sb, r.recurrentKernel, 2 * u, u));
          Value hNew = maskedMap(sb, ValueRange{sb.columns(zr, 0, u), cand}, h, m,
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
      return yields;
    };
    // Where stepwise, the step's rows of the projection, into their buffer.
    Value stepRows;
    if (stepwise && !projectionIntoProduct)
      stepRows = projectInto(sb, iters[stepRowsArg]);
    auto stepProj = [&](int64_t col, int64_t w) -> Value {
      if (projectionIntoProduct)
        return nullptr; // LSTM and SimpleRNN read it all, in `projected`
      return stepRows ? sb.columns(stepRows, col, w)
                      : sb.timeStep(projection, step, col, w);
    };
    SmallVector<Value> yields;
    if (!m) {
      yields = cellStep(stepProj, iters.take_front(cellArgs), Value());
      if (stepRows)
        yields.push_back(stepRows);
    } else {
      // idx[0, k) lists the rows that take this step (the mask is data: it
      // may have holes, not only padded tails). No row: the state stays. All
      // rows: the cell on the whole batch. Otherwise the cell runs on those
      // k rows gathered, and their new state is scattered back.
      Value zero = sb.index(0), one = sb.index(1);
      Value batchSize = sb.dim(iters[0], 0);
      auto listing = scf::ForOp::create(
          nb, l, zero, batchSize, one, ValueRange{zero, iters[compactArg]},
          [&](OpBuilder &cb, Location cl, Value row, ValueRange it) {
            Value value =
                tensor::ExtractOp::create(cb, cl, r.mask, ValueRange{row, step});
            Value on = arith::CmpFOp::create(
                cb, cl, arith::CmpFPredicate::UNE, value,
                arith::ConstantOp::create(cb, cl, cb.getF32FloatAttr(0)));
            Value listed =
                tensor::InsertOp::create(cb, cl, row, it[1], ValueRange{it[0]});
            Value next = arith::SelectOp::create(
                cb, cl, on, arith::AddIOp::create(cb, cl, it[0], one), it[0]);
            scf::YieldOp::create(cb, cl, ValueRange{next, listed});
          });
      Value k = listing.getResult(0), idx = listing.getResult(1);
      SmallVector<Value> kept(iters.take_front(sequenceArg));
      kept[compactArg] = idx;
      TypeRange types = iters.take_front(sequenceArg).getTypes();
      auto none = scf::IfOp::create(
          nb, l, types,
          arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, k, zero),
          /*withElseRegion=*/true);
      nb.setInsertionPointToStart(&none.getThenRegion().front());
      scf::YieldOp::create(nb, l, kept);
      nb.setInsertionPointToStart(&none.getElseRegion().front());
      auto all = scf::IfOp::create(
          nb, l, types,
          arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, k, batchSize),
          /*withElseRegion=*/true);
      nb.setInsertionPointToStart(&all.getThenRegion().front());
      SmallVector<Value> whole =
          cellStep(stepProj, iters.take_front(cellArgs), Value());
      whole.append(kept.begin() + cellArgs, kept.end());
      scf::YieldOp::create(nb, l, whole);

      nb.setInsertionPointToStart(&all.getElseRegion().front());
      SmallVector<OpFoldResult> origin(2, nb.getIndexAttr(0));
      SmallVector<OpFoldResult> unit(2, nb.getIndexAttr(1));
      auto rowsOf = [&](Value buffer) -> Value { // rows [0, k)
        auto type = cast<RankedTensorType>(buffer.getType());
        auto sliceType =
            RankedTensorType::get({ShapedType::kDynamic, type.getDimSize(1)}, sb.f32());
        SmallVector<OpFoldResult> sizes{k, sb.dimOfr(buffer, 1)};
        return tensor::ExtractSliceOp::create(nb, l, sliceType, buffer, origin,
                                              sizes, unit);
      };
      auto putRows = [&](Value rows, Value buffer) -> Value {
        SmallVector<OpFoldResult> sizes{k, sb.dimOfr(buffer, 1)};
        return tensor::InsertSliceOp::create(nb, l, rows, buffer, origin, sizes,
                                             unit);
      };
      // Row j of rows [0, k) of `buffer` := row idx[j] of `from` (at this
      // step when `from` is the (B, T, n) projection).
      auto gather = [&](Value from, Value buffer) -> Value {
        Value rows = rowsOf(buffer);
        bool timed = cast<RankedTensorType>(from.getType()).getRank() == 3;
        SmallVector<utils::IteratorType> par(2, utils::IteratorType::parallel);
        return linalg::GenericOp::create(
                   nb, l, TypeRange{rows.getType()}, ValueRange{}, ValueRange{rows},
                   ArrayRef<AffineMap>{sb.identity(2)}, par,
                   [&](OpBuilder &gb, Location gl, ValueRange) {
                     Value j = linalg::IndexOp::create(gb, gl, 0);
                     Value column = linalg::IndexOp::create(gb, gl, 1);
                     SmallVector<Value> at{
                         tensor::ExtractOp::create(gb, gl, idx, ValueRange{j})};
                     if (timed)
                       at.push_back(step);
                     at.push_back(column);
                     linalg::YieldOp::create(
                         gb, gl, ValueRange{tensor::ExtractOp::create(gb, gl, from, at)});
                   })
            .getResult(0);
      };
      size_t projectionArg = compactArg + 1 + stateCount;
      SmallVector<Value> cellIters;
      for (size_t s = 0; s < stateCount; ++s)
        cellIters.push_back(gather(iters[s], iters[compactArg + 1 + s]));
      for (size_t s = stateCount; s < cellArgs; ++s)
        cellIters.push_back(rowsOf(iters[s]));
      Value projectionRows = gather(projection, iters[projectionArg]);
      SmallVector<Value> next = cellStep(
          [&](int64_t col, int64_t w) { return sb.columns(projectionRows, col, w); },
          cellIters, Value());
      auto scatter = scf::ForOp::create(
          nb, l, zero, k, one, iters.take_front(stateCount),
          [&](OpBuilder &cb, Location cl, Value j, ValueRange it) {
            Value to = tensor::ExtractOp::create(cb, cl, idx, ValueRange{j});
            auto rowType = RankedTensorType::get({1, u}, cb.getF32Type());
            SmallVector<OpFoldResult> sizes{cb.getIndexAttr(1), cb.getIndexAttr(u)};
            SmallVector<OpFoldResult> from{j, cb.getIndexAttr(0)};
            SmallVector<OpFoldResult> into{to, cb.getIndexAttr(0)};
            SmallVector<Value> states;
            for (size_t s = 0; s < stateCount; ++s) {
              Value row = tensor::ExtractSliceOp::create(cb, cl, rowType, next[s],
                                                         from, sizes, unit);
              states.push_back(tensor::InsertSliceOp::create(cb, cl, row, it[s],
                                                             into, sizes, unit));
            }
            scf::YieldOp::create(cb, cl, states);
          });
      SmallVector<Value> compacted(scatter.getResults());
      for (size_t s = stateCount; s < cellArgs; ++s)
        compacted.push_back(putRows(next[s], iters[s]));
      compacted.push_back(idx);
      for (size_t s = 0; s < stateCount; ++s)
        compacted.push_back(putRows(next[s], iters[compactArg + 1 + s]));
      compacted.push_back(putRows(projectionRows, iters[projectionArg]));
      scf::YieldOp::create(nb, l, compacted);

      nb.setInsertionPointAfter(all);
      scf::YieldOp::create(nb, l, all.getResults());
      nb.setInsertionPointAfter(none);
      yields.assign(none.getResults().begin(), none.getResults().end());
    }
    if (r.returnSequences) {
      Value sequence = iters[sequenceArg];
      SmallVector<OpFoldResult> offsets{nb.getIndexAttr(0), t, nb.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes{sb.dimOfr(sequence, 0), nb.getIndexAttr(1),
                                      nb.getIndexAttr(u)};
      SmallVector<OpFoldResult> strides(3, nb.getIndexAttr(1));
      Value output = yields[0];
      if ((r.mask && r.zeroOutputForMask) || seen) {
        // Written into the sequence's own slice: masked rows (or rows not
        // yet seen) emit zeros.
        auto rowType = cast<RankedTensorType>(iters[0].getType());
        Value slice = tensor::ExtractSliceOp::create(nb, l, rowType, sequence,
                                                     offsets, sizes, strides);
        output = maskedMap(sb, ValueRange{output}, sb.fill(slice, 0.0),
                           seen ? seen : m, firstInput);
      }
      yields.push_back(tensor::InsertSliceOp::create(nb, l, output, sequence,
                                                     offsets, sizes, strides));
    }
    if (keepLastMask)
      yields.push_back(sb.copyInto(m, iters[lastMaskArg]));
    if (seen)
      yields.push_back(seen);
    scf::YieldOp::create(nb, l, yields);
  };

  auto loop = scf::ForOp::create(b, loc, lb.index(0), stepsValue, lb.index(1),
                                 inits, body);
  SmallVector<Value, 2> results;
  Value last = loop.getResult(0);
  if (r.returnSequences) {
    results.push_back(loop.getResult(sequenceArg));
  } else if (trackSeen) {
    Value zeros = lb.fill(lb.empty(lb.dims(last)), 0.0);
    results.push_back(maskedMap(lb, ValueRange{last}, zeros,
                                loop.getResult(seenArg), firstInput));
  } else if (!keepLastMask) {
    results.push_back(last);
  } else {
    // zero_output_for_mask: a row whose last processed step is masked gives 0.
    Value zeros = lb.fill(lb.empty(lb.dims(last)), 0.0);
    results.push_back(maskedMap(lb, ValueRange{last}, zeros,
                                loop.getResult(lastMaskArg), firstInput));
  }
  if (r.finalState)
    results.push_back(lb.stackStates(
        loop.getResults().take_front(r.cell == Cell::LSTM ? 2 : 1)));
  return results;
}

/// buildLoop over the projection computed before the loop, or where r.input
/// gives its parts, no mask says which rows take a step (a masked step
/// gathers its rows from the projection) and its rows are long
/// (stepwiseRowFloats), at a batch of kStepwiseProjectionRows or more, over
/// rows each step computes: decided here for a static batch, else by a
/// branch between the two loops.
SmallVector<Value, 2> buildRecurrence(LinalgBuilder &lb, const Recurrence &r) {
  if (!r.input) {
    markStreamed(r.projection);
    return buildLoop(lb, r, r.projection, /*stepwise=*/false);
  }
  auto projectBefore = [&](LinalgBuilder &x) {
    Value projection = x.linear(r.input, r.inputKernel, r.inputBias,
                                Activation::Linear, nullptr);
    markStreamed(projection);
    return buildLoop(x, r, projection, /*stepwise=*/false);
  };
  std::optional<int64_t> steps = getConstantIntValue(lb.dimOfr(r.input, 1));
  int64_t width = cast<RankedTensorType>(r.inputKernel.getType()).getDimSize(1);
  int64_t rowBound = stepProjectionFuses(r.cell)
                         ? std::min<int64_t>(stepwiseRowFloats, kFusedStepRowFloats)
                         : stepwiseRowFloats;
  if (r.mask || (steps && *steps * width < rowBound))
    return projectBefore(lb);
  if (std::optional<int64_t> rows = getConstantIntValue(lb.dimOfr(r.input, 0)))
    return *rows >= kStepwiseProjectionRows
               ? buildLoop(lb, r, nullptr, /*stepwise=*/true)
               : projectBefore(lb);
  Value stepwise =
      arith::CmpIOp::create(lb.b, lb.loc, arith::CmpIPredicate::sge,
                            lb.dim(r.input, 0), lb.index(kStepwiseProjectionRows));
  auto choice = scf::IfOp::create(
      lb.b, lb.loc, stepwise,
      [&](OpBuilder &b, Location loc) {
        LinalgBuilder x(b, loc);
        scf::YieldOp::create(b, loc, buildLoop(x, r, nullptr, /*stepwise=*/true));
      },
      [&](OpBuilder &b, Location loc) {
        LinalgBuilder x(b, loc);
        scf::YieldOp::create(b, loc, projectBefore(x));
      });
  return SmallVector<Value, 2>(choice.getResults());
}

} // namespace

bool seq::lowering::isProjectionOfRecurrence(Operation *op) {
  auto linear = dyn_cast<LinearOp>(op);
  if (!linear || linear.getActivation() != Activation::Linear ||
      cast<RankedTensorType>(linear.getInput().getType()).getRank() != 3 ||
      !linear->hasOneUse())
    return false;
  OpOperand &use = *linear->getUses().begin();
  return use.getOperandNumber() == 0 &&
         isa<LSTMRecurrenceOp, GRURecurrenceOp, SimpleRNNRecurrenceOp>(use.getOwner());
}

SmallVector<Value, 2> seq::lowering::lowerRecurrent(LinalgBuilder &lb,
                                                    Operation *op) {
  Recurrence r;
  auto projectFrom = [&](Value x, Value kernel, Value bias) {
    r.input = x;
    r.inputKernel = kernel;
    r.inputBias = bias;
  };
  // A kernel-level op's projection: its parts where a linear op computes it
  // for this op alone (isProjectionOfRecurrence: not lowered before it).
  auto projectionOf = [&](Value projection) {
    auto linear = projection.getDefiningOp<LinearOp>();
    if (linear && isProjectionOfRecurrence(linear))
      projectFrom(linear.getInput(), linear.getWeight(), linear.getBias());
    else
      r.projection = projection;
  };
  if (auto o = dyn_cast<LSTMRecurrenceOp>(op)) {
    r = {Cell::LSTM, nullptr, o.getRecurrentKernel(), nullptr,
         o.getActivation(), o.getRecurrentActivation(), o.getReturnSequences(),
         o.getGoBackwards(), false};
    projectionOf(o.getInputProjection());
  } else if (auto o = dyn_cast<GRURecurrenceOp>(op)) {
    r = {Cell::GRU, nullptr, o.getRecurrentKernel(),
         o.getRecurrentBias(), o.getActivation(), o.getRecurrentActivation(),
         o.getReturnSequences(), o.getGoBackwards(), o.getResetAfter()};
    projectionOf(o.getInputProjection());
  } else if (auto o = dyn_cast<SimpleRNNRecurrenceOp>(op)) {
    r = {Cell::SimpleRNN, nullptr, o.getRecurrentKernel(),
         nullptr, o.getActivation(), Activation::Sigmoid,
         o.getReturnSequences(), o.getGoBackwards(), false};
    projectionOf(o.getInputProjection());
  } else if (auto o = dyn_cast<LSTMOp>(op)) {
    r = {Cell::LSTM, nullptr, o.getRecurrentKernel(), nullptr, o.getActivation(),
         o.getRecurrentActivation(), o.getReturnSequences(), o.getGoBackwards(),
         false};
    projectFrom(o.getInput(), o.getKernel(), o.getBias());
  } else if (auto o = dyn_cast<SimpleRNNOp>(op)) {
    r = {Cell::SimpleRNN, nullptr, o.getRecurrentKernel(), nullptr,
         o.getActivation(), Activation::Sigmoid, o.getReturnSequences(),
         o.getGoBackwards(), false};
    projectFrom(o.getInput(), o.getKernel(), o.getBias());
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
    r = {Cell::GRU, nullptr, o.getRecurrentKernel(), recurrentBias,
         o.getActivation(), o.getRecurrentActivation(), o.getReturnSequences(),
         o.getGoBackwards(), o.getResetAfter()};
    projectFrom(o.getInput(), o.getKernel(), inputBias);
  } else {
    return {};
  }
  llvm::TypeSwitch<Operation *>(op)
      .Case<LSTMOp, GRUOp, SimpleRNNOp, LSTMRecurrenceOp, GRURecurrenceOp,
            SimpleRNNRecurrenceOp>([&](auto o) {
        r.mask = o.getMask();
        r.zeroOutputForMask = o.getZeroOutputForMask();
        r.initialState = o.getInitialState();
        r.finalState = static_cast<bool>(o.getFinalState());
      });
  return buildRecurrence(lb, r);
}

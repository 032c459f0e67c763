//===- OpEvaluation.cpp - One seq op on runtime tensors -------------------===//
//
// Each op maps onto one reference kernel (ReferenceKernels.h) with the op's
// attributes translated to the kernel's options.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluation.h"
#include "Diagnostics.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"
#include "seq/Runtime/ReferenceKernels.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/TypeSwitch.h"

#include <type_traits>

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::Twine;

namespace seq::rt::eager {

namespace {

//===----------------------------------------------------------------------===//
// Dialect attributes to kernel options
//===----------------------------------------------------------------------===//

rt::Activation kernelActivation(::seq::Activation a) {
  switch (a) {
  case ::seq::Activation::Linear:
    return rt::Activation::Linear;
  case ::seq::Activation::Relu:
    return rt::Activation::Relu;
  case ::seq::Activation::Tanh:
    return rt::Activation::Tanh;
  case ::seq::Activation::Sigmoid:
    return rt::Activation::Sigmoid;
  case ::seq::Activation::HardSigmoidKeras2:
    return rt::Activation::HardSigmoidKeras2;
  case ::seq::Activation::HardSigmoidKeras3:
    return rt::Activation::HardSigmoidKeras3;
  case ::seq::Activation::Softmax:
    return rt::Activation::Softmax;
  case ::seq::Activation::Elu:
    return rt::Activation::Elu;
  case ::seq::Activation::Selu:
    return rt::Activation::Selu;
  case ::seq::Activation::Gelu:
    return rt::Activation::Gelu;
  case ::seq::Activation::GeluTanh:
    return rt::Activation::GeluTanh;
  case ::seq::Activation::Swish:
    return rt::Activation::Swish;
  case ::seq::Activation::Softplus:
    return rt::Activation::Softplus;
  case ::seq::Activation::Softsign:
    return rt::Activation::Softsign;
  case ::seq::Activation::LeakyRelu:
    return rt::Activation::LeakyRelu;
  case ::seq::Activation::Exponential:
    return rt::Activation::Exponential;
  case ::seq::Activation::Relu6:
    return rt::Activation::Relu6;
  case ::seq::Activation::HardSilu:
    return rt::Activation::HardSilu;
  case ::seq::Activation::Mish:
    return rt::Activation::Mish;
  case ::seq::Activation::LogSoftmax:
    return rt::Activation::LogSoftmax;
  case ::seq::Activation::Celu:
    return rt::Activation::Celu;
  case ::seq::Activation::HardTanh:
    return rt::Activation::HardTanh;
  case ::seq::Activation::LogSigmoid:
    return rt::Activation::LogSigmoid;
  case ::seq::Activation::SparsePlus:
    return rt::Activation::SparsePlus;
  case ::seq::Activation::Squareplus:
    return rt::Activation::Squareplus;
  case ::seq::Activation::TanhShrink:
    return rt::Activation::TanhShrink;
  case ::seq::Activation::SoftShrink:
    return rt::Activation::SoftShrink;
  case ::seq::Activation::HardShrink:
    return rt::Activation::HardShrink;
  case ::seq::Activation::SparseSigmoid:
    return rt::Activation::SparseSigmoid;
  case ::seq::Activation::ThresholdedRelu:
    return rt::Activation::ThresholdedRelu;
  case ::seq::Activation::Sqrt:
    return rt::Activation::Sqrt;
  case ::seq::Activation::Rsqrt:
    return rt::Activation::Rsqrt;
  case ::seq::Activation::Log:
    return rt::Activation::Log;
  case ::seq::Activation::Abs:
    return rt::Activation::Abs;
  case ::seq::Activation::Reciprocal:
    return rt::Activation::Reciprocal;
  }
  llvm_unreachable("unknown activation");
}

rt::Padding kernelPadding(::seq::Padding p) {
  switch (p) {
  case ::seq::Padding::Valid:
    return rt::Padding::Valid;
  case ::seq::Padding::Same:
    return rt::Padding::Same;
  case ::seq::Padding::Causal:
    return rt::Padding::Causal;
  }
  llvm_unreachable("unknown padding");
}

rt::MergeMode kernelMergeMode(::seq::MergeMode m) {
  switch (m) {
  case ::seq::MergeMode::Concat:
    return rt::MergeMode::Concat;
  case ::seq::MergeMode::Sum:
    return rt::MergeMode::Sum;
  case ::seq::MergeMode::Mul:
    return rt::MergeMode::Mul;
  case ::seq::MergeMode::Ave:
    return rt::MergeMode::Ave;
  }
  llvm_unreachable("unknown merge mode");
}

/// The leaky_relu slope / elu alpha; the verifier makes it present exactly
/// where it is used.
float alphaValue(std::optional<llvm::APFloat> alpha) {
  return alpha ? alpha->convertToFloat() : 0.0f;
}

//===----------------------------------------------------------------------===//
// Operand checks for sizes the types leave dynamic
//===----------------------------------------------------------------------===//

/// Reads operands; an absent optional operand is null.
class Operands {
public:
  explicit Operands(ValueLookup lookup) : lookup(lookup) {}
  const Tensor &operator()(Value v) const { return lookup(v); }
  const Tensor *optional(Value v) const { return v ? &lookup(v) : nullptr; }

private:
  ValueLookup lookup;
};

Error requireRank(Operation *op, const Tensor &t, int64_t rank,
                  const Twine &what) {
  if (t.rank() == rank)
    return Error::success();
  return opError(op, what + " has shape " + t.shapeString() +
                         ", expected rank " + Twine(rank));
}

/// Axis `axis` of `t` must be `size`, e.g. the input features a kernel expects.
Error requireSize(Operation *op, const Tensor &t, int64_t axis, int64_t size,
                  const Twine &what, const Twine &expectedBy) {
  if (axis < t.rank() && t.shape[axis] == size)
    return Error::success();
  return opError(op, what + " has shape " + t.shapeString() + " but " +
                         expectedBy + " expects " + Twine(size) +
                         " along axis " + Twine(axis));
}

Error requireLastAxis(Operation *op, const Tensor &t, int64_t size,
                      const Twine &expectedBy) {
  if (t.rank() < 1)
    return opError(op, "input has shape " + t.shapeString() +
                           ", expected at least one axis");
  return requireSize(op, t, t.rank() - 1, size, "input", expectedBy);
}

/// A sliding window along time must fit: output length > 0.
Error requireWindowFits(Operation *op, const Tensor &x, int64_t length,
                        int64_t span) {
  if (length > 0)
    return Error::success();
  return opError(op, "the input has " + Twine(x.shape[1]) +
                         " timesteps, fewer than the window span " +
                         Twine(span) + " (input shape " + x.shapeString() +
                         ")");
}

//===----------------------------------------------------------------------===//
// Layer level
//===----------------------------------------------------------------------===//

template <typename DenseLike>
Expected<Tensor> evaluateDense(DenseLike op, const Tensor &x,
                               const Tensor &kernel, const Tensor *bias) {
  if (x.rank() < 2)
    return opError(op, "input has shape " + x.shapeString() +
                           ", expected rank >= 2");
  if (Error e = requireLastAxis(op, x, kernel.shape[0], "the kernel"))
    return std::move(e);
  return dense(x, kernel, bias, kernelActivation(op.getActivation()),
               alphaValue(op.getAlpha()));
}

template <typename RecurrentOp>
RnnOptions rnnOptions(RecurrentOp op, const Operands &in,
                      ::seq::Activation activation,
                      ::seq::Activation recurrentActivation, Tensor *finalState) {
  RnnOptions options;
  options.mask = in.optional(op.getMask());
  options.initialState = in.optional(op.getInitialState());
  if (op.getFinalState())
    options.finalState = finalState;
  options.zeroOutputForMask = op.getZeroOutputForMask();
  options.returnSequences = op.getReturnSequences();
  options.goBackwards = op.getGoBackwards();
  options.activation = kernelActivation(activation);
  options.recurrentActivation = kernelActivation(recurrentActivation);
  options.alpha = shapes::cellAlpha(activation);
  options.recurrentAlpha = shapes::cellAlpha(recurrentActivation);
  return options;
}

/// x (B, T, features) with the features the kernel expects.
Error checkRecurrentInput(Operation *op, const Tensor &x,
                          const Tensor &kernel) {
  if (Error e = requireRank(op, x, 3, "input"))
    return e;
  return requireSize(op, x, 2, kernel.shape[0], "input", "the kernel");
}

Expected<Tensor> evaluate(LSTMOp op, const Operands &in, Tensor *finalState) {
  const Tensor &x = in(op.getInput()), &kernel = in(op.getKernel());
  if (Error e = checkRecurrentInput(op, x, kernel))
    return std::move(e);
  return lstm(x, kernel, in(op.getRecurrentKernel()), in.optional(op.getBias()),
              rnnOptions(op, in, op.getActivation(), op.getRecurrentActivation(), finalState));
}

Expected<Tensor> evaluate(GRUOp op, const Operands &in, Tensor *finalState) {
  const Tensor &x = in(op.getInput()), &kernel = in(op.getKernel());
  if (Error e = checkRecurrentInput(op, x, kernel))
    return std::move(e);
  return gru(x, kernel, in(op.getRecurrentKernel()), in.optional(op.getBias()),
             op.getResetAfter(),
             rnnOptions(op, in, op.getActivation(), op.getRecurrentActivation(), finalState));
}

Expected<Tensor> evaluate(SimpleRNNOp op, const Operands &in, Tensor *finalState) {
  const Tensor &x = in(op.getInput()), &kernel = in(op.getKernel());
  if (Error e = checkRecurrentInput(op, x, kernel))
    return std::move(e);
  return simpleRnn(x, kernel, in(op.getRecurrentKernel()),
                   in.optional(op.getBias()),
                   rnnOptions(op, in, op.getActivation(), op.getActivation(), finalState));
}

rt::MergeKind kernelMergeKind(::seq::MergeKind kind) {
  switch (kind) {
  case ::seq::MergeKind::Add:
    return rt::MergeKind::Add;
  case ::seq::MergeKind::Subtract:
    return rt::MergeKind::Subtract;
  case ::seq::MergeKind::Multiply:
    return rt::MergeKind::Multiply;
  case ::seq::MergeKind::Average:
    return rt::MergeKind::Average;
  case ::seq::MergeKind::Maximum:
    return rt::MergeKind::Maximum;
  case ::seq::MergeKind::Minimum:
    return rt::MergeKind::Minimum;
  case ::seq::MergeKind::Divide:
    return rt::MergeKind::Divide;
  }
  llvm_unreachable("unknown merge kind");
}

/// The inputs of a merge, which must agree off `freeAxis` (-1: everywhere)
/// in the sizes only the data fix.
Expected<std::vector<const Tensor *>> mergeInputs(Operation *op, const Operands &in,
                                                  int64_t freeAxis) {
  std::vector<const Tensor *> inputs;
  for (Value v : op->getOperands())
    inputs.push_back(&in(v));
  for (const Tensor *t : inputs) {
    bool fits = t->rank() == inputs[0]->rank();
    for (int64_t a = 0; fits && a < t->rank(); ++a)
      fits = a == freeAxis || t->shape[a] == inputs[0]->shape[a];
    if (!fits)
      return opError(op, "inputs of shapes " + inputs[0]->shapeString() + " and " +
                             t->shapeString() + " do not fit together");
  }
  return inputs;
}

Expected<Tensor> evaluate(MergeOp op, const Operands &in) {
  // The axes of static size 1 in an input's type broadcast; on the others
  // the inputs agree.
  std::vector<const Tensor *> inputs;
  size_t rank = in(op.getInputs()[0]).shape.size();
  std::vector<int64_t> size(rank, -1);
  for (Value v : op.getInputs()) {
    const Tensor &t = in(v);
    ArrayRef<int64_t> type = cast<RankedTensorType>(v.getType()).getShape();
    bool fits = t.shape.size() == rank;
    for (size_t a = 0; fits && a < rank; ++a) {
      if (type[a] == 1)
        continue;
      fits = size[a] == -1 || size[a] == t.shape[a];
      size[a] = t.shape[a];
    }
    if (!fits)
      return opError(op, "inputs of shapes " + in(op.getInputs()[0]).shapeString() + " and " +
                             t.shapeString() + " do not fit together");
    inputs.push_back(&t);
  }
  return merge(inputs, kernelMergeKind(op.getKind()));
}

Expected<Tensor> evaluate(StackOp op, const Operands &in) {
  Expected<std::vector<const Tensor *>> inputs = mergeInputs(op, in, -1);
  if (!inputs)
    return inputs.takeError();
  Tensor y;
  y.shape = (*inputs)[0]->shape;
  y.shape.insert(y.shape.begin(), static_cast<int64_t>(inputs->size()));
  for (const Tensor *t : *inputs)
    y.data.insert(y.data.end(), t->data.begin(), t->data.end());
  return y;
}

Expected<Tensor> evaluate(UnstackOp op, const Operands &in) {
  const Tensor &x = in(op.getInput());
  int64_t n = x.shape.empty() ? 0 : x.shape[0];
  int64_t index = static_cast<int64_t>(op.getIndex());
  if (index >= n)
    return opError(op, "input has shape " + x.shapeString() + ", without slice " +
                           Twine(index));
  Tensor y;
  y.shape.assign(x.shape.begin() + 1, x.shape.end());
  size_t slice = x.data.size() / static_cast<size_t>(n);
  y.data.assign(x.data.begin() + index * slice, x.data.begin() + (index + 1) * slice);
  return y;
}

Expected<Tensor> evaluate(MatMulOp op, const Operands &in) {
  const Tensor &a = in(op.getA()), &b = in(op.getB());
  bool t = op.getTransposeB();
  if (a.rank() != 3 || b.rank() != 3 || a.shape[0] != b.shape[0] ||
      a.shape[2] != (t ? b.shape[2] : b.shape[1]))
    return opError(op, "operands of shapes " + a.shapeString() + " and " +
                           b.shapeString() + " do not fit together");
  return matmul(a, b, t);
}

Expected<Tensor> evaluate(AttentionOp op, const Operands &in) {
  const Tensor &q = in(op.getQuery()), &k = in(op.getKey()), &v = in(op.getValue());
  bool fits = q.rank() == 4 && k.rank() == 4 && v.rank() == 4 &&
              k.shape[0] == q.shape[0] && v.shape[0] == q.shape[0] &&
              v.shape[1] == k.shape[1] && v.shape[2] == k.shape[2] &&
              k.shape[3] == q.shape[3] && k.shape[2] > 0 &&
              q.shape[2] % k.shape[2] == 0;
  if (!fits)
    return opError(op, "query " + q.shapeString() + ", key " + k.shapeString() +
                           " and value " + v.shapeString() + " do not fit together");
  AttentionOptions options;
  options.additive = op.getScoreMode() == ScoreMode::Additive;
  if (auto s = op.getScaleAttr())
    options.scale = s.getValueAsDouble();
  if (auto w = op.getScoreWeightAttr())
    options.scoreWeight = w.getValueAsDouble();
  options.featureScale = in.optional(op.getFeatureScale());
  options.causal = op.getCausal();
  options.window = op.getWindow().value_or(0);
  options.queryMask = in.optional(op.getQueryMask());
  options.keyMask = in.optional(op.getKeyMask());
  for (const Tensor *mask : {options.queryMask, options.keyMask})
    if (mask && (mask->rank() != 2 || mask->shape[0] != q.shape[0]))
      return opError(op, "mask " + mask->shapeString() + " does not fit query " +
                             q.shapeString());
  if ((options.queryMask && options.queryMask->shape[1] != q.shape[1]) ||
      (options.keyMask && options.keyMask->shape[1] != k.shape[1]))
    return opError(op, "a mask's steps do not match its input's");
  options.attentionMask = in.optional(op.getAttentionMask());
  options.weights = op.getWeights();
  if (auto offset = op.getMaskOffsetAttr())
    options.maskOffset = offset.getValueAsDouble();
  options.zeroHidden = op.getZeroHidden();
  if (const Tensor *m = options.attentionMask;
      m && m->shape != std::vector<int64_t>{q.shape[0], q.shape[1], k.shape[1]})
    return opError(op, "attention_mask " + m->shapeString() + " does not fit query " +
                           q.shapeString() + " and key " + k.shapeString());
  return attention(q, k, v, options);
}

Expected<Tensor> evaluate(ConcatenateOp op, const Operands &in) {
  Expected<std::vector<const Tensor *>> inputs = mergeInputs(op, in, op.getAxis());
  if (!inputs)
    return inputs.takeError();
  return concatenate(*inputs, op.getAxis());
}

Expected<Tensor> evaluate(BidirectionalOp op, const Operands &in) {
  const Tensor &forward = in(op.getForward()), &backward = in(op.getBackward());
  rt::MergeMode mode = kernelMergeMode(op.getMergeMode());
  bool sameRows = forward.rank() == backward.rank() && forward.rank() >= 1 &&
                  std::equal(forward.shape.begin(), forward.shape.end() - 1,
                             backward.shape.begin());
  if (!sameRows || (mode != rt::MergeMode::Concat &&
                    forward.shape.back() != backward.shape.back()))
    return opError(op, "the forward output " + forward.shapeString() +
                           " and the backward output " +
                           backward.shapeString() + " cannot be merged");
  return bidirectionalMerge(forward, backward, mode, forward.rank() == 3);
}

Expected<Tensor> evaluate(Conv1DOp op, const Operands &in) {
  const Tensor &x = in(op.getInput()), &kernel = in(op.getKernel());
  if (Error e = requireRank(op, x, 3, "input"))
    return std::move(e);
  if (Error e = requireSize(op, x, 2, kernel.shape[1], "input", "the kernel"))
    return std::move(e);
  int64_t width = kernel.shape[0], stride = op.getStrides(),
          dilation = op.getDilationRate();
  int64_t length = shapes::conv1dLength(x.shape[1], width, stride, dilation,
                                        op.getPadding());
  if (Error e = requireWindowFits(op, x, length, dilation * (width - 1) + 1))
    return std::move(e);
  return conv1d(x, kernel, in.optional(op.getBias()), stride, dilation,
                kernelPadding(op.getPadding()),
                kernelActivation(op.getActivation()),
                alphaValue(op.getAlpha()));
}

template <typename PoolOp>
Expected<Tensor> evaluatePool(PoolOp op, const Tensor &x,
                              Tensor (*kernel)(const Tensor &, int64_t, int64_t,
                                               rt::Padding)) {
  if (Error e = requireRank(op, x, 3, "input"))
    return std::move(e);
  int64_t pool = op.getPoolSize(), stride = op.getStrides();
  int64_t length =
      shapes::pool1dLength(x.shape[1], pool, stride, op.getPadding());
  if (Error e = requireWindowFits(op, x, length, pool))
    return std::move(e);
  return kernel(x, pool, stride, kernelPadding(op.getPadding()));
}

template <typename GlobalPoolOp>
Expected<Tensor> evaluateGlobalPool(GlobalPoolOp op, const Tensor &x,
                                    llvm::function_ref<Tensor(const Tensor &)> kernel) {
  if (Error e = requireRank(op, x, 3, "input"))
    return std::move(e);
  if (x.shape[1] == 0)
    return opError(op, "the input has no timesteps to pool");
  Tensor y = kernel(x);
  if (op.getKeepdims())
    y.shape = {y.shape[0], 1, y.shape[1]};
  return y;
}

/// x has the op's rank and every spatial window fits (sizes the types may
/// leave dynamic).
Error checkSpatialInput(Operation *op, const Tensor &x, int64_t spatial,
                        ArrayRef<int64_t> expected) {
  if (Error e = requireRank(op, x, spatial + 2, "input"))
    return e;
  for (int64_t i = 1; i <= spatial; ++i)
    if (expected[i] < 1)
      return opError(op, "the input " + x.shapeString() + " is smaller than "
                         "the window along spatial axis " + Twine(i - 1));
  return Error::success();
}

Expected<Tensor> evaluate(ConvLSTMOp op, const Operands &in, Tensor *finalState) {
  const Tensor &x = in(op.getInput()), &kernel = in(op.getKernel());
  int64_t spatial = op.getSpatialRank();
  if (Error e = requireRank(op, x, spatial + 3, "input"))
    return std::move(e);
  if (Error e = requireSize(op, x, spatial + 2, kernel.shape[spatial], "input",
                            "the kernel"))
    return std::move(e);
  ArrayRef<int64_t> window = ArrayRef<int64_t>(kernel.shape).take_front(spatial);
  std::vector<int64_t> frame{x.shape[0]};
  frame.insert(frame.end(), x.shape.begin() + 2, x.shape.end());
  auto expected = shapes::convolution(frame, window, op.getStrides(),
                                      op.getDilationRate(), op.getPadding(),
                                      kernel.shape.back());
  if (Error e = checkSpatialInput(op, Tensor{frame, {}}, spatial, expected))
    return std::move(e);
  RnnOptions options;
  if ((options.initialState = in.optional(op.getInitialState()))) {
    // (2, batch, positions..., units): the input convolution's output
    // sizes, with units where it has the 4 gates.
    std::vector<int64_t> states{2};
    states.insert(states.end(), expected.begin(), expected.end());
    states.back() = in(op.getRecurrentKernel()).shape[spatial];
    if (options.initialState->shape != states)
      return opError(op, "initial_state " + options.initialState->shapeString() +
                             " does not fit the state " + Tensor{states, {}}.shapeString() +
                             " of input " + x.shapeString());
  }
  if (op.getFinalState())
    options.finalState = finalState;
  options.returnSequences = op.getReturnSequences();
  options.goBackwards = op.getGoBackwards();
  options.activation = kernelActivation(op.getActivation());
  options.recurrentActivation = kernelActivation(op.getRecurrentActivation());
  options.alpha = shapes::cellAlpha(op.getActivation());
  options.recurrentAlpha = shapes::cellAlpha(op.getRecurrentActivation());
  return convLstm(x, kernel, in(op.getRecurrentKernel()),
                  in.optional(op.getBias()), op.getStrides(),
                  op.getDilationRate(), kernelPadding(op.getPadding()), options);
}

template <typename ConvOp>
Expected<Tensor> evaluateConv(ConvOp op, const Operands &in) {
  constexpr int64_t spatial = ConvOp::kSpatialRank;
  const Tensor &x = in(op.getInput()), &kernel = in(op.getKernel());
  if (Error e = requireRank(op, x, spatial + 2, "input"))
    return std::move(e);
  int64_t groups = op.getGroups();
  if (Error e = requireSize(op, x, spatial + 1, kernel.shape[spatial] * groups,
                            "input", "the kernel"))
    return std::move(e);
  ArrayRef<int64_t> window = ArrayRef<int64_t>(kernel.shape).take_front(spatial);
  auto expected = shapes::convolution(x.shape, window, op.getStrides(),
                                      op.getDilationRate(), op.getPadding(),
                                      kernel.shape.back());
  if (Error e = checkSpatialInput(op, x, spatial, expected))
    return std::move(e);
  return convolution(x, kernel, in.optional(op.getBias()), op.getStrides(),
                     op.getDilationRate(), groups,
                     kernelPadding(op.getPadding()),
                     kernelActivation(op.getActivation()),
                     alphaValue(op.getAlpha()));
}

template <typename ConvOp>
Expected<Tensor> evaluateConvTranspose(ConvOp op, const Operands &in) {
  constexpr int64_t spatial = ConvOp::kSpatialRank;
  const Tensor &x = in(op.getInput()), &kernel = in(op.getKernel());
  if (Error e = requireRank(op, x, spatial + 2, "input"))
    return std::move(e);
  if (Error e = requireSize(op, x, spatial + 1, kernel.shape[spatial + 1],
                            "input", "the kernel"))
    return std::move(e);
  SmallVector<int64_t> outSizes, pads;
  for (int64_t i = 0; i < spatial; ++i) {
    auto outputPadding = op.getOutputPadding();
    shapes::TransposedAxis axis = shapes::transposedAxis(
        x.shape[i + 1], kernel.shape[i], op.getStrides()[i],
        op.getDilationRate()[i], op.getPadding(),
        outputPadding ? (*outputPadding)[i] : -1);
    outSizes.push_back(axis.length);
    pads.push_back(axis.padBefore);
  }
  return transposedConvolution(x, kernel, in.optional(op.getBias()),
                               op.getStrides(), op.getDilationRate(), outSizes,
                               pads, kernelActivation(op.getActivation()),
                               alphaValue(op.getAlpha()));
}

template <typename PoolOp>
Expected<Tensor> evaluatePoolNd(PoolOp op, const Tensor &x, bool isMax) {
  constexpr int64_t spatial = PoolOp::kSpatialRank;
  auto expected = x.rank() == spatial + 2
                      ? shapes::pooling(x.shape, op.getPoolSize(),
                                        op.getStrides(), op.getPadding())
                      : SmallVector<int64_t>();
  if (Error e = checkSpatialInput(op, x, spatial, expected))
    return std::move(e);
  return pooling(x, op.getPoolSize(), op.getStrides(),
                 kernelPadding(op.getPadding()), isMax);
}

template <typename GlobalPoolOp>
Expected<Tensor> evaluateGlobalPoolNd(GlobalPoolOp op, const Tensor &x,
                                      bool isMax) {
  if (Error e = requireRank(op, x, GlobalPoolOp::kSpatialRank + 2, "input"))
    return std::move(e);
  if (x.numElements() == 0 && x.shape[0] != 0)
    return opError(op, "the input " + x.shapeString() + " has nothing to pool");
  return globalPooling(x, isMax, op.getKeepdims());
}

Expected<Tensor> evaluate(CroppingOp op, const Operands &in) {
  const Tensor &x = in(op.getInput());
  if (Error e = requireRank(op, x, op.getLow().size() + 1, "input"))
    return std::move(e);
  for (int64_t i = 1; i < x.rank(); ++i)
    if (op.getLow()[i - 1] + op.getHigh()[i - 1] >= x.shape[i])
      return opError(op, "cropping leaves nothing of axis " + Twine(i) +
                             " of the input " + x.shapeString());
  return cropping(x, op.getLow(), op.getHigh());
}

Expected<Tensor> evaluate(SliceOp op, const Operands &in) {
  const Tensor &x = in(op.getInput());
  if (Error e = requireRank(op, x, op.getSizes().size() + 1, "input"))
    return std::move(e);
  SmallVector<int64_t> low, high;
  for (int64_t i = 1; i < x.rank(); ++i) {
    int64_t length = x.shape[i], needed = op.requiredLength(i - 1);
    if (length < needed)
      return opError(op, "the slice needs " + Twine(needed) + " elements of axis " +
                             Twine(i) + " of the input " + x.shapeString());
    int64_t start = op.getStarts()[i - 1];
    low.push_back(start < 0 ? length + start : start);
    high.push_back(length - low.back() - op.getSizes()[i - 1]);
  }
  return cropping(x, low, high);
}

Expected<Tensor> evaluate(BatchNormOp op, const Operands &in) {
  const Tensor &x = in(op.getInput()), &mean = in(op.getMovingMean());
  if (Error e = requireLastAxis(op, x, mean.shape[0], "moving_mean"))
    return std::move(e);
  return batchNorm(x, &in(op.getGamma()), &in(op.getBeta()), mean,
                   in(op.getMovingVariance()),
                   op.getEpsilon().convertToFloat());
}

Expected<Tensor> evaluate(LayerNormOp op, const Operands &in) {
  const Tensor &x = in(op.getInput()), &gamma = in(op.getGamma());
  if (Error e = requireLastAxis(op, x, gamma.shape[0], "gamma"))
    return std::move(e);
  return layerNorm(x, &gamma, &in(op.getBeta()),
                   op.getEpsilon().convertToFloat());
}

Expected<Tensor> evaluate(GroupNormOp op, const Operands &in) {
  const Tensor &x = in(op.getInput()), &gamma = in(op.getGamma());
  if (Error e = requireLastAxis(op, x, gamma.shape[0], "gamma"))
    return std::move(e);
  if (x.rank() < 2)
    return opError(op, "expects an input of rank >= 2, got " + x.shapeString());
  return groupNorm(x, gamma, in(op.getBeta()), op.getGroups(),
                   op.getEpsilon().convertToFloat());
}

Expected<Tensor> evaluate(UnitNormOp op, const Operands &in) {
  const Tensor &x = in(op.getInput());
  if (x.rank() < 2)
    return opError(op, "expects an input of rank >= 2, got " + x.shapeString());
  return unitNorm(x, op.getEpsilon().convertToFloat());
}

Expected<Tensor> evaluate(RMSNormOp op, const Operands &in) {
  const Tensor &x = in(op.getInput()), &scale = in(op.getScale());
  if (Error e = requireLastAxis(op, x, scale.shape[0], "scale"))
    return std::move(e);
  return rmsNorm(x, scale, op.getEpsilon().convertToFloat());
}

Expected<Tensor> withLocation(Operation *op, Expected<Tensor> result) {
  if (!result)
    return opError(op, llvm::toString(result.takeError()));
  return result;
}

Expected<Tensor> evaluate(ActivationOp op, const Operands &in) {
  Tensor y = in(op.getInput());
  if (op.getAxis()) {
    applyRowActivation(kernelActivation(op.getActivation()),
                       op.getNormalizedAxis(), y);
    return y;
  }
  applyActivation(kernelActivation(op.getActivation()),
                  alphaValue(op.getAlpha()), y);
  return y;
}

Expected<Tensor> evaluate(ReluOp op, const Operands &in) {
  Tensor y = in(op.getInput());
  std::optional<float> max;
  if (std::optional<llvm::APFloat> m = op.getMaxValue())
    max = m->convertToFloat();
  reluLayer(op.getNegativeSlope().convertToFloat(),
            op.getThreshold().convertToFloat(), max, y);
  return y;
}

Expected<Tensor> evaluate(ClipOp op, const Operands &in) {
  Tensor y = in(op.getInput());
  clip(op.getMin().convertToFloat(), op.getMax().convertToFloat(), y);
  return y;
}

Expected<Tensor> evaluate(PReluOp op, const Operands &in) {
  const Tensor &x = in(op.getInput()), &alpha = in(op.getAlpha());
  if (Error e = requireRank(op, x, alpha.rank() + 1, "input"))
    return std::move(e);
  for (int64_t i = 0; i < alpha.rank(); ++i)
    if (alpha.shape[i] != 1 && alpha.shape[i] != x.shape[i + 1])
      return opError(op, "input has shape " + x.shapeString() +
                             " but alpha " + alpha.shapeString() +
                             " does not broadcast to it");
  return prelu(x, alpha);
}

//===----------------------------------------------------------------------===//
// Kernel level
//===----------------------------------------------------------------------===//

/// projection (B, T, gates*u) for a recurrent kernel (u, gates*u).
Error checkProjection(Operation *op, const Tensor &projection,
                      const Tensor &recurrentKernel) {
  if (Error e = requireRank(op, projection, 3, "input_projection"))
    return e;
  return requireSize(op, projection, 2, recurrentKernel.shape[1],
                     "input_projection", "the recurrent kernel");
}

Expected<Tensor> evaluate(LSTMRecurrenceOp op, const Operands &in, Tensor *finalState) {
  const Tensor &p = in(op.getInputProjection()),
               &u = in(op.getRecurrentKernel());
  if (Error e = checkProjection(op, p, u))
    return std::move(e);
  return lstmRecurrence(
      p, u, rnnOptions(op, in, op.getActivation(), op.getRecurrentActivation(), finalState));
}

Expected<Tensor> evaluate(GRURecurrenceOp op, const Operands &in, Tensor *finalState) {
  const Tensor &p = in(op.getInputProjection()),
               &u = in(op.getRecurrentKernel());
  if (Error e = checkProjection(op, p, u))
    return std::move(e);
  const Tensor *recurrentBias = in.optional(op.getRecurrentBias());
  if (recurrentBias && !op.getResetAfter())
    return opError(op, "a recurrent_bias needs reset_after");
  return gruRecurrence(
      p, u, recurrentBias, op.getResetAfter(),
      rnnOptions(op, in, op.getActivation(), op.getRecurrentActivation(), finalState));
}

Expected<Tensor> evaluate(SimpleRNNRecurrenceOp op, const Operands &in, Tensor *finalState) {
  const Tensor &p = in(op.getInputProjection()),
               &u = in(op.getRecurrentKernel());
  if (Error e = checkProjection(op, p, u))
    return std::move(e);
  return simpleRnnRecurrence(
      p, u, rnnOptions(op, in, op.getActivation(), op.getActivation(), finalState));
}

} // namespace

Expected<Tensor> evaluateOp(Operation *op, ValueLookup lookup,
                            Tensor *finalState) {
  Operands in(lookup);
  return llvm::TypeSwitch<Operation *, Expected<Tensor>>(op)
      .Case<DenseOp>([&](DenseOp op) {
        return evaluateDense(op, in(op.getInput()), in(op.getKernel()),
                             in.optional(op.getBias()));
      })
      .Case<LinearOp>([&](LinearOp op) {
        return evaluateDense(op, in(op.getInput()), in(op.getWeight()),
                             in.optional(op.getBias()));
      })
      .Case<LSTMOp, GRUOp, SimpleRNNOp, LSTMRecurrenceOp, GRURecurrenceOp,
            SimpleRNNRecurrenceOp>(
          [&](auto op) { return evaluate(op, in, finalState); })
      .Case<BidirectionalOp, Conv1DOp, BatchNormOp, LayerNormOp, GroupNormOp,
            UnitNormOp, RMSNormOp, ActivationOp, ReluOp, ClipOp, PReluOp, MergeOp,
            ConcatenateOp, StackOp, UnstackOp, MatMulOp, AttentionOp>([&](auto op) { return evaluate(op, in); })
      .Case<MaxPool1DOp>([&](MaxPool1DOp op) {
        return evaluatePool(op, in(op.getInput()), maxPool1d);
      })
      .Case<AvgPool1DOp>([&](AvgPool1DOp op) {
        return evaluatePool(op, in(op.getInput()), avgPool1d);
      })
      .Case<GlobalMaxPool1DOp>([&](GlobalMaxPool1DOp op) {
        return evaluateGlobalPool(op, in(op.getInput()), globalMaxPool1d);
      })
      .Case<GlobalAvgPool1DOp>([&](GlobalAvgPool1DOp op) {
        const Tensor *mask = in.optional(op.getMask());
        return evaluateGlobalPool(op, in(op.getInput()), [&](const Tensor &x) {
          return globalAvgPool1d(x, mask);
        });
      })
      .Case<SequenceMaskOp>([&](SequenceMaskOp op) -> Expected<Tensor> {
        const Tensor &x = in(op.getInput());
        if (x.rank() != 2 && x.rank() != 3)
          return opError(op, "input has shape " + x.shapeString() +
                                 ", expected (batch, time) or (batch, time, "
                                 "features)");
        return sequenceMask(x, op.getMaskValue().convertToFloat());
      })
      .Case<ApplyMaskOp>([&](ApplyMaskOp op) -> Expected<Tensor> {
        const Tensor &x = in(op.getInput()), &mask = in(op.getMask());
        if (x.rank() < 3 || mask.shape != std::vector<int64_t>{x.shape[0], x.shape[1]})
          return opError(op, "mask " + mask.shapeString() +
                                 " does not fit the (batch, time) of input " +
                                 x.shapeString());
        return applyMask(x, mask);
      })
      .Case<Conv2DOp, Conv3DOp>([&](auto op) { return evaluateConv(op, in); })
      .Case<ConvLSTMOp>([&](ConvLSTMOp op) { return evaluate(op, in, finalState); })
      .Case<ConvTranspose1DOp, ConvTranspose2DOp, ConvTranspose3DOp>(
          [&](auto op) { return evaluateConvTranspose(op, in); })
      .Case<MaxPool2DOp, MaxPool3DOp>([&](auto op) {
        return evaluatePoolNd(op, in(op.getInput()), /*isMax=*/true);
      })
      .Case<AvgPool2DOp, AvgPool3DOp>([&](auto op) {
        return evaluatePoolNd(op, in(op.getInput()), /*isMax=*/false);
      })
      .Case<GlobalMaxPool2DOp, GlobalMaxPool3DOp>([&](auto op) {
        return evaluateGlobalPoolNd(op, in(op.getInput()), /*isMax=*/true);
      })
      .Case<GlobalAvgPool2DOp, GlobalAvgPool3DOp>([&](auto op) {
        return evaluateGlobalPoolNd(op, in(op.getInput()), /*isMax=*/false);
      })
      .Case<ZeroPaddingOp>([&](ZeroPaddingOp op) -> Expected<Tensor> {
        const Tensor &x = in(op.getInput());
        if (Error e = requireRank(op, x, op.getLow().size() + 1, "input"))
          return std::move(e);
        return zeroPadding(x, op.getLow(), op.getHigh());
      })
      .Case<CroppingOp>([&](CroppingOp op) { return evaluate(op, in); })
      .Case<SliceOp>([&](SliceOp op) { return evaluate(op, in); })
      .Case<UpSamplingOp>([&](UpSamplingOp op) -> Expected<Tensor> {
        const Tensor &x = in(op.getInput());
        if (Error e = requireRank(op, x, op.getSize().size() + 1, "input"))
          return std::move(e);
        return upsampling(x, op.getSize(),
                          op.getInterpolation() == Interpolation::Bilinear);
      })
      .Case<DiscretizeOp>([&](DiscretizeOp op) -> Expected<Tensor> {
        return discretize(in(op.getInput()), in(op.getBoundaries()));
      })
      .Case<CategoryEncodingOp>([&](CategoryEncodingOp op) -> Expected<Tensor> {
        const Tensor &x = in(op.getInput());
        if (Error e = requireRank(op, x, 2, "input"))
          return std::move(e);
        return categoryEncoding(x, op.getNumTokens(),
                                op.getMode() == CategoryMode::OneHot,
                                op.getMode() == CategoryMode::Count);
      })
      .Case<ResizeOp>([&](ResizeOp op) -> Expected<Tensor> {
        const Tensor &x = in(op.getInput());
        if (Error e = requireRank(op, x, op.getSize().size() + 2, "input"))
          return std::move(e);
        return resize(x, op.getSize(),
                      op.getInterpolation() == Interpolation::Bilinear);
      })
      .Case<AdaptiveMaxPoolOp, AdaptiveAvgPoolOp>([&](auto op) -> Expected<Tensor> {
        const Tensor &x = in(op.getInput());
        if (Error e = requireRank(op, x, op.getOutputSize().size() + 2, "input"))
          return std::move(e);
        return adaptivePooling(x, op.getOutputSize(),
                               std::is_same_v<decltype(op), AdaptiveMaxPoolOp>);
      })
      .Case<ReverseOp>([&](ReverseOp op) -> Expected<Tensor> {
        const Tensor &x = in(op.getInput());
        if (x.rank() <= op.getAxis())
          return opError(op, "expects an input with axis " + std::to_string(op.getAxis()) +
                                 ", got " + x.shapeString());
        return reverse(x, op.getAxis());
      })
      .Case<PermuteOp>([&](PermuteOp op) -> Expected<Tensor> {
        const Tensor &x = in(op.getInput());
        if (Error e = requireRank(op, x, op.getDims().size() + 1, "input"))
          return std::move(e);
        return permute(x, op.getDims());
      })
      .Case<TruncateOp>([&](TruncateOp op) -> Expected<Tensor> {
        return truncate(in(op.getInput()));
      })
      .Case<DropoutOp>([&](DropoutOp op) -> Expected<Tensor> {
        return in(op.getInput()); // the identity at inference
      })
      .Case<EmbeddingOp>([&](EmbeddingOp op) {
        return withLocation(op, embedding(in(op.getIds()), in(op.getTable())));
      })
      .Case<FlattenOp>([&](FlattenOp op) -> Expected<Tensor> {
        return flatten(in(op.getInput()));
      })
      .Case<ReshapeOp>([&](ReshapeOp op) {
        ArrayRef<int64_t> target = op.getTargetShape();
        return withLocation(
            op, reshape(in(op.getInput()),
                        std::vector<int64_t>(target.begin(), target.end())));
      })
      .Case<RepeatVectorOp>([&](RepeatVectorOp op) -> Expected<Tensor> {
        const Tensor &x = in(op.getInput());
        if (Error e = requireRank(op, x, 2, "input"))
          return std::move(e);
        return repeatVector(x, static_cast<int64_t>(op.getN()));
      })
      .Case<tensor::CastOp>([&](tensor::CastOp op) -> Expected<Tensor> {
        // Only the static type changes; the interpreter checks the shape
        // against the result type like for every op.
        return in(op.getSource());
      })
      .Default([&](Operation *op) -> Expected<Tensor> {
        return opError(op, "the eager interpreter does not know this op (it "
                           "runs seq layer- and kernel-level ops, "
                           "arith.constant and tensor.cast)");
      });
}

} // namespace seq::rt::eager

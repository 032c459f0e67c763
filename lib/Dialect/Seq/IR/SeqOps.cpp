#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace seq;
using shapes::kDynamic;

#include "seq/Dialect/Seq/IR/SeqEnums.cpp.inc"

#define GET_OP_CLASSES
#include "seq/Dialect/Seq/IR/SeqOps.cpp.inc"

namespace {

static int64_t mul(int64_t factor, int64_t size) {
  return size == kDynamic ? kDynamic : factor * size;
}

/// Verifier helpers. Each failure is one diagnostic that names the operand
/// and both sizes, so a bad import is explained, not just rejected.
class Check {
public:
  explicit Check(Operation *op) : op(op) {}

  static ArrayRef<int64_t> shape(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  }

  LogicalResult rank(Value v, StringRef name, int64_t rank) {
    if (shape(v).size() == static_cast<size_t>(rank))
      return success();
    return op->emitOpError() << name << " must have rank " << rank
                             << ", got " << v.getType();
  }

  LogicalResult minRank(Value v, StringRef name, int64_t rank) {
    if (shape(v).size() >= static_cast<size_t>(rank))
      return success();
    return op->emitOpError() << name << " must have rank >= " << rank
                             << ", got " << v.getType();
  }

  LogicalResult dim(const Twine &what, int64_t actual, const Twine &reference,
                    int64_t expected) {
    if (!shapes::conflict(actual, expected))
      return success();
    return op->emitOpError() << what << " (" << actual << ") must equal "
                             << reference << " (" << expected << ")";
  }

  LogicalResult result(ArrayRef<int64_t> expected) {
    ArrayRef<int64_t> actual = shape(op->getResult(0));
    if (shapes::agree(actual, expected))
      return success();
    return op->emitOpError() << "result shape " << shapes::format(actual)
                             << " does not match the expected "
                             << shapes::format(expected);
  }

  /// `allowZero`: batch_norm, whose variances are weights (Rescaling and
  /// Normalization import with epsilon 0 and positive variances).
  LogicalResult epsilon(APFloat epsilon, bool allowZero = false) {
    if (allowZero && (epsilon.isNegative() || epsilon.isNaN()))
      return op->emitOpError() << "epsilon must be non-negative, got "
                               << epsilon.convertToDouble();
    if (allowZero)
      return success();
    if (epsilon.isPosZero() || epsilon.isNegative() || epsilon.isNaN())
      return op->emitOpError() << "epsilon must be positive, got "
                               << epsilon.convertToDouble();
    return success();
  }

  LogicalResult alpha(Activation activation, std::optional<APFloat> alpha) {
    bool needs = shapes::takesAlpha(activation);
    if (needs && !alpha)
      return op->emitOpError() << "activation '" << stringifyActivation(activation)
                               << "' needs an 'alpha' attribute";
    if (!needs && alpha)
      return op->emitOpError() << "'alpha' is only meaningful for leaky_relu, "
                                  "elu, celu, thresholded_relu and reciprocal, not '"
                               << stringifyActivation(activation) << "'";
    return success();
  }

  /// A 1-D parameter of `size` elements (bias, gamma, ...).
  /// The shape all of `inputs` share (one input at least), a size known
  /// from any of them; fails naming the first input and axis that differ.
  FailureOr<SmallVector<int64_t>> sameShape(ValueRange inputs) {
    ArrayRef<int64_t> first = shape(inputs[0]);
    SmallVector<int64_t> joined(first);
    for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
      if (failed(rank(input, "input " + std::to_string(i + 1), first.size())))
        return failure();
      for (auto [axis, size] : llvm::enumerate(shape(input))) {
        if (failed(dim("input " + Twine(i + 1) + " axis " + Twine(axis), size,
                       "input 0 axis " + Twine(axis), first[axis])))
          return failure();
        if (joined[axis] == kDynamic)
          joined[axis] = size;
      }
    }
    return joined;
  }

  LogicalResult vector(Value v, StringRef name, const Twine &reference,
                       int64_t size) {
    if (failed(rank(v, name, 1)))
      return failure();
    return dim(Twine(name) + " size", shape(v)[0], reference, size);
  }

private:
  Operation *op;
};

/// Dense and linear: activation(input @ kernel + bias) on the last axis.
LogicalResult verifyAffine(Operation *op, Value input, Value kernel,
                           Value bias, StringRef kernelName,
                           Activation activation,
                           std::optional<APFloat> alpha) {
  Check check(op);
  if (failed(check.minRank(input, "input", 2)) ||
      failed(check.rank(kernel, kernelName, 2)))
    return failure();
  ArrayRef<int64_t> in = Check::shape(input), k = Check::shape(kernel);
  if (failed(check.dim(Twine(kernelName) + " rows", k[0], "input features",
                       in.back())) ||
      (bias && failed(check.vector(bias, "bias", Twine(kernelName) + " columns",
                                   k[1]))) ||
      failed(check.alpha(activation, alpha)))
    return failure();
  SmallVector<int64_t> expected(in.drop_back());
  expected.push_back(k[1]);
  return check.result(expected);
}

/// Shared by the recurrence kernels: (batch, time, gates*u) in,
/// (batch, time, u) or (batch, u) out; returns u through `units`.
LogicalResult verifyRecurrentCore(Operation *op, Value sequence,
                                  Value recurrentKernel, int64_t gates,
                                  bool returnSequences, int64_t &units) {
  Check check(op);
  if (failed(check.rank(sequence, "input", 3)) ||
      failed(check.rank(recurrentKernel, "recurrent_kernel", 2)))
    return failure();
  ArrayRef<int64_t> rk = Check::shape(recurrentKernel);
  units = rk[0];
  if (failed(check.dim("recurrent_kernel columns", rk[1],
                       Twine(gates) + " x units", mul(gates, units))))
    return failure();
  ArrayRef<int64_t> in = Check::shape(sequence);
  SmallVector<int64_t> expected{in[0]};
  if (returnSequences)
    expected.push_back(in[1]);
  expected.push_back(units);
  return check.result(expected);
}

/// A recurrence's optional mask (batch, time) against its input sequence,
/// and zero_output_for_mask only with a mask.
LogicalResult verifyMask(Operation *op, Value mask, Value sequence,
                         bool zeroOutputForMask) {
  if (!mask) {
    if (zeroOutputForMask)
      return op->emitOpError("has zero_output_for_mask but no mask");
    return success();
  }
  Check check(op);
  if (failed(check.rank(mask, "mask", 2)))
    return failure();
  ArrayRef<int64_t> m = Check::shape(mask), in = Check::shape(sequence);
  return failure(failed(check.dim("mask batch", m[0], "input batch", in[0])) ||
                 failed(check.dim("mask steps", m[1], "input steps", in[1])));
}

/// A recurrence's optional initial state and final state: both
/// (states, batch, units), the batch of its input sequence.
/// `initialState` and `finalState` (either may be null) are `(states,
/// batch, positions..., units)`: `state` is one state's shape, (batch,
/// units) for the recurrent layers, (batch, o1..on, f) for conv_lstm.
LogicalResult verifyStates(Operation *op, Value initialState, Value finalState,
                           int64_t states, ArrayRef<int64_t> state) {
  Check check(op);
  for (auto [value, name] : {std::pair(initialState, "initial_state"),
                             std::pair(finalState, "final_state")}) {
    if (!value)
      continue;
    if (failed(check.rank(value, name, state.size() + 1)))
      return failure();
    ArrayRef<int64_t> s = Check::shape(value);
    if (failed(check.dim(Twine(name) + " states", s[0],
                         "the cell's state count", states)) ||
        failed(check.dim(Twine(name) + " batch", s[1], "input batch", state[0])))
      return failure();
    for (size_t i = 1; i + 1 < state.size(); ++i)
      if (failed(check.dim(Twine(name) + " axis " + Twine(i + 1), s[i + 1],
                           "the state's positions along it", state[i])))
        return failure();
    if (failed(check.dim(Twine(name) + " units", s.back(), "units", state.back())))
      return failure();
  }
  return success();
}

LogicalResult verifyState(Operation *op, Value initialState, Value finalState,
                          Value sequence, Value recurrentKernel,
                          int64_t states) {
  int64_t state[] = {Check::shape(sequence)[0], Check::shape(recurrentKernel)[0]};
  return verifyStates(op, initialState, finalState, states, state);
}

/// The mask and state operands every recurrent op has; `states` is 2 for
/// an LSTM (h, c), else 1.
template <typename RecurrentOp>
LogicalResult verifyMaskAndState(RecurrentOp op, int64_t states) {
  return failure(failed(verifyMask(op, op.getMask(), op->getOperand(0),
                                   op.getZeroOutputForMask())) ||
                 failed(verifyState(op, op.getInitialState(),
                                    op.getFinalState(), op->getOperand(0),
                                    op.getRecurrentKernel(), states)));
}

/// Layer-level LSTM / GRU / SimpleRNN.
LogicalResult verifyRecurrentLayer(Operation *op, Value input, Value kernel,
                                   Value recurrentKernel, int64_t gates,
                                   bool returnSequences, int64_t &units) {
  Check check(op);
  if (failed(verifyRecurrentCore(op, input, recurrentKernel, gates,
                                 returnSequences, units)) ||
      failed(check.rank(kernel, "kernel", 2)))
    return failure();
  ArrayRef<int64_t> k = Check::shape(kernel);
  return failure(
      failed(check.dim("kernel rows", k[0], "input features",
                       Check::shape(input)[2])) ||
      failed(check.dim("kernel columns", k[1], Twine(gates) + " x units",
                       mul(gates, units))));
}

LogicalResult verifyPool(Operation *op, Value input, int64_t poolSize,
                         int64_t strides, Padding padding) {
  Check check(op);
  if (failed(check.rank(input, "input", 3)))
    return failure();
  if (padding == Padding::Causal)
    return op->emitOpError("padding 'causal' is only valid for conv1d");
  ArrayRef<int64_t> in = Check::shape(input);
  int64_t length = shapes::pool1dLength(in[1], poolSize, strides, padding);
  if (length == 0)
    return op->emitOpError() << "pool_size " << poolSize << " is larger than the "
                             << in[1] << " timesteps";
  return check.result({in[0], length, in[2]});
}

/// Global pooling over the `spatial` axes between batch and channels.
LogicalResult verifyGlobalPool(Operation *op, Value input, bool keepdims,
                               int64_t spatial = 1) {
  Check check(op);
  if (failed(check.rank(input, "input", spatial + 2)))
    return failure();
  return check.result(shapes::globalPooling(Check::shape(input), keepdims));
}

/// One size per spatial axis, each positive.
LogicalResult spatialSizes(Operation *op, StringRef name,
                           ArrayRef<int64_t> sizes, int64_t spatial) {
  if (static_cast<int64_t>(sizes.size()) != spatial)
    return op->emitOpError() << name << " must hold " << spatial
                             << " sizes (one per spatial axis), got "
                             << sizes.size();
  for (int64_t size : sizes)
    if (size < 1)
      return op->emitOpError() << name << " must be positive, got " << size;
  return success();
}

/// Output sizes of a window that does not fit are 0: one diagnostic.
LogicalResult windowsFit(Operation *op, ArrayRef<int64_t> input,
                         ArrayRef<int64_t> expected, StringRef window) {
  for (size_t i = 1; i + 1 < expected.size(); ++i)
    if (expected[i] == 0)
      return op->emitOpError() << window << " along spatial axis " << i - 1
                               << " is longer than the input's "
                               << input[i];
  return success();
}

/// What every N-D convolution (plain or transposed) checks first: input and
/// kernel ranks, per-axis strides and dilations, and no causal padding.
template <typename ConvOp> LogicalResult verifyConvOperands(ConvOp op) {
  constexpr int64_t spatial = ConvOp::kSpatialRank;
  Check check(op);
  if (failed(check.rank(op.getInput(), "input", spatial + 2)) ||
      failed(check.rank(op.getKernel(), "kernel", spatial + 2)) ||
      failed(spatialSizes(op, "strides", op.getStrides(), spatial)) ||
      failed(spatialSizes(op, "dilation_rate", op.getDilationRate(), spatial)))
    return failure();
  if (op.getPadding() == Padding::Causal)
    return op.emitOpError("padding 'causal' is only valid for conv1d");
  return success();
}

/// Conv2D / Conv3D, channels last.
template <typename ConvOp> LogicalResult verifyConvNd(ConvOp op) {
  constexpr int64_t spatial = ConvOp::kSpatialRank;
  Check check(op);
  Value input = op.getInput(), kernel = op.getKernel();
  if (failed(verifyConvOperands(op)))
    return failure();
  ArrayRef<int64_t> in = Check::shape(input), k = Check::shape(kernel);
  int64_t groups = op.getGroups(), filters = k[spatial + 1];
  if (failed(check.dim("kernel input channels x groups",
                       mul(groups, k[spatial]), "input channels", in.back())))
    return failure();
  if (filters != kDynamic && filters % groups != 0)
    return op.emitOpError() << "kernel filters (" << filters
                            << ") must be a multiple of groups (" << groups
                            << ")";
  if ((op.getBias() &&
       failed(check.vector(op.getBias(), "bias", "kernel filters", filters))) ||
      failed(check.alpha(op.getActivation(), op.getAlpha())))
    return failure();
  SmallVector<int64_t> expected =
      shapes::convolution(in, k.take_front(spatial), op.getStrides(),
                          op.getDilationRate(), op.getPadding(), filters);
  if (failed(windowsFit(op, in, expected, "kernel span")))
    return failure();
  return check.result(expected);
}

/// Conv1DTranspose / Conv2DTranspose / Conv3DTranspose, channels last.
template <typename ConvOp> LogicalResult verifyConvTransposeNd(ConvOp op) {
  constexpr int64_t spatial = ConvOp::kSpatialRank;
  Check check(op);
  Value input = op.getInput(), kernel = op.getKernel();
  if (failed(verifyConvOperands(op)))
    return failure();
  ArrayRef<int64_t> outputPadding;
  if (op.getOutputPadding())
    outputPadding = *op.getOutputPadding();
  if (op.getOutputPadding() &&
      static_cast<int64_t>(outputPadding.size()) != spatial)
    return op.emitOpError() << "output_padding must hold " << spatial
                            << " sizes (one per spatial axis), got "
                            << outputPadding.size();
  ArrayRef<int64_t> in = Check::shape(input), k = Check::shape(kernel);
  for (int64_t i = 0; i < static_cast<int64_t>(outputPadding.size()); ++i)
    if (outputPadding[i] < 0 ||
        !shapes::transposedPaddingFits(k[i], op.getStrides()[i],
                                       op.getDilationRate()[i], op.getPadding(),
                                       outputPadding[i]))
      return op.emitOpError()
             << "output_padding " << outputPadding[i] << " on spatial axis " << i
             << " gives an output that the convolution does not map back onto "
                "the input (valid needs 0 <= p < stride, same needs "
                "1 <= span % 2 + p <= stride)";
  int64_t filters = k[spatial];
  if (failed(check.dim("kernel input channels", k[spatial + 1],
                       "input channels", in.back())) ||
      (op.getBias() &&
       failed(check.vector(op.getBias(), "bias", "kernel filters", filters))) ||
      failed(check.alpha(op.getActivation(), op.getAlpha())))
    return failure();
  return check.result(shapes::transposedConvolution(
      in, k.take_front(spatial), op.getStrides(), op.getDilationRate(),
      op.getPadding(), outputPadding, filters));
}

/// MaxPooling2D/3D, AveragePooling2D/3D, channels last.
template <typename PoolOp> LogicalResult verifyPoolNd(PoolOp op) {
  constexpr int64_t spatial = PoolOp::kSpatialRank;
  Check check(op);
  if (failed(check.rank(op.getInput(), "input", spatial + 2)) ||
      failed(spatialSizes(op, "pool_size", op.getPoolSize(), spatial)) ||
      failed(spatialSizes(op, "strides", op.getStrides(), spatial)))
    return failure();
  if (op.getPadding() == Padding::Causal)
    return op.emitOpError("padding 'causal' is only valid for conv1d");
  ArrayRef<int64_t> in = Check::shape(op.getInput());
  SmallVector<int64_t> expected = shapes::pooling(
      in, op.getPoolSize(), op.getStrides(), op.getPadding());
  if (failed(windowsFit(op, in, expected, "pool_size")))
    return failure();
  return check.result(expected);
}

/// ZeroPadding and Cropping: `low` and `high` per axis after the batch axis.
LogicalResult verifyPadOrCrop(Operation *op, Value input, ArrayRef<int64_t> low,
                              ArrayRef<int64_t> high, bool crop) {
  Check check(op);
  if (failed(check.minRank(input, "input", 2)))
    return failure();
  ArrayRef<int64_t> in = Check::shape(input);
  size_t axes = in.size() - 1;
  if (low.size() != axes || high.size() != axes)
    return op->emitOpError() << "low and high must hold one size per axis "
                                "after the batch axis ("
                             << axes << "), got " << low.size() << " and "
                             << high.size();
  for (size_t i = 0; i < axes; ++i) {
    if (low[i] < 0 || high[i] < 0)
      return op->emitOpError() << "low and high must be >= 0, got " << low[i]
                               << " and " << high[i] << " on axis " << i + 1;
    if (crop && in[i + 1] != kDynamic && low[i] + high[i] >= in[i + 1])
      return op->emitOpError() << "cropping " << low[i] << " + " << high[i]
                               << " leaves nothing of axis " << i + 1
                               << " (size " << in[i + 1] << ")";
  }
  return check.result(shapes::padded(in, low, high, crop ? -1 : 1));
}

} // namespace

LogicalResult Conv2DOp::verify() { return verifyConvNd(*this); }
LogicalResult Conv3DOp::verify() { return verifyConvNd(*this); }
LogicalResult ConvLSTMOp::verify() {
  Check check(*this);
  Value input = getInput(), kernel = getKernel(), recurrent = getRecurrentKernel();
  if (failed(check.minRank(input, "input", 4)))
    return failure();
  int64_t spatial = getSpatialRank();
  if (spatial > 3)
    return emitOpError() << "input must have 1 to 3 spatial axes (rank 4 to "
                            "6), got " << input.getType();
  if (failed(check.rank(kernel, "kernel", spatial + 2)) ||
      failed(check.rank(recurrent, "recurrent_kernel", spatial + 2)) ||
      failed(spatialSizes(*this, "strides", getStrides(), spatial)) ||
      failed(spatialSizes(*this, "dilation_rate", getDilationRate(), spatial)))
    return failure();
  if (getPadding() == Padding::Causal)
    return emitOpError("padding 'causal' is only valid for conv1d");
  for (Activation a : {getActivation(), getRecurrentActivation()})
    if (a == Activation::Softmax || a == Activation::LogSoftmax)
      return emitOpError() << "activation '" << stringifyActivation(a)
                           << "' is not supported in a ConvLSTM cell";
  ArrayRef<int64_t> in = Check::shape(input), k = Check::shape(kernel),
                    rk = Check::shape(recurrent);
  int64_t filters = rk[spatial];
  if (failed(check.dim("kernel input channels", k[spatial], "input channels",
                       in.back())) ||
      failed(check.dim("kernel columns", k[spatial + 1], "4 x filters",
                       mul(4, filters))) ||
      failed(check.dim("recurrent_kernel columns", rk[spatial + 1],
                       "4 x filters", mul(4, filters))) ||
      (getBias() &&
       failed(check.vector(getBias(), "bias", "4 x filters", mul(4, filters)))))
    return failure();
  SmallVector<int64_t> expected =
      shapes::convLstm(in, k.take_front(spatial), getStrides(),
                       getDilationRate(), getPadding(), filters,
                       getReturnSequences());
  SmallVector<int64_t> state = shapes::convLstm(
      in, k.take_front(spatial), getStrides(), getDilationRate(), getPadding(),
      filters, /*returnSequences=*/false);
  if (failed(windowsFit(*this, Check::shape(input).drop_front(), state,
                        "kernel span")) ||
      failed(verifyStates(*this, getInitialState(), getFinalState(), 2, state)))
    return failure();
  return check.result(expected);
}

LogicalResult ConvTranspose1DOp::verify() { return verifyConvTransposeNd(*this); }
LogicalResult ConvTranspose2DOp::verify() { return verifyConvTransposeNd(*this); }
LogicalResult ConvTranspose3DOp::verify() { return verifyConvTransposeNd(*this); }
LogicalResult MaxPool2DOp::verify() { return verifyPoolNd(*this); }
LogicalResult AvgPool2DOp::verify() { return verifyPoolNd(*this); }
LogicalResult MaxPool3DOp::verify() { return verifyPoolNd(*this); }
LogicalResult AvgPool3DOp::verify() { return verifyPoolNd(*this); }

LogicalResult GlobalMaxPool2DOp::verify() {
  return verifyGlobalPool(*this, getInput(), getKeepdims(), kSpatialRank);
}
LogicalResult GlobalAvgPool2DOp::verify() {
  return verifyGlobalPool(*this, getInput(), getKeepdims(), kSpatialRank);
}
LogicalResult GlobalMaxPool3DOp::verify() {
  return verifyGlobalPool(*this, getInput(), getKeepdims(), kSpatialRank);
}
LogicalResult GlobalAvgPool3DOp::verify() {
  return verifyGlobalPool(*this, getInput(), getKeepdims(), kSpatialRank);
}

LogicalResult ZeroPaddingOp::verify() {
  return verifyPadOrCrop(*this, getInput(), getLow(), getHigh(), false);
}

LogicalResult CroppingOp::verify() {
  return verifyPadOrCrop(*this, getInput(), getLow(), getHigh(), true);
}

LogicalResult SliceOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 2)))
    return failure();
  ArrayRef<int64_t> in = Check::shape(getInput());
  size_t axes = in.size() - 1;
  ArrayRef<int64_t> starts = getStarts(), sizes = getSizes();
  if (starts.size() != axes || sizes.size() != axes)
    return emitOpError() << "starts and sizes must hold one value per axis after the "
                            "batch axis ("
                         << axes << "), got " << starts.size() << " and " << sizes.size();
  SmallVector<int64_t> shape{in[0]};
  for (size_t i = 0; i < axes; ++i) {
    if (sizes[i] < 1)
      return emitOpError() << "sizes must be >= 1, got " << sizes[i] << " on axis " << i + 1;
    if (starts[i] < 0 && sizes[i] > -starts[i])
      return emitOpError() << "a window of " << sizes[i] << " from " << starts[i]
                           << " runs past the end of axis " << i + 1;
    if (in[i + 1] != kDynamic && requiredLength(i) > in[i + 1])
      return emitOpError() << "the window from " << starts[i] << " of " << sizes[i]
                           << " needs " << requiredLength(i) << " elements of axis "
                           << i + 1 << " (size " << in[i + 1] << ")";
    shape.push_back(sizes[i]);
  }
  return check.result(shape);
}

LogicalResult ClipOp::verify() {
  double min = getMin().convertToDouble(), max = getMax().convertToDouble();
  if (!(min <= max))
    return emitOpError() << "min must be at most max, got " << min << " and " << max;
  return success();
}

LogicalResult UpSamplingOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 2)))
    return failure();
  ArrayRef<int64_t> in = Check::shape(getInput());
  if (getSize().size() != in.size() - 1)
    return emitOpError() << "size must hold one factor per axis after the "
                            "batch axis ("
                         << in.size() - 1 << "), got " << getSize().size();
  for (int64_t factor : getSize())
    if (factor < 1)
      return emitOpError() << "size factors must be positive, got " << factor;
  return check.result(shapes::upsampled(in, getSize()));
}

namespace {
/// seq.resize and the adaptive poolings: `input` (batch, d1..dn, channels)
/// with static spatial sizes, `sizes` (named `name`) one positive size per
/// spatial axis, which the result's spatial axes take.
LogicalResult verifySpatialSizes(Operation *op, Value input,
                                 ArrayRef<int64_t> sizes, StringRef name) {
  Check check(op);
  if (failed(check.minRank(input, "input", 3)))
    return failure();
  ArrayRef<int64_t> in = Check::shape(input);
  if (sizes.size() != in.size() - 2)
    return op->emitOpError() << name << " must hold one size per spatial axis ("
                             << in.size() - 2 << "), got " << sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (in[i + 1] == shapes::kDynamic)
      return op->emitOpError() << "input spatial axis " << i + 1
                               << " must have a static size, got "
                               << input.getType();
    if (sizes[i] < 1)
      return op->emitOpError() << "sizes must be positive, got " << sizes[i];
  }
  return check.result(shapes::resized(in, sizes));
}
} // namespace

LogicalResult ResizeOp::verify() {
  return verifySpatialSizes(*this, getInput(), getSize(), "size");
}

LogicalResult AdaptiveMaxPoolOp::verify() {
  return verifySpatialSizes(*this, getInput(), getOutputSize(), "output_size");
}

LogicalResult AdaptiveAvgPoolOp::verify() {
  return verifySpatialSizes(*this, getInput(), getOutputSize(), "output_size");
}

LogicalResult DiscretizeOp::verify() {
  Check check(*this);
  return check.rank(getBoundaries(), "boundaries", 1);
}

LogicalResult CategoryEncodingOp::verify() {
  Check check(*this);
  if (failed(check.rank(getInput(), "input", 2)))
    return failure();
  return check.result(shapes::categoryEncoded(Check::shape(getInput()),
                                              getNumTokens(), getMode()));
}

LogicalResult ReverseOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 2)))
    return failure();
  int64_t rank = static_cast<int64_t>(Check::shape(getInput()).size());
  if (getAxis() >= rank)
    return emitOpError() << "axis " << getAxis() << " is not an axis after the batch axis of a rank-"
                         << rank << " input";
  return success();
}

LogicalResult PermuteOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 2)))
    return failure();
  ArrayRef<int64_t> in = Check::shape(getInput());
  if (getDims().size() != in.size() - 1 || !shapes::isPermutation(getDims()))
    return emitOpError() << "dims must be a permutation of 1.." << in.size() - 1
                         << " (the axes after the batch axis), got "
                         << shapes::format(getDims());
  return check.result(shapes::permuted(in, getDims()));
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  // permute(permute(x, inner), outer): output axis i is inner's axis
  // outer[i], which is x's axis inner[outer[i] - 1].
  bool changed = false;
  if (auto inner = getInput().getDefiningOp<PermuteOp>()) {
    changed = true;
    SmallVector<int64_t> composed;
    for (int64_t d : getDims())
      composed.push_back(inner.getDims()[d - 1]);
    getInputMutable().assign(inner.getInput());
    setDims(composed);
  }
  bool identity = true;
  for (auto [i, d] : llvm::enumerate(getDims()))
    identity &= d == static_cast<int64_t>(i) + 1;
  if (identity && getInput().getType() == getType())
    return getInput();
  return changed ? OpFoldResult(getResult()) : OpFoldResult();
}

LogicalResult DenseOp::verify() {
  return verifyAffine(*this, getInput(), getKernel(), getBias(), "kernel",
                      getActivation(), getAlpha());
}

LogicalResult LinearOp::verify() {
  return verifyAffine(*this, getInput(), getWeight(), getBias(), "weight",
                      getActivation(), getAlpha());
}

LogicalResult LSTMOp::verify() {
  int64_t units;
  if (failed(verifyRecurrentLayer(*this, getInput(), getKernel(),
                                  getRecurrentKernel(), 4,
                                  getReturnSequences(), units)) ||
      failed(verifyMaskAndState(*this, 2)))
    return failure();
  if (getBias())
    return Check(*this).vector(getBias(), "bias", "4 x units", mul(4, units));
  return success();
}

LogicalResult GRUOp::verify() {
  int64_t units;
  if (failed(verifyRecurrentLayer(*this, getInput(), getKernel(),
                                  getRecurrentKernel(), 3,
                                  getReturnSequences(), units)) ||
      failed(verifyMaskAndState(*this, 1)))
    return failure();
  Value bias = getBias();
  if (!bias)
    return success();
  Check check(*this);
  if (!getResetAfter())
    return check.vector(bias, "bias", "3 x units", mul(3, units));
  if (failed(check.rank(bias, "bias (reset_after)", 2)))
    return failure();
  ArrayRef<int64_t> b = Check::shape(bias);
  return failure(failed(check.dim("bias rows", b[0], "input + recurrent", 2)) ||
                 failed(check.dim("bias columns", b[1], "3 x units",
                                  mul(3, units))));
}

LogicalResult SimpleRNNOp::verify() {
  int64_t units;
  if (failed(verifyRecurrentLayer(*this, getInput(), getKernel(),
                                  getRecurrentKernel(), 1,
                                  getReturnSequences(), units)) ||
      failed(verifyMaskAndState(*this, 1)))
    return failure();
  if (getBias())
    return Check(*this).vector(getBias(), "bias", "units", units);
  return success();
}

LogicalResult LSTMRecurrenceOp::verify() {
  int64_t units;
  if (failed(verifyRecurrentCore(*this, getInputProjection(),
                                 getRecurrentKernel(), 4, getReturnSequences(),
                                 units)) ||
      failed(verifyMaskAndState(*this, 2)))
    return failure();
  return Check(*this).dim("input_projection features",
                          Check::shape(getInputProjection())[2], "4 x units",
                          mul(4, units));
}

LogicalResult GRURecurrenceOp::verify() {
  int64_t units;
  if (failed(verifyRecurrentCore(*this, getInputProjection(),
                                 getRecurrentKernel(), 3, getReturnSequences(),
                                 units)) ||
      failed(verifyMaskAndState(*this, 1)))
    return failure();
  Check check(*this);
  if (failed(check.dim("input_projection features",
                       Check::shape(getInputProjection())[2], "3 x units",
                       mul(3, units))))
    return failure();
  if (getResetAfter() != static_cast<bool>(getRecurrentBias()))
    return emitOpError(getResetAfter()
                           ? "with reset_after needs a recurrent_bias"
                           : "has a recurrent_bias only with reset_after");
  if (getRecurrentBias())
    return check.vector(getRecurrentBias(), "recurrent_bias", "3 x units",
                        mul(3, units));
  return success();
}

LogicalResult SimpleRNNRecurrenceOp::verify() {
  int64_t units;
  if (failed(verifyRecurrentCore(*this, getInputProjection(),
                                 getRecurrentKernel(), 1, getReturnSequences(),
                                 units)) ||
      failed(verifyMaskAndState(*this, 1)))
    return failure();
  return Check(*this).dim("input_projection features",
                          Check::shape(getInputProjection())[2], "units",
                          units);
}

LogicalResult BidirectionalOp::verify() {
  Check check(*this);
  ArrayRef<int64_t> f = Check::shape(getForward()), b = Check::shape(getBackward());
  if (f.size() != 2 && f.size() != 3)
    return emitOpError() << "forward must have rank 2 or 3, got "
                         << getForward().getType();
  if (failed(check.rank(getBackward(), "backward", f.size())))
    return failure();
  for (size_t i = 0; i + 1 < f.size(); ++i)
    if (failed(check.dim("backward dimension " + Twine(i), b[i],
                         "forward dimension " + Twine(i), f[i])))
      return failure();
  SmallVector<int64_t> expected(f);
  if (getMergeMode() == MergeMode::Concat) {
    int64_t fu = f.back(), bu = b.back();
    expected.back() = fu == kDynamic || bu == kDynamic ? kDynamic : fu + bu;
  } else if (failed(check.dim("backward units", b.back(), "forward units",
                              f.back()))) {
    return failure();
  }
  return check.result(expected);
}

LogicalResult MergeOp::verify() {
  Check check(*this);
  OperandRange inputs = getInputs();
  if (inputs.size() < 2)
    return emitOpError() << "needs at least two inputs, got " << inputs.size();
  if ((getKind() == MergeKind::Subtract || getKind() == MergeKind::Divide) &&
      inputs.size() != 2)
    return emitOpError() << stringifyMergeKind(getKind())
                         << " takes exactly two inputs, got " << inputs.size();
  // One rank; an axis of static size 1 broadcasts against any size.
  ArrayRef<int64_t> first = Check::shape(inputs[0]);
  SmallVector<int64_t> joined(first);
  for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
    if (failed(check.rank(input, "input " + std::to_string(i + 1), first.size())))
      return failure();
    for (auto [axis, size] : llvm::enumerate(Check::shape(input))) {
      std::optional<int64_t> both = shapes::broadcast(joined[axis], size);
      if (!both)
        return check.dim("input " + Twine(i + 1) + " axis " + Twine(axis), size,
                         "the other inputs' axis " + Twine(axis) + " or 1", joined[axis]);
      joined[axis] = *both;
    }
  }
  return check.result(joined);
}

LogicalResult StackOp::verify() {
  Check check(*this);
  OperandRange inputs = getInputs();
  if (inputs.empty())
    return emitOpError("needs at least one input");
  FailureOr<SmallVector<int64_t>> shape = check.sameShape(inputs);
  if (failed(shape))
    return failure();
  SmallVector<int64_t> expected{static_cast<int64_t>(inputs.size())};
  expected.append(shape->begin(), shape->end());
  return check.result(expected);
}

LogicalResult UnstackOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 2)))
    return failure();
  ArrayRef<int64_t> shape = Check::shape(getInput());
  if (shape[0] != ShapedType::kDynamic && static_cast<int64_t>(getIndex()) >= shape[0])
    return emitOpError() << "index " << getIndex() << " is outside the "
                         << shape[0] << " slices of the input";
  return check.result(shape.drop_front());
}

LogicalResult MatMulOp::verify() {
  Check check(*this);
  if (failed(check.rank(getA(), "a", 3)) || failed(check.rank(getB(), "b", 3)))
    return failure();
  ArrayRef<int64_t> a = Check::shape(getA()), b = Check::shape(getB());
  int64_t bk = getTransposeB() ? b[2] : b[1], n = getTransposeB() ? b[1] : b[2];
  if (failed(check.dim("b batch", b[0], "a batch", a[0])) ||
      failed(check.dim("b contraction size", bk, "a contraction size", a[2])))
    return failure();
  return check.result({a[0] == kDynamic ? b[0] : a[0], a[1], n});
}

LogicalResult AttentionOp::verify() {
  Check check(*this);
  for (auto [v, name] : {std::pair{getQuery(), "query"}, {getKey(), "key"},
                         {getValue(), "value"}})
    if (failed(check.rank(v, name, 4)))
      return failure();
  ArrayRef<int64_t> q = Check::shape(getQuery()), k = Check::shape(getKey()),
                    v = Check::shape(getValue());
  if (failed(check.dim("key batch", k[0], "query batch", q[0])) ||
      failed(check.dim("value batch", v[0], "query batch", q[0])) ||
      failed(check.dim("value steps", v[1], "key steps", k[1])) ||
      failed(check.dim("value heads", v[2], "key heads", k[2])) ||
      failed(check.dim("key features", k[3], "query features", q[3])))
    return failure();
  if (q[2] != kDynamic && k[2] != kDynamic && (k[2] == 0 || q[2] % k[2] != 0))
    return emitOpError() << "query heads (" << q[2]
                         << ") must be a multiple of key heads (" << k[2] << ")";
  if (getScoreMode() == ScoreMode::Dot && (getFeatureScale() || getScoreWeight()))
    return emitOpError("feature_scale and score_weight belong to additive scores");
  if (getFeatureScale() &&
      failed(check.vector(getFeatureScale(), "feature_scale", "query features", q[3])))
    return failure();
  for (auto [mask, name, steps, stepsName] :
       {std::tuple{getQueryMask(), "query_mask", q[1], "query steps"},
        {getKeyMask(), "key_mask", k[1], "key steps"}}) {
    if (!mask)
      continue;
    if (failed(check.rank(mask, name, 2)) ||
        failed(check.dim(Twine(name) + " batch", Check::shape(mask)[0], "query batch", q[0])) ||
        failed(check.dim(Twine(name) + " steps", Check::shape(mask)[1], stepsName, steps)))
      return failure();
  }
  if (Value mask = getAttentionMask()) {
    if (failed(check.rank(mask, "attention_mask", 3)))
      return failure();
    ArrayRef<int64_t> m = Check::shape(mask);
    if (failed(check.dim("attention_mask batch", m[0], "query batch", q[0])) ||
        failed(check.dim("attention_mask axis 1", m[1], "query steps", q[1])) ||
        failed(check.dim("attention_mask axis 2", m[2], "key steps", k[1])))
      return failure();
  }
  if (getWeights())
    return check.result({q[0], q[2], q[1], k[1]});
  return check.result({q[0], q[1], q[2], v[3]});
}

LogicalResult ConcatenateOp::verify() {
  Check check(*this);
  OperandRange inputs = getInputs();
  if (inputs.size() < 2)
    return emitOpError() << "needs at least two inputs, got " << inputs.size();
  ArrayRef<int64_t> first = Check::shape(inputs[0]);
  int64_t axis = getAxis();
  if (axis >= static_cast<int64_t>(first.size()))
    return emitOpError() << "axis " << axis << " is not a non-batch axis of rank "
                         << first.size() << " inputs";
  SmallVector<int64_t> expected(first);
  for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
    if (failed(check.rank(input, "input " + std::to_string(i + 1), first.size())))
      return failure();
    ArrayRef<int64_t> shape = Check::shape(input);
    for (int64_t a = 0; a < static_cast<int64_t>(first.size()); ++a) {
      if (a == axis) {
        expected[a] = expected[a] == kDynamic || shape[a] == kDynamic
                          ? kDynamic
                          : expected[a] + shape[a];
        continue;
      }
      if (failed(check.dim("input " + Twine(i + 1) + " axis " + Twine(a), shape[a],
                           "input 0 axis " + Twine(a), first[a])))
        return failure();
    }
  }
  return check.result(expected);
}

LogicalResult TimeDistributedOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 3)))
    return failure();
  Block &body = getBody().front();
  ArrayRef<int64_t> in = Check::shape(getInput());
  SmallVector<int64_t> step{in[0]};
  step.append(in.begin() + 2, in.end());
  auto stepType = RankedTensorType::get(step, Float32Type::get(getContext()));
  if (body.getNumArguments() != 1 || body.getArgument(0).getType() != stepType)
    return emitOpError() << "body must take one argument of type " << stepType
                         << " (one timestep of the input)";
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with seq.yield");
  ArrayRef<int64_t> y = Check::shape(yield.getValue());
  if (y.empty())
    return emitOpError("body must yield a tensor with a batch axis");
  SmallVector<int64_t> expected{y[0], in[1]};
  expected.append(y.begin() + 1, y.end());
  return check.result(expected);
}

LogicalResult Conv1DOp::verify() {
  Check check(*this);
  if (failed(check.rank(getInput(), "input", 3)) ||
      failed(check.rank(getKernel(), "kernel", 3)))
    return failure();
  ArrayRef<int64_t> in = Check::shape(getInput()), k = Check::shape(getKernel());
  if (failed(check.dim("kernel input channels", k[1], "input channels", in[2])) ||
      (getBias() &&
       failed(check.vector(getBias(), "bias", "kernel filters", k[2]))) ||
      failed(check.alpha(getActivation(), getAlpha())))
    return failure();
  int64_t length = shapes::conv1dLength(in[1], k[0], getStrides(),
                                        getDilationRate(), getPadding());
  if (length == 0)
    return emitOpError() << "kernel span is longer than the " << in[1]
                         << " timesteps";
  return check.result({in[0], length, k[2]});
}

LogicalResult MaxPool1DOp::verify() {
  return verifyPool(*this, getInput(), getPoolSize(), getStrides(),
                    getPadding());
}

LogicalResult AvgPool1DOp::verify() {
  return verifyPool(*this, getInput(), getPoolSize(), getStrides(),
                    getPadding());
}

LogicalResult GlobalMaxPool1DOp::verify() {
  return verifyGlobalPool(*this, getInput(), getKeepdims());
}

LogicalResult GlobalAvgPool1DOp::verify() {
  return failure(failed(verifyGlobalPool(*this, getInput(), getKeepdims())) ||
                 failed(verifyMask(*this, getMask(), getInput(), false)));
}

LogicalResult SequenceMaskOp::verify() {
  Check check(*this);
  auto type = cast<RankedTensorType>(getInput().getType());
  if (!isa<IntegerType, FloatType>(type.getElementType()))
    return emitOpError() << "input must hold integers or floats, got " << type;
  if (type.getRank() != 2 && type.getRank() != 3)
    return emitOpError() << "input must be (batch, time) ids or (batch, time, "
                            "features), got "
                         << type;
  return check.result(type.getShape().take_front(2));
}

LogicalResult ApplyMaskOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 3)))
    return failure();
  return verifyMask(*this, getMask(), getInput(), false);
}

LogicalResult BatchNormOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 2)))
    return failure();
  int64_t channels = Check::shape(getInput()).back();
  return failure(
      failed(check.epsilon(getEpsilon(), /*allowZero=*/true)) ||
      failed(check.vector(getGamma(), "gamma", "channels", channels)) ||
      failed(check.vector(getBeta(), "beta", "channels", channels)) ||
      failed(check.vector(getMovingMean(), "moving_mean", "channels", channels)) ||
      failed(check.vector(getMovingVariance(), "moving_variance", "channels",
                          channels)));
}

LogicalResult LayerNormOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 2)))
    return failure();
  int64_t channels = Check::shape(getInput()).back();
  return failure(
      failed(check.epsilon(getEpsilon())) ||
      failed(check.vector(getGamma(), "gamma", "channels", channels)) ||
      failed(check.vector(getBeta(), "beta", "channels", channels)));
}

LogicalResult GroupNormOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 2)))
    return failure();
  int64_t channels = Check::shape(getInput()).back();
  if (channels != kDynamic && channels % static_cast<int64_t>(getGroups()) != 0)
    return emitOpError() << "groups (" << getGroups()
                         << ") must divide the input channels (" << channels
                         << ")";
  return failure(
      failed(check.epsilon(getEpsilon())) ||
      failed(check.vector(getGamma(), "gamma", "channels", channels)) ||
      failed(check.vector(getBeta(), "beta", "channels", channels)));
}

LogicalResult UnitNormOp::verify() {
  Check check(*this);
  return failure(failed(check.minRank(getInput(), "input", 2)) ||
                 failed(check.epsilon(getEpsilon())));
}

LogicalResult RMSNormOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 2)))
    return failure();
  int64_t channels = Check::shape(getInput()).back();
  return failure(
      failed(check.epsilon(getEpsilon())) ||
      failed(check.vector(getScale(), "scale", "channels", channels)));
}

LogicalResult TruncateOp::verify() { return success(); }

LogicalResult DropoutOp::verify() {
  double rate = getRate().convertToDouble();
  if (rate < 0.0 || rate >= 1.0)
    return emitOpError() << "rate must be in [0, 1), got " << rate;
  return success();
}

LogicalResult EmbeddingOp::verify() {
  Check check(*this);
  Type element = cast<RankedTensorType>(getIds().getType()).getElementType();
  if (!isa<IntegerType, FloatType>(element))
    return emitOpError() << "ids must hold integers or floats, got "
                         << getIds().getType();
  if (failed(check.rank(getTable(), "table", 2)))
    return failure();
  SmallVector<int64_t> expected(Check::shape(getIds()));
  expected.push_back(Check::shape(getTable())[1]);
  return check.result(expected);
}

LogicalResult FlattenOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 2)))
    return failure();
  return check.result(shapes::flatten(Check::shape(getInput())));
}

LogicalResult ReshapeOp::verify() {
  Check check(*this);
  if (failed(check.minRank(getInput(), "input", 2)))
    return failure();
  std::string error;
  auto expected =
      shapes::reshape(Check::shape(getInput()), getTargetShape(), error);
  if (!expected)
    return emitOpError(error);
  return check.result(*expected);
}

LogicalResult RepeatVectorOp::verify() {
  Check check(*this);
  if (failed(check.rank(getInput(), "input", 2)))
    return failure();
  ArrayRef<int64_t> in = Check::shape(getInput());
  return check.result({in[0], static_cast<int64_t>(getN()), in[1]});
}

LogicalResult ActivationOp::verify() {
  if (failed(Check(*this).alpha(getActivation(), getAlpha())))
    return failure();
  std::optional<uint64_t> axis = getAxis();
  if (!axis)
    return success();
  if (!shapes::isRowActivation(getActivation()))
    return emitOpError() << "'axis' is only meaningful for softmax and "
                            "log_softmax, not '"
                         << stringifyActivation(getActivation()) << "'";
  int64_t rank = Check::shape(getInput()).size();
  if (static_cast<int64_t>(*axis) < 1 || static_cast<int64_t>(*axis) >= rank)
    return emitOpError() << "axis " << static_cast<int64_t>(*axis)
                         << " is not a non-batch axis of a rank-" << rank
                         << " input";
  return success();
}

int64_t ActivationOp::getNormalizedAxis() {
  if (std::optional<uint64_t> axis = getAxis())
    return static_cast<int64_t>(*axis);
  return static_cast<int64_t>(Check::shape(getInput()).size()) - 1;
}

LogicalResult ReluOp::verify() {
  if (std::optional<APFloat> max = getMaxValue())
    if (max->isNegative() || max->isNaN())
      return emitOpError() << "max_value must be >= 0, got "
                           << max->convertToDouble();
  return success();
}

LogicalResult PReluOp::verify() {
  Check check(*this);
  ArrayRef<int64_t> in = Check::shape(getInput());
  if (failed(check.rank(getAlpha(), "alpha", in.size() - 1)))
    return failure();
  ArrayRef<int64_t> alpha = Check::shape(getAlpha());
  for (size_t i = 0; i < alpha.size(); ++i) {
    if (alpha[i] == 1)
      continue;
    if (alpha[i] != in[i + 1])
      return emitOpError() << "alpha axis " << i << " has size " << alpha[i]
                           << " but input axis " << i + 1 << " has size "
                           << (ShapedType::isDynamic(in[i + 1])
                                   ? std::string("?")
                                   : std::to_string(in[i + 1]))
                           << " (alpha's axes are the input's or 1 where "
                              "shared)";
  }
  return success();
}

//===- SpatialEmitter.cpp - Conv2D/3D, 2-D/3-D pooling, shape layers ------===//
//
// The launches of the spatial ops (kernels/seqc_kernels.cuh, "Spatial
// layers"): Conv2D/3D through emitConvolution (ConvolutionEmitter.cpp: the
// direct kernel, cuDNN or the faster), ConvLSTM as direct convolutions (one
// over every step's input, then one per step over h and a pointwise cell), a
// direct (gathering) transposed
// convolution and a pooling kernel over up to three spatial axes, global
// pooling as the 1-D kernel over all positions, and
// index-mapping kernels for zero padding, cropping, upsampling, resize and permute,
// adaptive pooling one axis at a time
// (tensors of rank <= 5, which covers every Keras layer of these kinds).
//
//===----------------------------------------------------------------------===//

#include "ModelEmitter.h"

#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cstdlib>

using namespace mlir;

namespace seq::cuda::detail {

namespace {

/// The arguments of a seqc::conv_nd launch: x (batch, in..., channels),
/// kernel (k..., channels / groups, filters); buffer and size expressions.
struct ConvNdLaunch {
  std::string act, x, kernel, bias, y, batch;
  Dims in;
  int64_t channels;
  llvm::ArrayRef<int64_t> kernelSize;
  int64_t filters, groups;
  llvm::ArrayRef<int64_t> strides, dilations;
  std::string padding, alpha;
};

std::string convNd(const ConvNdLaunch &c) {
  return "seqc::conv_nd<" + c.act + ">(m->stream, " + c.x + ", " + c.kernel + ", " + c.bias +
         ", " + c.y + ", " + c.batch + ", " + sizes3(c.in) + ", " + std::to_string(c.channels) +
         ", " + sizes3(c.kernelSize) + ", " + std::to_string(c.filters) + ", " +
         std::to_string(c.groups) + ", " + sizes3(c.strides) + ", " + sizes3(c.dilations) +
         ", " + c.padding + ", " + c.alpha + ")";
}

} // namespace

Error Emitter::emitSpatial(Operation *op) {
  auto input = [&]() { return operand(op, op->getOperand(0)); };
  // The input's buffer, which must have rank `rank` (convolutions, poolings).
  auto inputOfRank = [&](size_t rank) -> Expected<unsigned> {
    Expected<unsigned> x = input();
    if (x && this->rank(*x) != rank)
      return fail(op, "expects an input of rank " + Twine(rank));
    return x;
  };
  // Rank <= 5 for the index-mapping kernels.
  auto requireSmallRank = [&](unsigned x) -> Error {
    if (rank(x) <= 5)
      return Error::success();
    return fail(op, "the CUDA backend runs this layer on tensors of rank <= 5 only");
  };

  auto conv = [&](auto o) -> Error {
    constexpr int64_t n = decltype(o)::kSpatialRank;
    Expected<unsigned> x = inputOfRank(n + 2);
    if (!x)
      return x.takeError();
    auto kType = cast<ShapedType>(o.getKernel().getType());
    if (!kType.hasStaticShape())
      return fail(op, "expects a kernel of static shape");
    llvm::ArrayRef<int64_t> k = kType.getShape();
    int64_t filters = k[n + 1], channels = k[n] * o.getGroups();
    Expected<std::string> w = weight(op, o.getKernel(), "kernel");
    if (!w)
      return w.takeError();
    Expected<std::string> b = optionalWeight(op, o.getBias(), "bias");
    if (!b)
      return b.takeError();
    Dims in = dimsOf(*x), out{in[0]}, spatial;
    for (int64_t i = 0; i < n; ++i) {
      int64_t span = o.getDilationRate()[i] * (k[i] - 1) + 1;
      out.push_back("seqc::window1d(" + in[i + 1] + ", " + std::to_string(span) + ", " +
                    std::to_string(o.getStrides()[i]) + ", " + paddingName(o.getPadding()) +
                    ").length");
      spatial.push_back(in[i + 1]);
    }
    out.push_back(std::to_string(filters));
    unsigned y = newBuffer(out, tag(op) + " output");
    for (int64_t i = 0; i < n; ++i)
      checkInDims(dim(y, i + 1) + " < 1",
                  layer(op) + ": the input is smaller than the convolution window");
    ConvolutionLayer c;
    c.x = *x;
    c.y = y;
    c.in = in;
    for (int64_t i = 0; i < n; ++i)
      c.out.push_back(dim(y, i + 1));
    c.key = spatial;
    c.kernel.assign(k.begin(), k.begin() + n);
    c.strides.assign(o.getStrides().begin(), o.getStrides().end());
    c.dilations.assign(o.getDilationRate().begin(), o.getDilationRate().end());
    c.paddings.assign(n, o.getPadding());
    auto inputShape = cast<ShapedType>(o.getInput().getType()).getShape();
    c.staticIn.assign(inputShape.begin() + 1, inputShape.begin() + 1 + n);
    c.channels = channels;
    c.filters = filters;
    c.groups = o.getGroups();
    c.weights = *w;
    c.bias = *b;
    c.act = o.getActivation();
    c.alpha = floatLiteral(o.getAlpha());
    c.direct = convNd({actName(o.getActivation()), ptr(*x), *w, *b, ptr(y), in[0], spatial,
                       channels, k.take_front(n), filters, (int64_t)o.getGroups(),
                       o.getStrides(), o.getDilationRate(), paddingName(o.getPadding()),
                       floatLiteral(o.getAlpha())});
    emitConvolution(op, c);
    bufferOf[op->getResult(0)] = y;
    return Error::success();
  };

  auto convLstm = [&](ConvLSTMOp o) -> Error {
    const int64_t n = o.getSpatialRank();
    Expected<unsigned> x = inputOfRank(n + 3);
    if (!x)
      return x.takeError();
    auto kType = cast<ShapedType>(o.getKernel().getType());
    auto rType = cast<ShapedType>(o.getRecurrentKernel().getType());
    if (!kType.hasStaticShape() || !rType.hasStaticShape())
      return fail(op, "expects kernels of static shape");
    llvm::ArrayRef<int64_t> k = kType.getShape(), r = rType.getShape();
    const int64_t u = r[n], channels = k[n];
    Expected<std::string> w = weight(op, o.getKernel(), "kernel");
    if (!w)
      return w.takeError();
    Expected<std::string> rw = weight(op, o.getRecurrentKernel(), "recurrent_kernel");
    if (!rw)
      return rw.takeError();
    Expected<std::string> b = optionalWeight(op, o.getBias(), "bias");
    if (!b)
      return b.takeError();
    Dims in = dimsOf(*x), state{in[0]}, spatial, statePositions;
    for (int64_t i = 0; i < n; ++i) {
      int64_t span = o.getDilationRate()[i] * (k[i] - 1) + 1;
      state.push_back("seqc::window1d(" + in[i + 2] + ", " + std::to_string(span) + ", " +
                      std::to_string(o.getStrides()[i]) + ", " +
                      paddingName(o.getPadding()) + ").length");
      spatial.push_back(in[i + 2]);
    }
    Dims gates = state, projection = state, sequence = state;
    state.push_back(std::to_string(u));
    gates.push_back(std::to_string(4 * u));
    projection.insert(projection.begin() + 1, in[1]);
    projection.push_back(std::to_string(4 * u));
    sequence.insert(sequence.begin() + 1, in[1]);
    sequence.push_back(std::to_string(u));
    unsigned xp = newBuffer(projection, tag(op) + " input convolution of every step");
    unsigned h = newBuffer(state, tag(op) + " h");
    unsigned c = newBuffer(state, tag(op) + " c");
    unsigned hu = newBuffer(gates, tag(op) + " recurrent convolution of h");
    std::optional<unsigned> seq;
    if (o.getReturnSequences())
      seq = newBuffer(sequence, tag(op) + " output");
    for (int64_t i = 0; i < n; ++i)
      checkInDims(dim(h, i + 1) + " < 1",
                  layer(op) + ": the input is smaller than the convolution window");
    Dims stateSpatial;
    for (int64_t i = 0; i < n; ++i)
      stateSpatial.push_back(dim(h, i + 1));
    std::string positions = "(" + product(stateSpatial) + ")";
    std::string bytes = "(size_t)" + in[0] + " * " + positions + " * " + std::to_string(u) +
                        " * sizeof(float)";
    comment(op, "ConvLSTM, kernel " + joined(k.take_front(n), "x") + ", recurrent kernel " +
                    joined(r.take_front(n), "x") + ", " + stringifyPadding(o.getPadding()) +
                    ", " + stringifyActivation(o.getActivation()) + "/" +
                    stringifyActivation(o.getRecurrentActivation()) + " -> " +
                    buffers[seq ? *seq : h].name);
    llvm::SmallVector<int64_t> ones(n, 1);
    std::string linear = actName(Activation::Linear);
    forwardCode += tryLaunch(
        op, convNd({linear, ptr(*x), *w, *b, ptr(xp), in[0] + " * " + in[1], spatial, channels,
                    k.take_front(n), 4 * u, 1, o.getStrides(), o.getDilationRate(),
                    paddingName(o.getPadding()), "0.0f"}));
    // h and c start at zero or from the initial state (h then c); the final
    // state is their copy after the last step.
    RecurrenceSpec states;
    if (Error e = bindState(op, o.getInitialState(), o.getFinalState(), states))
      return e;
    std::string oneState = "(size_t)" + in[0] + " * " + positions + " * " + std::to_string(u);
    auto copy = [&](const std::string &to, const std::string &from) {
      return tryLaunch(op, "cudaMemcpyAsync(" + to + ", " + from + ", " + bytes +
                               ", cudaMemcpyDeviceToDevice, m->stream)");
    };
    if (o.getInitialState()) {
      forwardCode += copy(ptr(h), states.initialState);
      forwardCode += copy(ptr(c), "(" + states.initialState + ") + " + oneState);
    } else {
      forwardCode += tryLaunch(op, "cudaMemsetAsync(" + ptr(h) + ", 0, " + bytes + ", m->stream)");
      forwardCode += tryLaunch(op, "cudaMemsetAsync(" + ptr(c) + ", 0, " + bytes + ", m->stream)");
    }
    llvm::raw_string_ostream os(forwardCode);
    os << "  for (int64_t s = 0; s < " << in[1] << "; ++s) {\n"
       << "  "
       << tryLaunch(op, convNd({linear, ptr(h), *rw, "nullptr", ptr(hu), in[0], stateSpatial, u,
                                r.take_front(n), 4 * u, 1, ones, ones,
                                paddingName(Padding::Same), "0.0f"}))
       << "    seqc::ConvLstmCellArgs a{};\n"
       << "    a.xproj = " << ptr(xp) << ";\n"
       << "    a.hu = " << ptr(hu) << ";\n"
       << "    a.h = " << ptr(h) << ";\n"
       << "    a.c = " << ptr(c) << ";\n"
       << "    a.out = " << (seq ? ptr(*seq) : "nullptr") << ";\n"
       << "    a.batch = (int)" << in[0] << ";\n"
       << "    a.steps = (int)" << in[1] << ";\n"
       << "    a.units = " << u << ";\n"
       << "    a.positions = " << positions << ";\n"
       << "    a.s = (int)s;\n"
       << "    a.t = " << (o.getGoBackwards() ? "(int)(" + in[1] + " - 1 - s)" : "(int)s")
       << ";\n"
       << "    a.alpha = " << floatLiteral(shapes::cellAlpha(o.getActivation())) << ";\n"
       << "    a.recurrent_alpha = "
       << floatLiteral(shapes::cellAlpha(o.getRecurrentActivation())) << ";\n"
       << "  " << tryLaunch(op, "seqc::conv_lstm_cell<" + actName(o.getActivation()) + ", " +
                                    actName(o.getRecurrentActivation()) + ">(m->stream, a)")
       << "  }\n";
    if (o.getFinalState()) {
      forwardCode += copy(states.finalState, ptr(h));
      forwardCode += copy("(" + states.finalState + ") + " + oneState, ptr(c));
    }
    bufferOf[op->getResult(0)] = seq ? *seq : h;
    return Error::success();
  };

  auto convTranspose = [&](auto o) -> Error {
    constexpr int64_t n = decltype(o)::kSpatialRank;
    Expected<unsigned> x = inputOfRank(n + 2);
    if (!x)
      return x.takeError();
    auto kType = cast<ShapedType>(o.getKernel().getType());
    if (!kType.hasStaticShape())
      return fail(op, "expects a kernel of static shape");
    llvm::ArrayRef<int64_t> k = kType.getShape();
    int64_t filters = k[n], channels = k[n + 1];
    Expected<std::string> w = weight(op, o.getKernel(), "kernel");
    if (!w)
      return w.takeError();
    Expected<std::string> b = optionalWeight(op, o.getBias(), "bias");
    if (!b)
      return b.takeError();
    std::optional<llvm::ArrayRef<int64_t>> outputPadding = o.getOutputPadding();
    Dims in = dimsOf(*x), out{in[0]}, spatial;
    llvm::SmallVector<int64_t> pads;
    for (int64_t i = 0; i < n; ++i) {
      // out = in * stride + the length for an empty input (seq's shape rule).
      shapes::TransposedAxis tail = shapes::transposedAxis(
          0, k[i], o.getStrides()[i], o.getDilationRate()[i], o.getPadding(),
          outputPadding ? (*outputPadding)[i] : -1);
      out.push_back("(" + in[i + 1] + " * " + std::to_string(o.getStrides()[i]) +
                    (tail.length < 0 ? " - " : " + ") +
                    std::to_string(std::abs(tail.length)) + ")");
      pads.push_back(tail.padBefore);
      spatial.push_back(in[i + 1]);
    }
    out.push_back(std::to_string(filters));
    unsigned y = newBuffer(out, tag(op) + " output");
    Dims outDims;
    for (int64_t i = 0; i < n; ++i)
      outDims.push_back(dim(y, i + 1));
    comment(op, "transposed convolution, kernel " + joined(k.take_front(n), "x") + ", " +
                    stringifyPadding(o.getPadding()) + ", " +
                    stringifyActivation(o.getActivation()) + " -> " + buffers[y].name);
    forwardCode += tryLaunch(
        op, "seqc::conv_transpose_nd<" + actName(o.getActivation()) + ">(m->stream, " +
                ptr(*x) + ", " + *w + ", " + *b + ", " + ptr(y) + ", " + in[0] + ", " +
                sizes3(spatial) + ", " + Twine(channels) + ", " + sizes3(k.take_front(n)) +
                ", " + Twine(filters) + ", " + sizes3(o.getStrides()) + ", " +
                sizes3(o.getDilationRate()) + ", " + sizes3(outDims) + ", " + sizes3(pads) +
                ", " + floatLiteral(o.getAlpha()) + ")");
    bufferOf[op->getResult(0)] = y;
    return Error::success();
  };

  auto pool = [&](auto o, bool isMax) -> Error {
    constexpr int64_t n = decltype(o)::kSpatialRank;
    Expected<unsigned> x = inputOfRank(n + 2);
    if (!x)
      return x.takeError();
    Dims in = dimsOf(*x), out{in[0]}, spatial;
    for (int64_t i = 0; i < n; ++i) {
      out.push_back("seqc::window1d(" + in[i + 1] + ", " + std::to_string(o.getPoolSize()[i]) +
                    ", " + std::to_string(o.getStrides()[i]) + ", " +
                    paddingName(o.getPadding()) + ").length");
      spatial.push_back(in[i + 1]);
    }
    out.push_back(in.back());
    unsigned y = newBuffer(out, tag(op) + " output");
    for (int64_t i = 0; i < n; ++i)
      checkInDims(dim(y, i + 1) + " < 1",
                  layer(op) + ": the input is smaller than the pooling window");
    comment(op, std::string(isMax ? "max" : "average") + " pooling, window " +
                    joined(o.getPoolSize(), "x") + ", strides " + joined(o.getStrides(), "x") +
                    ", " + stringifyPadding(o.getPadding()).str() + " -> " + buffers[y].name);
    forwardCode += tryLaunch(op, "seqc::pool_nd<" + std::string(isMax ? "true" : "false") +
                                     ">(m->stream, " + ptr(*x) + ", " + ptr(y) + ", " + in[0] +
                                     ", " + sizes3(spatial) + ", (int)" + in.back() + ", " +
                                     sizes3(o.getPoolSize()) + ", " + sizes3(o.getStrides()) +
                                     ", " + paddingName(o.getPadding()) + ")");
    bufferOf[op->getResult(0)] = y;
    return Error::success();
  };

  auto globalPool = [&](auto o, bool isMax) -> Error {
    constexpr int64_t n = decltype(o)::kSpatialRank;
    Expected<unsigned> x = inputOfRank(n + 2);
    if (!x)
      return x.takeError();
    Dims in = dimsOf(*x), out{in[0]};
    if (o.getKeepdims())
      out.append(n, "1");
    out.push_back(in.back());
    unsigned y = newBuffer(out, tag(op) + " output");
    comment(op, std::string(isMax ? "max" : "mean") + " over the spatial axes -> " +
                    buffers[y].name);
    forwardCode += tryLaunch(op, "seqc::global_pool1d<" + std::string(isMax ? "true" : "false") +
                                     ">(m->stream, " + ptr(*x) + ", nullptr, " + ptr(y) + ", " +
                                     in[0] + ", " + product(llvm::ArrayRef(in).slice(1, n)) +
                                     ", (int)" +
                                     in.back() + ")");
    bufferOf[op->getResult(0)] = y;
    return Error::success();
  };

  // The op's input, of a rank the spatial kernels take (Shape5).
  auto smallInput = [&]() -> Expected<unsigned> {
    Expected<unsigned> x = input();
    if (!x)
      return x.takeError();
    if (Error e = requireSmallRank(*x))
      return std::move(e);
    return *x;
  };
  // y[i] = x[i - offset] where that is inside x, else 0: the op's result.
  auto shiftCopy = [&](unsigned x, unsigned y, const Dims &offset) -> Error {
    forwardCode += tryLaunch(op, "seqc::shift_copy(m->stream, " + ptr(x) + ", " + ptr(y) + ", " +
                                     shape5(dimsOf(x)) + ", " + shape5(dimsOf(y)) + ", " +
                                     shape5(offset) + ")");
    bufferOf[op->getResult(0)] = y;
    return Error::success();
  };

  // ZeroPadding (sign 1) and Cropping (sign -1).
  auto padOrCrop = [&](llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                       int sign) -> Error {
    Expected<unsigned> x = smallInput();
    if (!x)
      return x.takeError();
    Dims in = dimsOf(*x), out{in[0]}, offset{"0"};
    for (size_t i = 0; i < low.size(); ++i) {
      int64_t change = low[i] + high[i];
      out.push_back(change == 0 ? in[i + 1]
                                : in[i + 1] + (sign > 0 ? " + " : " - ") + std::to_string(change));
      offset.push_back(std::to_string(sign * low[i]));
    }
    unsigned y = newBuffer(out, tag(op) + " output");
    if (sign < 0)
      for (size_t i = 0; i < low.size(); ++i)
        if (low[i] + high[i] > 0)
          checkInDims(dim(y, i + 1) + " < 1",
                    layer(op) + ": the cropping leaves nothing of the input");
    comment(op, std::string(sign > 0 ? "zero padding" : "cropping") + ", low [" +
                    joined(low, ", ") + "], high [" + joined(high, ", ") + "] -> " +
                    buffers[y].name);
    return shiftCopy(*x, y, offset);
  };

  // y[..., j, ...] = x[..., start + j, ...], a negative start counted from
  // the end: shift_copy's offset is minus that start.
  auto slice = [&](SliceOp o) -> Error {
    Expected<unsigned> x = smallInput();
    if (!x)
      return x.takeError();
    Dims in = dimsOf(*x), out{in[0]}, offset{"0"};
    auto inType = cast<RankedTensorType>(o.getInput().getType());
    for (size_t i = 0; i < o.getSizes().size(); ++i) {
      int64_t start = o.getStarts()[i];
      out.push_back(std::to_string(o.getSizes()[i]));
      offset.push_back(start >= 0 ? std::to_string(-start)
                                  : "-(" + in[i + 1] + " - " + std::to_string(-start) + ")");
    }
    unsigned y = newBuffer(out, tag(op) + " output");
    for (size_t i = 0; i < o.getSizes().size(); ++i)
      if (inType.isDynamicDim(i + 1))
        checkInDims(in[i + 1] + " < " + std::to_string(o.requiredLength(i)),
                    layer(op) + ": the input is shorter than the " +
                        std::to_string(o.requiredLength(i)) +
                        " elements its slice takes along axis " + std::to_string(i + 1));
    comment(op, "slice, starts [" + joined(o.getStarts(), ", ") + "], sizes [" +
                    joined(o.getSizes(), ", ") + "] -> " + buffers[y].name);
    return shiftCopy(*x, y, offset);
  };

  auto upsample = [&](UpSamplingOp o) -> Error {
    Expected<unsigned> x = smallInput();
    if (!x)
      return x.takeError();
    llvm::ArrayRef<int64_t> size = o.getSize();
    if (o.getInterpolation() == Interpolation::Nearest) {
      Dims in = dimsOf(*x), out{in[0]}, factor{"1"};
      for (size_t i = 0; i < size.size(); ++i) {
        out.push_back(size[i] == 1 ? in[i + 1] : in[i + 1] + " * " + std::to_string(size[i]));
        factor.push_back(std::to_string(size[i]));
      }
      unsigned y = newBuffer(out, tag(op) + " output");
      comment(op, "nearest upsampling by [" + joined(size, ", ") + "] -> " + buffers[y].name);
      forwardCode += tryLaunch(op, "seqc::upsample_nearest(m->stream, " + ptr(*x) + ", " +
                                       ptr(y) + ", " + shape5(in) + ", " + shape5(factor) + ")");
      bufferOf[op->getResult(0)] = y;
      return Error::success();
    }
    // Bilinear: one axis at a time, each into its own buffer.
    unsigned current = *x;
    for (size_t i = 0; i < size.size(); ++i) {
      if (size[i] == 1)
        continue;
      Dims in = dimsOf(current), out = in;
      out[i + 1] = in[i + 1] + " * " + std::to_string(size[i]);
      unsigned y = newBuffer(out, tag(op) + " output (axis " + std::to_string(i + 1) + ")");
      comment(op, "linear upsampling of axis " + Twine(i + 1) + " by " + Twine(size[i]) +
                      " -> " + buffers[y].name);
      forwardCode += tryLaunch(
          op, "seqc::upsample_linear(m->stream, " + ptr(current) + ", " + ptr(y) + ", " +
                  product(llvm::ArrayRef(in).take_front(i + 1)) + ", (int)" + in[i + 1] + ", " +
                  product(llvm::ArrayRef(in).drop_front(i + 2)) + ", " + Twine(size[i]) + ")");
      current = y;
    }
    if (current == *x) // every factor 1: the identity
      current = newBuffer(dimsOf(*x), tag(op) + " output", *x);
    bufferOf[op->getResult(0)] = current;
    return Error::success();
  };

  auto resize = [&](ResizeOp o) -> Error {
    Expected<unsigned> x = smallInput();
    if (!x)
      return x.takeError();
    llvm::ArrayRef<int64_t> size = o.getSize();
    llvm::ArrayRef<int64_t> inShape = o.getInput().getType().getShape();
    bool bilinear = o.getInterpolation() == Interpolation::Bilinear;
    // One axis at a time, the last spatial axis first, each into its own
    // buffer.
    unsigned current = *x;
    for (size_t i = size.size(); i >= 1; --i) {
      if (inShape[i] == size[i - 1])
        continue;
      Dims in = dimsOf(current), out = in;
      out[i] = std::to_string(size[i - 1]);
      unsigned y = newBuffer(out, tag(op) + " output (axis " + std::to_string(i) + ")");
      comment(op, Twine(bilinear ? "linear" : "nearest") + " resize of axis " + Twine(i) +
                      " to " + Twine(size[i - 1]) + " -> " + buffers[y].name);
      forwardCode += tryLaunch(
          op, "seqc::resize_axis(m->stream, " + ptr(current) + ", " + ptr(y) + ", " +
                  product(llvm::ArrayRef(in).take_front(i)) + ", (int)" + in[i] + ", " +
                  Twine(size[i - 1]) + ", " + product(llvm::ArrayRef(in).drop_front(i + 1)) +
                  ", " + (bilinear ? "true" : "false") + ")");
      current = y;
    }
    if (current == *x) // every size unchanged: the identity
      current = newBuffer(dimsOf(*x), tag(op) + " output", *x);
    bufferOf[op->getResult(0)] = current;
    return Error::success();
  };

  auto adaptivePool = [&](llvm::ArrayRef<int64_t> size, bool isMax) -> Error {
    Expected<unsigned> x = smallInput();
    if (!x)
      return x.takeError();
    llvm::ArrayRef<int64_t> inShape =
        cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
    // One axis at a time, the first spatial axis first, each into its own
    // buffer.
    unsigned current = *x;
    for (size_t i = 1; i <= size.size(); ++i) {
      if (inShape[i] == size[i - 1])
        continue;
      Dims in = dimsOf(current), out = in;
      out[i] = std::to_string(size[i - 1]);
      unsigned y = newBuffer(out, tag(op) + " output (axis " + std::to_string(i) + ")");
      comment(op, Twine("adaptive ") + (isMax ? "max" : "average") + " pooling of axis " +
                      Twine(i) + " to " + Twine(size[i - 1]) + " -> " + buffers[y].name);
      forwardCode += tryLaunch(
          op, "seqc::adaptive_pool_axis(m->stream, " + ptr(current) + ", " + ptr(y) + ", " +
                  product(llvm::ArrayRef(in).take_front(i)) + ", (int)" + in[i] + ", " +
                  Twine(size[i - 1]) + ", " + product(llvm::ArrayRef(in).drop_front(i + 1)) +
                  ", " + (isMax ? "true" : "false") + ")");
      current = y;
    }
    if (current == *x) // every size unchanged: the identity
      current = newBuffer(dimsOf(*x), tag(op) + " output", *x);
    bufferOf[op->getResult(0)] = current;
    return Error::success();
  };

  auto permute = [&](PermuteOp o) -> Error {
    Expected<unsigned> x = smallInput();
    if (!x)
      return x.takeError();
    Dims in = dimsOf(*x), out{in[0]}, perm{"0"};
    for (int64_t d : o.getDims()) {
      out.push_back(in[d]);
      perm.push_back(std::to_string(d));
    }
    unsigned y = newBuffer(out, tag(op) + " output");
    comment(op, "permute axes [" + joined(o.getDims(), ", ") + "] -> " + buffers[y].name);
    forwardCode += tryLaunch(op, "seqc::permute(m->stream, " + ptr(*x) + ", " + ptr(y) + ", " +
                                     shape5(in) + ", " + shape5(perm) + ")");
    bufferOf[op->getResult(0)] = y;
    return Error::success();
  };

  auto reverse = [&](ReverseOp o) -> Error {
    Expected<unsigned> x = input();
    if (!x)
      return x.takeError();
    Dims in = dimsOf(*x);
    size_t axis = static_cast<size_t>(o.getAxis());
    unsigned y = newBuffer(in, tag(op) + " output");
    comment(op, "reverse axis " + std::to_string(axis) + " -> " + buffers[y].name);
    forwardCode += tryLaunch(op, "seqc::reverse_axis(m->stream, " + ptr(*x) + ", " + ptr(y) +
                                     ", " + product(llvm::ArrayRef(in).take_front(axis)) + ", " +
                                     in[axis] + ", " +
                                     product(llvm::ArrayRef(in).drop_front(axis + 1)) + ")");
    bufferOf[op->getResult(0)] = y;
    return Error::success();
  };

  return llvm::TypeSwitch<Operation *, Error>(op)
      .Case<Conv2DOp, Conv3DOp>(conv)
      .Case(convLstm)
      .Case<ConvTranspose1DOp, ConvTranspose2DOp, ConvTranspose3DOp>(convTranspose)
      .Case<MaxPool2DOp, MaxPool3DOp>([&](auto o) { return pool(o, true); })
      .Case<AvgPool2DOp, AvgPool3DOp>([&](auto o) { return pool(o, false); })
      .Case<GlobalMaxPool2DOp, GlobalMaxPool3DOp>([&](auto o) { return globalPool(o, true); })
      .Case<GlobalAvgPool2DOp, GlobalAvgPool3DOp>([&](auto o) { return globalPool(o, false); })
      .Case([&](ZeroPaddingOp o) { return padOrCrop(o.getLow(), o.getHigh(), 1); })
      .Case([&](CroppingOp o) { return padOrCrop(o.getLow(), o.getHigh(), -1); })
      .Case(slice)
      .Case(upsample)
      .Case(resize)
      .Case([&](AdaptiveMaxPoolOp o) {
        return adaptivePool(o.getOutputSize(), true);
      })
      .Case([&](AdaptiveAvgPoolOp o) {
        return adaptivePool(o.getOutputSize(), false);
      })
      .Case(permute)
      .Case(reverse)
      .Default([&](Operation *) { return fail(op, "the CUDA backend cannot compile this op"); });
}

} // namespace seq::cuda::detail

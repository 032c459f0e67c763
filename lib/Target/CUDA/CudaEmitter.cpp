//===- CudaEmitter.cpp - seq IR to one readable CUDA C++ file ------------===//
//
// The emitted file is the kernel library (kernels/seqc_kernels.cuh, verbatim)
// followed by the model: its weights, a function computing every buffer's
// shape from (batch, steps), one launch per op, its description, and the
// runtime (the seqc C API), which seq-compile links compiled once instead.
//
// This file turns each op into its launch (and its buffers' shapes);
// HostLauncher.cpp writes the rest. Shapes are C++ expressions over earlier
// buffers' shapes (`D.v3[1]`), so one compiled library serves every batch
// size (and sequence length, when time is dynamic) up to the bounds it
// allocated for at create. Flatten, Reshape and Dropout alias their input's
// memory.
//
//===----------------------------------------------------------------------===//

#include "ModelEmitter.h"

#include "seq/Dialect/Seq/IR/Metadata.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"
#include "seq/Dialect/Seq/Transforms/Pipelines.h"
#include "seq/Dialect/Seq/Transforms/WeightConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace seq::cuda {
namespace detail {

std::string Emitter::layer(Operation *op) const {
  std::string name = layerName(op->getLoc());
  return name.empty() ? op->getName().getStringRef().str() : name;
}

std::string Emitter::text(StringRef s) const {
  auto [it, added] = textIndex.try_emplace(s, texts.size());
  if (added)
    texts.push_back(s.str());
  return "seqc_str_" + std::to_string(it->second);
}

Error Emitter::fail(Operation *op, const Twine &message) const {
  std::string where = sourceName.empty() ? "" : sourceName + ": ";
  if (op)
    where += "layer '" + layer(op) + "' (" + op->getName().getStringRef().str() + "): ";
  return llvm::createStringError(llvm::inconvertibleErrorCode(), where + message);
}

unsigned Emitter::newBuffer(Dims dims, StringRef what, std::optional<unsigned> aliasOf) {
  unsigned index = buffers.size();
  Buffer b;
  b.name = "v" + std::to_string(index);
  b.storage = aliasOf ? buffers[*aliasOf].storage : b.name;
  b.what = what.str();
  llvm::raw_string_ostream os(dimsCode);
  os << "  // " << b.name << ": " << what << (aliasOf ? " (aliases " + b.storage + ")" : "")
     << "\n";
  for (auto [i, d] : llvm::enumerate(dims))
    os << "  D." << b.name << "[" << i << "] = " << d << ";\n";
  b.dims = std::move(dims);
  buffers.push_back(std::move(b));
  return index;
}

void Emitter::checkInDims(const Twine &condition, const Twine &message) {
  dimsCode += "  if (" + condition.str() + ")\n    return (const char *)" + text(message.str()) +
              ";\n";
}

Expected<unsigned> Emitter::operand(Operation *op, Value value) {
  auto it = bufferOf.find(value);
  if (it == bufferOf.end())
    return fail(op, "an operand is not computed by the model (a constant used as "
                    "data?): the CUDA backend cannot compile it");
  return it->second;
}

Expected<std::string> Emitter::weight(Operation *op, Value value, StringRef role) {
  auto cached = weightOf.find(value);
  if (cached != weightOf.end())
    return "m->w + weights::" + weights[cached->second].name;
  std::optional<std::vector<float>> data = readWeights(value);
  if (!data)
    return fail(op, "its " + role +
                        " is not a float32 constant (an elided blob, or a value "
                        "computed at run time): re-export the IR with its weights");
  auto type = cast<ShapedType>(value.getType());
  Weight w;
  // Keras weights are named "layer/kernel"; weights a pass made carry just
  // the layer's name, so add the role.
  std::string base = layerName(value.getLoc());
  if (base.empty() || base == layer(op))
    base = layer(op) + "/" + role.str();
  w.name = identifier(base);
  for (int n = 2; weightNames.contains(w.name); ++n)
    w.name = identifier(base) + "_" + std::to_string(n);
  weightNames.insert(w.name);
  w.offset = static_cast<int64_t>(blob.size());
  w.count = static_cast<int64_t>(data->size());
  w.shape = shapeText(type);
  blob.insert(blob.end(), data->begin(), data->end());
  blob.resize((blob.size() + kWeightAlignment - 1) / kWeightAlignment * kWeightAlignment, 0.0f);
  weightOf[value] = weights.size();
  weights.push_back(w);
  return "m->w + weights::" + w.name;
}

void Emitter::comment(Operation *op, const Twine &text) {
  std::string line = tag(op) + ": " + op->getName().getStringRef().str() + ", " + text.str();
  if (isa_and_nonnull<TimeDistributedOp>(op->getParentOp()))
    line += " (TimeDistributed: once over all timesteps)";
  forwardCode += "  // " + line + "\n";
  summary.push_back(line);
}

std::string Emitter::tryLaunch(Operation *op, const Twine &call) const {
  // Parenthesised: template arguments hold commas.
  return "  SEQC_TRY(" + text(layer(op)) + ", (" + call.str() + "));\n";
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

Error Emitter::emitLinear(Operation *op, Value input, Value kernel, Value bias,
                          Activation act, std::optional<llvm::APFloat> alpha) {
  Expected<unsigned> x = operand(op, input);
  if (!x)
    return x.takeError();
  auto kType = cast<ShapedType>(kernel.getType());
  if (kType.getRank() != 2 || !kType.hasStaticShape() || rank(*x) < 2)
    return fail(op, "expects a (k, n) kernel and an input of rank >= 2");
  int64_t k = kType.getDimSize(0), n = kType.getDimSize(1);
  Expected<std::string> w = weight(op, kernel, "kernel");
  if (!w)
    return w.takeError();
  Expected<std::string> b = optionalWeight(op, bias, "bias");
  if (!b)
    return b.takeError();
  Dims in = dimsOf(*x);
  Dims out(in.begin(), in.end() - 1);
  out.push_back(std::to_string(n));
  unsigned y = newBuffer(out, tag(op) + " output");
  std::string rows = product(llvm::ArrayRef(in).drop_back());
  comment(op, "GEMM (" + rowsText(input) + ", " + Twine(k) + ") x (" + Twine(k) + ", " + Twine(n) + ")" +
                  (bias ? " + bias" : "") + ", " + stringifyActivation(act) + " -> " +
                  buffers[y].name);
  forwardCode += tryLaunch(op, "seqc::linear<" + actName(act) + ">(m->stream, " + ptr(*x) +
                                   ", " + *w + ", " + *b + ", " + ptr(y) + ", " + rows + ", " +
                                   Twine(n) + ", " + Twine(k) + ", " + floatLiteral(alpha) + ")");
  bufferOf[op->getResult(0)] = y;
  return Error::success();
}

Expected<unsigned> Emitter::emitFusedRecurrence(Operation *op, unsigned xp,
                                                const RecurrenceSpec &spec) {
  if (rank(xp) != 3)
    return fail(op, "expects a (batch, time, gates*units) input projection");
  const int64_t u = spec.units;
  std::string batch = dim(xp, 0), steps = dim(xp, 1);
  Dims out = spec.returnSequences ? Dims{batch, steps, std::to_string(u)}
                                  : Dims{batch, std::to_string(u)};
  unsigned y = newBuffer(out, tag(op) + " output");
  unsigned h = newBuffer({"2", batch, std::to_string(u)}, tag(op) + " h (double-buffered)");
  std::optional<unsigned> c, z, rh;
  if (spec.cell == Cell::Lstm)
    c = newBuffer({batch, std::to_string(u)}, tag(op) + " cell state");
  if (spec.cell == Cell::GruResetBefore) {
    z = newBuffer({batch, std::to_string(u)}, tag(op) + " update gate");
    rh = newBuffer({batch, std::to_string(u)}, tag(op) + " r * h");
  }
  std::string plan = "plan_" + buffers[y].name;
  modelFields += "  seqc::RecurrencePlan " + plan + "; // " + tag(op) + "\n";
  createCode += "  SEQC_CREATE_TRY(" + text(layer(op)) + ", (seqc::plan_model_recurrence<" +
                cellTemplateArguments(spec) + ", " + std::to_string(u) + ">(&m->" + plan +
                ")));\n" +
                "  seqc::report_plan((const char *)" + text(layer(op)) + ", m->" + plan + ");\n";
  llvm::raw_string_ostream os(forwardCode);
  os << "  {\n"
     << "    seqc::RecurrenceArgs a{};\n"
     << "    a.xproj = " << ptr(xp) << ";\n"
     << "    a.u = " << spec.recurrentKernel << ";\n"
     << "    a.rbias = " << spec.recurrentBias << ";\n"
     << "    a.out = " << ptr(y) << ";\n"
     << "    a.h = " << ptr(h) << ";\n"
     << "    a.c = " << (c ? ptr(*c) : "nullptr") << ";\n"
     << "    a.z = " << (z ? ptr(*z) : "nullptr") << ";\n"
     << "    a.rh = " << (rh ? ptr(*rh) : "nullptr") << ";\n"
     << "    a.batch = (int)" << batch << ";\n"
     << "    a.steps = (int)" << steps << ";\n"
     << "    a.units = " << u << ";\n"
     << "    a.go_backwards = " << (spec.goBackwards ? 1 : 0) << ";\n"
     << "    a.return_sequences = " << (spec.returnSequences ? 1 : 0) << ";\n"
     << "    a.mask = " << spec.mask << ";\n"
     << "    a.zero_output_for_mask = " << (spec.zeroOutputForMask ? 1 : 0) << ";\n"
     << "    a.h0 = " << spec.initialState << ";\n"
     << "    a.state_out = " << spec.finalState << ";\n"
     << "    a.alpha = " << floatLiteral(shapes::cellAlpha(spec.activation)) << ";\n"
     << "    a.recurrent_alpha = "
     << floatLiteral(shapes::cellAlpha(spec.recurrentActivation)) << ";\n"
     << "  " << tryLaunch(op, "seqc::run_recurrence(m->stream, m->" + plan + ", a)")
     << "  }\n";
  fusedRecurrences[op] = FusedRecurrence{spec, xp, y, h, c};
  return y;
}

Error Emitter::checkCudnnSupport(Operation *op, const RecurrenceSpec &spec) const {
  if (spec.initialState != "nullptr" || spec.finalState != "nullptr")
    return fail(op, "--rnn-backend=cudnn does not take or return a recurrent layer's state "
                    "(a stateful layer, initial_state, return_state); use --rnn-backend=fused "
                    "for this model");
  if (spec.mask != "nullptr")
    return fail(op, "--rnn-backend=cudnn cannot skip the masked steps of a Masking or "
                    "Embedding(mask_zero=True) input; use --rnn-backend=fused for this model");
  if (spec.cell == Cell::GruResetBefore)
    return fail(op, "--rnn-backend=cudnn cannot run a GRU with reset_after=False: cuDNN's GRU "
                    "applies the reset gate after the recurrent product (Keras' "
                    "reset_after=True); use --rnn-backend=fused for this model");
  if (spec.activation != Activation::Tanh || spec.recurrentActivation != Activation::Sigmoid)
    return fail(op, "--rnn-backend=cudnn needs activation=tanh and "
                    "recurrent_activation=sigmoid (cuDNN's fixed cell), this layer has " +
                        stringifyActivation(spec.activation) + "/" +
                        stringifyActivation(spec.recurrentActivation) +
                        ": use --rnn-backend=fused");
  return Error::success();
}

Error Emitter::emitCudnnRecurrence(Operation *op, unsigned x, int64_t features,
                                   const RecurrenceSpec &spec, StringRef kernel,
                                   StringRef inputBias) {
  if (rank(x) != 3)
    return fail(op, "expects a (batch, time, features) input");
  usesCudnn = usesCudnnRnn = true;
  const int64_t u = spec.units;
  std::string batch = dim(x, 0), steps = dim(x, 1);
  Dims out = spec.returnSequences ? Dims{batch, steps, std::to_string(u)}
                                  : Dims{batch, std::to_string(u)};
  unsigned y = newBuffer(out, tag(op) + " output");
  std::string rnn = "rnn_" + buffers[y].name;
  bool lstm = spec.cell == Cell::Lstm;
  modelFields += "  seqc::CudnnRnn " + rnn + "; // " + tag(op) + "\n";
  createCode += "  SEQC_CREATE_CUDNN(" + text(layer(op)) +
                ", seqc::cudnn_rnn_create(m->cudnn, m->stream, m->" + rnn + ", " +
                (lstm ? "true" : "false") + ", " + std::to_string(features) + ", " +
                std::to_string(u) + ", (int)Dmax." + buffers[x].name + "[0], (int)Dmax." +
                buffers[x].name + "[1], " + (spec.goBackwards ? "true" : "false") + ", " +
                kernel.str() + ", " + spec.recurrentKernel + ", " + inputBias.str() + ", " +
                spec.recurrentBias + "));\n";
  destroyCode += "  seqc::cudnn_rnn_destroy(m->" + rnn + ");\n";
  comment(op, std::string(lstm ? "LSTM" : "GRU") + " on cuDNN (cudnnRNNForward), " +
                  std::to_string(u) + " units" + (spec.goBackwards ? ", go_backwards" : "") +
                  " -> " + buffers[y].name);
  std::string seqOut = spec.returnSequences ? ptr(y) : "nullptr";
  std::string lastOut = spec.returnSequences ? "nullptr" : ptr(y);
  forwardCode += "  SEQC_TRY_MSG(" + text(layer(op)) + ", seqc::cudnn_rnn_run(m->cudnn, m->stream, m->" +
                 rnn + ", " + ptr(x) + ", (int)" + batch + ", (int)" + steps + ", " +
                 (spec.goBackwards ? "true" : "false") + ", " + seqOut + ", " + lastOut +
                 "));\n";
  bufferOf[op->getResult(0)] = y;
  return Error::success();
}

/// The cell, activation and direction of any recurrent op, layer or kernel
/// level (LSTM and GRU add their recurrent activation).
template <typename RecurrentOp>
RecurrenceSpec flagsOf(RecurrentOp op, Cell cell) {
  RecurrenceSpec spec;
  spec.cell = cell;
  spec.activation = op.getActivation();
  spec.returnSequences = op.getReturnSequences();
  spec.goBackwards = op.getGoBackwards();
  spec.zeroOutputForMask = op.getZeroOutputForMask();
  return spec;
}

Expected<std::vector<unsigned>> Emitter::operands(Operation *op, ValueRange values) {
  std::vector<unsigned> buffers;
  for (Value v : values) {
    Expected<unsigned> x = operand(op, v);
    if (!x)
      return x.takeError();
    buffers.push_back(*x);
  }
  return buffers;
}

/// The pointer expression of `mask`'s buffer into spec.mask, if there is one.
Error Emitter::bindMask(Operation *op, Value mask, RecurrenceSpec &spec) {
  if (!mask)
    return Error::success();
  Expected<unsigned> m = operand(op, mask);
  if (!m)
    return m.takeError();
  spec.mask = ptr(*m);
  return Error::success();
}

Error Emitter::bindState(Operation *op, Value initialState, Value finalState,
                         RecurrenceSpec &spec) {
  if (!initialState && !finalState)
    return Error::success();
  // A stateful layer: the state argument it reads gets its final state back,
  // and nothing else reads that.
  auto arg = dyn_cast_or_null<BlockArgument>(initialState);
  auto slot = arg ? stateOffsetOf.find(arg) : stateOffsetOf.end();
  bool returnsToState = finalState && llvm::any_of(finalState.getUses(), [&](OpOperand &use) {
    return isa<func::ReturnOp>(use.getOwner()) && use.getOperandNumber() >= outputPorts.size();
  });
  if (slot != stateOffsetOf.end() || returnsToState) {
    bool wired = slot != stateOffsetOf.end() && finalState && finalState.hasOneUse() &&
                 isa<func::ReturnOp>(finalState.use_begin()->getOwner()) &&
                 finalState.use_begin()->getOperandNumber() ==
                     outputPorts.size() + (arg.getArgNumber() - inputPorts.size());
    if (!wired)
      return fail(op, "the CUDA backend keeps a stateful layer's state only when the layer "
                      "reads it from a state argument of @predict and returns its new value "
                      "there");
    spec.initialState = "m->state + " + std::to_string(slot->second);
    spec.finalState = "m->state_next + " + std::to_string(slot->second);
    ++boundStates;
    return Error::success();
  }
  // States between layers (an encoder's return_state read by a decoder's
  // initial_state): (states, batch, units) buffers like any value.
  if (initialState) {
    Expected<unsigned> h0 = operand(op, initialState);
    if (!h0)
      return h0.takeError();
    spec.initialState = ptr(*h0);
  }
  if (finalState) {
    // Every value has the model's batch, the inputs'.
    auto type = cast<ShapedType>(finalState.getType());
    Dims shape{std::to_string(type.getDimSize(0)), dim(inputBuffers.front(), 0)};
    for (int64_t i = 2; i < type.getRank(); ++i) {
      if (type.isDynamicDim(i))
        return fail(op, "keeps a final state of unknown size: give the model fixed input sizes");
      shape.push_back(std::to_string(type.getDimSize(i)));
    }
    unsigned y = newBuffer(shape, tag(op) + " final state");
    spec.finalState = ptr(y);
    bufferOf[finalState] = y;
  }
  return Error::success();
}

/// seq.lstm / seq.gru / seq.simple_rnn that the fusion left at layer level.
Error Emitter::emitRecurrentLayer(Operation *op) {
  Value input, kernel, recurrent, bias, mask, initialState, finalState;
  RecurrenceSpec spec;
  if (auto lstm = dyn_cast<LSTMOp>(op)) {
    input = lstm.getInput(), kernel = lstm.getKernel(), recurrent = lstm.getRecurrentKernel(),
    bias = lstm.getBias(), mask = lstm.getMask();
    initialState = lstm.getInitialState(), finalState = lstm.getFinalState();
    spec = flagsOf(lstm, Cell::Lstm);
    spec.recurrentActivation = lstm.getRecurrentActivation();
  } else if (auto gru = dyn_cast<GRUOp>(op)) {
    input = gru.getInput(), kernel = gru.getKernel(), recurrent = gru.getRecurrentKernel(),
    bias = gru.getBias(), mask = gru.getMask();
    initialState = gru.getInitialState(), finalState = gru.getFinalState();
    spec = flagsOf(gru, gru.getResetAfter() ? Cell::GruResetAfter : Cell::GruResetBefore);
    spec.recurrentActivation = gru.getRecurrentActivation();
  } else {
    auto rnn = cast<SimpleRNNOp>(op);
    input = rnn.getInput(), kernel = rnn.getKernel(), recurrent = rnn.getRecurrentKernel(),
    bias = rnn.getBias(), mask = rnn.getMask();
    initialState = rnn.getInitialState(), finalState = rnn.getFinalState();
    spec = flagsOf(rnn, Cell::SimpleRnn);
  }
  if (Error e = bindMask(op, mask, spec))
    return e;
  if (Error e = bindState(op, initialState, finalState, spec))
    return e;
  const int gates = gatesOf(spec.cell);
  auto rType = cast<ShapedType>(recurrent.getType());
  auto kType = cast<ShapedType>(kernel.getType());
  spec.units = rType.getDimSize(0);
  int64_t features = kType.getDimSize(0);
  Expected<unsigned> x = operand(op, input);
  if (!x)
    return x.takeError();
  Expected<std::string> k = weight(op, kernel, "kernel");
  Expected<std::string> r = k ? weight(op, recurrent, "recurrent_kernel") : k.takeError();
  Expected<std::string> b = r ? optionalWeight(op, bias, "bias") : r.takeError();
  if (!b)
    return b.takeError();
  spec.recurrentKernel = *r;
  // GRU reset_after: bias (2, 3u) = [input bias; recurrent bias].
  if (spec.cell == Cell::GruResetAfter && bias)
    spec.recurrentBias = *b + " + " + std::to_string(gates * spec.units);

  bool onCudnn = options.rnnBackend == RnnBackend::Cudnn && spec.cell != Cell::SimpleRnn;
  if (onCudnn) {
    if (Error e = checkCudnnSupport(op, spec))
      return e;
    return emitCudnnRecurrence(op, *x, features, spec, *k, *b);
  }
  if (rank(*x) != 3)
    return fail(op, "expects a (batch, time, features) input");
  unsigned xp = newBuffer({dim(*x, 0), dim(*x, 1), std::to_string(gates * spec.units)},
                          tag(op) + " input projection");
  comment(op, "input projection: one GEMM over all timesteps (" + rowsText(input) + ", " +
                  Twine(features) + ") x (" + Twine(features) + ", " +
                  Twine(gates * spec.units) + ") -> " + buffers[xp].name);
  forwardCode += tryLaunch(
      op, "seqc::linear<seqc::Act::Linear>(m->stream, " + ptr(*x) + ", " + *k + ", " + *b +
              ", " + ptr(xp) + ", " + dim(*x, 0) + " * " + dim(*x, 1) + ", " +
              Twine(gates * spec.units) + ", " + Twine(features) + ", 0.0f)");
  comment(op, "persistent recurrence, " + Twine(spec.units) + " units" +
                  (spec.goBackwards ? ", go_backwards" : "") +
                  (spec.returnSequences ? ", return_sequences" : ""));
  Expected<unsigned> y = emitFusedRecurrence(op, xp, spec);
  if (!y)
    return y.takeError();
  bufferOf[op->getResult(0)] = *y;
  return Error::success();
}

/// seq.lstm_recurrence / seq.gru_recurrence / seq.simple_rnn_recurrence.
Error Emitter::emitRecurrenceOp(Operation *op) {
  RecurrenceSpec spec;
  Value projection, recurrent, recurrentBias, mask, initialState, finalState;
  if (auto lstm = dyn_cast<LSTMRecurrenceOp>(op)) {
    projection = lstm.getInputProjection(), recurrent = lstm.getRecurrentKernel();
    mask = lstm.getMask();
    initialState = lstm.getInitialState(), finalState = lstm.getFinalState();
    spec = flagsOf(lstm, Cell::Lstm);
    spec.recurrentActivation = lstm.getRecurrentActivation();
  } else if (auto gru = dyn_cast<GRURecurrenceOp>(op)) {
    projection = gru.getInputProjection(), recurrent = gru.getRecurrentKernel();
    recurrentBias = gru.getRecurrentBias(), mask = gru.getMask();
    initialState = gru.getInitialState(), finalState = gru.getFinalState();
    spec = flagsOf(gru, gru.getResetAfter() ? Cell::GruResetAfter : Cell::GruResetBefore);
    spec.recurrentActivation = gru.getRecurrentActivation();
  } else {
    auto rnn = cast<SimpleRNNRecurrenceOp>(op);
    projection = rnn.getInputProjection(), recurrent = rnn.getRecurrentKernel();
    mask = rnn.getMask();
    initialState = rnn.getInitialState(), finalState = rnn.getFinalState();
    spec = flagsOf(rnn, Cell::SimpleRnn);
  }
  if (recurrentBias && spec.cell == Cell::GruResetBefore)
    return fail(op, "a recurrent bias needs reset_after");
  if (Error e = bindMask(op, mask, spec))
    return e;
  if (Error e = bindState(op, initialState, finalState, spec))
    return e;
  spec.units = cast<ShapedType>(recurrent.getType()).getDimSize(0);
  Expected<std::string> r = weight(op, recurrent, "recurrent_kernel");
  if (!r)
    return r.takeError();
  spec.recurrentKernel = *r;
  Expected<std::string> rb = optionalWeight(op, recurrentBias, "recurrent_bias");
  if (!rb)
    return rb.takeError();
  spec.recurrentBias = *rb;

  if (options.rnnBackend == RnnBackend::Cudnn && spec.cell != Cell::SimpleRnn) {
    if (Error e = checkCudnnSupport(op, spec))
      return e;
    // cuDNN projects the input itself: it takes the GEMM's input and kernel.
    auto gemm = projection.getDefiningOp<LinearOp>();
    if (!gemm || gemm.getActivation() != Activation::Linear ||
        cast<ShapedType>(gemm.getInput().getType()).getRank() != 3)
      return fail(op, "--rnn-backend=cudnn needs the recurrence's input projection to be a "
                      "seq.linear over the (batch, time, features) input; use "
                      "--rnn-backend=fused");
    Expected<unsigned> x = operand(op, gemm.getInput());
    if (!x)
      return x.takeError();
    Expected<std::string> k = weight(gemm, gemm.getWeight(), "kernel");
    if (!k)
      return k.takeError();
    Expected<std::string> b = optionalWeight(gemm, gemm.getBias(), "bias");
    if (!b)
      return b.takeError();
    int64_t features = cast<ShapedType>(gemm.getWeight().getType()).getDimSize(0);
    return emitCudnnRecurrence(op, *x, features, spec, *k, *b);
  }

  Expected<unsigned> xp = operand(op, projection);
  if (!xp)
    return xp.takeError();
  comment(op, "persistent recurrence, " + Twine(spec.units) + " units" +
                  (spec.goBackwards ? ", go_backwards" : "") +
                  (spec.returnSequences ? ", return_sequences" : ""));
  Expected<unsigned> y = emitFusedRecurrence(op, *xp, spec);
  if (!y)
    return y.takeError();
  bufferOf[op->getResult(0)] = *y;
  return Error::success();
}

Error Emitter::emitTimeDistributed(TimeDistributedOp op) {
  Expected<unsigned> x = operand(op, op.getInput());
  if (!x)
    return x.takeError();
  Block &body = op.getBody().front();
  if (body.getNumArguments() != 1)
    return fail(op, "expects a body with one argument");
  Dims in = dimsOf(*x);
  if (in.size() < 3)
    return fail(op, "expects an input of (batch, time, ...)");
  // Every op treats its batch rows alike, so the body runs once with the
  // time axis folded into the batch axis, (batch * time, ...) aliasing the
  // input, and its result unfolds into (batch, time, ...) again.
  Dims folded{"(" + in[0] + ") * (" + in[1] + ")"};
  folded.append(in.begin() + 2, in.end());
  bufferOf[body.getArgument(0)] = newBuffer(folded, tag(op) + " steps as rows", *x);
  for (Operation &inner : body) {
    if (auto yield = dyn_cast<YieldOp>(inner)) {
      Expected<unsigned> y = operand(&inner, yield.getValue());
      if (!y)
        return y.takeError();
      Dims out = dimsOf(*y), unfolded{in[0], in[1]};
      unfolded.append(out.begin() + 1, out.end());
      bufferOf[op.getResult()] = newBuffer(unfolded, tag(op) + " output", *y);
      return Error::success();
    }
    if (Error e = emitOp(&inner))
      return e;
  }
  return fail(op, "its body has no seq.yield");
}

Error Emitter::emitOp(Operation *op) {
  if (skipped.contains(op) || isa<arith::ConstantOp>(op))
    return Error::success();
  auto result = [&](unsigned b) { bufferOf[op->getResult(0)] = b; };
  // seqc::<kernel>(stream, x, y, elements, <parameters>) over all of `input`.
  auto elementwise = [&](Value input, const std::string &title, const std::string &kernel,
                         const std::string &parameters) -> Error {
    Expected<unsigned> x = operand(op, input);
    if (!x)
      return x.takeError();
    Dims in = dimsOf(*x);
    unsigned y = newBuffer(in, tag(op) + " output");
    comment(op, title + " -> " + buffers[y].name);
    forwardCode += tryLaunch(op, "seqc::" + kernel + "(m->stream, " + ptr(*x) + ", " + ptr(y) +
                                     ", " + product(in) + ", " + parameters + ")");
    result(y);
    return Error::success();
  };
  return llvm::TypeSwitch<Operation *, Error>(op)
      .Case<LinearOp>([&](LinearOp o) {
        return emitLinear(op, o.getInput(), o.getWeight(), o.getBias(), o.getActivation(),
                          o.getAlpha());
      })
      .Case<DenseOp>([&](DenseOp o) {
        return emitLinear(op, o.getInput(), o.getKernel(), o.getBias(), o.getActivation(),
                          o.getAlpha());
      })
      .Case<LSTMRecurrenceOp, GRURecurrenceOp, SimpleRNNRecurrenceOp>(
          [&](Operation *) { return emitRecurrenceOp(op); })
      .Case<LSTMOp, GRUOp, SimpleRNNOp>([&](Operation *) { return emitRecurrentLayer(op); })
      .Case<BidirectionalOp>([&](BidirectionalOp o) -> Error {
        Expected<unsigned> f = operand(op, o.getForward());
        if (!f)
          return f.takeError();
        Expected<unsigned> b = operand(op, o.getBackward());
        if (!b)
          return b.takeError();
        if (rank(*f) != rank(*b) || (rank(*f) != 2 && rank(*f) != 3))
          return fail(op, "expects two (batch, units) or (batch, time, units) inputs");
        Dims out = dimsOf(*f);
        std::string ff = out.back(), fb = dim(*b, rank(*b) - 1);
        bool concat = o.getMergeMode() == MergeMode::Concat;
        if (concat)
          out.back() = ff + " + " + fb;
        unsigned y = newBuffer(out, tag(op) + " output");
        std::string mode = stringifyMergeMode(o.getMergeMode()).str();
        std::string merge = "seqc::Merge::" + std::string(1, llvm::toUpper(mode[0])) +
                            mode.substr(1);
        std::string steps = rank(*f) == 3 ? dim(*f, 1) : "0";
        comment(op, "merge " + mode + (rank(*f) == 3 ? " (backward flipped back in time)" : "") +
                        " -> " + buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::bidirectional<" + merge + ">(m->stream, " +
                                         ptr(*f) + ", " + ptr(*b) + ", " + ptr(y) + ", " +
                                         dim(*f, 0) + ", " + steps + ", (int)" + ff + ", (int)" +
                                         fb + ")");
        result(y);
        return Error::success();
      })
      .Case<TimeDistributedOp>([&](TimeDistributedOp o) { return emitTimeDistributed(o); })
      .Case<Conv1DOp>([&](Conv1DOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        auto kType = cast<ShapedType>(o.getKernel().getType());
        if (rank(*x) != 3 || kType.getRank() != 3)
          return fail(op, "expects a (batch, time, channels) input and a (width, channels, "
                          "filters) kernel");
        int64_t width = kType.getDimSize(0), channels = kType.getDimSize(1),
                filters = kType.getDimSize(2);
        int64_t stride = o.getStrides(), dilation = o.getDilationRate();
        Expected<std::string> k = weight(op, o.getKernel(), "kernel");
        if (!k)
          return k.takeError();
        Expected<std::string> b = optionalWeight(op, o.getBias(), "bias");
        if (!b)
          return b.takeError();
        std::string length = "seqc::window1d(" + dim(*x, 1) + ", " +
                             std::to_string(dilation * (width - 1) + 1) + ", " +
                             std::to_string(stride) + ", " + paddingName(o.getPadding()) +
                             ").length";
        unsigned y = newBuffer({dim(*x, 0), length, std::to_string(filters)},
                               tag(op) + " output");
        checkInDims(dim(y, 1) + " < 1", layer(op) + ": the input sequence is shorter than "
                                                    "the convolution window");
        // cuDNN sees a Conv1D as a 2-D convolution of unit height.
        ConvolutionLayer c;
        c.x = *x;
        c.y = y;
        c.in = {dim(*x, 0), "1", dim(*x, 1), std::to_string(channels)};
        c.out = {"1", dim(y, 1)};
        c.key = {dim(*x, 1)};
        c.kernel = {1, width};
        c.strides = {1, stride};
        c.dilations = {1, dilation};
        c.paddings = {Padding::Valid, o.getPadding()};
        c.staticIn = {1, cast<ShapedType>(o.getInput().getType()).getDimSize(1)};
        c.channels = channels;
        c.filters = filters;
        c.groups = 1;
        c.weights = *k;
        c.bias = *b;
        c.act = o.getActivation();
        c.alpha = floatLiteral(o.getAlpha());
        c.direct = ("seqc::conv1d<" + actName(o.getActivation()) + ">(m->stream, " + ptr(*x) +
                    ", " + *k + ", " + *b + ", " + ptr(y) + ", " + dim(*x, 0) + ", " +
                    dim(*x, 1) + ", " + Twine(channels) + ", " + Twine(width) + ", " +
                    Twine(filters) + ", " + Twine(stride) + ", " + Twine(dilation) + ", " +
                    paddingName(o.getPadding()) + ", " + floatLiteral(o.getAlpha()) + ")")
                       .str();
        emitConvolution(op, c);
        result(y);
        return Error::success();
      })
      .Case<MaxPool1DOp, AvgPool1DOp>([&](Operation *) -> Error {
        bool isMax = isa<MaxPool1DOp>(op);
        Value input = op->getOperand(0);
        int64_t pool, stride;
        Padding padding;
        if (auto m = dyn_cast<MaxPool1DOp>(op))
          pool = m.getPoolSize(), stride = m.getStrides(), padding = m.getPadding();
        else {
          auto a = cast<AvgPool1DOp>(op);
          pool = a.getPoolSize(), stride = a.getStrides(), padding = a.getPadding();
        }
        Expected<unsigned> x = operand(op, input);
        if (!x)
          return x.takeError();
        if (rank(*x) != 3)
          return fail(op, "expects a (batch, time, channels) input");
        std::string length = "seqc::window1d(" + dim(*x, 1) + ", " + std::to_string(pool) +
                             ", " + std::to_string(stride) + ", " + paddingName(padding) +
                             ").length";
        unsigned y = newBuffer({dim(*x, 0), length, dim(*x, 2)}, tag(op) + " output");
        checkInDims(dim(y, 1) + " < 1",
                    layer(op) + ": the input sequence is shorter than the pooling window");
        comment(op, std::string(isMax ? "max" : "average") + " pooling, window " +
                        std::to_string(pool) + ", stride " + std::to_string(stride) + ", " +
                        stringifyPadding(padding).str() + " -> " + buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::pool1d<" + std::string(isMax ? "true" : "false") +
                                         ">(m->stream, " + ptr(*x) + ", " + ptr(y) + ", " +
                                         dim(*x, 0) + ", " + dim(*x, 1) + ", (int)" +
                                         dim(*x, 2) + ", " + Twine(pool) + ", " +
                                         Twine(stride) + ", " + paddingName(padding) + ")");
        result(y);
        return Error::success();
      })
      .Case<GlobalMaxPool1DOp, GlobalAvgPool1DOp>([&](Operation *) -> Error {
        bool isMax = isa<GlobalMaxPool1DOp>(op);
        bool keepdims = isMax ? cast<GlobalMaxPool1DOp>(op).getKeepdims()
                              : cast<GlobalAvgPool1DOp>(op).getKeepdims();
        Expected<unsigned> x = operand(op, op->getOperand(0));
        if (!x)
          return x.takeError();
        if (rank(*x) != 3)
          return fail(op, "expects a (batch, time, channels) input");
        std::string mask = "nullptr";
        if (auto avg = dyn_cast<GlobalAvgPool1DOp>(op); avg && avg.getMask()) {
          Expected<unsigned> m = operand(op, avg.getMask());
          if (!m)
            return m.takeError();
          mask = ptr(*m);
        }
        Dims out = keepdims ? Dims{dim(*x, 0), "1", dim(*x, 2)} : Dims{dim(*x, 0), dim(*x, 2)};
        unsigned y = newBuffer(out, tag(op) + " output");
        comment(op, std::string(isMax ? "max" : "mean") +
                        (mask == "nullptr" ? "" : " of the unmasked steps") + " over time -> " +
                        buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::global_pool1d<" +
                                         std::string(isMax ? "true" : "false") +
                                         ">(m->stream, " + ptr(*x) + ", " + mask + ", " +
                                         ptr(y) + ", " +
                                         dim(*x, 0) + ", " + dim(*x, 1) + ", (int)" +
                                         dim(*x, 2) + ")");
        result(y);
        return Error::success();
      })
      .Case<Conv2DOp, Conv3DOp, ConvLSTMOp, ConvTranspose1DOp, ConvTranspose2DOp, ConvTranspose3DOp,
            MaxPool2DOp, AvgPool2DOp, MaxPool3DOp, AvgPool3DOp,
            GlobalMaxPool2DOp, GlobalAvgPool2DOp, GlobalMaxPool3DOp, GlobalAvgPool3DOp,
            ZeroPaddingOp, CroppingOp, SliceOp, UpSamplingOp, ResizeOp, AdaptiveMaxPoolOp,
            AdaptiveAvgPoolOp, PermuteOp, ReverseOp>(
          [&](Operation *) { return emitSpatial(op); })
      .Case<BatchNormOp>([&](BatchNormOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        Expected<std::string> g = weight(op, o.getGamma(), "gamma");
        Expected<std::string> be = g ? weight(op, o.getBeta(), "beta") : g.takeError();
        Expected<std::string> mean =
            be ? weight(op, o.getMovingMean(), "moving_mean") : be.takeError();
        Expected<std::string> var =
            mean ? weight(op, o.getMovingVariance(), "moving_variance") : mean.takeError();
        if (!var)
          return var.takeError();
        int64_t channels = cast<ShapedType>(o.getGamma().getType()).getDimSize(0);
        unsigned y = newBuffer(dimsOf(*x), tag(op) + " output");
        comment(op, "inference batch normalization over " + Twine(channels) + " channels -> " +
                        buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::batch_norm(m->stream, " + ptr(*x) + ", " + *g +
                                         ", " + *be + ", " + *mean + ", " + *var + ", " +
                                         ptr(y) + ", " + product(dimsOf(*x)) + ", " +
                                         Twine(channels) + ", " +
                                         floatLiteral(o.getEpsilon().convertToFloat()) + ")");
        result(y);
        return Error::success();
      })
      .Case<GroupNormOp>([&](GroupNormOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        Expected<std::string> g = weight(op, o.getGamma(), "gamma");
        Expected<std::string> be = g ? weight(op, o.getBeta(), "beta") : g.takeError();
        if (!be)
          return be.takeError();
        Dims in = dimsOf(*x);
        unsigned y = newBuffer(in, tag(op) + " output");
        comment(op, "group normalization, " + Twine(o.getGroups()) + " groups -> " +
                        buffers[y].name);
        forwardCode += tryLaunch(
            op, "seqc::group_norm(m->stream, " + ptr(*x) + ", " + *g + ", " + *be + ", " +
                    ptr(y) + ", " + in.front() + ", " +
                    product(llvm::ArrayRef(in).drop_front().drop_back()) + ", (int)" +
                    in.back() + ", " + Twine(o.getGroups()) + ", " +
                    floatLiteral(o.getEpsilon().convertToFloat()) + ")");
        result(y);
        return Error::success();
      })
      .Case<UnitNormOp, RMSNormOp>([&](auto o) -> Error {
        constexpr bool unit = std::is_same_v<decltype(o), UnitNormOp>;
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        Expected<std::string> scale = std::string("nullptr");
        if constexpr (!unit)
          scale = weight(op, o.getScale(), "scale");
        if (!scale)
          return scale.takeError();
        float epsilon = o.getEpsilon().convertToFloat();
        Dims in = dimsOf(*x);
        unsigned y = newBuffer(in, tag(op) + " output");
        comment(op, std::string(unit ? "unit" : "RMS") +
                        " normalization over the last axis -> " + buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::rms_norm(m->stream, " + ptr(*x) + ", " + *scale +
                                         ", " + ptr(y) + ", " +
                                         product(llvm::ArrayRef(in).drop_back()) + ", (int)" +
                                         in.back() + ", " + floatLiteral(epsilon) + ", " +
                                         (unit ? "true" : "false") + ")");
        result(y);
        return Error::success();
      })
      .Case<LayerNormOp>([&](LayerNormOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        Expected<std::string> g = weight(op, o.getGamma(), "gamma");
        Expected<std::string> be = g ? weight(op, o.getBeta(), "beta") : g.takeError();
        if (!be)
          return be.takeError();
        Dims in = dimsOf(*x);
        unsigned y = newBuffer(in, tag(op) + " output");
        comment(op, "layer normalization over the last axis -> " + buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::layer_norm(m->stream, " + ptr(*x) + ", " + *g +
                                         ", " + *be + ", " + ptr(y) + ", " +
                                         product(llvm::ArrayRef(in).drop_back()) + ", (int)" +
                                         in.back() + ", " +
                                         floatLiteral(o.getEpsilon().convertToFloat()) + ")");
        result(y);
        return Error::success();
      })
      .Case<DropoutOp>([&](DropoutOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        result(*x); // the identity at inference
        return Error::success();
      })
      .Case<TruncateOp>([&](TruncateOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        unsigned y = newBuffer(dimsOf(*x), tag(op) + " output");
        comment(op, "rounded toward zero -> " + buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::truncate(m->stream, " + ptr(*x) + ", " + ptr(y) +
                                         ", " + product(dimsOf(*x)) + ")");
        result(y);
        return Error::success();
      })
      .Case<DiscretizeOp>([&](DiscretizeOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        Expected<std::string> bounds = weight(op, o.getBoundaries(), "boundaries");
        if (!bounds)
          return bounds.takeError();
        int64_t n = cast<ShapedType>(o.getBoundaries().getType()).getDimSize(0);
        unsigned y = newBuffer(dimsOf(*x), tag(op) + " output");
        comment(op, "bucket indices over " + Twine(n) + " boundaries -> " + buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::discretize(m->stream, " + ptr(*x) + ", " + *bounds +
                                         ", " + ptr(y) + ", " + product(dimsOf(*x)) + ", " +
                                         Twine(n) + ")");
        result(y);
        return Error::success();
      })
      .Case<CategoryEncodingOp>([&](CategoryEncodingOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        Dims in = dimsOf(*x);
        int64_t n = o.getNumTokens();
        bool rows = o.getMode() == CategoryMode::OneHot && o.getInput().getType().getDimSize(1) != 1;
        bool count = o.getMode() == CategoryMode::Count;
        Dims out{in[0]};
        if (rows)
          out.push_back(in[1]);
        out.push_back(std::to_string(n));
        unsigned y = newBuffer(out, tag(op) + " output");
        comment(op, Twine(stringifyCategoryMode(o.getMode())) + " encoding of " + Twine(n) +
                        " tokens -> " + buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::category_encoding(m->stream, " + ptr(*x) + ", " +
                                         ptr(y) + ", " + in[0] + ", (int)" + in[1] + ", " +
                                         Twine(n) + ", " + (rows ? "true" : "false") + ", " +
                                         (count ? "true" : "false") + ")");
        result(y);
        return Error::success();
      })
      .Case<EmbeddingOp>([&](EmbeddingOp o) -> Error {
        Expected<unsigned> ids = operand(op, o.getIds());
        if (!ids)
          return ids.takeError();
        auto tType = cast<ShapedType>(o.getTable().getType());
        int64_t vocab = tType.getDimSize(0), width = tType.getDimSize(1);
        Expected<std::string> table = weight(op, o.getTable(), "embeddings");
        if (!table)
          return table.takeError();
        Dims out = dimsOf(*ids);
        out.push_back(std::to_string(width));
        unsigned y = newBuffer(out, tag(op) + " output");
        unsigned slot = embeddings.size();
        embeddings.push_back({text(layer(op)), buffers[*ids].storage});
        embeddingVocab.push_back(vocab);
        comment(op, "row lookup in a (" + Twine(vocab) + ", " + Twine(width) + ") table -> " +
                        buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::embedding(m->stream, " + ptr(*ids) + ", " + *table +
                                         ", " + ptr(y) + ", " + product(dimsOf(*ids)) + ", " +
                                         Twine(vocab) + ", " + Twine(width) +
                                         ", m->bad_ids + " + Twine(slot) + ")");
        result(y);
        return Error::success();
      })
      .Case<FlattenOp>([&](FlattenOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        Dims in = dimsOf(*x);
        unsigned y = newBuffer({in[0], product(llvm::ArrayRef(in).drop_front())},
                               tag(op) + " output", *x);
        result(y);
        return Error::success();
      })
      .Case<StackOp>([&](StackOp o) -> Error {
        // Each input copied into its slice of the new leading axis.
        Expected<std::vector<unsigned>> xs = operands(op, o.getInputs());
        if (!xs)
          return xs.takeError();
        Dims in = dimsOf(xs->front()), out{std::to_string(xs->size())};
        out.append(in.begin(), in.end());
        unsigned y = newBuffer(out, tag(op) + " output");
        std::string slice = "(size_t)(" + product(in) + ")";
        comment(op, "stack " + Twine(xs->size()) + " tensors -> " + buffers[y].name);
        for (auto [i, x] : llvm::enumerate(*xs))
          forwardCode += tryLaunch(
              op, deviceCopy(ptr(y) + " + " + Twine(i) + " * " + slice, ptr(x), slice));
        result(y);
        return Error::success();
      })
      .Case<UnstackOp>([&](UnstackOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        Dims out = dimsOf(*x);
        out.erase(out.begin());
        unsigned y = newBuffer(out, tag(op) + " output");
        std::string slice = "(size_t)(" + product(out) + ")";
        comment(op, "slice " + Twine(o.getIndex()) + " of " + buffers[*x].name + " -> " +
                        buffers[y].name);
        forwardCode += tryLaunch(
            op, deviceCopy(ptr(y), ptr(*x) + " + " + Twine(o.getIndex()) + " * " + slice, slice));
        result(y);
        return Error::success();
      })
      .Case<ReshapeOp>([&](ReshapeOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        Dims in = dimsOf(*x);
        std::string perRow = "(" + product(llvm::ArrayRef(in).drop_front()) + ")";
        int64_t known = 1;
        std::optional<size_t> inferred;
        Dims out{in[0]};
        std::string target;
        for (auto [i, d] : llvm::enumerate(o.getTargetShape())) {
          target += (i ? ", " : "") + std::to_string(d);
          if (d == -1)
            inferred = i;
          else
            known *= d;
          out.push_back(std::to_string(d));
        }
        std::string msg = layer(op) + ": the elements per batch row do not fit the target "
                                      "shape (" + target + ")";
        if (inferred)
          out[*inferred + 1] = perRow + " / " + std::to_string(known);
        unsigned y = newBuffer(out, tag(op) + " output", *x);
        checkInDims(perRow + (inferred ? " % " + std::to_string(known) + " != 0"
                                       : " != " + std::to_string(known)),
                    msg);
        result(y);
        return Error::success();
      })
      .Case<SequenceMaskOp>([&](SequenceMaskOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        if (rank(*x) != 2 && rank(*x) != 3)
          return fail(op, "expects (batch, time) ids or a (batch, time, features) input");
        unsigned y = newBuffer({dim(*x, 0), dim(*x, 1)}, tag(op) + " timestep mask");
        comment(op, "timestep mask -> " + buffers[y].name);
        forwardCode += tryLaunch(
            op, "seqc::sequence_mask(m->stream, " + ptr(*x) + ", " + ptr(y) + ", " + dim(*x, 0) +
                    " * " + dim(*x, 1) + ", " + (rank(*x) == 3 ? "(int)" + dim(*x, 2) : "1") +
                    ", " + floatLiteral(o.getMaskValue().convertToFloat()) + ")");
        result(y);
        return Error::success();
      })
      .Case<MergeOp>([&](MergeOp o) -> Error {
        Expected<std::vector<unsigned>> inputs = operands(op, o.getInputs());
        if (!inputs)
          return inputs.takeError();
        std::vector<unsigned> &in = *inputs;
        // An input's axis of static size 1 where the result's is not
        // broadcasts: the input is first repeated along it (RepeatVector's
        // kernel on (before, after) views), so the merge runs on one shape.
        ArrayRef<int64_t> out = o.getType().getShape();
        auto shapeOfInput = [&](size_t i) {
          return cast<RankedTensorType>(o.getInputs()[i].getType()).getShape();
        };
        Dims dims = dimsOf(in[0]);
        for (size_t i = 0; i < in.size(); ++i)
          for (size_t a = 0; a < out.size(); ++a)
            if (shapeOfInput(i)[a] != 1)
              dims[a] = dim(in[i], a);
        // Lengths unknown to the verifier must be equal at run time (Keras
        // broadcasts a length of 1 there; the merge reads every input
        // whole). Checked in the call, not with the sizes, which are also
        // computed for the longest inputs to size the arena.
        std::string misfit;
        for (size_t i = 0; i < in.size(); ++i)
          for (size_t a = 0; a < out.size(); ++a)
            if (shapeOfInput(i)[a] != 1 && dim(in[i], a) != dims[a])
              misfit += (misfit.empty() ? "" : " || ") + dim(in[i], a) + " != " + dims[a];
        if (!misfit.empty())
          forwardCode += "  SEQC_TRY_MSG(" + text(layer(op)) + ", (" + misfit +
                         " ? (const char *)" +
                         text("inputs whose lengths differ along an axis of unknown length "
                              "(Keras broadcasts a length of 1 against another; seqc merges "
                              "equal lengths): give the model inputs that fit") +
                         " : nullptr));\n";
        for (size_t i = 0; i < in.size(); ++i) {
          for (size_t a = 0; a < out.size(); ++a) {
            if (shapeOfInput(i)[a] != 1 || out[a] == 1)
              continue;
            Dims from = dimsOf(in[i]), to = from;
            to[a] = dims[a];
            unsigned repeated = newBuffer(to, tag(op) + " input " + std::to_string(i) +
                                                  " broadcast along axis " + std::to_string(a));
            forwardCode += tryLaunch(
                op, "seqc::repeat_vector(m->stream, " + ptr(in[i]) + ", " + ptr(repeated) +
                        ", " + product(ArrayRef(from).take_front(a)) + ", (int)" + dims[a] +
                        ", (int)(" + product(ArrayRef(from).drop_front(a + 1)) + "))");
            in[i] = repeated;
          }
        }
        unsigned y = newBuffer(dims, tag(op) + " output");
        std::string kind = kernelEnumName("MergeKind", stringifyMergeKind(o.getKind()));
        comment(op, stringifyMergeKind(o.getKind()) + " of " + Twine(in.size()) +
                        " inputs -> " + buffers[y].name);
        for (size_t i = 1; i < in.size(); ++i) {
          bool last = i + 1 == in.size();
          std::string divisor = last && o.getKind() == MergeKind::Average
                                    ? floatLiteral(static_cast<float>(in.size()))
                                    : "0.0f";
          forwardCode += tryLaunch(op, "seqc::merge(m->stream, " +
                                           (i == 1 ? ptr(in[0]) : ptr(y)) + ", " + ptr(in[i]) +
                                           ", " + ptr(y) + ", " + product(dims) + ", " + kind +
                                           ", " + divisor + ")");
        }
        result(y);
        return Error::success();
      })
      .Case<ConcatenateOp>([&](ConcatenateOp o) -> Error {
        Expected<std::vector<unsigned>> inputs = operands(op, o.getInputs());
        if (!inputs)
          return inputs.takeError();
        std::vector<unsigned> &in = *inputs;
        size_t axis = o.getAxis();
        Dims dims = dimsOf(in[0]);
        std::string total;
        for (unsigned x : in)
          total += (total.empty() ? "" : " + ") + dim(x, axis);
        dims[axis] = "(" + total + ")";
        unsigned y = newBuffer(dims, tag(op) + " output");
        comment(op, "concatenate " + Twine(in.size()) + " inputs on axis " + Twine(axis) +
                        " -> " + buffers[y].name);
        ArrayRef<std::string> all(dims);
        std::string outer = product(all.take_front(axis));
        std::string inner = product(all.drop_front(axis + 1));
        std::string offset = "0";
        for (unsigned x : in) {
          std::string width = dim(x, axis) + " * " + inner;
          forwardCode += tryLaunch(op, "seqc::concat_into(m->stream, " + ptr(x) + ", " +
                                           ptr(y) + ", " + outer + ", " + width + ", " +
                                           dim(y, axis) + " * " + inner + ", " + offset + ")");
          offset += " + " + width;
        }
        result(y);
        return Error::success();
      })
      .Case<MatMulOp>([&](MatMulOp o) -> Error {
        Expected<unsigned> a = operand(op, o.getA());
        Expected<unsigned> b = a ? operand(op, o.getB()) : a.takeError();
        if (!b)
          return b.takeError();
        bool t = o.getTransposeB();
        Dims dims{dim(*a, 0), dim(*a, 1), dim(*b, t ? 1 : 2)};
        unsigned y = newBuffer(dims, tag(op) + " output");
        comment(op, "batched matrix product -> " + buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::matmul(m->stream, " + ptr(*a) + ", " + ptr(*b) +
                                         ", " + ptr(y) + ", " + dims[0] + ", " + dims[1] + ", " +
                                         dims[2] + ", " + dim(*a, 2) + ", " +
                                         (t ? "true" : "false") + ")");
        result(y);
        return Error::success();
      })
      .Case<AttentionOp>([&](AttentionOp o) -> Error {
        Expected<unsigned> q = operand(op, o.getQuery());
        Expected<unsigned> k = q ? operand(op, o.getKey()) : q.takeError();
        Expected<unsigned> v = k ? operand(op, o.getValue()) : k.takeError();
        if (!v)
          return v.takeError();
        Expected<std::string> featureScale =
            optionalWeight(op, o.getFeatureScale(), "feature_scale");
        if (!featureScale)
          return featureScale.takeError();
        std::string masks[3] = {"nullptr", "nullptr", "nullptr"};
        Value maskValues[3] = {o.getQueryMask(), o.getKeyMask(), o.getAttentionMask()};
        for (auto [i, mask] : llvm::enumerate(maskValues)) {
          if (!mask)
            continue;
          Expected<unsigned> m = operand(op, mask);
          if (!m)
            return m.takeError();
          masks[i] = ptr(*m);
        }
        auto qType = cast<RankedTensorType>(o.getQuery().getType());
        auto kType = cast<RankedTensorType>(o.getKey().getType());
        int64_t heads = qType.getDimSize(2), group = heads / kType.getDimSize(2);
        Dims dims{dim(*q, 0), dim(*q, 1), dim(*q, 2), dim(*v, 3)};
        // With `weights` the result is the softmax weights (batch, heads, tq, tk).
        unsigned y = o.getWeights()
                         ? newBuffer({dim(*q, 0), dim(*q, 2), dim(*q, 1), dim(*k, 1)},
                                     tag(op) + " attention weights")
                         : newBuffer(dims, tag(op) + " output");
        bool additive = o.getScoreMode() == ScoreMode::Additive;
        comment(op, (additive ? "additive" : "dot") + Twine(" attention, ") + Twine(heads) +
                        " heads" + (o.getAttentionMask() ? ", attention mask" : "") + " -> " +
                        buffers[y].name);
        auto number = [](std::optional<float> x) { return floatLiteral(x.value_or(1.0f)); };
        std::optional<float> scale, weight;
        if (auto a = o.getScaleAttr())
          scale = a.getValueAsDouble();
        if (auto a = o.getScoreWeightAttr())
          weight = a.getValueAsDouble();
        std::string shape = "seqc::AttentionShape{" + dims[0] + ", " + dims[1] + ", " +
                            dim(*k, 1) + ", " + std::to_string(heads) + ", " +
                            std::to_string(group) + ", " + dim(*q, 3) + ", " + dims[3] +
                            ", " + (additive ? "1" : "0") + ", " +
                            (o.getCausal() ? "1" : "0") + ", " +
                            std::to_string(o.getWindow().value_or(0)) + ", " + number(scale) +
                            ", " + number(weight) + ", " + (o.getMaskOffset() ? "1" : "0") +
                            ", " + floatLiteral(o.getMaskOffset()) + ", " +
                            (o.getZeroHidden() ? "1" : "0") + "}";
        std::string outputs = o.getWeights() ? "nullptr, " + ptr(y) : ptr(y) + ", nullptr";
        forwardCode += tryLaunch(op, "seqc::attention(m->stream, " + ptr(*q) + ", " + ptr(*k) +
                                         ", " + ptr(*v) + ", " + *featureScale +
                                         ", seqc::AttentionMasks{" + masks[0] + ", " +
                                         masks[1] + ", " + masks[2] + "}, " + outputs + ", " +
                                         shape + ")");
        result(y);
        return Error::success();
      })
      .Case<ApplyMaskOp>([&](ApplyMaskOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        Expected<unsigned> m = x ? operand(op, o.getMask()) : x.takeError();
        if (!m)
          return m.takeError();
        Dims in = dimsOf(*x);
        unsigned y = newBuffer(in, tag(op) + " output");
        comment(op, "masked steps to zero -> " + buffers[y].name);
        ArrayRef<std::string> all(in);
        forwardCode += tryLaunch(op, "seqc::apply_mask(m->stream, " + ptr(*x) + ", " + ptr(*m) +
                                         ", " + ptr(y) + ", " + product(all.take_front(2)) +
                                         ", " + product(all.drop_front(2)) + ")");
        result(y);
        return Error::success();
      })
      .Case<RepeatVectorOp>([&](RepeatVectorOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        if (rank(*x) != 2)
          return fail(op, "expects a (batch, features) input");
        int64_t n = o.getN();
        unsigned y = newBuffer({dim(*x, 0), std::to_string(n), dim(*x, 1)},
                               tag(op) + " output");
        comment(op, "repeat " + Twine(n) + " times -> " + buffers[y].name);
        forwardCode += tryLaunch(op, "seqc::repeat_vector(m->stream, " + ptr(*x) + ", " +
                                         ptr(y) + ", " + dim(*x, 0) + ", " + Twine(n) +
                                         ", (int)" + dim(*x, 1) + ")");
        result(y);
        return Error::success();
      })
      .Case<ActivationOp>([&](ActivationOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        Dims in = dimsOf(*x);
        unsigned y = newBuffer(in, tag(op) + " output");
        comment(op, std::string(stringifyActivation(o.getActivation())) + " -> " +
                        buffers[y].name);
        if (o.getAxis()) {
          size_t axis = o.getNormalizedAxis();
          ArrayRef<std::string> all(in);
          forwardCode += tryLaunch(
              op, "seqc::softmax_axis<" + actName(o.getActivation()) + ">(m->stream, " +
                      ptr(*x) + ", " + ptr(y) + ", " + product(all.take_front(axis)) +
                      ", (int)" + in[axis] + ", " + product(all.drop_front(axis + 1)) + ")");
          result(y);
          return Error::success();
        }
        forwardCode += tryLaunch(op, "seqc::activation<" + actName(o.getActivation()) +
                                         ">(m->stream, " + ptr(*x) + ", " + ptr(y) + ", " +
                                         product(in) + ", (int)" + in.back() + ", " +
                                         floatLiteral(o.getAlpha()) + ")");
        result(y);
        return Error::success();
      })
      .Case<ReluOp>([&](ReluOp o) {
        std::optional<APFloat> max = o.getMaxValue();
        return elementwise(o.getInput(), "ReLU", "relu_layer",
                           floatLiteral(o.getNegativeSlope().convertToFloat()) + ", " +
                               floatLiteral(o.getThreshold().convertToFloat()) + ", " +
                               (max ? "1" : "0") + ", " + floatLiteral(max));
      })
      .Case<ClipOp>([&](ClipOp o) {
        return elementwise(o.getInput(), "clip", "clip",
                           floatLiteral(o.getMin().convertToFloat()) + ", " +
                               floatLiteral(o.getMax().convertToFloat()));
      })
      .Case<PReluOp>([&](PReluOp o) -> Error {
        Expected<unsigned> x = operand(op, o.getInput());
        if (!x)
          return x.takeError();
        Expected<std::string> alpha = weight(op, o.getAlpha(), "alpha");
        if (!alpha)
          return alpha.takeError();
        Dims in = dimsOf(*x);
        ArrayRef<int64_t> alphaShape = cast<ShapedType>(o.getAlpha().getType()).getShape();
        if (alphaShape.size() > 6)
          return fail(op, "the CUDA backend runs PReLU on inputs of rank <= 7");
        unsigned y = newBuffer(in, tag(op) + " output");
        comment(op, "PReLU -> " + buffers[y].name);
        // alpha's row-major strides, 0 along its shared (size-1) axes.
        SmallVector<int64_t> strides(alphaShape.size(), 0);
        int64_t stride = 1;
        for (size_t i = alphaShape.size(); i-- > 0;) {
          strides[i] = alphaShape[i] == 1 ? 0 : stride;
          stride *= alphaShape[i];
        }
        ArrayRef<std::string> sample = ArrayRef<std::string>(in).drop_front();
        std::string shape = "seqc::PreluShape{" + std::to_string(sample.size()) + ", {";
        for (size_t i = 0; i < sample.size(); ++i)
          shape += (i ? ", " : "") + std::string("(int64_t)") + sample[i];
        shape += "}, {";
        for (size_t i = 0; i < strides.size(); ++i)
          shape += (i ? ", " : "") + std::to_string(strides[i]);
        shape += "}}";
        forwardCode += tryLaunch(op, "seqc::prelu(m->stream, " + ptr(*x) + ", " + *alpha + ", " +
                                         ptr(y) + ", " + product(in) + ", " + product(sample) +
                                         ", " + shape + ")");
        result(y);
        return Error::success();
      })
      .Default([&](Operation *) {
        return fail(op, "the CUDA backend cannot compile this op");
      });
}

/// With --rnn-backend=cudnn, LSTM/GRU recurrences take the input of their
/// input-projection GEMM: that GEMM is not needed unless something else
/// reads it.
void Emitter::markCudnnProjections(func::FuncOp func) {
  if (options.rnnBackend != RnnBackend::Cudnn)
    return;
  func.walk([&](LinearOp gemm) {
    if (gemm->getResult(0).use_empty())
      return;
    for (Operation *user : gemm->getResult(0).getUsers()) {
      bool cudnnUser = false;
      if (auto lstm = dyn_cast<LSTMRecurrenceOp>(user))
        cudnnUser = lstm.getInputProjection() == gemm.getResult();
      else if (auto gru = dyn_cast<GRURecurrenceOp>(user))
        cudnnUser = gru.getInputProjection() == gemm.getResult() && gru.getResetAfter();
      if (!cudnnUser)
        return;
    }
    if (gemm.getActivation() == Activation::Linear &&
        cast<ShapedType>(gemm.getInput().getType()).getRank() == 3)
      skipped.insert(gemm);
  });
}

Expected<CudaModule> Emitter::run() {
  if (auto source = getMetadata(module).getAs<StringAttr>("source"))
    sourceName = source.getValue().str();
  else if (auto file = dyn_cast<FileLineColLoc>(module.getLoc()))
    sourceName = file.getFilename().str();

  auto func = module.lookupSymbol<func::FuncOp>("predict");
  if (!func || func.isExternal())
    return fail(nullptr, "the module has no func.func @predict to compile");
  Expected<ModelIO> io = seq::modelIO(func);
  if (!io)
    return fail(nullptr, llvm::toString(io.takeError()));
  inputPorts = io->inputs;
  outputPorts = io->outputs;
  stateSlots = std::move(io->state);
  for (auto [i, slot] : llvm::enumerate(stateSlots)) {
    stateOffsetOf[func.getArgument(inputPorts.size() + i)] = slot.offset;
    (void)text(slot.layer); // seqc_model_state_layer's bytes
  }
  if (options.weightsFile.find_first_of("\"\\\n") != std::string::npos)
    return fail(nullptr, "the weights file path '" + options.weightsFile +
                             "' contains a quote, backslash or newline");
  if (options.maxBatch < 1 || options.maxSeqLen < 1)
    return fail(nullptr, "--cuda-max-batch and --cuda-max-seq-len must be at least 1");

  // Input k is (batch, steps[k], ...): every input shares the batch; each
  // has its own length when its time axis is dynamic.
  for (auto [k, port] : llvm::enumerate(inputPorts)) {
    const std::vector<int64_t> &shape = port.shape;
    std::string which = inputPorts.size() == 1 ? "input" : "input " + std::to_string(k);
    if (shape.front() != inputPorts.front().shape.front())
      return fail(nullptr, which + " has a batch axis of another size than input 0's");
    for (size_t axis = 2; axis < shape.size(); ++axis)
      if (shape[axis] < 0)
        return fail(nullptr, which + " axis " + Twine(axis) +
                                 " is dynamic; only batch and time may be: give the shape "
                                 "with --input-shape");
    Dims dims{"batch"};
    if (shape.size() >= 2)
      dims.push_back(port.steps() < 0 ? "steps[" + std::to_string(k) + "]"
                                      : std::to_string(port.steps()));
    for (size_t axis = 2; axis < shape.size(); ++axis)
      dims.push_back(std::to_string(shape[axis]));
    unsigned buffer = newBuffer(dims, inputPorts.size() == 1
                                          ? std::string("model input")
                                          : "model input " + std::to_string(k));
    inputBuffers.push_back(buffer);
    bufferOf[func.getArgument(k)] = buffer;
  }

  markCudnnProjections(func);
  llvm::DenseMap<Operation *, RecurrentStack> stacks = findRecurrentStacks(func);
  const RecurrentStack *stack = nullptr; // the one being emitted
  size_t stackStart = 0;
  bool returned = false;
  for (Operation &op : func.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (size_t k = 0; k < outputPorts.size(); ++k) {
        Expected<unsigned> y = operand(&op, ret.getOperand(k));
        if (!y)
          return y.takeError();
        if (rank(*y) != outputPorts[k].shape.size())
          return fail(nullptr, "internal error: output " + Twine(k) +
                                   "'s rank does not match @predict's type");
        outputBuffers.push_back(*y);
      }
      returned = true;
      break;
    }
    if (auto found = stacks.find(&op); found != stacks.end()) {
      stack = &found->second;
      stackStart = forwardCode.size();
    }
    if (Error e = emitOp(&op))
      return std::move(e);
    if (stack && &op == stack->recurrences.back()) {
      if (Error e = emitStack(*stack, stackStart))
        return std::move(e);
      stack = nullptr;
    }
  }
  if (!returned)
    return fail(nullptr, "@predict has no return");
  if (boundStates != stateSlots.size())
    return fail(nullptr, "internal error: a state argument of @predict is not a stateful "
                         "layer's");
  for (const ModelPort &port : inputPorts)
    (void)text(port.name); // seqc_model_input_name's bytes
  for (const ModelPort &port : outputPorts)
    (void)text(port.name);

  CudaModule result;
  result.source = assemble();
  result.weights = std::move(blob);
  result.usesCudnn = usesCudnn;
  return result;
}

} // namespace detail

Expected<CudaModule> emitCudaModule(ModuleOp module, const CudaEmitOptions &options) {
  if (Error e = requireWeights(module))
    return std::move(e);
  // Work on a copy: the fusion rewrites in place and the caller keeps its IR.
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  if (options.fuse) {
    std::string firstError;
    ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() == DiagnosticSeverity::Error && firstError.empty()) {
        std::string name = layerName(diagnostic.getLocation());
        firstError = (name.empty() ? "" : "layer '" + name + "': ") + diagnostic.str();
      }
      return success();
    });
    PassManager pm(module.getContext());
    buildFusePipeline(pm);
    if (failed(pm.run(*copy)))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "fusion failed before CUDA emission: " + firstError);
  }
  return detail::Emitter(*copy, options).run();
}

} // namespace seq::cuda

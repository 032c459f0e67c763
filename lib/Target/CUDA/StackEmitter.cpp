//===- StackEmitter.cpp - Stacked recurrences in one launch ---------------===//
//
// A chain of recurrent layers such as LSTM(256) -> LSTM(256) -> ... runs
// layer by layer as emitted by CudaEmitter.cpp: one persistent launch per
// layer, each waiting for the whole previous sequence. When every layer of
// the chain has the same cell and activations, no mask, no state in or out
// and runs forwards, the chain is also emitted as one stacked launch
// (kernels/seqc_kernels.cuh, "Stacked recurrences") whose layers run as a
// wavefront. The plan is made at create on the device: where the layers do
// not fit it at once (too few multiprocessors, too little shared memory),
// the layer-by-layer code runs instead, so it stays in the library as the
// stacked launch's else branch.
//
//===----------------------------------------------------------------------===//

#include "ModelEmitter.h"

#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace seq::cuda::detail {

namespace {

/// The cell and activations a recurrence shares with the rest of its stack,
/// or nothing when it cannot be in one.
std::optional<std::tuple<Cell, Activation, Activation>> stackSignature(Operation *op) {
  auto elementwise = [](Activation a) {
    return a != Activation::Softmax && a != Activation::LogSoftmax;
  };
  auto plain = [&](auto r) {
    return !r.getMask() && !r.getInitialState() && !r.getFinalState() && !r.getGoBackwards() &&
           elementwise(r.getActivation());
  };
  if (auto lstm = dyn_cast<LSTMRecurrenceOp>(op)) {
    if (plain(lstm) && elementwise(lstm.getRecurrentActivation()))
      return std::tuple(Cell::Lstm, lstm.getActivation(), lstm.getRecurrentActivation());
  } else if (auto gru = dyn_cast<GRURecurrenceOp>(op)) {
    // reset_after=False takes two phases per step.
    if (plain(gru) && gru.getResetAfter() && elementwise(gru.getRecurrentActivation()))
      return std::tuple(Cell::GruResetAfter, gru.getActivation(), gru.getRecurrentActivation());
  } else if (auto rnn = dyn_cast<SimpleRNNRecurrenceOp>(op)) {
    if (plain(rnn))
      return std::tuple(Cell::SimpleRnn, rnn.getActivation(), Activation::Sigmoid);
  }
  return std::nullopt;
}

bool returnsSequences(Operation *op) { return op->hasAttr("return_sequences"); }

/// The recurrence that `op`'s sequence feeds through a linear projection
/// and nothing else, and that projection.
std::optional<std::pair<Operation *, Operation *>> nextLayer(Operation *op) {
  Value sequence = op->getResult(0);
  if (!returnsSequences(op) || !sequence.hasOneUse())
    return std::nullopt;
  auto projection = dyn_cast<LinearOp>(*sequence.getUsers().begin());
  if (!projection || projection.getInput() != sequence ||
      projection.getActivation() != Activation::Linear || !projection.getResult().hasOneUse())
    return std::nullopt;
  Operation *next = *projection.getResult().getUsers().begin();
  if (next->getNumOperands() < 1 || next->getOperand(0) != projection.getResult())
    return std::nullopt; // the projection must be the recurrence's input projection
  return std::pair(next, projection.getOperation());
}

constexpr size_t kMaxStackLayers = 16; // seqc::kMaxStackLayers

} // namespace

llvm::DenseMap<Operation *, RecurrentStack>
Emitter::findRecurrentStacks(func::FuncOp func) const {
  llvm::DenseMap<Operation *, RecurrentStack> stacks;
  const bool cudnn = options.rnnBackend == RnnBackend::Cudnn;
  Block &body = func.getBody().front();
  for (auto it = body.begin(); it != body.end(); ++it) {
    Operation *first = &*it;
    auto signature = stackSignature(first);
    if (!signature || (cudnn && std::get<0>(*signature) != Cell::SimpleRnn))
      continue;
    RecurrentStack stack;
    stack.recurrences.push_back(first);
    llvm::SmallPtrSet<Operation *, 8> members{first};
    for (Operation *last = first; stack.recurrences.size() < kMaxStackLayers;) {
      auto next = nextLayer(last);
      if (!next || stackSignature(next->first) != signature)
        break;
      stack.projections.push_back(next->second);
      stack.recurrences.push_back(next->first);
      members.insert(next->second);
      members.insert(next->first);
      last = next->first;
    }
    // The layer-by-layer code becomes the else branch: nothing else may be
    // emitted between the first and the last layer.
    auto end = std::next(Block::iterator(stack.recurrences.back()));
    while (stack.recurrences.size() >= 2 &&
           !std::all_of(it, end, [&](Operation &op) {
             return members.contains(&op) || isa<arith::ConstantOp>(op);
           })) {
      members.erase(stack.recurrences.pop_back_val());
      members.erase(stack.projections.pop_back_val());
      end = std::next(Block::iterator(stack.recurrences.back()));
    }
    if (stack.recurrences.size() < 2)
      continue;
    it = std::prev(end);
    stacks[first] = std::move(stack);
  }
  return stacks;
}

Error Emitter::emitStack(const RecurrentStack &stack, size_t fallbackStart) {
  Operation *head = stack.recurrences.front();
  std::string fallback = forwardCode.substr(fallbackStart);
  forwardCode.resize(fallbackStart);

  const FusedRecurrence &first = fusedRecurrences.at(head);
  const RecurrenceSpec &spec = first.spec;
  std::string plan = "stack_" + buffers[first.output].name;
  unsigned progress = newBuffer({"seqc::kMaxStackLayers"}, tag(head) + " stack progress");
  // Layer l takes inputs[l] features: the previous layer's units (0 for the
  // first, whose input projection is hoisted).
  std::vector<int64_t> inputs;
  std::string unitList, inputList, layers;
  for (auto [l, op] : llvm::enumerate(stack.recurrences)) {
    const FusedRecurrence &r = fusedRecurrences.at(op);
    inputs.push_back(l ? fusedRecurrences.at(stack.recurrences[l - 1]).spec.units : 0);
    unitList += (l ? ", " : "") + std::to_string(r.spec.units);
    inputList += (l ? ", " : "") + std::to_string(inputs.back());
    layers += (l ? ", " : "") + tag(op);
  }
  const size_t n = stack.recurrences.size();
  modelFields += "  seqc::StackPlan " + plan + "; // " + tag(head) + "\n";
  createCode += "  {\n    const int units[] = {" + unitList + "}, inputs[] = {" + inputList +
                "};\n" + "    if (seqc::plan_stack<" + cellTemplateArguments(spec) + ">(" +
                std::to_string(n) + ", units, inputs, &m->" + plan + ") != cudaSuccess)\n" +
                "      cudaGetLastError(); // the layers run one by one\n" +
                "    seqc::report_plan((const char *)" + text(layer(head)) + ", m->" + plan + ", " +
                std::to_string(n) + ");\n  }\n";

  comment(head, "stacked recurrences " + layers + ": one launch, the layers as a wavefront, "
                "when the GPU holds them at once (else one by one)");
  llvm::raw_string_ostream os(forwardCode);
  os << "  if (m->" << plan << ".blocks) {\n"
     << "    seqc::StackArgs s{};\n";
  for (auto [l, op] : llvm::enumerate(stack.recurrences)) {
    const FusedRecurrence &r = fusedRecurrences.at(op);
    std::string w = "nullptr", b = "nullptr";
    if (l) {
      auto projection = cast<LinearOp>(stack.projections[l - 1]);
      Expected<std::string> kernel = weight(projection, projection.getWeight(), "kernel");
      if (!kernel)
        return kernel.takeError();
      Expected<std::string> bias = optionalWeight(projection, projection.getBias(), "bias");
      if (!bias)
        return bias.takeError();
      w = *kernel, b = *bias;
    }
    std::string L = "    s.layer[" + std::to_string(l) + "].";
    os << L << "xproj = " << (l ? "nullptr" : ptr(r.projection)) << ";\n"
       << L << "w = " << w << ";\n"
       << L << "bias = " << b << ";\n"
       << L << "u = " << r.spec.recurrentKernel << ";\n"
       << L << "rbias = " << r.spec.recurrentBias << ";\n"
       << L << "out = " << ptr(r.output) << ";\n"
       << L << "h = " << ptr(r.h) << ";\n"
       << L << "c = " << (r.cellState ? ptr(*r.cellState) : "nullptr") << ";\n"
       << L << "units = " << r.spec.units << ";\n"
       << L << "inputs = " << inputs[l] << ";\n"
       << L << "return_sequences = " << (r.spec.returnSequences ? 1 : 0) << ";\n";
  }
  os << "    s.progress = reinterpret_cast<unsigned *>(" << ptr(progress) << ");\n"
     << "    s.batch = (int)" << dim(first.projection, 0) << ";\n"
     << "    s.steps = (int)" << dim(first.projection, 1) << ";\n"
     << "    s.alpha = " << floatLiteral(shapes::cellAlpha(spec.activation)) << ";\n"
     << "    s.recurrent_alpha = " << floatLiteral(shapes::cellAlpha(spec.recurrentActivation))
     << ";\n"
     << "  " << tryLaunch(head, "seqc::run_stack(m->stream, m->" + plan + ", s)")
     << "  } else {\n";
  for (StringRef line : llvm::split(StringRef(fallback).rtrim('\n'), '\n'))
    os << "  " << line << "\n";
  os << "  }\n";
  return Error::success();
}

} // namespace seq::cuda::detail

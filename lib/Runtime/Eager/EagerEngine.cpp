//===- EagerEngine.cpp - Runs @predict op by op ---------------------------===//
//
// The weights are decoded once when the engine is built; a run keeps every
// intermediate tensor in its own map, so concurrent runs share nothing but
// the read-only weights.
//
//===----------------------------------------------------------------------===//

#include "seq/Runtime/Eager.h"

#include "Diagnostics.h"
#include "OpEvaluation.h"
#include "Weights.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"
#include "seq/Runtime/ReferenceKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::Twine;

namespace seq::rt {

namespace {

Error error(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

Expected<func::FuncOp> predictFunction(ModuleOp module) {
  auto predict = module.lookupSymbol<func::FuncOp>("predict");
  if (!predict || predict.isExternal())
    return error("the module has no func.func @predict with a body");
  return predict;
}

/// Whether `shape` fits `type`: same rank, equal static sizes.
bool fits(const std::vector<int64_t> &shape, RankedTensorType type) {
  if (static_cast<int64_t>(shape.size()) != type.getRank())
    return false;
  for (auto [size, expected] : llvm::zip(shape, type.getShape()))
    if (expected != ShapedType::kDynamic && size != expected)
      return false;
  return true;
}

class EagerEngine final : public Engine {
public:
  static Expected<std::unique_ptr<Engine>> create(ModuleOp module);

  Expected<std::vector<Tensor>> execute(ArrayRef<TensorView> inputs) override;

private:
  /// Intermediate values of one run.
  using Frame = llvm::DenseMap<Value, Tensor>;

  EagerEngine(func::FuncOp predict, llvm::DenseMap<Value, Tensor> weights)
      : predict(predict), weights(std::move(weights)) {}

  /// Runs the ops of `block` and returns what its terminator (func.return or
  /// seq.yield) returns.
  Expected<std::vector<Tensor>> runBlock(Block &block, Frame &frame) const;
  Expected<Tensor> runTimeDistributed(TimeDistributedOp op, Frame &frame) const;
  const Tensor &lookup(Value v, const Frame &frame) const;

  func::FuncOp predict;
  /// Every arith.constant's value, also those inside op bodies.
  llvm::DenseMap<Value, Tensor> weights;
};

Expected<std::unique_ptr<Engine>> EagerEngine::create(ModuleOp module) {
  Expected<func::FuncOp> predict = predictFunction(module);
  if (!predict)
    return predict.takeError();

  std::string diagnostic;
  {
    ScopedDiagnosticHandler capture(module.getContext(), [&](Diagnostic &d) {
      if (diagnostic.empty())
        diagnostic =
            d.str() + " (" + eager::describeLocation(d.getLocation()) + ")";
      return success();
    });
    if (failed(verify(module)))
      return error("the module is not valid seq IR: " + diagnostic);
  }

  llvm::DenseMap<Value, Tensor> weights;
  Error failure = Error::success();
  predict->walk([&](arith::ConstantOp op) {
    Expected<Tensor> value = eager::constantTensor(op);
    if (!value) {
      failure = value.takeError();
      return WalkResult::interrupt();
    }
    weights[op.getResult()] = std::move(*value);
    return WalkResult::advance();
  });
  if (failure)
    return std::move(failure);
  Expected<ModelIO> io = seq::modelIO(*predict);
  if (!io)
    return io.takeError();
  std::unique_ptr<EagerEngine> engine(new EagerEngine(*predict, std::move(weights)));
  engine->initIO(std::move(*io));
  return std::unique_ptr<Engine>(std::move(engine));
}

const Tensor &EagerEngine::lookup(Value v, const Frame &frame) const {
  auto it = frame.find(v);
  if (it != frame.end())
    return it->second;
  // The verifier guarantees dominance, so a value not computed in this run
  // is a weight.
  return weights.find(v)->second;
}

Expected<std::vector<Tensor>> EagerEngine::execute(ArrayRef<TensorView> inputs) {
  Frame frame;
  for (auto [i, input] : llvm::enumerate(inputs))
    frame[predict.getArgument(i)] = input.copy();
  const std::vector<StateSlot> &slots = stateSlots();
  std::unique_lock<std::mutex> lock(stateMutex, std::defer_lock);
  if (!slots.empty()) {
    lock.lock();
    for (auto [i, slot] : llvm::enumerate(slots))
      frame[predict.getArgument(inputs.size() + i)] =
          Tensor{slot.shape,
                 std::vector<float>(stateValues.begin() + slot.offset,
                                    stateValues.begin() + slot.offset + slot.size)};
  }
  Expected<std::vector<Tensor>> results = runBlock(predict.getBody().front(), frame);
  if (!results)
    return results.takeError();
  // Only a call that succeeded moves the state on.
  size_t outputs = results->size() - slots.size();
  for (auto [i, slot] : llvm::enumerate(slots))
    std::copy((*results)[outputs + i].data.begin(), (*results)[outputs + i].data.end(),
              stateValues.begin() + slot.offset);
  results->resize(outputs);
  return results;
}

Expected<std::vector<Tensor>> EagerEngine::runBlock(Block &block,
                                                    Frame &frame) const {
  auto get = [&](Value v) -> const Tensor & { return lookup(v, frame); };
  for (Operation &op : block) {
    if (isa<arith::ConstantOp>(op))
      continue;
    if (isa<func::ReturnOp, YieldOp>(op)) {
      std::vector<Tensor> results;
      for (Value v : op.getOperands())
        results.push_back(get(v));
      return results;
    }
    // A recurrent op's second result is its final state.
    bool twoResults = isa<LSTMOp, GRUOp, SimpleRNNOp, LSTMRecurrenceOp,
                          GRURecurrenceOp, SimpleRNNRecurrenceOp, ConvLSTMOp>(op);
    if (op.getNumResults() < 1 || op.getNumResults() > (twoResults ? 2u : 1u) ||
        !isa<RankedTensorType>(op.getResult(0).getType()))
      return eager::opError(&op, "expected one ranked tensor result");

    auto timeDistributed = dyn_cast<TimeDistributedOp>(op);
    Tensor finalState;
    Expected<Tensor> result = timeDistributed
                                  ? runTimeDistributed(timeDistributed, frame)
                                  : eager::evaluateOp(&op, get, &finalState);
    if (!result)
      return result.takeError();
    if (op.getNumResults() == 2)
      frame[op.getResult(1)] = std::move(finalState);

    // Holds by construction for a correct kernel; cheap insurance that a
    // wrong shape never travels on silently.
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    if (!fits(result->shape, type))
      return eager::opError(&op, "produced shape " + result->shapeString() +
                                     " but its result type is " +
                                     shapes::format(type.getShape()));
    frame[op.getResult(0)] = std::move(*result);
  }
  return error("block without terminator in @predict");
}

Expected<Tensor> EagerEngine::runTimeDistributed(TimeDistributedOp op,
                                                 Frame &frame) const {
  const Tensor &x = lookup(op.getInput(), frame);
  if (x.rank() < 3)
    return eager::opError(op, "input has shape " + x.shapeString() +
                                  ", expected a time axis");
  Block &body = op.getBody().front();
  int64_t steps = x.shape[1];
  auto type = cast<RankedTensorType>(op.getType());
  Tensor y;
  if (steps == 0) {
    y.shape.assign(type.getShape().begin(), type.getShape().end());
    y.shape[0] = x.shape[0];
    y.shape[1] = 0;
    for (int64_t &d : y.shape)
      if (d == ShapedType::kDynamic)
        d = 0;
    return y;
  }
  std::vector<int64_t> stepShape;
  for (int64_t t = 0; t < steps; ++t) {
    frame[body.getArgument(0)] = sliceTime(x, t);
    Expected<std::vector<Tensor>> results = runBlock(body, frame);
    if (!results)
      return results.takeError();
    if (results->size() != 1)
      return eager::opError(op, "the body must yield one value");
    Tensor *step = &results->front();
    if (t == 0) {
      if (step->rank() < 1)
        return eager::opError(op, "the body yields a tensor without a batch "
                                  "axis");
      std::vector<int64_t> shape = {step->shape[0], steps};
      shape.insert(shape.end(), step->shape.begin() + 1, step->shape.end());
      y = Tensor::zeros(shape);
      stepShape = step->shape;
    } else if (step->shape != stepShape) {
      return eager::opError(op, "the body yields " + step->shapeString() +
                                    " at step " + Twine(t) + " but " +
                                    Tensor{stepShape, {}}.shapeString() +
                                    " at step 0");
    }
    setTime(y, t, *step);
  }
  return y;
}

} // namespace

llvm::Expected<std::unique_ptr<Engine>> createEagerEngine(ModuleOp module) {
  return EagerEngine::create(module);
}

void registerEagerEngine() {
  registerEngine("eager", [](ModuleOp module, const EngineOptions &) {
    return createEagerEngine(module);
  });
}

llvm::Expected<Tensor> runEager(ModuleOp module, const Tensor &input) {
  Expected<std::unique_ptr<Engine>> engine = createEagerEngine(module);
  if (!engine)
    return engine.takeError();
  return (*engine)->run(input);
}

Error checkInputShape(ModuleOp module, const std::vector<int64_t> &inputShape) {
  Expected<func::FuncOp> predict = predictFunction(module);
  if (!predict)
    return predict.takeError();
  auto argType = cast<RankedTensorType>(predict->getArgument(0).getType());
  if (fits(inputShape, argType))
    return Error::success();
  return error("input has shape " + Tensor{inputShape, {}}.shapeString() +
               " but the model expects " + shapes::format(argType.getShape()));
}

} // namespace seq::rt

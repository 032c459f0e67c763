#include "seq/Runtime/Engine.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <mutex>

namespace seq::rt {

std::vector<float> Engine::state() const {
  std::lock_guard<std::mutex> lock(stateMutex);
  return stateValues;
}

llvm::Error Engine::setState(llvm::ArrayRef<float> values) {
  std::lock_guard<std::mutex> lock(stateMutex);
  if (values.size() != stateValues.size())
    return llvm::createStringError(
        "the state has " + std::to_string(stateValues.size()) +
        " floats (stateful layers' (states, batch, units) one after the "
        "other), got " +
        std::to_string(values.size()));
  stateValues.assign(values.begin(), values.end());
  return llvm::Error::success();
}

void Engine::resetState() {
  std::lock_guard<std::mutex> lock(stateMutex);
  std::fill(stateValues.begin(), stateValues.end(), 0.0f);
}

void Engine::initIO(ModelIO io) {
  ports = std::move(io);
  stateValues.assign(stateSize(ports.state), 0.0f);
}

llvm::Error checkInputs(const ModelIO &io, llvm::ArrayRef<TensorView> inputs) {
  if (inputs.size() != io.inputs.size())
    return llvm::createStringError(
        "the model takes " + std::to_string(io.inputs.size()) + " input(s) (" +
        portList(io.inputs) + "), got " + std::to_string(inputs.size()));
  for (auto [port, input] : llvm::zip(io.inputs, inputs)) {
    std::string which = io.inputs.size() == 1 ? "input" : "input '" + port.name + "'";
    bool fits = input.shape.size() == port.shape.size();
    for (size_t i = 0; fits && i < port.shape.size(); ++i)
      fits = port.shape[i] < 0 || port.shape[i] == input.shape[i];
    if (!fits)
      return llvm::createStringError(which + " has shape " + shapeText(input.shape) +
                                     " but the model expects " + shapeText(port.shape));
    // As the C API, where a seq_len of 0 means the model's own length.
    for (size_t i = 1; i < port.shape.size(); ++i)
      if (port.shape[i] < 0 && input.shape[i] == 0)
        return llvm::createStringError(which + " has shape " + shapeText(input.shape) +
                                       ": its axis " + std::to_string(i) +
                                       " (of any length) is empty; give it at least one step");
    if (input.size != input.numElements())
      return llvm::createStringError(which + " of shape " + input.shapeString() +
                                     " holds " + std::to_string(input.size) +
                                     " values");
    if (input.shape[0] != inputs[0].shape[0])
      return llvm::createStringError(
          which + " has a batch of " + std::to_string(input.shape[0]) + " rows but '" +
          io.inputs[0].name + "' has " + std::to_string(inputs[0].shape[0]) +
          ": every input needs one row per sample");
  }
  return llvm::Error::success();
}

std::vector<TensorView> views(llvm::ArrayRef<Tensor> tensors) {
  return std::vector<TensorView>(tensors.begin(), tensors.end());
}

llvm::Expected<std::vector<Tensor>> Engine::runAll(llvm::ArrayRef<TensorView> inputs) {
  if (llvm::Error e = checkInputs(ports, inputs))
    return std::move(e);
  return execute(inputs);
}

llvm::Expected<std::vector<Tensor>> Engine::runAll(llvm::ArrayRef<Tensor> inputs) {
  return runAll(views(inputs));
}

llvm::Expected<Tensor> Engine::run(const TensorView &input) {
  if (ports.inputs.size() != 1 || ports.outputs.size() != 1)
    return llvm::createStringError(
        "the model has " + std::to_string(ports.inputs.size()) + " input(s) and " +
        std::to_string(ports.outputs.size()) + " output(s): name each (" +
        portList(ports.inputs) + " in; " + portList(ports.outputs) + " out)");
  llvm::Expected<std::vector<Tensor>> outputs = runAll(input);
  if (!outputs)
    return outputs.takeError();
  return std::move(outputs->front());
}

llvm::Expected<std::vector<Tensor>>
runInBatches(Engine &engine, llvm::ArrayRef<TensorView> inputs, int64_t batch) {
  int64_t rows = !inputs.empty() && inputs[0].rank() >= 1 ? inputs[0].shape[0] : 0;
  if (batch < 1 || rows % batch)
    return llvm::createStringError(
        "input has " + std::to_string(rows) + " rows; the model runs its fixed batch of " +
        std::to_string(batch) + " rows (its layers keep a state per row), so give a "
        "multiple of " + std::to_string(batch));
  std::vector<Tensor> outputs;
  for (int64_t first = 0; first < rows; first += batch) {
    std::vector<TensorView> parts;
    for (const TensorView &input : inputs)
      parts.push_back(input.rows(first, batch));
    llvm::Expected<std::vector<Tensor>> out = engine.runAll(parts);
    if (!out)
      return out.takeError();
    if (outputs.empty())
      for (const Tensor &o : *out)
        outputs.push_back(Tensor{o.shape, {}}), outputs.back().shape[0] = 0;
    for (auto [joined, o] : llvm::zip(outputs, *out)) {
      joined.shape[0] += batch;
      joined.data.insert(joined.data.end(), o.data.begin(), o.data.end());
    }
  }
  return outputs;
}

namespace {
struct Registry {
  std::mutex mutex;
  llvm::StringMap<EngineFactory> factories;
};
Registry &registry() {
  static Registry r;
  return r;
}
} // namespace

void registerEngine(llvm::StringRef name, EngineFactory factory) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().factories[name] = std::move(factory);
}

std::vector<std::string> engineNames() {
  std::lock_guard<std::mutex> lock(registry().mutex);
  std::vector<std::string> names;
  for (auto &entry : registry().factories)
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}

llvm::Expected<std::unique_ptr<Engine>> createEngine(llvm::StringRef name,
                                                     mlir::ModuleOp module,
                                                     const EngineOptions &options) {
  if (options.threads < 0 || options.threads > kMaxEngineThreads)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "threads " + std::to_string(options.threads) +
                                       " is outside [0, " +
                                       std::to_string(kMaxEngineThreads) +
                                       "] (0: one per core)");
  EngineFactory factory;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto it = registry().factories.find(name);
    if (it != registry().factories.end())
      factory = it->second;
  }
  if (!factory) {
    std::string known;
    for (const std::string &n : engineNames())
      known += (known.empty() ? "" : ", ") + n;
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown engine '" + name + "' (available: " +
                                       known + ")");
  }
  return factory(module, options);
}

} // namespace seq::rt

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

void Engine::initState(std::vector<StateSlot> stateSlots) {
  slots = std::move(stateSlots);
  stateValues.assign(stateSize(slots), 0.0f);
}

llvm::Expected<Tensor> runInBatches(Engine &engine, const Tensor &input,
                                    int64_t batch) {
  int64_t rows = input.rank() >= 1 ? input.shape[0] : 0;
  if (batch < 1 || rows % batch)
    return llvm::createStringError(
        "input has " + std::to_string(rows) + " rows; the model runs its fixed batch of " +
        std::to_string(batch) + " rows (its layers keep a state per row), so give a "
        "multiple of " + std::to_string(batch));
  int64_t rowSize = rows ? input.numElements() / rows : 0;
  Tensor output;
  for (int64_t first = 0; first < rows; first += batch) {
    Tensor part{input.shape, {}};
    part.shape[0] = batch;
    part.data.assign(input.data.begin() + first * rowSize,
                     input.data.begin() + (first + batch) * rowSize);
    llvm::Expected<Tensor> out = engine.run(part);
    if (!out)
      return out.takeError();
    if (output.shape.empty()) {
      output.shape = out->shape;
      output.shape[0] = 0;
    }
    output.shape[0] += batch;
    output.data.insert(output.data.end(), out->data.begin(), out->data.end());
  }
  return output;
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
                                                     mlir::ModuleOp module) {
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
  return factory(module);
}

} // namespace seq::rt

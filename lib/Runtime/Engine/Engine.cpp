#include "seq/Runtime/Engine.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <mutex>

namespace seq::rt {

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

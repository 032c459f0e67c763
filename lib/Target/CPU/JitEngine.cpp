#include "seq/Target/CPU/JitEngine.h"

#include "JitMemory.h"
#include "LoweredModel.h"
#include "ModelSignature.h"
#include "seq/Target/CPU/Pipeline.h"
#include "seqc_arena.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

using namespace mlir;
using seq::rt::Tensor;

namespace {

std::atomic<bool> jitEnabled{true};

extern "C" void reportError(int32_t site, int64_t count) {
  seqc_arena_report_error(site, count);
}

/// seqc_model_predict(results, inputs, state): see ModelSignature.
using PredictFn = void (*)(void *results, void **inputs, void *state);

/// What seqc_arena_run calls.
struct PredictCall {
  PredictFn predict;
  void **inputs;
  void *state;
  static void run(void *results, void *call) {
    auto *c = static_cast<PredictCall *>(call);
    c->predict(results, c->inputs, c->state);
  }
};

class JitEngine final : public seq::rt::Engine {
public:
  JitEngine(std::unique_ptr<seq::cpu::JitMemory> memory,
            std::unique_ptr<ExecutionEngine> engine, PredictFn predict,
            seq::cpu::ModelSignature signature)
      : memory(std::move(memory)), engine(std::move(engine)), predict(predict),
        signature(std::move(signature)) {
    initIO(this->signature.io);
  }

  ~JitEngine() override {
    for (seqc_arena *arena : arenas) {
      seqc_arena_release(arena);
      delete arena;
    }
  }

  llvm::Expected<std::vector<Tensor>>
  execute(llvm::ArrayRef<Tensor> inputs) override {
    seqc_arena *arena = acquireArena();
    std::vector<std::vector<int64_t>> descriptors;
    std::vector<void *> inputPointers;
    for (const Tensor &input : inputs)
      descriptors.push_back(seq::cpu::describe(input.data.data(), input.shape));
    for (std::vector<int64_t> &d : descriptors)
      inputPointers.push_back(d.data());
    std::vector<int64_t> results(signature.resultWords());
    bool stateful = !signature.io.state.empty();
    std::unique_lock<std::mutex> stateLock(stateMutex, std::defer_lock);
    std::vector<int64_t> stateIn;
    PredictCall call{predict, inputPointers.data(), nullptr};
    if (stateful) {
      stateLock.lock();
      stateIn = seq::cpu::describe(stateValues.data(),
                                   {static_cast<int64_t>(stateValues.size())});
      call.state = stateIn.data();
    }
    // An allocation that fails abandons the call (seqc_arena_run).
    int status = seqc_arena_run(arena, PredictCall::run, results.data(), &call);
    llvm::Expected<std::vector<Tensor>> outputs =
        status == 0 ? signature.readOutputs(results.data(), arena)
                    : llvm::createStringError(
                          "out of memory: the model could not allocate " +
                          std::to_string(arena->failed_size) +
                          " bytes of working memory for this input");
    // Only a call that succeeded moves the state on.
    if (outputs && stateful) {
      const int64_t *d = signature.stateResult(results.data());
      const float *next = reinterpret_cast<const float *>(d[1]) + d[2];
      std::copy(next, next + stateValues.size(), stateValues.begin());
    }
    size_t needed = arena->needed;
    seqc_arena_end(arena);
    // Grow once so that the next call of this size allocates nothing.
    // (A failed call's size is not kept: it would fail again.)
    if (outputs && needed > arena->capacity)
      seqc_arena_reserve(arena, needed);
    releaseArena(arena);
    return outputs;
  }

private:
  seqc_arena *acquireArena() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!idle.empty()) {
      seqc_arena *arena = idle.back();
      idle.pop_back();
      return arena;
    }
    arenas.push_back(new seqc_arena{});
    return arenas.back();
  }
  void releaseArena(seqc_arena *arena) {
    std::lock_guard<std::mutex> lock(mutex);
    idle.push_back(arena);
  }

  // Declared first: the engine's code and data live in it.
  std::unique_ptr<seq::cpu::JitMemory> memory;
  std::unique_ptr<ExecutionEngine> engine;
  PredictFn predict;
  seq::cpu::ModelSignature signature;
  std::mutex mutex;
  std::vector<seqc_arena *> arenas, idle;
};

} // namespace

llvm::Expected<std::unique_ptr<seq::rt::Engine>>
seq::cpu::createJitEngine(ModuleOp module) {
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm = createTargetMachine();
  if (!tm)
    return tm.takeError();
  llvm::Expected<LoweredModel> lowered =
      lowerModel(module, /*fuse=*/true, VectorTarget::of(**tm));
  if (!lowered)
    return lowered.takeError();
  llvm::TargetMachine *target = tm->get();
  std::string translationError;
  auto memory = std::make_unique<seq::cpu::JitMemory>();
  auto buildModule = [&](Operation *op, llvm::LLVMContext &context)
      -> std::unique_ptr<llvm::Module> {
    llvm::Expected<std::unique_ptr<llvm::Module>> m =
        translateToLLVMIR(cast<ModuleOp>(op), context, *target);
    if (!m) {
      translationError = llvm::toString(m.takeError());
      return nullptr;
    }
    seq::cpu::addPredictEntry(**m, lowered->signature);
    memory->sizeFor(**m);
    return std::move(*m);
  };
  ExecutionEngineOptions options;
  options.llvmModuleBuilder = buildModule;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = false;
  options.sectionMemoryMapper = memory.get();
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(*lowered->module, options, std::move(*tm));
  if (!engine) {
    if (!translationError.empty()) {
      llvm::consumeError(engine.takeError());
      return llvm::createStringError(translationError);
    }
    return engine.takeError();
  }
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](llvm::StringRef name, auto *fn) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                                 llvm::JITSymbolFlags::Exported};
    };
    add("_mlir_memref_to_llvm_alloc", &seqc_arena_alloc);
    add("_mlir_memref_to_llvm_aligned_alloc", &seqc_arena_aligned_alloc);
    add("_mlir_memref_to_llvm_free", &seqc_arena_free);
    add("seqc_report_error", &reportError);
    return symbols;
  });
  (*engine)->initialize();
  llvm::Expected<void *> predict = (*engine)->lookup("seqc_model_predict");
  if (!predict)
    return predict.takeError();
  return std::make_unique<JitEngine>(std::move(memory), std::move(*engine),
                                     reinterpret_cast<PredictFn>(*predict),
                                     std::move(lowered->signature));
}

void seq::cpu::setJitEnabled(bool enabled) { jitEnabled = enabled; }
bool seq::cpu::isJitEnabled() { return jitEnabled; }

void seq::registerJitEngine() {
  rt::registerEngine("jit", [](ModuleOp module)
                                -> llvm::Expected<std::unique_ptr<rt::Engine>> {
    if (!cpu::isJitEnabled())
      return rt::createEngine("eager", module);
    return cpu::createJitEngine(module);
  });
}

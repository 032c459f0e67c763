#include "seq/Target/CPU/JitEngine.h"

#include "JitMemory.h"
#include "LoweredModel.h"
#include "ModelSignature.h"
#include "WorkerPool.h"
#include "seq/Target/CPU/Pipeline.h"
#include "seqc_arena.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

using namespace mlir;
using seq::rt::Tensor;
using seq::rt::TensorView;

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

/// What one chunk of rows of a call left: its outputs, or why it failed.
struct ChunkResult {
  /// 0, or SEQC_ARENA_OUT_OF_MEMORY (failedSize says how large).
  int status = 0;
  size_t failedSize = 0;
  /// The first failed check of the chunk (-1: none) and its count.
  int32_t errorSite = -1;
  int64_t errorCount = 0;
  std::vector<Tensor> outputs;
};

class JitEngine final : public seq::rt::Engine {
public:
  JitEngine(std::unique_ptr<seq::cpu::JitMemory> memory,
            std::unique_ptr<ExecutionEngine> engine, PredictFn predict,
            seq::cpu::ModelSignature signature, int threads)
      : memory(std::move(memory)), engine(std::move(engine)), predict(predict),
        signature(std::move(signature)), automatic(threads == 0),
        rowsIndependent(splittable()) {
    initIO(this->signature.io);
    if (automatic)
      threads = seq::cpu::onlineCores();
    threads = std::min(threads, seq::rt::kMaxEngineThreads);
    if (threads > 1 && rowsIndependent) {
      pool = std::make_unique<seq::cpu::WorkerPool>(threads);
      for (int i = 0; i < threads; ++i) {
        arenas.push_back(new seqc_arena{});
        poolArenas.push_back(arenas.back());
      }
    }
  }

  ~JitEngine() override {
    pool.reset();
    for (seqc_arena *arena : arenas) {
      seqc_arena_release(arena);
      delete arena;
    }
  }

  llvm::Expected<std::vector<Tensor>>
  execute(llvm::ArrayRef<TensorView> inputs) override {
    int64_t batch = inputs[0].shape[0];
    int chunks = chunksFor(batch);
    if (chunks > 1) {
      // Chunk i is rows [batch * i / chunks, batch * (i + 1) / chunks).
      llvm::SmallVector<llvm::SmallVector<ChunkResult, 1>, 8> results(chunks);
      auto start = std::chrono::steady_clock::now();
      bool ran = pool->tryRun(chunks, [&](int i) {
        int64_t first = batch * i / chunks;
        runTiles(inputs, first, batch * (i + 1) / chunks - first, results[i],
                 poolArenas[i]);
        if (i == 0)
          learn(start, batch / chunks);
      });
      if (ran) {
        llvm::SmallVector<ChunkResult, 8> tiles;
        for (auto &chunk : results)
          for (ChunkResult &tile : chunk)
            tiles.push_back(std::move(tile));
        return join(tiles, batch);
      }
      // Another call holds the pool: this one runs on its own thread.
    }
    auto start = std::chrono::steady_clock::now();
    llvm::SmallVector<ChunkResult, 1> tiles;
    runTiles(inputs, 0, batch, tiles);
    learn(start, batch);
    return join(tiles, batch);
  }

private:
  /// Whether calls may be split along axis 0: a stateless model whose every
  /// input and output has the batch as axis 0. (A stateful model's calls
  /// run on one thread.)
  bool splittable() const {
    const seq::ModelIO &io = signature.io;
    if (!io.state.empty())
      return false;
    for (const seq::ModelPort &p : io.inputs)
      if (p.shape.empty() || p.shape[0] >= 0)
        return false;
    for (const seq::ModelPort &p : io.outputs)
      if (p.shape.empty() || p.shape[0] >= 0)
        return false;
    return true;
  }

  /// The chunks a call of `batch` rows is split into: at most one per
  /// thread and per row; with automatic threads, none with less than
  /// kMinChunkNs of work by the last calls' time per row (the first call
  /// runs on one thread and measures it).
  int chunksFor(int64_t batch) const {
    if (!pool || batch <= 1)
      return 1;
    int64_t chunks = std::min<int64_t>(batch, pool->size());
    if (automatic) {
      int64_t perRow = nsPerRow.load(std::memory_order_relaxed);
      if (perRow < 0)
        return 1;
      chunks = std::min<int64_t>(chunks, batch * perRow / kMinChunkNs);
    }
    return static_cast<int>(std::max<int64_t>(chunks, 1));
  }

  /// Keeps the time per row of a chunk of `rows` begun at `start`.
  void learn(std::chrono::steady_clock::time_point start, int64_t rows) {
    if (!automatic || rows < 1)
      return;
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    nsPerRow.store(std::max<int64_t>(ns / rows, 1), std::memory_order_relaxed);
  }

  /// Runs rows [first, first + rows) of every input in tiles of at most
  /// SEQC_TILE_ROWS rows (seqc_arena.h) when the rows are independent, one
  /// result per tile.
  void runTiles(llvm::ArrayRef<TensorView> inputs, int64_t first, int64_t rows,
                llvm::SmallVectorImpl<ChunkResult> &results,
                seqc_arena *arena = nullptr) {
    int64_t tiles = rowsIndependent ? std::max<int64_t>(
                                       (rows + SEQC_TILE_ROWS - 1) / SEQC_TILE_ROWS, 1)
                                 : 1;
    for (int64_t t = 0; t < tiles; ++t) {
      int64_t begin = rows * t / tiles;
      results.push_back(
          runRows(inputs, first + begin, rows * (t + 1) / tiles - begin, arena));
    }
  }

  /// Runs rows [first, first + rows) of every input in `arena`, or in one
  /// of the shared ones no other call is using.
  ChunkResult runRows(llvm::ArrayRef<TensorView> inputs, int64_t first, int64_t rows,
                      seqc_arena *arena) {
    bool shared = !arena;
    if (shared)
      arena = acquireArena();
    std::vector<std::vector<int64_t>> descriptors;
    std::vector<void *> inputPointers;
    for (const TensorView &input : inputs) {
      std::vector<int64_t> shape = input.shape;
      int64_t rowFloats = 1;
      for (size_t i = 1; i < shape.size(); ++i)
        rowFloats *= shape[i];
      shape[0] = rows;
      descriptors.push_back(
          seq::cpu::describe(input.data + first * rowFloats, shape));
    }
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
    ChunkResult result;
    result.status = seqc_arena_run(arena, PredictCall::run, results.data(), &call);
    result.failedSize = arena->failed_size;
    result.errorSite = arena->error_site;
    result.errorCount = arena->error_count;
    bool ok = result.status == 0 && result.errorSite < 0;
    if (ok) {
      llvm::Expected<std::vector<Tensor>> outputs =
          signature.readOutputs(results.data(), arena);
      if (outputs) {
        result.outputs = std::move(*outputs);
      } else { // cannot happen: no error site was reported
        llvm::consumeError(outputs.takeError());
        ok = false;
      }
    }
    // Only a call that succeeded moves the state on.
    if (ok && stateful) {
      const int64_t *d = signature.stateResult(results.data());
      const float *next = reinterpret_cast<const float *>(d[1]) + d[2];
      std::copy(next, next + stateValues.size(), stateValues.begin());
    }
    size_t needed = arena->needed;
    seqc_arena_end(arena);
    // Grow once so that the next call of this size allocates nothing.
    // (A failed call's size is not kept: it would fail again.)
    if (ok && needed > arena->capacity)
      seqc_arena_reserve(arena, needed);
    if (shared)
      releaseArena(arena);
    return result;
  }

  /// The call's outputs, every chunk's rows in order, or its error as one
  /// thread would have reported it: out of memory in any chunk, else the
  /// first failed check with its count over all rows.
  llvm::Expected<std::vector<Tensor>> join(llvm::MutableArrayRef<ChunkResult> chunks,
                                           int64_t batch) const {
    int32_t site = -1;
    for (const ChunkResult &c : chunks) {
      if (c.status != 0)
        return llvm::createStringError(
            "out of memory: the model could not allocate " +
            std::to_string(c.failedSize) + " bytes of working memory for this input");
      if (c.errorSite >= 0 && (site < 0 || c.errorSite < site))
        site = c.errorSite;
    }
    if (site >= 0) {
      int64_t count = 0;
      for (const ChunkResult &c : chunks)
        if (c.errorSite == site)
          count += c.errorCount;
      return signature.inputError(site, count);
    }
    if (chunks.size() == 1)
      return std::move(chunks[0].outputs);
    std::vector<Tensor> outputs;
    for (size_t k = 0; k < chunks[0].outputs.size(); ++k) {
      Tensor joined;
      joined.shape = chunks[0].outputs[k].shape;
      joined.shape[0] = batch;
      size_t floats = 0;
      for (const ChunkResult &c : chunks)
        floats += c.outputs[k].data.size();
      joined.data.reserve(floats);
      for (const ChunkResult &c : chunks)
        joined.data.insert(joined.data.end(), c.outputs[k].data.begin(),
                           c.outputs[k].data.end());
      outputs.push_back(std::move(joined));
    }
    return outputs;
  }

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

  /// With automatic threads, a chunk gets at least this much work (ns):
  /// waking a thread costs microseconds.
  static constexpr int64_t kMinChunkNs = 50000;

  // Declared first: the engine's code and data live in it.
  std::unique_ptr<seq::cpu::JitMemory> memory;
  std::unique_ptr<ExecutionEngine> engine;
  PredictFn predict;
  seq::cpu::ModelSignature signature;
  bool automatic;
  /// splittable(): calls may be split into chunks and tiles of rows.
  bool rowsIndependent;
  std::atomic<int64_t> nsPerRow{-1};
  std::mutex mutex;
  std::vector<seqc_arena *> arenas, idle;
  /// Chunk i of a call the pool runs uses arena i, on the same thread each
  /// call, so that its memory stays in that core's caches (a shared arena
  /// went from core to core: the seed model at batch 64 on 2 threads took
  /// 147 us instead of 130). Owned by `arenas`.
  std::vector<seqc_arena *> poolArenas;
  // Last: its threads stop before anything they use goes.
  std::unique_ptr<seq::cpu::WorkerPool> pool;
};

} // namespace

llvm::Expected<std::unique_ptr<seq::rt::Engine>>
seq::cpu::createJitEngine(ModuleOp module, const rt::EngineOptions &engineOptions) {
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
                                     std::move(lowered->signature),
                                     engineOptions.threads);
}

void seq::cpu::setJitEnabled(bool enabled) { jitEnabled = enabled; }
bool seq::cpu::isJitEnabled() { return jitEnabled; }

void seq::registerJitEngine() {
  rt::registerEngine("jit", [](ModuleOp module, const rt::EngineOptions &options)
                                -> llvm::Expected<std::unique_ptr<rt::Engine>> {
    if (!cpu::isJitEnabled())
      return rt::createEngine("eager", module, options);
    return cpu::createJitEngine(module, options);
  });
}

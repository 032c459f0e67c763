// An engine runs a model: the eager reference interpreter, the CPU JIT, an
// AOT library, CUDA. Engines are created by name from a module holding
// `func.func @predict`, so drivers, --compare and the Python bindings treat
// them alike.
#ifndef SEQ_RUNTIME_ENGINE_H
#define SEQ_RUNTIME_ENGINE_H

#include "seq/Dialect/Seq/IR/ModelIO.h"
#include "seq/Runtime/Tensor.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace seq::rt {

class Engine {
public:
  virtual ~Engine() = default;
  /// Runs the model on one batch of each of its inputs (io().inputs order,
  /// batch-major float32, the same batch) and returns its outputs
  /// (io().outputs order). Inputs that do not fit the model are an error,
  /// not a crash. A stateful model starts from the state the last call left
  /// and leaves its new state (see ModelState.h); its calls run one at a
  /// time.
  /// The inputs are read in place (no copy) and not kept past the call.
  llvm::Expected<std::vector<Tensor>> runAll(llvm::ArrayRef<TensorView> inputs);
  llvm::Expected<std::vector<Tensor>> runAll(llvm::ArrayRef<Tensor> inputs);
  /// runAll for a model with one input and one output.
  llvm::Expected<Tensor> run(const TensorView &input);

  /// The model's inputs, outputs and state slots.
  const ModelIO &io() const { return ports; }
  /// The layers whose state persists between calls (Keras stateful=True);
  /// empty for a stateless model.
  const std::vector<StateSlot> &stateSlots() const { return ports.state; }
  /// Every slot's state, flat in slot order: zeros after creation and
  /// after resetState.
  std::vector<float> state() const;
  /// Replaces the state; `values` must hold stateSize(stateSlots()) floats.
  llvm::Error setState(llvm::ArrayRef<float> values);
  void resetState();

protected:
  /// Called by each engine's factory: the model's ports (and zero state).
  void initIO(ModelIO io);
  /// runAll once the inputs are checked against io().
  virtual llvm::Expected<std::vector<Tensor>>
  execute(llvm::ArrayRef<TensorView> inputs) = 0;
  /// Held by execute() of a stateful engine while it reads and writes
  /// `stateValues`.
  mutable std::mutex stateMutex;
  std::vector<float> stateValues;

private:
  ModelIO ports;
};

/// Checks `inputs` against the model's inputs: their count, each shape
/// (static sizes equal), the values each holds, one batch for all.
llvm::Error checkInputs(const ModelIO &io, llvm::ArrayRef<TensorView> inputs);

/// Views of `tensors`, which must outlive them.
std::vector<TensorView> views(llvm::ArrayRef<Tensor> tensors);

/// Runs `inputs` on a model built for a fixed batch of `batch` rows (a
/// stateful one): their rows, a multiple of `batch`, as consecutive calls,
/// each from the state the one before left (Keras' predict(x,
/// batch_size)); each output joined. Any other row count is an error.
llvm::Expected<std::vector<Tensor>>
runInBatches(Engine &engine, llvm::ArrayRef<TensorView> inputs, int64_t batch);

/// How an engine runs its calls; an engine ignores what does not apply.
struct EngineOptions {
  /// The CPU engines (jit, aot): the threads a call's batch is split across
  /// (the calling thread included; a fixed pool created with the engine).
  /// 0: one per core this process may use, and no more than a call has
  /// work for (a batch of 1 runs on the calling thread). Results are
  /// bitwise identical whatever the count.
  int threads = 0;
};

/// The most threads EngineOptions::threads may ask for.
constexpr int kMaxEngineThreads = 256;

/// Builds an engine for `module`; the module must outlive the engine unless
/// the engine copies what it needs.
using EngineFactory = std::function<llvm::Expected<std::unique_ptr<Engine>>(
    mlir::ModuleOp module, const EngineOptions &options)>;

/// Adds an engine under `name` ("eager", "jit", ...). Each engine library
/// has a register function that the tools call explicitly.
void registerEngine(llvm::StringRef name, EngineFactory factory);

/// The engine `name` for `module`; options.threads outside [0,
/// kMaxEngineThreads] is an error.
llvm::Expected<std::unique_ptr<Engine>>
createEngine(llvm::StringRef name, mlir::ModuleOp module,
             const EngineOptions &options = {});

/// Registered names, sorted.
std::vector<std::string> engineNames();

} // namespace seq::rt

#endif

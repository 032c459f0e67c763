// seqc.Compiled: a model made runnable by one engine ("eager", "jit", ...).
// Calling it runs one batch with the GIL released.
#ifndef SEQC_PYTHON_COMPILED_H
#define SEQC_PYTHON_COMPILED_H

#include "Model.h"

#include "seq/Runtime/Engine.h"
#include "seq/Runtime/Tensor.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace seqc::python {

class Compiled {
public:
  /// Builds `engine` (defaultEngine() when unset) for `model`, its calls
  /// split across `threads` threads (seq::rt::EngineOptions; 0: one per
  /// core). Raises seqc.Error for an unknown engine, one that cannot take
  /// the model, or threads outside [0, 256].
  static std::shared_ptr<Compiled> create(std::shared_ptr<Model> model,
                                          const std::optional<std::string> &engine,
                                          int threads = 0);

  /// Runs one batch; checks the shape first. Call without the GIL: engines
  /// that are not reentrant are called one thread at a time.
  llvm::Expected<seq::rt::Tensor> run(const seq::rt::TensorView &input);
  /// One batch of each input (the model's input order); each output.
  llvm::Expected<std::vector<seq::rt::Tensor>>
  runAll(const std::vector<seq::rt::TensorView> &inputs);
  const seq::ModelIO &io() const { return engine->io(); }

  /// The engine's state slots (a stateful model's; empty otherwise), its
  /// flat state, and setting or zeroing it (see seq::rt::Engine).
  const std::vector<seq::StateSlot> &stateSlots() const { return engine->stateSlots(); }
  std::vector<float> state() const { return engine->state(); }
  llvm::Error setState(llvm::ArrayRef<float> values) { return engine->setState(values); }
  void resetState() { engine->resetState(); }

  const std::string &engineName() const { return name; }
  int threads() const { return options.threads; }
  const std::shared_ptr<Model> &model() const { return source; }

private:
  Compiled() = default;

  std::shared_ptr<Model> source;
  std::string name;
  seq::rt::EngineOptions options;
  std::unique_ptr<seq::rt::Engine> engine;
  std::optional<std::mutex> serial;
};

/// A float32 C-contiguous array on the CPU.
using InputArray =
    nanobind::ndarray<const float, nanobind::c_contig, nanobind::device::cpu>;

/// Any array-like (ndarray of any dtype and layout, nested lists) as
/// numpy.ascontiguousarray(x, dtype=float32) makes it: no copy when it
/// already is one.
InputArray asInputArray(nanobind::handle x);

/// `array` as an engine's input, read in place: the array must outlive it.
seq::rt::TensorView viewOf(const InputArray &array);

void bindCompiled(nanobind::module_ &m);

} // namespace seqc::python

#endif

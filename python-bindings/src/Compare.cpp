// seqc.compare: the compiled engine against the eager reference on the same
// input, as `seq-compile --compare` does, but in this process: both engines
// run here one after the other (no child processes), so a crash in compiled
// code ends the Python process, and the memory figures are this process'.
#include "Compare.h"

#include "Compiled.h"
#include "Error.h"

#include "seq/Runtime/Compare.h"
#include "seq/Runtime/Eager.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <chrono>

namespace nb = nanobind;
using seq::rt::Tensor;

namespace seqc::python {

namespace {

/// `iterations` timed runs, with the process' RSS and heap after each, and
/// each run's output checked bit for bit against the first's. An engine
/// error ends the run and is reported as its failure. `fault` is the test
/// fault of SEQC_INJECT_FAULT (the compiled engine only).
seq::rt::EngineRun measure(Compiled &compiled, const seq::rt::TensorView &input,
                           int64_t iterations, seq::rt::Fault fault) {
  seq::rt::EngineRun run;
  run.engine = compiled.engineName();
  seq::rt::RepeatCheck repeats;
  for (int64_t i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    llvm::Expected<Tensor> output = compiled.run(input);
    if (output)
      seq::rt::injectFault(fault, i, *output);
    auto end = std::chrono::steady_clock::now();
    if (!output) {
      run.crashed = true;
      run.failure = "failed at iteration " + std::to_string(i) + ": " +
                    llvm::toString(output.takeError());
      return run;
    }
    run.samples.push_back(
        {i, std::chrono::duration<double, std::micro>(end - start).count(),
         seq::rt::residentBytes(), seq::rt::heapBytesInUse()});
    if (std::optional<std::string> changed = repeats.next(*output))
      run.changed = *changed;
    run.output = std::move(*output);
  }
  return run;
}

std::shared_ptr<Compiled> compiledOf(nb::handle target,
                                     const std::optional<std::string> &engine) {
  if (nb::isinstance<Compiled>(target)) {
    auto compiled = nb::cast<std::shared_ptr<Compiled>>(target);
    if (engine && *engine != compiled->engineName())
      throw Error("engine='" + *engine + "' given, but this model is compiled with '" +
                  compiled->engineName() + "'");
    return compiled;
  }
  if (nb::isinstance<Model>(target))
    return Compiled::create(nb::cast<std::shared_ptr<Model>>(target), engine);
  throw nb::type_error("seqc.compare() takes a seqc.Model or a seqc.Compiled");
}

} // namespace

void bindCompare(nb::module_ &m) {
  m.def(
      "compare",
      [](nb::handle target, nb::handle arrayLike, int64_t iterations,
         const std::optional<std::string> &engine, double atol, double rtol,
         double maxSlowdown, double maxGrowth) {
        if (iterations < 2)
          throw Error("iterations must be at least 2");
        std::shared_ptr<Compiled> compiled = compiledOf(target, engine);
        InputArray x = asInputArray(arrayLike);
        seq::rt::TensorView input = viewOf(x);
        // A wrong shape is the caller's mistake, not a failed run.
        if (llvm::Error e = seq::rt::checkInputShape(compiled->model()->module(),
                                                     input.shape))
          raise(std::move(e));
        llvm::Expected<seq::rt::Fault> fault = seq::rt::faultFromEnvironment();
        if (!fault)
          raise(fault.takeError());
        std::shared_ptr<Compiled> eager = Compiled::create(compiled->model(), "eager");
        seq::rt::CompareReport report;
        {
          nb::gil_scoped_release release;
          seq::rt::EngineRun compiledRun = measure(*compiled, input, iterations, *fault);
          seq::rt::EngineRun eagerRun =
              measure(*eager, input, iterations, seq::rt::Fault::None);
          report = seq::rt::judge(std::move(compiledRun), std::move(eagerRun),
                                  {atol, rtol, maxSlowdown, maxGrowth});
        }
        return nb::module_::import_("json").attr("loads")(seq::rt::reportJson(report));
      },
      nb::arg("model"), nb::arg("x"), nb::arg("iterations") = 100,
      nb::arg("engine").none() = nb::none(), nb::arg("atol") = 1e-5,
      nb::arg("rtol") = 1e-5, nb::arg("max_slowdown") = 1.0,
      nb::arg("max_growth") = 256.0,
      "Runs the compiled model and the eager reference `iterations` times "
      "each on x, in this process, and returns the report of seq-compile "
      "--compare --json as a dict: passed, max_abs_error, max_rel_error, "
      "latency_ratio, verdicts, and per engine ('compiled', 'eager') the "
      "latency median/p99, memory growth per iteration and the samples. "
      "`model` is a seqc.Model (compiled with `engine`) or a seqc.Compiled.");
}

} // namespace seqc::python

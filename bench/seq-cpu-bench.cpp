// seq-cpu-bench: latency of the eager and JIT engines on one model.
//
//   seq-cpu-bench model.h5 --batch 32 [--seq-len 100] [--engines eager,jit]
//                 [--min-time 1.0] [--max-iterations 100000]
//
// For each engine: compiles it (timed separately), runs once to warm up,
// then repeats run() on one random input until --min-time seconds have
// passed, and prints one JSON object per line:
//   {"engine":"jit","batch":32,"seq_len":100,"compile_s":0.41,
//    "iterations":812,"median_us":1203.5,"p10_us":1190.2,"p90_us":1250.0}
// Run by bench/run_cpu_bench.py, which turns the numbers into ratios.
#include "seq/Frontend/Keras/Importer.h"
#include "seq/Runtime/Eager.h"
#include "seq/Runtime/Engine.h"
#include "seq/Target/CPU/JitEngine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <random>

using namespace llvm;
using seq::rt::Tensor;

namespace {
cl::opt<std::string> modelPath(cl::Positional, cl::Required, cl::desc("<model>"));
cl::opt<int64_t> batch("batch", cl::init(1), cl::desc("Batch size"));
cl::opt<int64_t> seqLen("seq-len", cl::init(0),
                        cl::desc("Length of a dynamic time axis"));
cl::opt<std::string> engines("engines", cl::init("eager,jit"),
                             cl::desc("Comma-separated engine names"));
cl::opt<double> minTime("min-time", cl::init(1.0),
                        cl::desc("Seconds of timed runs per engine"));
cl::opt<int64_t> maxIterations("max-iterations", cl::init(100000),
                               cl::desc("Upper bound on timed runs"));

int fail(const Twine &message) {
  errs() << "seq-cpu-bench: error: " << message << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "seqc CPU engine latency\n");
  mlir::MLIRContext context;
  seq::keras::ImportOptions options;
  options.modelPath = modelPath;
  Expected<seq::keras::ImportedModel> model =
      seq::keras::importModel(context, options);
  if (!model)
    return fail(toString(model.takeError()));
  seq::rt::registerEagerEngine();
  seq::registerJitEngine();

  auto predict = (*model->module)->getRegion(0).front().getOps<mlir::func::FuncOp>();
  auto inputType = cast<mlir::RankedTensorType>(
      (*predict.begin()).getFunctionType().getInput(0));
  std::vector<int64_t> shape(inputType.getShape());
  shape[0] = batch;
  for (size_t i = 1; i < shape.size(); ++i)
    if (shape[i] < 0)
      shape[i] = seqLen > 0 ? seqLen : 1;
  Tensor input = Tensor::zeros(shape);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (float &v : input.data)
    v = dist(rng);

  SmallVector<StringRef> names;
  StringRef(engines).split(names, ',');
  using Clock = std::chrono::steady_clock;
  for (StringRef name : names) {
    auto start = Clock::now();
    // One thread per engine, as every peer of the CPU benchmark gets
    // (bench/run_threads_bench.py measures threads).
    seq::rt::EngineOptions options;
    options.threads = 1;
    Expected<std::unique_ptr<seq::rt::Engine>> engine =
        seq::rt::createEngine(name, *model->module, options);
    if (!engine)
      return fail(name + ": " + toString(engine.takeError()));
    double compileSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (Expected<Tensor> warm = (*engine)->run(input); !warm)
      return fail(name + ": " + toString(warm.takeError()));
    std::vector<double> samples;
    auto begin = Clock::now();
    while ((int64_t)samples.size() < maxIterations &&
           std::chrono::duration<double>(Clock::now() - begin).count() < minTime) {
      auto t0 = Clock::now();
      Expected<Tensor> out = (*engine)->run(input);
      auto t1 = Clock::now();
      if (!out)
        return fail(name + ": " + toString(out.takeError()));
      samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    std::sort(samples.begin(), samples.end());
    auto at = [&](double q) { return samples[size_t(q * (samples.size() - 1))]; };
    outs() << "{\"engine\":\"" << name << "\",\"batch\":" << batch
           << ",\"seq_len\":" << (shape.size() > 1 ? shape[1] : 0)
           << ",\"compile_s\":" << format("%.3f", compileSeconds)
           << ",\"iterations\":" << samples.size()
           << ",\"median_us\":" << format("%.3f", at(0.5))
           << ",\"p10_us\":" << format("%.3f", at(0.1))
           << ",\"p90_us\":" << format("%.3f", at(0.9)) << "}\n";
    outs().flush();
  }
  return 0;
}

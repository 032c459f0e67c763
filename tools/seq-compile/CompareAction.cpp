// --compare: the compiled engine against the eager reference, on the same
// inputs, each in its own child process.
//
//   seq-compile model.h5 --compare [--engine jit|aot|cuda] [--iterations N]
//               [--input x.npy] [--json] [--report report.html]
//               [--atol A --rtol R --max-slowdown S --max-growth B]
//
// The parent writes the module and the input to a temporary directory and
// starts this tool again in worker mode (--compare-worker=ENGINE) once per
// engine; both workers stay alive and the parent drives them round by round
// over a socket, alternating the engines (and which goes first), so that
// machine noise hits both alike. Each round a worker times one run, samples
// its RSS and heap, and appends to samples.jsonl; at the end it writes
// output.npy. A worker killed by a signal is reported as a crash verdict.
// Exit code 3 when any verdict fails.
#include "Actions.h"

#include "seq/Dialect/Seq/IR/ModelIO.h"
#include "seq/Runtime/Compare.h"
#include "seq/Runtime/Engine.h"
#include "seq/Runtime/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OperationSupport.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <malloc.h>
#include <chrono>
#include <random>

using namespace llvm;
using seq::rt::Tensor;

namespace {

cl::opt<bool> compare("compare",
                      cl::desc("Compare a compiled engine with the eager reference"),
                      cl::cat(seqc::seqCompileCategory));
cl::opt<unsigned> iterations("iterations",
                             cl::desc("Runs per engine for --compare (default 100)"),
                             cl::init(100), cl::cat(seqc::seqCompileCategory));
cl::opt<bool> jsonReport("json", cl::desc("Print the --compare report as JSON"),
                         cl::cat(seqc::seqCompileCategory));
cl::opt<std::string> htmlReport("report",
                                cl::desc("Also write the --compare report as HTML"),
                                cl::value_desc("report.html"),
                                cl::cat(seqc::seqCompileCategory));
cl::opt<double> atol("atol", cl::desc("--compare: absolute tolerance (1e-5)"),
                     cl::init(1e-5), cl::cat(seqc::seqCompileCategory));
cl::opt<double> rtol("rtol", cl::desc("--compare: relative tolerance (1e-5)"),
                     cl::init(1e-5), cl::cat(seqc::seqCompileCategory));
cl::opt<double> maxSlowdown(
    "max-slowdown",
    cl::desc("--compare: allowed compiled/eager median latency ratio (1.0)"),
    cl::init(1.0), cl::cat(seqc::seqCompileCategory));
cl::opt<double> minSlowdownUs(
    "min-slowdown-us",
    cl::desc("--compare: smallest slowdown that can fail the speed verdict, in "
             "microseconds (2; the larger of this and --min-slowdown-pct applies)"),
    cl::init(2.0), cl::cat(seqc::seqCompileCategory));
cl::opt<double> minSlowdownPct(
    "min-slowdown-pct",
    cl::desc("--compare: smallest slowdown that can fail the speed verdict, in "
             "percent of eager's median (5)"),
    cl::init(5.0), cl::cat(seqc::seqCompileCategory));
cl::opt<double> maxGrowth(
    "max-growth",
    cl::desc("--compare: allowed memory growth in bytes per iteration (256)"),
    cl::init(256), cl::cat(seqc::seqCompileCategory));
cl::opt<std::string> workerEngine("compare-worker", cl::Hidden,
                                  cl::desc("Internal: run as a --compare worker"));
cl::opt<std::string> workerDir("compare-dir", cl::Hidden,
                               cl::desc("Internal: the --compare worker's directory"));

std::string join(StringRef dir, StringRef file) {
  SmallString<256> path(dir);
  sys::path::append(path, file);
  return std::string(path);
}

/// Inputs drawn from N(0, 1) with a fixed seed, one per model input;
/// integer ids below the table size for an input that feeds an Embedding.
/// Dynamic axes: batch 2 (or the model's fixed batch), others 10.
std::vector<Tensor> randomInputs(mlir::ModuleOp module) {
  auto predict = module.lookupSymbol<mlir::func::FuncOp>("predict");
  std::vector<Tensor> inputs;
  std::mt19937 random(0);
  for (mlir::BlockArgument arg : predict.getArguments()) {
    if (predict.getArgAttr(arg.getArgNumber(), seq::kStateAttrName))
      break;
    auto type = cast<mlir::RankedTensorType>(arg.getType());
    Tensor input;
    for (auto [i, d] : llvm::enumerate(type.getShape()))
      input.shape.push_back(mlir::ShapedType::isDynamic(d) ? (i == 0 ? 2 : 10) : d);
    input.data.resize(input.numElements());
    int64_t vocabulary = 0;
    for (mlir::Operation *user : arg.getUsers())
      if (auto embedding = dyn_cast<seq::EmbeddingOp>(user))
        vocabulary =
            cast<mlir::RankedTensorType>(embedding.getTable().getType()).getDimSize(0);
    std::normal_distribution<float> normal(0, 1);
    std::uniform_int_distribution<int64_t> ids(0, std::max<int64_t>(vocabulary - 1, 0));
    for (float &x : input.data)
      x = vocabulary ? static_cast<float>(ids(random)) : normal(random);
    inputs.push_back(std::move(input));
  }
  return inputs;
}

/// The outputs as one tensor for the verdict: the only one as it is,
/// several as rows of all their values one after the other.
Tensor joinOutputs(std::vector<Tensor> outputs) {
  if (outputs.size() == 1)
    return std::move(outputs.front());
  int64_t batch = outputs.front().shape[0];
  Tensor joined{{batch, 0}, {}};
  for (int64_t row = 0; row < batch; ++row)
    for (const Tensor &t : outputs) {
      int64_t size = batch ? t.numElements() / batch : 0;
      joined.data.insert(joined.data.end(), t.data.begin() + row * size,
                         t.data.begin() + (row + 1) * size);
    }
  joined.shape[1] = batch ? static_cast<int64_t>(joined.data.size()) / batch : 0;
  return joined;
}

std::string inputFile(size_t k) { return "input_" + std::to_string(k) + ".npy"; }

/// Worker mode: one timed run of one engine per round the parent asks for,
/// results left in the directory.
int runWorker(seqc::Session &session) {
  auto fail = [&](const Twine &message) {
    std::string text = message.str();
    (void)writeToOutput(join(workerDir, "error.txt"), [&](raw_ostream &os) {
      os << text << "\n";
      return Error::success();
    });
    return seqc::fail(text);
  };
  seq::rt::Fault fault = seq::rt::Fault::None;
  if (workerEngine != "eager") {
    Expected<seq::rt::Fault> injected = seq::rt::faultFromEnvironment();
    if (!injected)
      return fail(toString(injected.takeError()));
    fault = *injected;
  }
  seqc::registerEngines();
  // One thread, as the eager interpreter: the speed verdict compares like
  // with like, and a pool's first use of a worker's arena mid-run cannot
  // pass for memory growth.
  seq::rt::EngineOptions oneThread;
  oneThread.threads = 1;
  Expected<std::unique_ptr<seq::rt::Engine>> engine =
      seq::rt::createEngine(workerEngine, *session.model.module, oneThread);
  if (!engine)
    return fail(toString(engine.takeError()));
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < (*engine)->io().inputs.size(); ++k) {
    Expected<Tensor> input = seq::rt::readNpy(join(workerDir, inputFile(k)));
    if (!input)
      return fail(toString(input.takeError()));
    inputs.push_back(std::move(*input));
  }
  Expected<seq::rt::SampleLog> log = seq::rt::SampleLog::open(workerDir);
  if (!log)
    return fail(toString(log.takeError()));
  // Compiling the engine freed heap memory that stays resident; the runs'
  // allocations would take those pages without the RSS growing, hiding a
  // leak's RSS until they are used up (the injected 64 KiB per iteration
  // measured 35-55 KiB once the JIT compiled more code). Given back first,
  // the RSS slope counts what the iterations add.
  malloc_trim(0);
  // A stateful model runs the input as its fixed batches, each run from
  // zeros: every run then computes the same.
  std::optional<int64_t> fixed = seq::fixedBatch(*session.model.module);
  auto run = [&]() -> Expected<Tensor> {
    Expected<std::vector<Tensor>> outputs = std::vector<Tensor>();
    if (fixed) {
      (*engine)->resetState();
      outputs = seq::rt::runInBatches(**engine, seq::rt::views(inputs), *fixed);
    } else {
      outputs = (*engine)->runAll(inputs);
    }
    if (!outputs)
      return outputs.takeError();
    return joinOutputs(std::move(*outputs));
  };
  // Every call's output is checked bit for bit against the first call's;
  // the first that differs is recorded (changed.txt) for the verdict.
  seq::rt::RepeatCheck repeats;
  auto check = [&](const Tensor &output) -> Error {
    std::optional<std::string> changed = repeats.next(output);
    if (!changed)
      return Error::success();
    return writeToOutput(join(workerDir, "changed.txt"), [&](raw_ostream &os) {
      os << *changed << "\n";
      return Error::success();
    });
  };
  Tensor output;
  for (int64_t i = 0; seq::rt::nextWorkerCommand() == seq::rt::WorkerCommand::Round;
       ++i) {
    // The other engine's process ran just before: one untimed run first, so
    // that the timed one finds this engine's caches and TLB warm, as they are
    // in a loop of inferences, instead of timing how long refilling them takes.
    Expected<Tensor> warm = run();
    if (!warm)
      return fail(toString(warm.takeError()));
    seq::rt::injectFault(fault, i, *warm, /*timed=*/false);
    if (Error e = check(*warm))
      return fail(toString(std::move(e)));
    auto start = std::chrono::steady_clock::now();
    Expected<Tensor> result = run();
    if (!result)
      return fail(toString(result.takeError()));
    seq::rt::injectFault(fault, i, *result);
    auto end = std::chrono::steady_clock::now();
    if (Error e = check(*result))
      return fail(toString(std::move(e)));
    output = std::move(*result);
    log->write({i, std::chrono::duration<double, std::micro>(end - start).count(),
                seq::rt::residentBytes(), seq::rt::heapBytesInUse()});
    seq::rt::workerRoundDone();
  }
  if (Error e = seq::rt::writeNpy(join(workerDir, "output.npy"), output))
    return fail(toString(std::move(e)));
  return 0;
}

seq::rt::EngineRun failedRun(StringRef engine, Error error) {
  seq::rt::EngineRun run;
  run.engine = engine.str();
  run.crashed = true;
  run.failure = toString(std::move(error));
  return run;
}

/// Both engines in their own worker process, `iterations` rounds, the
/// engines alternating round by round (and which goes first, so that neither
/// always runs right after the other).
std::pair<seq::rt::EngineRun, seq::rt::EngineRun>
runEnginesInterleaved(StringRef compiled, StringRef root) {
  std::string self =
      sys::fs::getMainExecutable("seq-compile", reinterpret_cast<void *>(&runWorker));
  auto start = [&](StringRef engine) {
    std::string dir = join(root, engine);
    return seq::rt::WorkerProcess::start({self, join(dir, "model.mlir"),
                                          "--compare-worker=" + engine.str(),
                                          "--compare-dir=" + dir});
  };
  StringRef names[2] = {compiled, "eager"};
  Expected<seq::rt::WorkerProcess> workers[2] = {start(names[0]), start(names[1])};
  for (unsigned i = 0; i < iterations; ++i)
    for (unsigned k = 0; k < 2; ++k) {
      Expected<seq::rt::WorkerProcess> &worker = workers[(i + k) % 2];
      if (worker)
        worker->round();
    }
  auto collect = [&](unsigned k) {
    if (!workers[k])
      return failedRun(names[k], workers[k].takeError());
    Expected<seq::rt::ChildStatus> status = workers[k]->finish();
    if (!status)
      return failedRun(names[k], status.takeError());
    return seq::rt::collectRun(names[k], join(root, names[k]), *status);
  };
  seq::rt::EngineRun compiledRun = collect(0);
  return {std::move(compiledRun), collect(1)};
}

int runCompare(seqc::Session &session) {
  if (iterations < 2)
    return seqc::fail("--iterations must be at least 2", 2);
  std::string compiled = seqc::engineName; // jit unless --engine says
  if (compiled == "eager")
    return seqc::fail("--compare needs a compiled engine (--engine jit, aot or cuda)", 2);
  seqc::registerEngines();
  std::vector<std::string> known = seq::rt::engineNames();
  if (std::find(known.begin(), known.end(), compiled) == known.end())
    return seqc::fail("unknown engine '" + compiled + "' for --compare", 2);

  std::vector<Tensor> inputs;
  mlir::ModuleOp module = *session.model.module;
  Expected<seq::ModelIO> io =
      seq::modelIO(module.lookupSymbol<mlir::func::FuncOp>("predict"));
  if (!io)
    return seqc::fail(toString(io.takeError()));
  if (seqc::inputSpecs.empty()) {
    inputs = randomInputs(module);
  } else if (io->inputs.size() == 1) {
    if (seqc::inputSpecs.size() > 1)
      return seqc::fail("--compare takes one --input", 2);
    Expected<Tensor> given = seqc::readInput(seqc::inputSpecs.front());
    if (!given)
      return seqc::fail(toString(given.takeError()));
    inputs.push_back(std::move(*given));
  } else {
    Expected<std::vector<std::string>> specs = seqc::namedInputSpecs(*io);
    if (!specs)
      return seqc::fail(toString(specs.takeError()), 2);
    for (const std::string &spec : *specs) {
      Expected<Tensor> given = seqc::readInput(spec);
      if (!given)
        return seqc::fail(toString(given.takeError()));
      inputs.push_back(std::move(*given));
    }
  }

  SmallString<128> root;
  if (std::error_code ec = sys::fs::createUniqueDirectory("seqc-compare", root))
    return seqc::fail("cannot create a temporary directory: " + ec.message());
  llvm::scope_exit cleanup([&] { (void)sys::fs::remove_directories(root); });
  std::string text;
  raw_string_ostream os(text);
  session.model.module->print(os, mlir::OpPrintingFlags().enableDebugInfo());
  // Each worker gets its own directory with the same module and input.
  for (StringRef engine : {StringRef(compiled), StringRef("eager")}) {
    std::string dir = join(root, engine);
    if (std::error_code ec = sys::fs::create_directory(dir))
      return seqc::fail("cannot create '" + dir + "': " + ec.message());
    if (Error e = writeToOutput(join(dir, "model.mlir"), [&](raw_ostream &out) {
          out << text;
          return Error::success();
        }))
      return seqc::fail(toString(std::move(e)));
    for (auto [k, input] : llvm::enumerate(inputs))
      if (Error e = seq::rt::writeNpy(join(dir, inputFile(k)), input))
        return seqc::fail(toString(std::move(e)));
  }

  if (minSlowdownUs < 0 || minSlowdownPct < 0)
    return seqc::fail("--min-slowdown-us and --min-slowdown-pct must not be negative", 2);
  seq::rt::Thresholds thresholds{atol, rtol, maxSlowdown, maxGrowth};
  thresholds.minSlowdownUs = minSlowdownUs;
  thresholds.minSlowdownFraction = minSlowdownPct / 100;
  auto [compiledRun, eagerRun] = runEnginesInterleaved(compiled, root);
  seq::rt::CompareReport report =
      seq::rt::judge(std::move(compiledRun), std::move(eagerRun), thresholds);

  if (!htmlReport.empty()) {
    std::string page = seq::rt::reportHtml(report, session.model.modelName);
    if (Error e = writeToOutput(htmlReport, [&](raw_ostream &out) {
          out << page;
          return Error::success();
        }))
      return seqc::fail("cannot write '" + htmlReport + "': " + toString(std::move(e)));
  }
  std::string out;
  raw_string_ostream reportStream(out);
  if (jsonReport)
    reportStream << seq::rt::reportJson(report);
  else
    seq::rt::printReport(report, reportStream);
  if (int code = seqc::writeOutput(out))
    return code;
  return report.passed() ? 0 : 3;
}

seqc::RegisterAction registration(20, [](seqc::Session &session) -> std::optional<int> {
  if (!workerEngine.empty())
    return runWorker(session);
  if (!compare)
    return std::nullopt;
  return runCompare(session);
});

} // namespace

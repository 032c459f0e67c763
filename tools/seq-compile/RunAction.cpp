// --run: batch inference over datasets of any size, with any engine.
//
//   seq-compile model.h5 --run --input x.npy -o y.npy [--engine=jit]
//               [--batch N] [--progress=auto|always|never]
//
// The inputs (Inputs.cpp: .npy, data.h5:/x, CSV/TSV, directories of shards,
// globs, --input repeated) are streamed: each shard is read batch by batch
// (rows along axis 0), each batch runs through the engine, and the output is
// written batch by batch. Memory is bounded by one batch, whatever the
// dataset's size. -o y.npy collects every row in input order into one .npy;
// -o DIR/ writes one .npy per input shard. Outputs appear only when every
// batch succeeded.
#include "Actions.h"
#include "Mode.h"

#include "seq/Dialect/Seq/IR/ModelIO.h"
#include "seq/Runtime/Eager.h"
#include "seq/Runtime/Engine.h"
#include "seq/Runtime/Npy.h"
#include "seq/Runtime/RowSource.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <optional>

using namespace llvm;
using seq::rt::Tensor;

namespace seqc {

cl::opt<std::string> engineName(
    "engine",
    cl::desc("Engine for --run and the compiled side of --compare: jit "
             "(default), aot, eager, cuda, cudnn, cuda-sim (the cuda engine's code in a "
             "CPU simulation)"),
    cl::value_desc("name"), cl::init("jit"), cl::cat(seqCompileCategory));

void registerEngines() { seq::rt::registerEagerEngine(); }

} // namespace seqc

namespace {

enum class ProgressMode { Auto, Always, Never };

cl::opt<bool> runModel("run",
                       cl::desc("Run the model on --input and write its output "
                                "(.npy) to -o"),
                       cl::cat(seqc::seqCompileCategory));
cl::opt<unsigned> batchSize(
    "batch",
    cl::desc("Rows per batch for --run (default: about 512 KiB of input "
             "per batch, which stays in cache)"),
    cl::value_desc("N"), cl::init(0), cl::cat(seqc::seqCompileCategory));
/// --threads. libLLVM registers a hidden option of that name that
/// seq-compile never uses (it links no LTO): it is unregistered first, since
/// two options of one name abort at startup. (libLLVM's static constructors
/// run before this executable's.)
cl::opt<int> &threadCountOption() {
  static cl::opt<int> *option = [] {
    if (cl::Option *llvmOwn = cl::getRegisteredOptions().lookup("threads"))
      llvmOwn->removeArgument();
    return new cl::opt<int>(
        "threads",
        cl::desc("Threads each batch of --run is split across (engines jit "
                 "and aot; default 0: one per core, fewer for a batch with "
                 "little work); the output is bitwise the same for any count"),
        cl::value_desc("N"), cl::init(0), cl::cat(seqc::seqCompileCategory));
  }();
  return *option;
}
cl::opt<int> &threadCount = threadCountOption();
cl::opt<ProgressMode> progressMode(
    "progress", cl::desc("Progress bar of --run on stderr"),
    cl::values(clEnumValN(ProgressMode::Auto, "auto",
                          "when stderr is a terminal (default)"),
               clEnumValN(ProgressMode::Always, "always", "always"),
               clEnumValN(ProgressMode::Never, "never", "never")),
    cl::init(ProgressMode::Auto), cl::cat(seqc::seqCompileCategory));

/// The model's input shape without the batch axis (-1 where dynamic).
std::vector<int64_t> modelRowShape(mlir::ModuleOp module);

} // namespace

namespace seqc {

unsigned runBatchSize() { return batchSize; }

seq::rt::EngineOptions runEngineOptions() {
  seq::rt::EngineOptions options;
  options.threads = threadCount;
  return options;
}

bool runThreadsGiven() { return threadCount.getNumOccurrences() > 0; }

StringRef runProgressMode() {
  switch (progressMode) {
  case ProgressMode::Always:
    return "always";
  case ProgressMode::Never:
    return "never";
  case ProgressMode::Auto:
    break;
  }
  return "auto";
}

bool outputIsDirectory() {
  StringRef out = outputPath;
  return out.ends_with("/") || sys::fs::is_directory(out);
}

Expected<std::vector<RunShard>> checkRunShards(mlir::ModuleOp module) {
  auto error = [](const Twine &message) {
    return createStringError(inconvertibleErrorCode(), message);
  };
  std::vector<int64_t> rowShape = modelRowShape(module);
  // Every shard is checked (shape, readability) before anything runs, so a
  // bad one fails fast, naming it; each is opened again when its turn comes.
  Expected<std::vector<std::string>> specs = expandInputs(inputSpecs);
  if (!specs)
    return specs.takeError();
  std::vector<RunShard> shards;
  for (const std::string &spec : *specs) {
    Expected<std::unique_ptr<seq::rt::RowSource>> source = openInput(spec, rowShape);
    if (!source)
      return source.takeError();
    const std::vector<int64_t> &shape = (*source)->shape();
    if (shape.empty() || shape[0] == 0)
      return error("'" + spec + "' has no rows: --run needs at least one "
                   "row along axis 0");
    // A stateful model runs its fixed batch, shard rows one batch after
    // the other.
    std::vector<int64_t> callShape = shape;
    if (std::optional<int64_t> batch = seq::fixedBatch(module)) {
      if (shape[0] % *batch)
        return error("'" + spec + "' has " + Twine(shape[0]) + " rows; the model runs its "
                     "fixed batch of " + Twine(*batch) + " rows (its layers keep a state "
                     "per row), so give a multiple of " + Twine(*batch));
      callShape[0] = *batch;
    }
    if (Error e = seq::rt::checkInputShape(module, callShape))
      return error("'" + spec + "': " + toString(std::move(e)));
    shards.push_back({spec, shape});
  }
  return shards;
}

} // namespace seqc

namespace {

/// "1:05" or "2:03:07".
std::string clockText(double seconds) {
  auto total = static_cast<int64_t>(seconds + 0.5);
  int64_t h = total / 3600, m = total / 60 % 60, s = total % 60;
  std::string text;
  raw_string_ostream os(text);
  if (h)
    os << h << ":" << format("%02d", static_cast<int>(m));
  else
    os << m;
  os << ":" << format("%02d", static_cast<int>(s));
  return text;
}

/// A progress bar on stderr: batches done, rows per second and the time
/// left at the rate measured so far. On a terminal it redraws one line; in
/// a log it writes a line per update (at most one a second, but always the
/// first and the last).
class ProgressBar {
public:
  ProgressBar(bool enabled, int64_t totalBatches, int64_t totalRows)
      : enabled(enabled), terminal(sys::Process::StandardErrIsDisplayed()),
        totalBatches(totalBatches), totalRows(totalRows), start(Clock::now()),
        lastDraw(start) {
    // A terminal shows the bar at once, before the first batch is done.
    if (terminal)
      update(0, 0);
  }

  void update(int64_t batchesDone, int64_t rowsDone) {
    if (!enabled)
      return;
    Clock::time_point now = Clock::now();
    bool last = batchesDone == totalBatches;
    double sinceDraw = std::chrono::duration<double>(now - lastDraw).count();
    if (batchesDone > 1 && !last && sinceDraw < (terminal ? 0.1 : 1.0))
      return;
    lastDraw = now;
    double elapsed = std::chrono::duration<double>(now - start).count();
    double rate = elapsed > 0 ? rowsDone / elapsed : 0;

    constexpr int kWidth = 24;
    int filled = static_cast<int>(kWidth * batchesDone / totalBatches);
    std::string bar(filled, '=');
    if (filled < kWidth)
      bar += '>' + std::string(kWidth - filled - 1, ' ');

    std::string line;
    raw_string_ostream os(line);
    os << "[" << bar << "] " << batchesDone << "/" << totalBatches
       << " batches, " << format("%.1f", rate) << " samples/s, ";
    if (last)
      os << "done in " << format("%.2f", elapsed) << " s";
    else if (rate > 0)
      os << "ETA " << clockText((totalRows - rowsDone) / rate);
    else
      os << "ETA --:--";

    if (terminal) {
      errs() << "\r" << line;
      // Clears what a longer previous line left.
      if (line.size() < drawnWidth)
        errs().indent(drawnWidth - line.size());
      drawnWidth = line.size();
      if (last) {
        errs() << "\n";
        drawnWidth = 0;
      }
    } else {
      errs() << line << "\n";
    }
    errs().flush();
  }

  /// Ends a bar left half drawn on a terminal, so that an error message
  /// starts on its own line.
  void interrupt() {
    if (terminal && drawnWidth) {
      errs() << "\n";
      drawnWidth = 0;
    }
  }

private:
  using Clock = std::chrono::steady_clock;
  bool enabled, terminal;
  int64_t totalBatches, totalRows;
  Clock::time_point start, lastDraw;
  size_t drawnWidth = 0;
};

/// Usage errors, found before the model is imported.
std::optional<int> checkRunFlags() {
  if (seqc::plan().mode != seqc::Mode::Run)
    return std::nullopt;
  if (seqc::inputSpecs.empty())
    return seqc::fail("--run needs --input x.npy or --input data.h5:/dataset",
                      2);
  if (seqc::outputPath == "-")
    return seqc::fail("--run writes a binary .npy: give the output file with "
                      "-o y.npy ('-' is not allowed)",
                      2);
  if (batchSize.getNumOccurrences() && batchSize == 0)
    return seqc::fail("--batch must be at least 1", 2);
  if (threadCount < 0 || threadCount > seq::rt::kMaxEngineThreads)
    return seqc::fail("--threads must be 0 (one per core) to " +
                          Twine(seq::rt::kMaxEngineThreads),
                      2);
  return std::nullopt;
}

std::vector<int64_t> modelRowShape(mlir::ModuleOp module) {
  auto predict = module.lookupSymbol<mlir::func::FuncOp>("predict");
  auto type = cast<mlir::ShapedType>(predict.getArgumentTypes()[0]);
  std::vector<int64_t> shape(type.getShape().begin() + 1, type.getShape().end());
  for (int64_t &d : shape)
    if (mlir::ShapedType::isDynamic(d))
      d = -1;
  return shape;
}

std::string shardOutput(StringRef input) {
  StringRef file = input.take_until([](char c) { return c == ':'; });
  if (!sys::fs::exists(file))
    file = input;
  SmallString<256> path(seqc::outputPath);
  sys::path::append(path, sys::path::stem(file) + ".npy");
  return path.str().str();
}

using seqc::outputIsDirectory;
using Shard = seqc::RunShard;

std::optional<int> runAction(seqc::Session &session) {
  if (seqc::plan().mode != seqc::Mode::Run)
    return std::nullopt;
  const std::string &engineName = seqc::engineName;
  seqc::registerEngines();
  std::vector<std::string> names = seq::rt::engineNames();
  if (std::find(names.begin(), names.end(), engineName) == names.end()) {
    std::string known;
    for (const std::string &n : names)
      known += (known.empty() ? "" : ", ") + n;
    return seqc::fail(
        "unknown engine '" + engineName + "' (available: " + known + ")", 2);
  }
  mlir::ModuleOp module = *session.model.module;
  std::vector<int64_t> rowShape = modelRowShape(module);
  auto predict = module.lookupSymbol<mlir::func::FuncOp>("predict");
  if (Expected<seq::ModelIO> io = seq::modelIO(predict);
      io && (io->inputs.size() > 1 || io->outputs.size() > 1)) {
    Expected<std::unique_ptr<seq::rt::Engine>> engine =
        seq::rt::createEngine(engineName, module, seqc::runEngineOptions());
    if (!engine)
      return seqc::fail("engine '" + engineName +
                        "': " + toString(engine.takeError()));
    return seqc::runModelPorts(**engine, seq::fixedBatch(module));
  } else if (!io) {
    return seqc::fail(toString(io.takeError()));
  }

  Expected<std::vector<Shard>> checked = seqc::checkRunShards(module);
  if (!checked)
    return seqc::fail(toString(checked.takeError()));
  std::vector<Shard> &shards = *checked;
  int64_t total = 0;
  for (const Shard &shard : shards)
    total += shard.shape[0];
  bool perShard = outputIsDirectory();
  if (perShard)
    if (std::error_code ec = sys::fs::create_directories(seqc::outputPath))
      return seqc::fail("cannot create '" + seqc::outputPath +
                        "': " + ec.message());
  if (!perShard)
    for (size_t i = 1; i < shards.size(); ++i)
      if (!std::equal(shards[i].shape.begin() + 1, shards[i].shape.end(),
                      shards[0].shape.begin() + 1, shards[0].shape.end()) ||
          shards[i].shape.size() != shards[0].shape.size())
        return seqc::fail("'" + shards[i].spec + "' has rows of another shape "
                          "than '" + shards[0].spec + "': one output needs one "
                          "row shape (write one output per shard with -o DIR/)");

  Expected<std::unique_ptr<seq::rt::Engine>> engine =
      seq::rt::createEngine(engineName, module, seqc::runEngineOptions());
  if (!engine)
    return seqc::fail("engine '" + engineName +
                      "': " + toString(engine.takeError()));

  // By default, about 512 KiB of input per batch: it stays in cache. A
  // stateful model runs its own batch, each call from the state the one
  // before left, as Keras' predict(x, batch_size) does.
  std::optional<int64_t> fixed = seq::fixedBatch(module);
  if (fixed && batchSize && batchSize != *fixed)
    return seqc::fail("--batch " + Twine(batchSize) + ": the model runs only its fixed "
                      "batch of " + Twine(*fixed) + " rows (its layers keep a state per "
                      "row); leave --batch out");
  auto rowsPerBatch = [&](const Shard &shard) -> int64_t {
    if (fixed)
      return *fixed;
    if (batchSize)
      return batchSize;
    int64_t rowBytes = 4;
    for (size_t i = 1; i < shard.shape.size(); ++i)
      rowBytes *= std::max<int64_t>(shard.shape[i], 1);
    return std::clamp<int64_t>((512 << 10) / rowBytes, 1, 4096);
  };
  int64_t batches = 0;
  for (const Shard &shard : shards)
    batches += (shard.shape[0] + rowsPerBatch(shard) - 1) / rowsPerBatch(shard);
  bool showProgress = progressMode == ProgressMode::Always ||
                      (progressMode == ProgressMode::Auto &&
                       sys::Process::StandardErrIsDisplayed());
  ProgressBar progress(showProgress, batches, total);
  auto failRun = [&](const Twine &message) {
    progress.interrupt();
    return seqc::fail(message);
  };

  // One writer for all rows, or one per shard; all are committed at the end.
  std::vector<seq::rt::NpyWriter> writers;
  int64_t batchesDone = 0, rowsDone = 0;
  for (const Shard &shard : shards) {
    Expected<std::unique_ptr<seq::rt::RowSource>> source =
        seqc::openInput(shard.spec, rowShape);
    if (!source)
      return failRun(toString(source.takeError()));
    int64_t perBatch = rowsPerBatch(shard);
    for (int64_t begin = 0; begin < shard.shape[0]; begin += perBatch) {
      int64_t end = std::min(shard.shape[0], begin + perBatch);
      std::string where =
          batches == 1
              ? std::string()
              : ((shards.size() > 1 ? "'" + shard.spec + "', " : std::string()) +
                 "batch " + Twine(batchesDone + 1) + " of " + Twine(batches) +
                 " (rows " + Twine(begin) + " to " + Twine(end - 1) + "): ")
                    .str();
      Expected<Tensor> input = (*source)->next(end - begin);
      if (!input)
        return failRun(where + toString(input.takeError()));
      Expected<Tensor> output = (*engine)->run(*input);
      if (!output)
        return failRun(where + toString(output.takeError()));
      if (output->rank() < 1 || output->shape[0] != end - begin)
        return failRun(where + "engine '" + engineName + "' returned shape " +
                       output->shapeString() + " for " + Twine(end - begin) +
                       " rows");
      if (writers.empty() || (perShard && begin == 0)) {
        std::vector<int64_t> shape = output->shape;
        shape[0] = perShard ? shard.shape[0] : total;
        Expected<seq::rt::NpyWriter> created = seq::rt::NpyWriter::create(
            perShard ? shardOutput(shard.spec) : std::string(seqc::outputPath),
            shape);
        if (!created)
          return failRun(toString(created.takeError()));
        writers.push_back(std::move(*created));
      }
      if (Error e = writers.back().append(*output))
        return failRun(where + toString(std::move(e)));
      rowsDone += end - begin;
      progress.update(++batchesDone, rowsDone);
    }
  }
  for (seq::rt::NpyWriter &writer : writers)
    if (Error e = writer.commit())
      return failRun(toString(std::move(e)));
  return 0;
}

seqc::RegisterAction checkFlags(0, seqc::StandaloneAction(checkRunFlags));
seqc::RegisterAction run(50, seqc::ModelAction(runAction));

} // namespace

// --run: batch inference with any registered engine.
//
//   seq-compile model.h5 --run --input x.npy -o y.npy [--engine=eager]
//               [--batch N] [--progress=auto|always|never]
//
// The input is a .npy file or an HDF5 dataset (data.h5:/x), float32 and
// batch-major. Axis 0 is split into batches of N rows, each batch runs
// through the engine, and the output is written batch by batch to one .npy
// that appears at -o only when every batch succeeded.
//
// --input, --engine, readInput() and registerEngines() are shared with the
// other actions that run models (--compare).
#include "Actions.h"
#include "Mode.h"

#include "seq/Frontend/Keras/FileFormat.h"
#include "seq/Frontend/Keras/HDF5File.h"
#include "seq/Runtime/Eager.h"
#include "seq/Runtime/Engine.h"
#include "seq/Runtime/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <optional>

using namespace llvm;
using seq::rt::Tensor;

namespace seqc {

cl::opt<std::string> inputSpec(
    "input",
    cl::desc(
        "Input for --run / --compare: x.npy or data.h5:/dataset (float32)"),
    cl::value_desc("file"), cl::cat(seqCompileCategory));
cl::opt<std::string> engineName(
    "engine",
    cl::desc("Engine for --run and the compiled side of --compare: jit "
             "(default), aot, eager, cuda, cudnn"),
    cl::value_desc("name"), cl::init("jit"), cl::cat(seqCompileCategory));

void registerEngines() { seq::rt::registerEagerEngine(); }

namespace {

Error inputError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// Reads dataset `dataset` of the HDF5 file `file` as float32.
Expected<Tensor> readHdf5Input(StringRef file, StringRef dataset) {
  Expected<seq::keras::HDF5File> h5 = seq::keras::HDF5File::open(file);
  if (!h5)
    return h5.takeError();
  if (!h5->isDataset(dataset))
    return inputError("'" + file + "' has no dataset '" + dataset + "'");
  Expected<seq::keras::HDF5File::Dataset> data = h5->readFloatDataset(dataset);
  if (!data)
    return data.takeError();
  if (data->dtype != "float32")
    return inputError("dataset '" + dataset + "' in '" + file + "' is " +
                      data->dtype +
                      ", not float32: convert it first (e.g. "
                      "numpy's astype('float32'))");
  return Tensor{data->shape, std::move(data->data)};
}

} // namespace

/// "x.npy", or "data.h5:/x" where "data.h5" is an existing file (dataset
/// names may contain ':' themselves, as Keras' "kernel:0").
Expected<Tensor> readInput(StringRef spec) {
  if (sys::fs::is_regular_file(spec)) {
    if (seq::keras::detectFormat(spec).format == seq::keras::FileFormat::HDF5)
      return inputError("'" + spec +
                        "' is an HDF5 file: name the dataset, "
                        "e.g. --input " +
                        spec + ":/x");
    return seq::rt::readNpy(spec);
  }
  for (size_t colon = spec.find(':'); colon != StringRef::npos;
       colon = spec.find(':', colon + 1)) {
    StringRef file = spec.take_front(colon),
              dataset = spec.drop_front(colon + 1);
    if (sys::fs::is_regular_file(file) && !dataset.empty())
      return readHdf5Input(file, dataset);
  }
  return inputError("cannot find input '" + spec +
                    "' (expected x.npy or data.h5:/dataset)");
}

} // namespace seqc

namespace {

enum class ProgressMode { Auto, Always, Never };

cl::opt<bool> runModel("run",
                       cl::desc("Run the model on --input and write its output "
                                "(.npy) to -o"),
                       cl::cat(seqc::seqCompileCategory));
cl::opt<unsigned> batchSize(
    "batch", cl::desc("Rows per batch for --run (default: all in one batch)"),
    cl::value_desc("N"), cl::init(0), cl::cat(seqc::seqCompileCategory));
cl::opt<ProgressMode> progressMode(
    "progress", cl::desc("Progress bar of --run on stderr"),
    cl::values(clEnumValN(ProgressMode::Auto, "auto",
                          "when stderr is a terminal (default)"),
               clEnumValN(ProgressMode::Always, "always", "always"),
               clEnumValN(ProgressMode::Never, "never", "never")),
    cl::init(ProgressMode::Auto), cl::cat(seqc::seqCompileCategory));

/// Rows [begin, end) of `t` along axis 0.
Tensor rows(const Tensor &t, int64_t begin, int64_t end) {
  int64_t rowSize = t.shape[0] ? t.numElements() / t.shape[0] : 0;
  Tensor slice;
  slice.shape = t.shape;
  slice.shape[0] = end - begin;
  slice.data.assign(t.data.begin() + begin * rowSize,
                    t.data.begin() + end * rowSize);
  return slice;
}

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
  if (seqc::inputSpec.empty())
    return seqc::fail("--run needs --input x.npy or --input data.h5:/dataset",
                      2);
  if (seqc::outputPath == "-")
    return seqc::fail("--run writes a binary .npy: give the output file with "
                      "-o y.npy ('-' is not allowed)",
                      2);
  if (batchSize.getNumOccurrences() && batchSize == 0)
    return seqc::fail("--batch must be at least 1", 2);
  return std::nullopt;
}

std::optional<int> runAction(seqc::Session &session) {
  if (seqc::plan().mode != seqc::Mode::Run)
    return std::nullopt;
  const std::string &engineName = seqc::engineName;
  const std::string &inputSpec = seqc::inputSpec;
  seqc::registerEngines();
  std::vector<std::string> names = seq::rt::engineNames();
  if (std::find(names.begin(), names.end(), engineName) == names.end()) {
    std::string known;
    for (const std::string &n : names)
      known += (known.empty() ? "" : ", ") + n;
    return seqc::fail(
        "unknown engine '" + engineName + "' (available: " + known + ")", 2);
  }

  Expected<Tensor> input = seqc::readInput(inputSpec);
  if (!input)
    return seqc::fail(toString(input.takeError()));
  if (input->rank() < 1 || input->shape[0] == 0)
    return seqc::fail("'" + inputSpec + "' has shape " + input->shapeString() +
                      ": --run needs at least one row along axis 0");
  mlir::ModuleOp module = *session.model.module;
  if (Error e = seq::rt::checkInputShape(module, input->shape))
    return seqc::fail("'" + inputSpec + "': " + toString(std::move(e)));

  Expected<std::unique_ptr<seq::rt::Engine>> engine =
      seq::rt::createEngine(engineName, module);
  if (!engine)
    return seqc::fail("engine '" + engineName +
                      "': " + toString(engine.takeError()));

  int64_t total = input->shape[0];
  int64_t perBatch = batchSize ? std::min<int64_t>(batchSize, total) : total;
  int64_t batches = (total + perBatch - 1) / perBatch;
  bool showProgress = progressMode == ProgressMode::Always ||
                      (progressMode == ProgressMode::Auto &&
                       sys::Process::StandardErrIsDisplayed());
  ProgressBar progress(showProgress, batches, total);

  auto failRun = [&](const Twine &message) {
    progress.interrupt();
    return seqc::fail(message);
  };
  std::optional<seq::rt::NpyWriter> writer;
  for (int64_t b = 0; b < batches; ++b) {
    int64_t begin = b * perBatch, end = std::min(total, begin + perBatch);
    std::string where =
        batches == 1
            ? std::string()
            : ("batch " + Twine(b + 1) + " of " + Twine(batches) + " (rows " +
               Twine(begin) + " to " + Twine(end - 1) + "): ")
                  .str();
    Expected<Tensor> output = (*engine)->run(rows(*input, begin, end));
    if (!output)
      return failRun(where + toString(output.takeError()));
    if (output->rank() < 1 || output->shape[0] != end - begin)
      return failRun(where + "engine '" + engineName + "' returned shape " +
                     output->shapeString() + " for " + Twine(end - begin) +
                     " rows");
    if (!writer) {
      std::vector<int64_t> shape = output->shape;
      shape[0] = total;
      Expected<seq::rt::NpyWriter> created =
          seq::rt::NpyWriter::create(seqc::outputPath, shape);
      if (!created)
        return failRun(toString(created.takeError()));
      writer.emplace(std::move(*created));
    }
    if (Error e = writer->append(*output))
      return failRun(where + toString(std::move(e)));
    progress.update(b + 1, end);
  }
  if (Error e = writer->commit())
    return failRun(toString(std::move(e)));
  return 0;
}

seqc::RegisterAction checkFlags(0, seqc::StandaloneAction(checkRunFlags));
seqc::RegisterAction run(50, seqc::ModelAction(runAction));

} // namespace

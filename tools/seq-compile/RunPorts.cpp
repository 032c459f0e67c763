// --run for a model with several inputs or outputs (a Functional graph):
//
//   seq-compile model.h5 --run --input enc=x.npy --input dec=y.npy -o out/
//
// Each input is named by its Keras name (NAME=FILE, one file each: .npy,
// data.h5:/x, CSV/TSV), all with the same number of rows; -o DIR/ receives
// one DIR/<output name>.npy per output. Rows are streamed batch by batch as
// in RunAction.cpp, and the outputs appear only when every batch succeeded.
#include "Actions.h"

#include "seq/Runtime/Engine.h"
#include "seq/Runtime/Npy.h"
#include "seq/Runtime/RowSource.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;
using seq::rt::Tensor;

namespace seqc {

namespace {

Error runError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// A file name for an output named `name` (from the model file): only
/// [A-Za-z0-9._-] and no leading dot, so that it stays inside -o DIR/.
std::string outputFileName(StringRef name) {
  std::string file;
  for (char c : name)
    file += isAlnum(c) || c == '_' || c == '-' || c == '.' ? c : '_';
  if (file.empty() || file[0] == '.')
    file.insert(0, "_");
  return file + ".npy";
}

} // namespace

Expected<std::vector<std::string>> namedInputSpecs(const seq::ModelIO &io) {
  std::vector<std::string> specs(io.inputs.size());
  for (StringRef given : inputSpecs) {
    auto [name, spec] = given.split('=');
    auto it = llvm::find_if(io.inputs,
                            [&](const seq::ModelPort &p) { return p.name == name; });
    if (spec.empty() || it == io.inputs.end())
      return runError("--input '" + given + "': the model has inputs " +
                      seq::portList(io.inputs) + "; give each as --input NAME=FILE");
    std::string &slot = specs[it - io.inputs.begin()];
    if (!slot.empty())
      return runError("input '" + name + "' is given twice");
    slot = spec.str();
  }
  for (auto [port, spec] : llvm::zip(io.inputs, specs))
    if (spec.empty())
      return runError("input '" + port.name + "' is missing: give --input " +
                      port.name + "=FILE");
  return specs;
}

int runModelPorts(seq::rt::Engine &engine, std::optional<int64_t> fixedBatch) {
  const seq::ModelIO &io = engine.io();
  auto failWith = [](Error e) { return fail(toString(std::move(e))); };
  if (!outputIsDirectory())
    return fail("the model has " + Twine(io.outputs.size()) + " output(s) (" +
                    seq::portList(io.outputs) + "): give a directory, -o DIR/, "
                    "which receives one <output name>.npy each",
                2);
  Expected<std::vector<std::string>> specs = namedInputSpecs(io);
  if (!specs)
    return fail(toString(specs.takeError()), 2);

  std::vector<std::unique_ptr<seq::rt::RowSource>> sources;
  int64_t rows = -1;
  for (auto [port, spec] : llvm::zip(io.inputs, *specs)) {
    std::vector<int64_t> rowShape(port.shape.begin() + 1, port.shape.end());
    Expected<std::unique_ptr<seq::rt::RowSource>> source = openInput(spec, rowShape);
    if (!source)
      return failWith(source.takeError());
    int64_t n = (*source)->shape().empty() ? 0 : (*source)->shape()[0];
    if (rows >= 0 && n != rows)
      return fail("'" + spec + "' (input '" + port.name + "') has " + Twine(n) +
                  " rows but '" + (*specs)[0] + "' has " + Twine(rows) +
                  ": every input needs one row per sample");
    rows = n;
    sources.push_back(std::move(*source));
  }
  if (rows < 1)
    return fail("the inputs have no rows: --run needs at least one row along axis 0");
  if (fixedBatch && rows % *fixedBatch)
    return fail("the inputs have " + Twine(rows) + " rows; the model runs its fixed "
                "batch of " + Twine(*fixedBatch) + " rows (its layers keep a state "
                "per row), so give a multiple of " + Twine(*fixedBatch));
  int64_t perBatch = fixedBatch ? *fixedBatch
                     : runBatchSize() ? int64_t(runBatchSize())
                                      : std::min<int64_t>(rows, 256);
  if (std::error_code ec = sys::fs::create_directories(outputPath))
    return fail("cannot create '" + outputPath + "': " + ec.message());

  std::vector<seq::rt::NpyWriter> writers;
  for (int64_t begin = 0; begin < rows; begin += perBatch) {
    int64_t count = std::min(perBatch, rows - begin);
    std::vector<Tensor> inputs;
    for (auto &source : sources) {
      Expected<Tensor> batch = source->next(count);
      if (!batch)
        return failWith(batch.takeError());
      inputs.push_back(std::move(*batch));
    }
    Expected<std::vector<Tensor>> outputs = engine.runAll(inputs);
    if (!outputs)
      return fail("rows " + Twine(begin) + " to " + Twine(begin + count - 1) + ": " +
                  toString(outputs.takeError()));
    if (writers.empty()) {
      for (auto [port, output] : llvm::zip(io.outputs, *outputs)) {
        SmallString<256> path(outputPath);
        sys::path::append(path, outputFileName(port.name));
        std::vector<int64_t> shape = output.shape;
        shape[0] = rows;
        Expected<seq::rt::NpyWriter> writer = seq::rt::NpyWriter::create(path, shape);
        if (!writer)
          return failWith(writer.takeError());
        writers.push_back(std::move(*writer));
      }
    }
    for (auto [writer, output] : llvm::zip(writers, *outputs))
      if (Error e = writer.append(output))
        return failWith(std::move(e));
  }
  for (seq::rt::NpyWriter &writer : writers)
    if (Error e = writer.commit())
      return failWith(std::move(e));
  return 0;
}

} // namespace seqc

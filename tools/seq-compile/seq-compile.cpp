// seq-compile: the user-facing driver. Parses flags and calls lib/.
// Exit codes: 0 success, 1 bad input (one line on stderr), 2 bad usage.
// Features live in their own files here (see Actions.h); this file imports
// the model and handles --emit=seq, --summary and --print-metadata.
#include "Actions.h"
#include "Mode.h"

#include "seq/Dialect/Seq/IR/Metadata.h"
#include "seq/Frontend/Keras/Summary.h"
#include "seq/Runtime/OneLine.h"
#include "seq/Runtime/OutputFile.h"

#include "mlir/IR/OperationSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

#include <signal.h>

using namespace llvm;

namespace seqc {

cl::OptionCategory seqCompileCategory("seq-compile options");
cl::opt<std::string> outputPath("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(seqCompileCategory));
cl::opt<std::string> emitKind("emit",
                              cl::desc("What to write: seq (layer-level IR, the default), fused, linalg, llvm, obj, cuda, cuda-runtime (the C API every CUDA library links; no model)"),
                              cl::value_desc("kind"), cl::init("seq"),
                              cl::cat(seqCompileCategory));
cl::opt<std::string> targetKind("target",
                                cl::desc("Backend to compile for (cpu, cuda)"),
                                cl::value_desc("name"), cl::cat(seqCompileCategory));

int fail(const Twine &message, int code) {
  errs() << "seq-compile: error: " << seq::rt::oneLine(message.str()) << "\n";
  return code;
}

int writeOutput(StringRef text) {
  if (outputPath == "-") {
    outs() << text;
    outs().flush();
    return 0;
  }
  if (Error e = seq::rt::writeOutputFile(outputPath, [&](raw_ostream &out) {
        out << text;
        return Error::success();
      }))
    return fail(toString(std::move(e)));
  return 0;
}

cl::opt<std::string> inputPath(cl::Positional,
                               cl::desc("<model.h5 | model.keras | SavedModel dir | weights | model.mlir>"),
                               cl::cat(seqCompileCategory));

namespace {

std::multimap<int, ModelAction> &modelActions() {
  static std::multimap<int, ModelAction> actions;
  return actions;
}

std::multimap<int, StandaloneAction> &standaloneActions() {
  static std::multimap<int, StandaloneAction> actions;
  return actions;
}

cl::opt<std::string> configPath(
    "config", cl::desc("Architecture JSON (model.to_json()) for a weights-only file or TF checkpoint"),
    cl::value_desc("model.json"), cl::cat(seqCompileCategory));
cl::opt<std::string> inputShape(
    "input-shape",
    cl::desc("Input shape without the batch axis, '?' for dynamic (e.g. 10,12 or ?,12)"),
    cl::value_desc("dims"), cl::cat(seqCompileCategory));
cl::list<std::string> metadata("metadata",
                               cl::desc("Add a metadata entry key=value (repeatable)"),
                               cl::value_desc("key=value"), cl::cat(seqCompileCategory));
cl::opt<bool> summary("summary", cl::desc("Print a Keras-style model summary"),
                      cl::cat(seqCompileCategory));
cl::opt<bool> printMetadata("print-metadata",
                            cl::desc("Print the model metadata as JSON"),
                            cl::cat(seqCompileCategory));
cl::opt<bool> elideWeights("elide-weights",
                           cl::desc("Print weight blobs elided (readable, not re-parseable)"),
                           cl::cat(seqCompileCategory));

} // namespace

RegisterAction::RegisterAction(int order, ModelAction action) {
  modelActions().emplace(order, std::move(action));
}

RegisterAction::RegisterAction(int order, StandaloneAction action) {
  standaloneActions().emplace(order, std::move(action));
}

} // namespace seqc

using namespace seqc;

int main(int argc, char **argv) {
  // Started with SIGINT ignored (nohup, a background job), an interrupt must
  // not take a temporary output away mid-run; else it is cleaned up.
  struct sigaction interrupt;
  sigaction(SIGINT, nullptr, &interrupt);
  seq::rt::setRemoveTemporariesOnInterrupt(interrupt.sa_handler != SIG_IGN);
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(seqCompileCategory);
  cl::SetVersionPrinter([](raw_ostream &os) { os << versionText(); });
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "seqc: compile Keras Sequential models\n",
                                   &errs()))
    return 2;
  if (std::optional<int> code = decidePlan())
    return *code;
  for (auto &[order, action] : standaloneActions())
    if (std::optional<int> code = action())
      return *code;
  if (inputPath.empty())
    return fail("no model file given (see --help)", 2);

  seq::keras::ImportOptions options;
  options.modelPath = inputPath;
  options.configPath = configPath;
  if (!inputShape.empty()) {
    Expected<std::vector<int64_t>> shape = seq::keras::parseInputShape(inputShape);
    if (!shape)
      return fail(toString(shape.takeError()), 2);
    options.inputShape = *shape;
  }
  for (StringRef entry : metadata) {
    auto [key, value] = entry.split('=');
    if (key.empty() || !entry.contains('='))
      return fail("--metadata '" + entry + "': expected key=value", 2);
    options.metadata.emplace_back(key.str(), value.str());
  }

  mlir::MLIRContext context;
  Expected<seq::keras::ImportedModel> model =
      seq::keras::importModel(context, options);
  if (!model)
    return fail(toString(model.takeError()));
  for (const std::string &note : model->notes)
    errs() << "seq-compile: note: " << note << "\n";

  if (plan().mode == Mode::Summary) {
    std::string text;
    raw_string_ostream os(text);
    seq::keras::printSummary(*model, os);
    return writeOutput(text);
  }
  if (plan().mode == Mode::PrintMetadata)
    return writeOutput(seq::metadataToJson(*model->module) + "\n");

  Session session{context, *model, options};
  for (auto &[order, action] : modelActions())
    if (std::optional<int> code = action(session))
      return *code;

  if (plan().mode != Mode::Compile || plan().emit != Emit::Seq)
    return fail("internal error: no action wrote --emit=" +
                emitName(plan().emit).str());
  std::string text;
  raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  if (elideWeights)
    flags.elideLargeResourceString(0);
  model->module->print(os, flags);
  return writeOutput(text);
}

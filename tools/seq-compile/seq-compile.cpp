// seq-compile: the user-facing driver. Parses flags and calls lib/.
// Exit codes: 0 success, 1 bad input (one line on stderr), 2 bad usage.
#include "seq/Dialect/Seq/IR/Metadata.h"
#include "seq/Frontend/Keras/Importer.h"
#include "seq/Frontend/Keras/Summary.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::OptionCategory category("seq-compile options");

cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model.h5 | model.keras | weights.h5>"),
                               cl::cat(category));
cl::opt<std::string> outputPath("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<std::string> configPath(
    "config", cl::desc("Architecture JSON (model.to_json()) for a weights-only file"),
    cl::value_desc("model.json"), cl::cat(category));
cl::opt<std::string> inputShape(
    "input-shape",
    cl::desc("Input shape without the batch axis, '?' for dynamic (e.g. 10,12 or ?,12)"),
    cl::value_desc("dims"), cl::cat(category));
cl::list<std::string> metadata("metadata", cl::desc("Add a metadata entry key=value (repeatable)"),
                               cl::value_desc("key=value"), cl::cat(category));

enum class Emit { Seq };
cl::opt<Emit> emit("emit", cl::desc("What to write"), cl::init(Emit::Seq),
                   cl::values(clEnumValN(Emit::Seq, "seq", "layer-level seq IR (default)")),
                   cl::cat(category));
cl::opt<bool> summary("summary", cl::desc("Print a Keras-style model summary and exit"),
                      cl::cat(category));
cl::opt<bool> printMetadata("print-metadata",
                            cl::desc("Print the model metadata as JSON and exit"),
                            cl::cat(category));
cl::opt<bool> elideWeights("elide-weights",
                           cl::desc("Print weight blobs elided (readable, not re-parseable)"),
                           cl::cat(category));

int fail(const Twine &message, int code = 1) {
  errs() << "seq-compile: error: " << message << "\n";
  return code;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "seqc: compile Keras Sequential models\n",
                                   &errs()))
    return 2;
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
      seq::keras::importKerasModel(context, options);
  if (!model)
    return fail(toString(model.takeError()));

  // Nothing reaches the output path unless everything succeeded: text is
  // produced in memory first and the file written through a temporary.
  std::string text;
  raw_string_ostream os(text);
  if (summary) {
    seq::keras::printSummary(*model, os);
  } else if (printMetadata) {
    os << seq::metadataToJson(*model->module) << "\n";
  } else {
    mlir::OpPrintingFlags flags;
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    if (elideWeights)
      flags.elideLargeResourceString(0);
    model->module->print(os, flags);
  }
  if (outputPath == "-") {
    outs() << text;
    return 0;
  }
  if (Error e = writeToOutput(outputPath, [&](raw_ostream &out) {
        out << text;
        return Error::success();
      }))
    return fail("cannot write '" + outputPath + "': " + toString(std::move(e)));
  return 0;
}

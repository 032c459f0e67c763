// --emit=fused: runs the fusion pipeline and prints the kernel-level IR
// (weights in full, so it re-parses); --dot-before / --dot-after write
// Graphviz graphs of the model around the fusion.
#include "Actions.h"
#include "Mode.h"

#include "seq/Runtime/OutputFile.h"

#include "seq/Dialect/Seq/Transforms/ModelGraph.h"
#include "seq/Dialect/Seq/Transforms/Pipelines.h"
#include "seq/Dialect/Seq/Transforms/WeightConstants.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::opt<std::string> dotBefore(
    "dot-before",
    cl::desc("With --emit=fused: write a Graphviz graph of the model before fusion"),
    cl::value_desc("file.dot"), cl::cat(seqc::seqCompileCategory));
cl::opt<std::string> dotAfter(
    "dot-after",
    cl::desc("With --emit=fused: write a Graphviz graph of the model after fusion"),
    cl::value_desc("file.dot"), cl::cat(seqc::seqCompileCategory));

std::string graphOf(mlir::ModuleOp module) {
  std::string text;
  raw_string_ostream os(text);
  seq::writeModelGraph(module, os);
  return text;
}

std::string sourceFile(mlir::ModuleOp module) {
  if (auto file = dyn_cast<mlir::FileLineColLoc>(module.getLoc()))
    return file.getFilename().str();
  return "the model";
}

Error writeFile(StringRef path, StringRef text) {
  return seq::rt::writeOutputFile(path, [&](raw_ostream &out) {
    out << text;
    return Error::success();
  });
}

std::optional<int> emitFused(seqc::Session &session) {
  if (seqc::plan().mode != seqc::Mode::Compile ||
      seqc::plan().emit != seqc::Emit::Fused)
    return std::nullopt;
  mlir::ModuleOp module = *session.model.module;
  std::string before = dotBefore.empty() ? "" : graphOf(module);

  std::string firstError;
  mlir::ScopedDiagnosticHandler handler(
      &session.context, [&](mlir::Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error &&
            firstError.empty()) {
          std::string layer = seq::layerName(diagnostic.getLocation());
          firstError = (layer.empty() ? "" : "layer '" + layer + "': ") +
                       diagnostic.str();
        }
        return mlir::success();
      });
  mlir::PassManager pm(&session.context);
  seq::buildFusePipeline(pm);
  if (mlir::failed(pm.run(module)))
    return seqc::fail("fusion failed in " + sourceFile(module) + ": " +
                      firstError +
                      " (check the layer-level IR with --emit=seq, or run "
                      "seq-opt --seq-fuse on it)");

  std::string text;
  raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(os, flags);

  for (auto [path, graph] : {std::pair{std::string(dotBefore), before},
                             std::pair{std::string(dotAfter),
                                       dotAfter.empty() ? "" : graphOf(module)}})
    if (!path.empty())
      if (Error e = writeFile(path, graph))
        return seqc::fail(toString(std::move(e)));
  return seqc::writeOutput(text);
}

seqc::RegisterAction registration(50, seqc::ModelAction(emitFused));

} // namespace

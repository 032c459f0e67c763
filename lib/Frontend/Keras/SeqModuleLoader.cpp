//===- SeqModuleLoader.cpp - Read seq IR saved earlier ---------------------===//
//
// A .mlir file is as untrusted as a model file, and MLIR's parser aborts on
// some malformed input (a dense_resource blob with alignment 0, say). So the
// file is first parsed and verified in a sandboxed child (Sandbox.h): the
// parser is deterministic, so what did not crash there does not crash here.
// What upstream leaves unchecked is checked before either parse.
//
//===----------------------------------------------------------------------===//

#include "seq/Frontend/Keras/Importer.h"
#include "seq/Frontend/Keras/Sandbox.h"

#include "KerasConfig.h"

#include "seq/Dialect/Seq/IR/Metadata.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace seq::keras {
namespace {

/// The bytecode format has its own resource encoding, which is not checked
/// here: only the text form is read.
constexpr StringRef kBytecodeMagic("ML\xefR", 4);

/// Every blob in the file's dialect_resources section must start with a
/// nonzero power-of-two alignment (4 bytes, little-endian, as hex).
Error checkResourceBlobs(StringRef text, StringRef where) {
  size_t section = text.find("dialect_resources");
  if (section == StringRef::npos)
    return Error::success();
  StringRef rest = text.drop_front(section);
  for (size_t at = rest.find("\"0x"); at != StringRef::npos;
       at = rest.find("\"0x", at + 3)) {
    StringRef hex = rest.drop_front(at + 3).take_while([](char c) { return llvm::isHexDigit(c); });
    if (hex.size() < 8 || hex.size() % 2)
      return fileError(where, "a dense_resource blob is shorter than its "
                              "alignment header or has an odd hex length");
    uint32_t alignment = 0;
    for (int i = 3; i >= 0; --i) {
      unsigned byte = 0;
      hex.substr(2 * i, 2).getAsInteger(16, byte);
      alignment = alignment << 8 | byte;
    }
    if (alignment == 0 || (alignment & (alignment - 1)))
      return fileError(where, "a dense_resource blob declares alignment " +
                                  llvm::Twine(alignment) +
                                  " (must be a power of two)");
  }
  return Error::success();
}

/// Parses `text` into `context`; the first diagnostic, with its location,
/// goes to `message` on failure.
OwningOpRef<ModuleOp> parse(MLIRContext &context, StringRef text,
                            StringRef where, std::string &message) {
  llvm::raw_string_ostream os(message);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (message.empty())
      os << diag.getLocation() << ": " << diag.str();
    return success();
  });
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, where, false), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (module && failed(verify(*module)))
    module = nullptr;
  return module;
}

/// Parses and verifies in a sandboxed child first; an error if that dies.
Error preflight(StringRef text, StringRef where) {
  SandboxLimits limits = readerLimits(text.size());
  limits.purpose = "mlir";
  SandboxResult result = runSandboxed(
      [&](SandboxWriter &out) {
        MLIRContext context(MLIRContext::Threading::DISABLED);
        registerImporterDialects(context);
        std::string message;
        parse(context, text, where, message);
        out.write("done", 4);
      },
      limits);
  if (result.status == SandboxResult::Finished &&
      StringRef(result.output.data(), result.output.size()) == "done")
    return Error::success();
  if (result.status == SandboxResult::TimedOut)
    return fileError(where, "the MLIR parser did not finish within " +
                                llvm::Twine(limits.seconds) +
                                " s (the file is corrupt or hostile)");
  if (result.status == SandboxResult::NotStarted)
    return fileError(where, "cannot start the sandboxed parser: " +
                                result.detail);
  return fileError(where, "the MLIR parser failed on this file (the file is "
                          "corrupt or hostile)");
}

/// Summary rows read off the IR: one per layer name (the ops' NameLoc), its
/// class the op's name, its parameters the elements of the constants it
/// reads (each counted once). BatchNormalization's moving statistics are
/// not trainable, as Keras counts them.
std::vector<LayerSummary> summaryRows(func::FuncOp predict) {
  std::vector<LayerSummary> rows;
  llvm::DenseSet<Value> counted;
  predict.walk([&](Operation *op) {
    if (isa<arith::ConstantOp, func::ReturnOp, func::FuncOp>(op) ||
        op->getNumResults() != 1 || op->getParentOp() != predict)
      return;
    auto name = dyn_cast<NameLoc>(op->getLoc());
    std::string layer = name ? name.getName().str() : "";
    if (rows.empty() || rows.back().name != layer || layer.empty())
      rows.push_back({layer, op->getName().getStringRef().str(), {}, 0, 0});
    LayerSummary &row = rows.back();
    row.className = op->getName().getStringRef().str();
    if (auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType()))
      row.outputShape.assign(type.getShape().begin(), type.getShape().end());
    bool batchNorm = op->getName().getStringRef() == "seq.batch_norm";
    for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
      if (!operand.getDefiningOp<arith::ConstantOp>() ||
          !counted.insert(operand).second)
        continue;
      int64_t elements = cast<ShapedType>(operand.getType()).getNumElements();
      row.params += elements;
      if (batchNorm && index + 2 >= op->getNumOperands())
        row.nonTrainableParams += elements;
    }
  });
  return rows;
}

} // namespace

Expected<ImportedModel> parseSeqModule(MLIRContext &context, StringRef text,
                                       StringRef where) {
  registerImporterDialects(context);
  if (text.starts_with(kBytecodeMagic))
    return fileError(where, "MLIR bytecode is not read, only the text form: "
                            "write it with seq-compile --emit=seq");
  if (Error e = checkResourceBlobs(text, where))
    return std::move(e);
  if (Error e = preflight(text, where))
    return std::move(e);
  std::string message;
  OwningOpRef<ModuleOp> module = parse(context, text, where, message);
  if (!module)
    return fileError(where, message.empty() ? "cannot parse the MLIR file"
                                            : message);
  auto predict = module->lookupSymbol<func::FuncOp>("predict");
  if (!predict)
    return fileError(where, "no func.func @predict in this module");
  ImportedModel model;
  model.layers = summaryRows(predict);
  model.module = std::move(module);
  if (auto name = getMetadata(*model.module).getAs<StringAttr>("model_name"))
    model.modelName = name.getValue().str();
  return model;
}

Expected<ImportedModel> loadSeqModule(MLIRContext &context, StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read: " + buffer.getError().message());
  return parseSeqModule(context, (*buffer)->getBuffer(), path);
}

} // namespace seq::keras

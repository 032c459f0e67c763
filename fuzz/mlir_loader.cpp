//===- mlir_loader.cpp - Fuzz the .mlir model loader ----------------------===//
//
// parseSeqModule: bytecode refusal, resource blob checks, the sandboxed
// preflight parse, then the parse and verification in this process.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "seq/Frontend/Keras/Importer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

using namespace seq;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fuzz::setReaderTimeout();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  // Diagnostics not captured by the loader must not flood the output.
  context.printOpOnDiagnostic(false);
  auto model = keras::parseSeqModule(
      context, llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz.mlir");
  if (!model) {
    fuzz::consumeReaderError(model.takeError(), data, size, "the MLIR parser",
                             "mlir");
    return 0;
  }
  (void)model->modelName.size();
  return 0;
}

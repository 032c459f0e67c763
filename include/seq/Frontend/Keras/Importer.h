// The Keras importer: a model file (.h5, .keras, or --config JSON + weights)
// to a module holding `func.func @predict` in layer-level seq ops.
#ifndef SEQ_FRONTEND_KERAS_IMPORTER_H
#define SEQ_FRONTEND_KERAS_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace seq::keras {

struct ImportOptions {
  /// The model file, or the weights file when `configPath` is set.
  std::string modelPath;
  /// model.to_json() output; supplies the architecture.
  std::string configPath;
  /// Input shape without the batch axis; kDynamic (`?`) entries stay dynamic.
  /// Overrides whatever the file records.
  std::optional<std::vector<int64_t>> inputShape;
  /// Extra metadata entries (--metadata k=v); they override the file's.
  std::vector<std::pair<std::string, std::string>> metadata;
};

/// One row of the Keras-style summary.
struct LayerSummary {
  std::string name;
  std::string className;
  std::vector<int64_t> outputShape; ///< kDynamic for None.
  int64_t params = 0;
  int64_t nonTrainableParams = 0;
  /// In a Functional graph (not a chain), the layers this one reads, as
  /// Keras' summary lists them ("proj[0][0]"); empty otherwise.
  std::vector<std::string> connectedTo;
};

struct ImportedModel {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string modelName;
  std::vector<LayerSummary> layers;
  /// What a user should know about how seqc reads this model, one line each
  /// ("'model.h5': layers ... compute in float16 in Keras ..."): seq-compile
  /// prints them as notes, Python warns.
  std::vector<std::string> notes;
};

/// Registers what the importer creates (seq, arith, func) in `context`.
void registerImporterDialects(mlir::MLIRContext &context);

llvm::Expected<ImportedModel> importKerasModel(mlir::MLIRContext &context,
                                               const ImportOptions &options);

/// Any model input, told apart by content: a Keras file (importKerasModel)
/// or seq IR written earlier (loadSeqModule).
llvm::Expected<ImportedModel> importModel(mlir::MLIRContext &context,
                                          const ImportOptions &options);

/// Reads seq IR written earlier (e.g. by --emit=seq or --emit=fused), so
/// that every action also works on a saved or transformed module. The
/// summary rows are read off the IR (one per layer name, the op's name as
/// its class).
llvm::Expected<ImportedModel> loadSeqModule(mlir::MLIRContext &context,
                                            llvm::StringRef path);
/// The same for text already in memory; `where` names it in messages. The
/// text is parsed in a sandboxed child first (the file is untrusted).
llvm::Expected<ImportedModel> parseSeqModule(mlir::MLIRContext &context,
                                             llvm::StringRef text,
                                             llvm::StringRef where);

/// "--input-shape" syntax: comma-separated sizes without the batch axis,
/// `?`, `-1` or `None` for a dynamic size ("?,12").
llvm::Expected<std::vector<int64_t>> parseInputShape(llvm::StringRef text);

} // namespace seq::keras

#endif

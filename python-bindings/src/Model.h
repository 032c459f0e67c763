// seqc.Model: a model file imported into seq IR, with what Keras would tell
// about it (summary, layers, metadata). Compiled models share it, because
// the engines read its module.
#ifndef SEQC_PYTHON_MODEL_H
#define SEQC_PYTHON_MODEL_H

#include "seq/Frontend/Keras/Importer.h"

#include "mlir/IR/MLIRContext.h"

#include <nanobind/nanobind.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace seqc::python {

class Model : public std::enable_shared_from_this<Model> {
public:
  /// Imports a Keras file (or weights + `config`), or reads a .mlir module.
  /// `inputShape` is None, a tuple of sizes without the batch axis (None for
  /// a dynamic size), or the CLI's "?,12" text. Raises seqc.Error.
  static std::shared_ptr<Model>
  load(const std::string &path, nanobind::handle inputShape,
       const std::optional<std::string> &config,
       const std::map<std::string, std::string> &metadata);

  mlir::ModuleOp module() const { return *imported.module; }
  const seq::keras::ImportedModel &summaryRows() const { return imported; }
  const std::string &path() const { return sourcePath; }

private:
  Model() = default;

  std::string sourcePath;
  // Declared before `imported`: the module must be destroyed first.
  std::unique_ptr<mlir::MLIRContext> context;
  seq::keras::ImportedModel imported;
};

void bindModel(nanobind::module_ &m);

} // namespace seqc::python

#endif

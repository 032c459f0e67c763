// seqc.Model: a model file imported into seq IR, with what Keras would tell
// about it (summary, layers, metadata). Compiled models share it, because
// the engines read its module. A Model keeps the bytes it was imported from
// and its load options, so that it pickles by value (seqc/_pickle.py): the
// other side imports the same bytes, whether or not the file exists there.
#ifndef SEQC_PYTHON_MODEL_H
#define SEQC_PYTHON_MODEL_H

#include "seq/Frontend/Keras/Importer.h"

#include "mlir/IR/MLIRContext.h"

#include <nanobind/nanobind.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

  /// The same from bytes: `data` is a model file's content, `name` the file
  /// it was (what `path` reports; its last component names the temporary
  /// copy the importer reads, so that metadata and messages are the file's).
  /// `config`, when given, is the architecture JSON, named `configName` in
  /// messages. Raises seqc.Error.
  static std::shared_ptr<Model>
  loadBytes(std::string data, const std::string &name, nanobind::handle inputShape,
            std::optional<std::string> config, const std::string &configName,
            const std::map<std::string, std::string> &metadata);

  /// What pickling needs to import this model again: (1, path, data,
  /// config path or None, config or None, input_shape or None, metadata).
  nanobind::tuple state() const;
  /// Model::loadBytes of a state() tuple. Raises seqc.Error.
  static std::shared_ptr<Model> fromState(nanobind::handle state);

  mlir::ModuleOp module() const { return *imported.module; }
  const seq::keras::ImportedModel &summaryRows() const { return imported; }
  const std::string &path() const { return sourcePath; }

private:
  Model() = default;
  /// Imports `options` (with the GIL released) into a new Model.
  static llvm::Expected<std::shared_ptr<Model>>
  import(const seq::keras::ImportOptions &options);

  std::string sourcePath;
  // The load, as given: what state() hands to pickle.
  std::string bytes;
  std::optional<std::string> configPath, configBytes;
  std::optional<std::vector<int64_t>> shapeOption;
  std::map<std::string, std::string> metadataOption;
  // Declared before `imported`: the module must be destroyed first.
  std::unique_ptr<mlir::MLIRContext> context;
  seq::keras::ImportedModel imported;
};

void bindModel(nanobind::module_ &m);

} // namespace seqc::python

#endif

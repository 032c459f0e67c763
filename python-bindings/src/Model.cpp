#include "Model.h"

#include "seq/Frontend/Keras/FileFormat.h"

#include "Compiled.h"
#include "Engines.h"
#include "Error.h"

#include "seq/Dialect/Seq/IR/Metadata.h"
#include "seq/Frontend/Keras/FileFormat.h"
#include "seq/Frontend/Keras/Summary.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace seqc::python {

namespace {

/// Keras' notation: a tuple of sizes, None for a dynamic one.
nb::tuple shapeTuple(llvm::ArrayRef<int64_t> shape) {
  nb::list items;
  for (int64_t size : shape)
    items.append(mlir::ShapedType::isDynamic(size) ? nb::none()
                                                   : nb::object(nb::int_(size)));
  return nb::tuple(items);
}

/// input_shape=(10, 12), (None, 12), [10, 12] or "?,12".
std::vector<int64_t> parseInputShape(nb::handle shape) {
  if (nb::isinstance<nb::str>(shape))
    return unwrap(seq::keras::parseInputShape(nb::cast<std::string>(shape)));
  std::vector<int64_t> sizes;
  bool valid = nb::isinstance<nb::sequence>(shape) && nb::len(shape) > 0;
  if (valid)
    for (nb::handle item : shape) {
      if (item.is_none()) {
        sizes.push_back(mlir::ShapedType::kDynamic);
        continue;
      }
      int64_t size = 0;
      if (nb::isinstance<nb::bool_>(item) || !nb::try_cast(item, size) ||
          (size <= 0 && size != -1)) {
        valid = false;
        break;
      }
      sizes.push_back(size == -1 ? mlir::ShapedType::kDynamic : size);
    }
  if (!valid)
    throw Error("input_shape=" + nb::cast<std::string>(nb::repr(shape)) +
                ": expected positive sizes or None without the batch axis, "
                "e.g. (10, 12) or (None, 12)");
  return sizes;
}

mlir::func::FuncOp predictFunction(const Model &model) {
  return model.module().lookupSymbol<mlir::func::FuncOp>("predict");
}

nb::tuple inputShape(const Model &model) {
  return shapeTuple(
      mlir::cast<mlir::ShapedType>(predictFunction(model).getArgumentTypes()[0])
          .getShape());
}

nb::tuple outputShape(const Model &model) {
  return shapeTuple(
      mlir::cast<mlir::ShapedType>(predictFunction(model).getResultTypes()[0])
          .getShape());
}

nb::dict layerDict(const seq::keras::LayerSummary &layer) {
  nb::dict row;
  row["name"] = layer.name;
  row["class"] = layer.className;
  row["output_shape"] = shapeTuple(layer.outputShape);
  row["params"] = layer.params;
  row["non_trainable_params"] = layer.nonTrainableParams;
  return row;
}

} // namespace

llvm::Expected<std::shared_ptr<Model>>
Model::import(const seq::keras::ImportOptions &options) {
  std::shared_ptr<Model> model(new Model());
  model->context = std::make_unique<mlir::MLIRContext>();
  llvm::Expected<seq::keras::ImportedModel> imported = [&] {
    nanobind::gil_scoped_release release;
    return seq::keras::importModel(*model->context, options);
  }();
  if (!imported)
    return imported.takeError();
  for (const std::string &note : imported->notes)
    nb::module_::import_("warnings").attr("warn")(note, nb::handle(PyExc_UserWarning), 2);
  model->imported = std::move(*imported);
  model->shapeOption = options.inputShape;
  model->metadataOption.insert(options.metadata.begin(), options.metadata.end());
  return model;
}

namespace {

seq::keras::ImportOptions importOptions(nb::handle inputShape,
                                        const std::map<std::string, std::string> &metadata) {
  seq::keras::ImportOptions options;
  if (!inputShape.is_none())
    options.inputShape = parseInputShape(inputShape);
  options.metadata.assign(metadata.begin(), metadata.end());
  return options;
}

/// The whole file, as it is now.
std::string readBack(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    throw Error("'" + path + "': cannot read it again to keep its bytes (" +
                buffer.getError().message() + ")");
  return (*buffer)->getBuffer().str();
}

/// A directory of its own for the temporary copies loadBytes imports; it
/// and everything in it go away with this object.
class ScratchDirectory {
public:
  ScratchDirectory() {
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("seqc-model", path))
      throw Error("cannot create a temporary directory to import a model from "
                  "bytes: " + ec.message());
  }
  ~ScratchDirectory() { llvm::sys::fs::remove_directories(path); }

  /// Writes `data` to SUBDIR/<last component of name> and returns that path.
  std::string write(llvm::StringRef subdir, llvm::StringRef name,
                    const std::string &data) {
    llvm::SmallString<256> file(path);
    llvm::sys::path::append(file, subdir);
    std::error_code ec = llvm::sys::fs::create_directory(file);
    llvm::StringRef base = llvm::sys::path::filename(name);
    llvm::sys::path::append(file, base.empty() || base == "." || base == ".."
                                      ? llvm::StringRef(subdir)
                                      : base);
    if (!ec) {
      llvm::raw_fd_ostream out(file, ec);
      if (!ec) {
        out << data;
        out.close();
        if (out.has_error())
          ec = out.error();
      }
    }
    if (ec)
      throw Error("cannot write a temporary copy of '" + name.str() +
                  "' to import it: " + ec.message());
    return file.str().str();
  }

private:
  llvm::SmallString<128> path;
};

/// `text` with every occurrence of `from` replaced by `to`.
std::string replaceAll(std::string text, const std::string &from, const std::string &to) {
  if (from.empty())
    return text;
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

} // namespace

std::shared_ptr<Model> Model::load(const std::string &path, nb::handle inputShape,
                                   const std::optional<std::string> &config,
                                   const std::map<std::string, std::string> &metadata) {
  seq::keras::ImportOptions options = importOptions(inputShape, metadata);
  options.modelPath = path;
  options.configPath = config.value_or("");
  std::shared_ptr<Model> model = unwrap(import(options));
  model->sourcePath = path;
  // A SavedModel, TF checkpoint or unzipped .keras is several files: what
  // pickling keeps of it is the module it imported to, which holds the
  // config, the weights and the options.
  seq::keras::FileFormat format = seq::keras::detectFormat(path).format;
  if (format == seq::keras::FileFormat::SavedModelDir ||
      format == seq::keras::FileFormat::TFCheckpoint ||
      format == seq::keras::FileFormat::KerasDir) {
    llvm::raw_string_ostream os(model->bytes);
    model->module().print(os, mlir::OpPrintingFlags().enableDebugInfo(true, false));
    model->shapeOption.reset();
    model->metadataOption.clear();
    return model;
  }
  // Read after the import succeeded, so that a missing or unreadable file
  // is the importer's message.
  model->bytes = readBack(path);
  if (config) {
    model->configPath = *config;
    model->configBytes = readBack(*config);
  }
  return model;
}

std::shared_ptr<Model> Model::loadBytes(std::string data, const std::string &name,
                                        nb::handle inputShape,
                                        std::optional<std::string> config,
                                        const std::string &configName,
                                        const std::map<std::string, std::string> &metadata) {
  seq::keras::ImportOptions options = importOptions(inputShape, metadata);
  llvm::Expected<std::shared_ptr<Model>> model = [&] {
    ScratchDirectory scratch;
    options.modelPath = scratch.write("model", name, data);
    if (config)
      options.configPath = scratch.write("config", configName, *config);
    llvm::Expected<std::shared_ptr<Model>> imported = import(options);
    if (imported)
      return imported;
    // Messages name the file the bytes came from, not the temporary copy.
    std::string message = llvm::toString(imported.takeError());
    message = replaceAll(std::move(message), options.modelPath, name);
    if (config)
      message = replaceAll(std::move(message), options.configPath, configName);
    return llvm::Expected<std::shared_ptr<Model>>(
        llvm::createStringError(llvm::inconvertibleErrorCode(), message));
  }();
  std::shared_ptr<Model> loaded = unwrap(std::move(model));
  loaded->sourcePath = name;
  loaded->bytes = std::move(data);
  if (config) {
    loaded->configPath = configName;
    loaded->configBytes = std::move(config);
  }
  return loaded;
}

nb::tuple Model::state() const {
  auto asBytes = [](const std::optional<std::string> &text) -> nb::object {
    return text ? nb::object(nb::bytes(text->data(), text->size())) : nb::none();
  };
  nb::object shape = nb::none();
  if (shapeOption) {
    nb::list sizes;
    for (int64_t size : *shapeOption)
      sizes.append(mlir::ShapedType::isDynamic(size) ? nb::none()
                                                     : nb::object(nb::int_(size)));
    shape = nb::tuple(sizes);
  }
  nb::dict entries;
  for (const auto &[key, value] : metadataOption)
    entries[key.c_str()] = value;
  return nb::make_tuple(1, sourcePath, nb::bytes(bytes.data(), bytes.size()),
                        configPath ? nb::object(nb::str(configPath->c_str()))
                                   : nb::none(),
                        asBytes(configBytes), shape, entries);
}

std::shared_ptr<Model> Model::fromState(nb::handle handle) {
  auto bytesOf = [](nb::handle item) {
    nb::bytes text = nb::borrow<nb::bytes>(item);
    return std::string(text.c_str(), text.size());
  };
  bool valid = nb::isinstance<nb::tuple>(handle) && nb::len(handle) == 7;
  nb::tuple state = valid ? nb::borrow<nb::tuple>(handle) : nb::tuple();
  if (!valid || !nb::isinstance<nb::int_>(state[0]))
    throw Error("not the state of a pickled seqc.Model");
  if (int64_t version = nb::cast<int64_t>(state[0]); version != 1)
    throw Error("a seqc.Model pickled with state version " + std::to_string(version) +
                ", which this seqc cannot read: unpickle it with the seqc "
                "that pickled it");
  if (!nb::isinstance<nb::str>(state[1]) || !nb::isinstance<nb::bytes>(state[2]) ||
      !(state[3].is_none() || nb::isinstance<nb::str>(state[3])) ||
      !(state[4].is_none() || nb::isinstance<nb::bytes>(state[4])) ||
      !nb::isinstance<nb::dict>(state[6]))
    throw Error("not the state of a pickled seqc.Model");
  std::optional<std::string> config;
  if (!state[4].is_none())
    config = bytesOf(state[4]);
  return loadBytes(bytesOf(state[2]), nb::cast<std::string>(state[1]), state[5],
                   std::move(config),
                   state[3].is_none() ? std::string("config.json")
                                      : nb::cast<std::string>(state[3]),
                   nb::cast<std::map<std::string, std::string>>(state[6]));
}

void bindModel(nb::module_ &m) {
  nb::class_<Model>(m, "Model",
                    "A Keras Sequential model imported into seq IR (see seqc.load).",
                    nb::is_weak_referenceable())
      .def_prop_ro("path", &Model::path, "The file it was loaded from.")
      .def_prop_ro(
          "name", [](const Model &self) { return self.summaryRows().modelName; },
          "The Keras model name.")
      .def_prop_ro("input_shape", &inputShape,
                   "Input shape with the batch axis, None for a dynamic size.")
      .def_prop_ro("output_shape", &outputShape,
                   "Output shape with the batch axis, None for a dynamic size.")
      .def_prop_ro(
          "layers",
          [](const Model &self) {
            nb::list layers;
            for (const seq::keras::LayerSummary &layer : self.summaryRows().layers)
              layers.append(layerDict(layer));
            return layers;
          },
          "One dict per Keras layer: name, class, output_shape, params, "
          "non_trainable_params (for a .mlir module: one per layer name in the IR, "
          "its class the op's name).")
      .def_prop_ro(
          "params",
          [](const Model &self) {
            int64_t total = 0;
            for (const seq::keras::LayerSummary &layer : self.summaryRows().layers)
              total += layer.params;
            return total;
          },
          "Total parameter count, as Keras' count_params().")
      .def_prop_ro(
          "metadata",
          [](const Model &self) {
            nb::dict entries;
            for (mlir::NamedAttribute entry : seq::getMetadata(self.module())) {
              std::string value;
              if (auto text = mlir::dyn_cast<mlir::StringAttr>(entry.getValue()))
                value = text.getValue().str();
              else
                llvm::raw_string_ostream(value) << entry.getValue();
              entries[entry.getName().str().c_str()] = value;
            }
            return entries;
          },
          "The model metadata (seq.metadata) as a dict of strings.")
      .def(
          "compile",
          [](Model &self, const std::optional<std::string> &engine, int threads) {
            return Compiled::create(self.shared_from_this(), engine, threads);
          },
          nb::arg("engine").none() = nb::none(), nb::arg("threads") = 0,
          "Builds an engine for the model: 'jit', 'aot', 'cuda' or 'eager' "
          "(seqc.engines() lists those built in; the default is 'jit' when "
          "it is, else 'eager'). threads: the threads each call's batch is "
          "split across by 'jit' and 'aot' (0, the default: one per core, "
          "fewer for a batch with little work; results are bitwise the same "
          "for any count). Raises seqc.Error.")
      .def(
          "summary",
          [](const Model &self) {
            std::string text;
            llvm::raw_string_ostream os(text);
            seq::keras::printSummary(self.summaryRows(), os);
            return text;
          },
          "The Keras-style summary text (seq-compile --summary).")
      .def(
          "mlir",
          [](const Model &self, bool elideWeights) {
            std::string text;
            llvm::raw_string_ostream os(text);
            mlir::OpPrintingFlags flags;
            flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
            if (elideWeights)
              flags.elideLargeResourceString(0);
            self.module().print(os, flags);
            return text;
          },
          nb::arg("elide_weights") = false,
          "The layer-level seq IR (seq-compile --emit=seq).")
      .def(
          "__reduce__",
          [](const Model &self) {
            // seqc/_pickle.py imports the bytes again (or takes the Model
            // this process already has for them).
            return nb::make_tuple(
                nb::module_::import_("seqc._pickle").attr("restore_model"),
                nb::make_tuple(self.state()));
          },
          "Pickles by value: the model file's bytes and the load options.")
      .def("__repr__", [](const Model &self) {
        return "<seqc.Model '" + self.summaryRows().modelName + "' " +
               nb::cast<std::string>(nb::repr(inputShape(self))) + " -> " +
               nb::cast<std::string>(nb::repr(outputShape(self))) + ">";
      });

  m.def(
      "load",
      [](const std::filesystem::path &path, nb::handle shape,
         const std::optional<std::filesystem::path> &config,
         const std::optional<std::map<std::string, std::string>> &metadata) {
        std::optional<std::string> configPath;
        if (config)
          configPath = config->string();
        return Model::load(path.string(), shape, configPath,
                           metadata.value_or(std::map<std::string, std::string>()));
      },
      nb::arg("path"), nb::arg("input_shape").none() = nb::none(),
      nb::arg("config").none() = nb::none(), nb::arg("metadata").none() = nb::none(),
      "Imports a Keras model: .h5, .keras, or a weights file with "
      "config=model.json (from model.to_json()); a .mlir file written by "
      "seq-compile is read as is. input_shape (without the batch axis, None "
      "for a dynamic size) overrides the shape the file records; metadata "
      "adds or overrides metadata entries. Raises seqc.Error.");

  m.def(
      "load_bytes",
      [](nb::handle data, const std::string &name, nb::handle shape,
         nb::handle config,
         const std::optional<std::map<std::string, std::string>> &metadata) {
        // Any bytes-like object (bytes, bytearray, memoryview, a NumPy
        // buffer); config may also be the JSON text as str.
        auto text = [](nb::handle value) {
          if (nb::isinstance<nb::str>(value))
            return nb::cast<std::string>(value);
          nb::bytes copy = nb::borrow<nb::bytes>(
              nb::module_::import_("builtins").attr("memoryview")(value).attr("tobytes")());
          return std::string(copy.c_str(), copy.size());
        };
        if (nb::isinstance<nb::str>(data))
          throw nb::type_error("data must be the bytes of a model file, not a "
                               "str (for a path, use seqc.load)");
        std::optional<std::string> configText;
        if (!config.is_none())
          configText = text(config);
        return Model::loadBytes(text(data), name, shape, std::move(configText),
                                "config.json",
                                metadata.value_or(std::map<std::string, std::string>()));
      },
      nb::arg("data"), nb::arg("name") = "model.h5",
      nb::arg("input_shape").none() = nb::none(), nb::arg("config").none() = nb::none(),
      nb::arg("metadata").none() = nb::none(),
      "seqc.load from bytes: data is a model file's content (.h5, .keras, "
      ".mlir, or weights with config= the architecture JSON as str or bytes); "
      "name is the file it was, as Model.path reports it. Raises seqc.Error.");
  m.def("_load_state", &Model::fromState, nb::arg("state"),
        "Imports a Model from the state its __reduce__ gave (seqc/_pickle.py).");
}

} // namespace seqc::python

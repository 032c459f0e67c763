#include "Model.h"

#include "Compiled.h"
#include "Engines.h"
#include "Error.h"

#include "seq/Dialect/Seq/IR/Metadata.h"
#include "seq/Frontend/Keras/Summary.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/ADT/StringExtras.h"
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

std::shared_ptr<Model> Model::load(const std::string &path, nb::handle inputShape,
                                   const std::optional<std::string> &config,
                                   const std::map<std::string, std::string> &metadata) {
  seq::keras::ImportOptions options;
  options.modelPath = path;
  options.configPath = config.value_or("");
  if (!inputShape.is_none())
    options.inputShape = parseInputShape(inputShape);
  options.metadata.assign(metadata.begin(), metadata.end());


  std::shared_ptr<Model> model(new Model());
  model->sourcePath = path;
  model->context = std::make_unique<mlir::MLIRContext>();
  llvm::Expected<seq::keras::ImportedModel> imported = [&] {
    nanobind::gil_scoped_release release;
    return seq::keras::importModel(*model->context, options);
  }();
  model->imported = unwrap(std::move(imported));
  return model;
}

void bindModel(nb::module_ &m) {
  nb::class_<Model>(m, "Model",
                    "A Keras Sequential model imported into seq IR (see seqc.load).")
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
          [](Model &self, const std::optional<std::string> &engine) {
            return Compiled::create(self.shared_from_this(), engine);
          },
          nb::arg("engine").none() = nb::none(),
          "Builds an engine for the model: 'jit', 'aot', 'cuda' or 'eager' "
          "(seqc.engines() lists those built in; the default is 'jit' when "
          "it is, else 'eager'). Raises seqc.Error.")
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
}

} // namespace seqc::python

#include "Compiled.h"

#include "Engines.h"
#include "Error.h"

#include "seq/Dialect/Seq/IR/ModelIO.h"
#include "seq/Runtime/Eager.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>

namespace nb = nanobind;
using seq::rt::Tensor;
using seq::rt::TensorView;

namespace seqc::python {

std::shared_ptr<Compiled> Compiled::create(std::shared_ptr<Model> model,
                                           const std::optional<std::string> &engine,
                                           int threads) {
  std::string name = engine.value_or(defaultEngine());
  if (threads < 0 || threads > seq::rt::kMaxEngineThreads)
    throw Error("threads=" + std::to_string(threads) + ": give 0 (one per core) to " +
                std::to_string(seq::rt::kMaxEngineThreads));
  seq::rt::EngineOptions options;
  options.threads = threads;
  std::vector<std::string> names = availableEngines();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (const std::string &n : names)
      known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown engine '" + name + "' (available: " + known + ")");
  }
  llvm::Expected<std::unique_ptr<seq::rt::Engine>> created = [&] {
    nb::gil_scoped_release release;
    return seq::rt::createEngine(name, model->module(), options);
  }();
  if (!created)
    throw Error("engine '" + name + "': " +
                seq::rt::oneLine(llvm::toString(created.takeError())));

  std::shared_ptr<Compiled> compiled(new Compiled());
  compiled->source = std::move(model);
  compiled->name = name;
  compiled->options = options;
  compiled->engine = std::move(*created);
  if (!isReentrant(name))
    compiled->serial.emplace();
  return compiled;
}

llvm::Expected<std::vector<Tensor>>
Compiled::runAll(const std::vector<TensorView> &inputs) {
  for (const TensorView &input : inputs)
    if (input.rank() < 1)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "input has shape " + input.shapeString() +
                                         ": it needs a batch axis");
  std::unique_lock<std::mutex> lock;
  if (serial)
    lock = std::unique_lock<std::mutex>(*serial);
  // A model built for a fixed batch (a stateful one) takes any whole number
  // of batches, run one after the other as Keras' predict(x, batch_size)
  // does: each starts from the state the one before left.
  int64_t batch = seq::fixedBatch(source->module()).value_or(-1);
  if (batch > 0 && !inputs.empty() && inputs[0].shape[0] != batch)
    return seq::rt::runInBatches(*engine, inputs, batch);
  llvm::Expected<std::vector<Tensor>> outputs = engine->runAll(inputs);
  if (outputs)
    for (const Tensor &output : *outputs)
      if (output.rank() < 1 || output.shape[0] != inputs[0].shape[0])
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "engine '" + name + "' returned shape " + output.shapeString() +
                " for " + std::to_string(inputs[0].shape[0]) + " rows");
  return outputs;
}

llvm::Expected<Tensor> Compiled::run(const TensorView &input) {
  if (io().inputs.size() != 1 || io().outputs.size() != 1)
    return engine->run(input); // its error names the ports
  llvm::Expected<std::vector<Tensor>> outputs = runAll({input});
  if (!outputs)
    return outputs.takeError();
  return std::move(outputs->front());
}

InputArray asInputArray(nb::handle x) {
  nb::object array = nb::module_::import_("numpy").attr("ascontiguousarray")(
      x, nb::arg("dtype") = "float32");
  return nb::cast<InputArray>(array);
}

TensorView viewOf(const InputArray &array) {
  std::vector<int64_t> shape;
  for (size_t i = 0; i < array.ndim(); ++i)
    shape.push_back(static_cast<int64_t>(array.shape(i)));
  return TensorView(std::move(shape), array.data(), static_cast<int64_t>(array.size()));
}

namespace {

/// Hands the tensor's buffer to NumPy without a copy.
nb::ndarray<nb::numpy, float> toNumpy(Tensor tensor) {
  auto *owned = new Tensor(std::move(tensor));
  nb::capsule owner(owned, [](void *p) noexcept { delete static_cast<Tensor *>(p); });
  std::vector<size_t> shape(owned->shape.begin(), owned->shape.end());
  return nb::ndarray<nb::numpy, float>(owned->data.data(), shape.size(), shape.data(),
                                       owner);
}

std::vector<std::string> namesOf(const std::vector<seq::ModelPort> &ports) {
  std::vector<std::string> names;
  for (const seq::ModelPort &p : ports)
    names.push_back(p.name);
  return names;
}

} // namespace

void bindCompiled(nb::module_ &m) {
  nb::class_<Compiled>(m, "Compiled",
                       "A model made runnable by one engine (see Model.compile).",
                       nb::is_weak_referenceable())
      .def_prop_ro("engine", &Compiled::engineName, "The engine's name.")
      .def_prop_ro("model", &Compiled::model, "The seqc.Model it runs.")
      .def_prop_ro("threads", &Compiled::threads,
                   "The threads a call's batch is split across, as given to "
                   "Model.compile (0: one per core).")
      .def_prop_ro(
          "reentrant", [](const Compiled &self) { return isReentrant(self.engineName()); },
          "True when calls from several threads run in parallel ('eager', "
          "'jit'); other engines take one call at a time.")
      .def_prop_ro(
          "input_names", [](const Compiled &self) { return namesOf(self.io().inputs); },
          "The model's inputs' Keras names (its InputLayers'), in Keras' order.")
      .def_prop_ro(
          "output_names", [](const Compiled &self) { return namesOf(self.io().outputs); },
          "The model's outputs' Keras names (their layers'), in Keras' order.")
      .def(
          "__call__",
          [](Compiled &self, nb::handle given) -> nb::object {
            const seq::ModelIO &io = self.io();
            std::vector<InputArray> arrays;
            if (nb::isinstance<nb::dict>(given)) {
              nb::dict byName = nb::borrow<nb::dict>(given);
              for (const seq::ModelPort &p : io.inputs) {
                nb::str key(p.name.c_str());
                if (!byName.contains(key))
                  throw Error("input '" + p.name + "' is missing; the model's inputs "
                              "are " + seq::portList(io.inputs));
                arrays.push_back(asInputArray(byName[key]));
              }
              if (nb::len(byName) != io.inputs.size())
                throw Error("the dict names an input the model does not have; its "
                            "inputs are " + seq::portList(io.inputs));
            } else if (io.inputs.size() > 1 &&
                       (nb::isinstance<nb::list>(given) || nb::isinstance<nb::tuple>(given))) {
              if (nb::len(given) != io.inputs.size())
                throw Error("the model takes " + std::to_string(io.inputs.size()) +
                            " inputs (" + seq::portList(io.inputs) + "), got " +
                            std::to_string(nb::len(given)));
              for (nb::handle item : given)
                arrays.push_back(asInputArray(item));
            } else {
              if (io.inputs.size() > 1)
                throw Error("the model takes " + std::to_string(io.inputs.size()) +
                            " inputs (" + seq::portList(io.inputs) +
                            "): pass a dict by name or a list in that order");
              arrays.push_back(asInputArray(given));
            }
            // Read in place: `arrays` keeps them alive through the call.
            std::vector<TensorView> inputs;
            for (const InputArray &a : arrays)
              inputs.push_back(viewOf(a));
            llvm::Expected<std::vector<Tensor>> outputs = [&] {
              nb::gil_scoped_release release;
              return self.runAll(inputs);
            }();
            std::vector<Tensor> results = unwrap(std::move(outputs));
            if (results.size() == 1)
              return nb::cast(toNumpy(std::move(results.front())));
            nb::dict byName;
            for (auto [p, t] : llvm::zip(io.outputs, results))
              byName[p.name.c_str()] = toNumpy(std::move(t));
            return byName;
          },
          nb::arg("x"),
          nb::sig("def __call__(self, x: numpy.typing.ArrayLike | "
                  "dict[str, numpy.typing.ArrayLike] | "
                  "list[numpy.typing.ArrayLike]) -> "
                  "numpy.typing.NDArray[numpy.float32] | "
                  "dict[str, numpy.typing.NDArray[numpy.float32]]"),
          "Runs one batch: x is batch-major float32 (other dtypes, layouts "
          "and nested lists are converted; a float32 C-contiguous array is read "
          "in place), any batch size; returns a new "
          "float32 array. A model with several inputs takes a dict {input name: "
          "array} (or a list in input_names order), all with the same rows; a "
          "model with several outputs returns a dict {output name: array}. A "
          "stateful model (fixed batch B) takes any multiple of B rows and runs "
          "them as consecutive batches of B, each from the state the one before "
          "left (Keras' predict(x, batch_size=B)). The GIL is released while it "
          "runs. Raises seqc.Error.")
      .def_prop_rw(
          "state",
          [](const Compiled &self) {
            nb::dict states;
            std::vector<float> flat = self.state();
            for (const seq::StateSlot &slot : self.stateSlots()) {
              Tensor t{slot.shape, std::vector<float>(flat.begin() + slot.offset,
                                                      flat.begin() + slot.offset + slot.size)};
              states[slot.layer.c_str()] = toNumpy(std::move(t));
            }
            return states;
          },
          [](Compiled &self, const nb::dict &states) {
            std::vector<float> flat = self.state();
            size_t given = 0;
            for (const seq::StateSlot &slot : self.stateSlots()) {
              nb::str key(slot.layer.c_str());
              if (!states.contains(key))
                continue;
              InputArray array = asInputArray(states[key]);
              TensorView t = viewOf(array);
              if (t.shape != slot.shape)
                throw Error("state of layer '" + slot.layer + "' has shape " +
                            Tensor{slot.shape, {}}.shapeString() + ", got " +
                            t.shapeString());
              std::copy(t.data, t.data + t.size, flat.begin() + slot.offset);
              ++given;
            }
            if (given != nb::len(states))
              throw Error("state names a layer that keeps no state; the stateful layers "
                          "are the keys of Compiled.state");
            if (llvm::Error e = self.setState(flat))
              raise(std::move(e));
          },
          nb::sig("def state(self) -> dict[str, numpy.typing.NDArray[numpy.float32]]"),
          "The state of the model's stateful layers (Keras stateful=True), which "
          "persists from one call to the next: {layer name: array of shape "
          "(states, batch, units)}, states 2 for an LSTM (h, c), 1 for GRU and "
          "SimpleRNN (a ConvLSTM's: (2, batch, positions..., filters) in its "
          "data_format); a Bidirectional layer's directions are 'name/forward' and "
          "'name/backward'. Empty for a stateless model. Assigning a dict sets the "
          "layers it names.")
      .def(
          "reset_state", [](Compiled &self) { self.resetState(); },
          "Sets every stateful layer's state to zeros, as Keras' reset_state(): the "
          "next call starts a new sequence.")
      .def(
          "__reduce__",
          [](const Compiled &self) {
            // The model (by value), the engine's name and threads: the other
            // side compiles again, or takes what it compiled for them before.
            return nb::make_tuple(
                nb::module_::import_("seqc._pickle").attr("restore_compiled"),
                nb::make_tuple(self.model(), self.engineName(), self.threads()));
          },
          "Pickles as its Model (by value), engine name and threads.")
      .def("__repr__", [](const Compiled &self) {
        return "<seqc.Compiled '" + self.model()->summaryRows().modelName +
               "' engine='" + self.engineName() + "'>";
      });
}

} // namespace seqc::python

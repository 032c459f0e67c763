#include "Compiled.h"

#include "Engines.h"
#include "Error.h"

#include "seq/Dialect/Seq/IR/ModelState.h"
#include "seq/Runtime/Eager.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>

namespace nb = nanobind;
using seq::rt::Tensor;

namespace seqc::python {

std::shared_ptr<Compiled> Compiled::create(std::shared_ptr<Model> model,
                                           const std::optional<std::string> &engine) {
  std::string name = engine.value_or(defaultEngine());
  std::vector<std::string> names = availableEngines();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (const std::string &n : names)
      known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown engine '" + name + "' (available: " + known + ")");
  }
  llvm::Expected<std::unique_ptr<seq::rt::Engine>> created = [&] {
    nb::gil_scoped_release release;
    return seq::rt::createEngine(name, model->module());
  }();
  if (!created)
    throw Error("engine '" + name + "': " +
                seq::rt::oneLine(llvm::toString(created.takeError())));

  std::shared_ptr<Compiled> compiled(new Compiled());
  compiled->source = std::move(model);
  compiled->name = name;
  compiled->engine = std::move(*created);
  if (!isReentrant(name))
    compiled->serial.emplace();
  return compiled;
}

llvm::Expected<Tensor> Compiled::run(const Tensor &input) {
  if (input.rank() < 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "input has shape " + input.shapeString() +
                                       ": it needs a batch axis");
  // A model built for a fixed batch (a stateful one) takes any whole number
  // of batches, run one after the other as Keras' predict(x, batch_size)
  // does: each starts from the state the one before left.
  int64_t batch = seq::fixedBatch(source->module()).value_or(-1);
  if (batch > 0 && input.shape[0] != batch) {
    std::unique_lock<std::mutex> lock;
    if (serial)
      lock = std::unique_lock<std::mutex>(*serial);
    return seq::rt::runInBatches(*engine, input, batch);
  }
  if (llvm::Error e = seq::rt::checkInputShape(source->module(), input.shape))
    return std::move(e);
  std::unique_lock<std::mutex> lock;
  if (serial)
    lock = std::unique_lock<std::mutex>(*serial);
  llvm::Expected<Tensor> output = engine->run(input);
  if (output && (output->rank() < 1 || output->shape[0] != input.shape[0]))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "engine '" + name + "' returned shape " + output->shapeString() + " for " +
            std::to_string(input.shape[0]) + " rows");
  return output;
}

InputArray asInputArray(nb::handle x) {
  nb::object array = nb::module_::import_("numpy").attr("ascontiguousarray")(
      x, nb::arg("dtype") = "float32");
  return nb::cast<InputArray>(array);
}

Tensor toTensor(const InputArray &array) {
  Tensor tensor;
  for (size_t i = 0; i < array.ndim(); ++i)
    tensor.shape.push_back(static_cast<int64_t>(array.shape(i)));
  tensor.data.assign(array.data(), array.data() + array.size());
  return tensor;
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

} // namespace

void bindCompiled(nb::module_ &m) {
  nb::class_<Compiled>(m, "Compiled",
                       "A model made runnable by one engine (see Model.compile).",
                       nb::is_weak_referenceable())
      .def_prop_ro("engine", &Compiled::engineName, "The engine's name.")
      .def_prop_ro("model", &Compiled::model, "The seqc.Model it runs.")
      .def_prop_ro(
          "reentrant", [](const Compiled &self) { return isReentrant(self.engineName()); },
          "True when calls from several threads run in parallel ('eager', "
          "'jit'); other engines take one call at a time.")
      .def(
          "__call__",
          [](Compiled &self, nb::handle arrayLike) {
            InputArray x = asInputArray(arrayLike);
            llvm::Expected<Tensor> output = [&] {
              nb::gil_scoped_release release;
              return self.run(toTensor(x));
            }();
            return toNumpy(unwrap(std::move(output)));
          },
          nb::arg("x"),
          nb::sig("def __call__(self, x: numpy.typing.ArrayLike) -> "
                  "numpy.typing.NDArray[numpy.float32]"),
          "Runs one batch: x is batch-major float32 (other dtypes, layouts "
          "and nested lists are converted), any batch size; returns a new "
          "float32 array. A stateful model (fixed batch B) takes any multiple "
          "of B rows and runs them as consecutive batches of B, each from the "
          "state the one before left (Keras' predict(x, batch_size=B)). The GIL "
          "is released while it runs. Raises seqc.Error.")
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
              Tensor t = toTensor(asInputArray(states[key]));
              if (t.shape != slot.shape)
                throw Error("state of layer '" + slot.layer + "' has shape " +
                            Tensor{slot.shape, {}}.shapeString() + ", got " +
                            t.shapeString());
              std::copy(t.data.begin(), t.data.end(), flat.begin() + slot.offset);
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
          "SimpleRNN; a Bidirectional layer's directions are 'name/forward' and "
          "'name/backward'. Empty for a stateless model. Assigning a dict sets the "
          "layers it names.")
      .def(
          "reset_state", [](Compiled &self) { self.resetState(); },
          "Sets every stateful layer's state to zeros, as Keras' reset_state(): the "
          "next call starts a new sequence.")
      .def(
          "__reduce__",
          [](const Compiled &self) {
            // The model (by value) and the engine's name: the other side
            // compiles again, or takes what it compiled for them before.
            return nb::make_tuple(
                nb::module_::import_("seqc._pickle").attr("restore_compiled"),
                nb::make_tuple(self.model(), self.engineName()));
          },
          "Pickles as its Model (by value) and engine name.")
      .def("__repr__", [](const Compiled &self) {
        return "<seqc.Compiled '" + self.model()->summaryRows().modelName +
               "' engine='" + self.engineName() + "'>";
      });
}

} // namespace seqc::python

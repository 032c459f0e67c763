// The extension module seqc._seqc; the package seqc re-exports it.
#include "Compare.h"
#include "Compiled.h"
#include "Engines.h"
#include "Error.h"
#include "Model.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

NB_MODULE(_seqc, m) {
  using namespace seqc::python;
  m.doc() = "seqc: ahead-of-time compiled Keras Sequential models";
  nb::exception<Error>(m, "Error");
  registerEngines();
  bindModel(m);
  bindCompiled(m);
  bindCompare(m);
  m.def("engines", &availableEngines,
        "Names of the engines built into this module, sorted.");
}

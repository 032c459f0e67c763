// seqc.compare(): compiled vs eager numerics, latency and memory.
#ifndef SEQC_PYTHON_COMPARE_H
#define SEQC_PYTHON_COMPARE_H

#include <nanobind/nanobind.h>

namespace seqc::python {

void bindCompare(nanobind::module_ &m);

} // namespace seqc::python

#endif

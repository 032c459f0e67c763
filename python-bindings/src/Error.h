// seqc.Error: every failure the library reports (bad model file, wrong input
// shape, unknown engine, ...) reaches Python as this exception, with the same
// one-line message seq-compile prints after "seq-compile: error: " (control
// characters quoted from a file escaped, seq::rt::oneLine).
#ifndef SEQC_PYTHON_ERROR_H
#define SEQC_PYTHON_ERROR_H

#include "seq/Runtime/OneLine.h"

#include "llvm/Support/Error.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace seqc::python {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void raise(llvm::Error error) {
  throw Error(seq::rt::oneLine(llvm::toString(std::move(error))));
}

template <typename T> T unwrap(llvm::Expected<T> value) {
  if (!value)
    raise(value.takeError());
  return std::move(*value);
}

} // namespace seqc::python

#endif

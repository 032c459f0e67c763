// The engines the bindings offer, and what the bindings know about each.
#ifndef SEQC_PYTHON_ENGINES_H
#define SEQC_PYTHON_ENGINES_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace seqc::python {

/// Registers every engine library linked into the module (once).
void registerEngines();

/// Registered engine names, sorted.
std::vector<std::string> availableEngines();

/// What Model.compile() uses when no engine is named: "jit" when it is
/// built in, else "eager".
std::string defaultEngine();

/// Whether the engine documents that run() may be called from several
/// threads at once; the others are called one thread at a time.
bool isReentrant(llvm::StringRef engine);

} // namespace seqc::python

#endif

// seq-compile is one validated mode switch. Each invocation is exactly one
// mode (--doctor, --summary, --print-metadata, --run, --compare, or
// compiling: writing what --emit or the -o suffix asks for); every flag
// belongs to the modes that use it, and a flag the chosen mode would ignore,
// an unknown value or an output that does not fit the mode is a usage error
// (exit 2) saying what to write instead. The actions read the decided plan
// instead of re-deriving it from the flags.
#ifndef SEQ_TOOLS_SEQ_COMPILE_MODE_H
#define SEQ_TOOLS_SEQ_COMPILE_MODE_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace seqc {

enum class Mode { Doctor, Summary, PrintMetadata, Run, Compare, Compile, Worker };

/// What compile mode writes.
enum class Emit {
  Seq,           ///< layer-level MLIR text
  Fused,         ///< MLIR text after the fusion pipeline
  Linalg,        ///< MLIR text after the CPU lowering to linalg
  LLVM,          ///< LLVM IR text
  Object,        ///< relocatable object + C header
  SharedLibrary, ///< CPU shared library + C header
  StaticArchive, ///< CPU static archive + C header
  CudaSource,    ///< CUDA C++ source
  CudaLibrary,   ///< CUDA shared library + C header
  CudaRuntime,   ///< the C API every CUDA library links (no model)
};

struct Plan {
  Mode mode = Mode::Compile;
  Emit emit = Emit::Seq;
};

/// Decides the plan from the parsed flags, or prints the usage error and
/// returns its exit code.
std::optional<int> decidePlan();
/// The decided plan (valid after decidePlan succeeded).
const Plan &plan();

/// "seq", "obj", ... as --emit spells it.
llvm::StringRef emitName(Emit emit);

/// The --version text: seqc's version and revision, LLVM's, the backends.
std::string versionText();

} // namespace seqc

#endif

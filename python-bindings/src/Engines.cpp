#include "Engines.h"

#include "seq/Runtime/Eager.h"
#include "seq/Runtime/Engine.h"
#ifdef SEQC_HAVE_CPU_ENGINES
#include "seq/Target/CPU/AotCompiler.h"
#include "seq/Target/CPU/JitEngine.h"
#endif
#ifdef SEQC_HAVE_CUDA_ENGINES
#include "seq/Target/CUDA/CudaEngine.h"
#endif

#include <algorithm>
#include <mutex>

namespace seqc::python {

void registerEngines() {
  static std::once_flag once;
  std::call_once(once, [] {
    seq::rt::registerEagerEngine();
#ifdef SEQC_HAVE_CPU_ENGINES
    seq::registerJitEngine();
    seq::registerAotEngine();
#endif
#ifdef SEQC_HAVE_CUDA_ENGINES
    seq::cuda::registerCudaEngines();
#endif
  });
}

std::vector<std::string> availableEngines() {
  registerEngines();
  return seq::rt::engineNames();
}

std::string defaultEngine() {
  std::vector<std::string> names = availableEngines();
  return std::find(names.begin(), names.end(), "jit") != names.end() ? "jit"
                                                                      : "eager";
}

bool isReentrant(llvm::StringRef engine) {
  // Eager.h: "run() may be called many times, also from several threads";
  // JitEngine.h: "run() may be called from several threads at once".
  return engine == "eager" || engine == "jit";
}

} // namespace seqc::python

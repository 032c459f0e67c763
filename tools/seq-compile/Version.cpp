// --version: seqc's version and the revision it was built from, LLVM's
// version, and the backends and engines compiled in.
#include "Mode.h"

#include "Actions.h"
#include "SeqRevision.inc" // SEQ_REVISION, written at build time

#include "seq/Runtime/Engine.h"
#include "seq/Target/CPU/AotCompiler.h"
#include "seq/Target/CPU/JitEngine.h"
#include "seq/Target/CUDA/CudaSystem.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"

namespace seqc {

namespace {
/// 90100 -> "9.1.0"; CUDA's 13000 -> "13.0".
std::string cudnnText(int v) {
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) +
         "." + std::to_string(v % 100);
}
std::string cudartText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v / 10 % 100);
}
} // namespace

std::string versionText() {
  seq::registerJitEngine();
  seq::registerAotEngine();
  registerEngines();
  std::string cuda = "CUDA C++ emission";
  if (int runtime = seq::cuda::builtCudartVersion())
    cuda += ", built against CUDA " + cudartText(runtime);
  if (int cudnn = seq::cuda::builtCudnnVersion())
    cuda += " and cuDNN " + cudnnText(cudnn);
  return "seqc " SEQ_VERSION " (revision " SEQ_REVISION ")\n"
         "LLVM/MLIR " LLVM_VERSION_STRING "\n"
         "backends: CPU (LLVM JIT and AOT libraries), " +
         cuda + "\nengines: " + llvm::join(seq::rt::engineNames(), ", ") +
         "\n";
}

} // namespace seqc

// What the CPU kernel tests (GemmKernelTest, ConvolutionGemmTest, the
// accuracy tests) share: random values, weights as IR literals, a
// double-precision sigmoid, and an AOT library built for a given CPU and
// run through its C API.
#ifndef SEQ_UNITTESTS_CPU_KERNELTESTSUPPORT_H
#define SEQ_UNITTESTS_CPU_KERNELTESTSUPPORT_H

#include "seq/Target/CPU/AotCompiler.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"

#include <dlfcn.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace seq::test {

/// `count` values uniform in [-1, 1), the same for the same seed.
inline std::vector<float> randomValues(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(count);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// sigmoid in double precision, relative accuracy in both tails.
inline double sigmoid(double x) {
  if (x >= 0)
    return 1 / (1 + std::exp(-x));
  double e = std::exp(x);
  return e / (1 + e);
}

/// A dense<...> literal of any shape: the values' bytes in hex.
inline std::string denseLiteral(const std::vector<float> &v) {
  return "\"0x" +
         llvm::toHex(llvm::StringRef(reinterpret_cast<const char *>(v.data()),
                                     v.size() * sizeof(float))) +
         "\"";
}

/// A shared library of `module` built for `cpu` at `path` and opened; run()
/// calls seqc_model_run on one instance. `error` is empty when it works.
class AotLibrary {
public:
  AotLibrary(mlir::ModuleOp module, const std::string &path, const std::string &cpu,
             int64_t maxBatch) {
    seq::cpu::AotOptions options;
    options.cpu = cpu;
    options.defaultMaxBatch = maxBatch;
    if (llvm::Error e = seq::cpu::compileAot(module, seq::cpu::AotArtifact::SharedLibrary,
                                             path, "", options)) {
      error = llvm::toString(std::move(e));
      return;
    }
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      error = dlerror();
      return;
    }
    auto create = reinterpret_cast<void *(*)()>(dlsym(handle, "seqc_model_create"));
    runModel = reinterpret_cast<Run>(dlsym(handle, "seqc_model_run"));
    destroy = reinterpret_cast<void (*)(void *)>(dlsym(handle, "seqc_model_destroy"));
    model = create && runModel && destroy ? create() : nullptr;
    if (!model)
      error = "the library's C API did not create a model";
  }
  ~AotLibrary() {
    if (model)
      destroy(model);
    if (handle)
      dlclose(handle);
  }
  AotLibrary(const AotLibrary &) = delete;
  AotLibrary &operator=(const AotLibrary &) = delete;

  /// seqc_model_run's status (0: SEQC_OK).
  int run(const float *x, int64_t batch, int64_t seqLen, float *y) {
    return runModel(model, x, batch, seqLen, y);
  }

  std::string error;

private:
  using Run = int (*)(void *, const float *, int64_t, int64_t, float *);
  void *handle = nullptr, *model = nullptr;
  Run runModel = nullptr;
  void (*destroy)(void *) = nullptr;
};

} // namespace seq::test

#endif

// The engine "aot": the model built as the shared library a user would get
// from `seq-compile model.h5 -o libmodel.so`, loaded with dlopen and run
// through its C API. So --run/--compare exercise the shipped artifact.
#include "seq/Target/CPU/AotCompiler.h"

#include "AotSupport.h"
#include "ModelSignature.h"

#include <dlfcn.h>

#include <algorithm>
#include <mutex>

using namespace mlir;
using seq::rt::Tensor;

namespace {

struct Api {
  void *(*createSized)(int64_t, int64_t);
  void (*destroy)(void *);
  int (*run)(void *, const float *, int64_t, int64_t, float *);
  const char *(*lastError)(void *);
  int64_t (*outputSize)(void *, int64_t, int64_t);
  int (*getState)(void *, float *);
  int (*setState)(void *, const float *);
};

class AotEngine final : public seq::rt::Engine {
public:
  AotEngine(void *library, Api api, seq::cpu::ModelSignature signature)
      : library(library), api(api), signature(std::move(signature)) {
    initState(this->signature.state);
  }
  ~AotEngine() override {
    if (instance)
      api.destroy(instance);
    dlclose(library);
  }

  llvm::Expected<Tensor> run(const Tensor &input) override {
    if (llvm::Error e = signature.checkInput(input.shape))
      return std::move(e);
    std::lock_guard<std::mutex> lock(mutex);
    std::lock_guard<std::mutex> stateLock(stateMutex);
    int64_t batch = input.shape[0];
    int64_t seqLen = input.shape.size() >= 2 ? input.shape[1] : 0;
    // An instance is sized for its largest call; a larger one replaces it.
    if (!instance || batch > maxBatch || seqLen > maxSeqLen) {
      if (instance)
        api.destroy(instance);
      maxBatch = std::max<int64_t>(batch, std::max<int64_t>(maxBatch, 1));
      maxSeqLen = std::max<int64_t>(seqLen, std::max<int64_t>(maxSeqLen, 1));
      instance = api.createSized(maxBatch, maxSeqLen);
      if (!instance) {
        maxBatch = maxSeqLen = 0;
        return llvm::createStringError(
            std::string("seqc_model_create_sized failed: ") +
            api.lastError(nullptr));
      }
    }
    int64_t size = api.outputSize(instance, batch, seqLen);
    if (size < 0)
      return llvm::createStringError(std::string("seqc_model_output_size: ") +
                                     api.lastError(instance));
    std::vector<float> output(size);
    // The engine's state is what the library's instance runs from (the
    // engine's may have been set or reset since the last call).
    if (!stateValues.empty() && api.setState(instance, stateValues.data()) != 0)
      return llvm::createStringError(api.lastError(instance));
    if (api.run(instance, input.data.data(), batch, seqLen, output.data()) != 0)
      return llvm::createStringError(api.lastError(instance));
    if (!stateValues.empty() && api.getState(instance, stateValues.data()) != 0)
      return llvm::createStringError(api.lastError(instance));
    Tensor t;
    t.shape = signature.output;
    t.shape[0] = batch;
    int64_t known = 1;
    int64_t dynamicAxis = -1;
    for (size_t i = 1; i < t.shape.size(); ++i) {
      if (t.shape[i] < 0)
        dynamicAxis = i;
      else
        known *= t.shape[i];
    }
    if (dynamicAxis > 0)
      t.shape[dynamicAxis] = batch && known ? size / (batch * known) : 0;
    t.data = std::move(output);
    return t;
  }

private:
  void *library;
  Api api;
  seq::cpu::ModelSignature signature;
  std::mutex mutex;
  void *instance = nullptr;
  int64_t maxBatch = 0, maxSeqLen = 0;
};

template <typename Fn>
llvm::Error resolve(void *library, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (!fn)
    return llvm::createStringError(std::string("the AOT library has no ") + name);
  return llvm::Error::success();
}

llvm::Error resolveApi(void *library, Api &api) {
  if (llvm::Error e = resolve(library, "seqc_model_create_sized", api.createSized))
    return e;
  if (llvm::Error e = resolve(library, "seqc_model_destroy", api.destroy))
    return e;
  if (llvm::Error e = resolve(library, "seqc_model_run", api.run))
    return e;
  if (llvm::Error e = resolve(library, "seqc_last_error", api.lastError))
    return e;
  if (llvm::Error e = resolve(library, "seqc_model_get_state", api.getState))
    return e;
  if (llvm::Error e = resolve(library, "seqc_model_set_state", api.setState))
    return e;
  return resolve(library, "seqc_model_output_size", api.outputSize);
}

llvm::Expected<std::unique_ptr<seq::rt::Engine>> createAotEngine(ModuleOp module) {
  llvm::Expected<seq::cpu::ModelSignature> signature =
      seq::cpu::ModelSignature::of(module);
  if (!signature)
    return signature.takeError();
  int dynamicAxes = 0;
  for (size_t i = 1; i < signature->output.size(); ++i)
    dynamicAxes += signature->output[i] < 0;
  if (dynamicAxes > 1)
    return llvm::createStringError("the aot engine needs at most one dynamic "
                                   "output axis besides the batch");
  llvm::Expected<seq::cpu::TempDir> dir = seq::cpu::TempDir::create("seqc-aot-engine");
  if (!dir)
    return dir.takeError();
  std::string library = dir->file("libmodel.so");
  if (llvm::Error e = seq::cpu::compileAot(module, seq::cpu::AotArtifact::SharedLibrary,
                                           library, dir->file("libmodel.h"), {}))
    return std::move(e);
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return llvm::createStringError(std::string("dlopen: ") + dlerror());
  Api api;
  if (llvm::Error e = resolveApi(handle, api)) {
    dlclose(handle);
    return std::move(e);
  }
  return std::make_unique<AotEngine>(handle, api, std::move(*signature));
}

} // namespace

void seq::registerAotEngine() { rt::registerEngine("aot", createAotEngine); }

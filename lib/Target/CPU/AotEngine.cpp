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
  void *(*createThreaded)(int64_t, int64_t, int);
  void (*destroy)(void *);
  int (*runAll)(void *, const float *const *, int64_t, const int64_t *,
                float *const *);
  const char *(*lastError)(void *);
  int (*outputShapeOf)(void *, int, int64_t, const int64_t *, int64_t *);
  int (*getState)(void *, float *);
  int (*setState)(void *, const float *);
};

class AotEngine final : public seq::rt::Engine {
public:
  AotEngine(void *library, Api api, seq::cpu::ModelSignature signature,
            int threads)
      : library(library), api(api), signature(std::move(signature)),
        threads(threads) {
    initIO(this->signature.io);
  }
  ~AotEngine() override {
    if (instance)
      api.destroy(instance);
    dlclose(library);
  }

  llvm::Expected<std::vector<Tensor>>
  execute(llvm::ArrayRef<seq::rt::TensorView> inputs) override {
    std::lock_guard<std::mutex> lock(mutex);
    std::lock_guard<std::mutex> stateLock(stateMutex);
    int64_t batch = inputs[0].shape[0];
    std::vector<int64_t> seqLens;
    std::vector<const float *> inputData;
    int64_t longest = 0;
    for (auto [port, input] : llvm::zip(signature.io.inputs, inputs)) {
      bool dynamic = port.shape.size() >= 2 && port.shape[1] < 0;
      seqLens.push_back(dynamic ? input.shape[1] : 0);
      longest = std::max(longest, seqLens.back());
      inputData.push_back(input.data);
    }
    // An instance (with its pool of threads) is sized for its largest call;
    // a larger one replaces it.
    if (!instance || batch > maxBatch || longest > maxSeqLen) {
      if (instance)
        api.destroy(instance);
      maxBatch = std::max<int64_t>(batch, std::max<int64_t>(maxBatch, 1));
      maxSeqLen = std::max<int64_t>(longest, std::max<int64_t>(maxSeqLen, 1));
      instance = api.createThreaded(maxBatch, maxSeqLen, threads);
      if (!instance) {
        maxBatch = maxSeqLen = 0;
        return llvm::createStringError(
            std::string("seqc_model_create_threaded failed: ") +
            api.lastError(nullptr));
      }
    }
    std::vector<Tensor> outputs;
    std::vector<float *> outputData;
    for (auto [k, port] : llvm::enumerate(signature.io.outputs)) {
      Tensor t;
      t.shape.resize(port.shape.size());
      if (api.outputShapeOf(instance, k, batch, seqLens.data(), t.shape.data()) != 0)
        return llvm::createStringError(api.lastError(instance));
      t.data.resize(t.numElements());
      outputs.push_back(std::move(t));
    }
    // An empty output's vector may hold no buffer; the library takes no
    // NULL, and writes nothing to an empty port.
    static float nothing;
    for (Tensor &t : outputs)
      outputData.push_back(t.data.empty() ? &nothing : t.data.data());
    // The engine's state is what the library's instance runs from (the
    // engine's may have been set or reset since the last call).
    if (!stateValues.empty() && api.setState(instance, stateValues.data()) != 0)
      return llvm::createStringError(api.lastError(instance));
    if (api.runAll(instance, inputData.data(), batch, seqLens.data(),
                   outputData.data()) != 0)
      return llvm::createStringError(api.lastError(instance));
    if (!stateValues.empty() && api.getState(instance, stateValues.data()) != 0)
      return llvm::createStringError(api.lastError(instance));
    return outputs;
  }

private:
  void *library;
  Api api;
  seq::cpu::ModelSignature signature;
  std::mutex mutex;
  int threads;
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
  if (llvm::Error e =
          resolve(library, "seqc_model_create_threaded", api.createThreaded))
    return e;
  if (llvm::Error e = resolve(library, "seqc_model_destroy", api.destroy))
    return e;
  if (llvm::Error e = resolve(library, "seqc_model_run_all", api.runAll))
    return e;
  if (llvm::Error e = resolve(library, "seqc_last_error", api.lastError))
    return e;
  if (llvm::Error e = resolve(library, "seqc_model_get_state", api.getState))
    return e;
  if (llvm::Error e = resolve(library, "seqc_model_set_state", api.setState))
    return e;
  return resolve(library, "seqc_model_output_shape_of", api.outputShapeOf);
}

llvm::Expected<std::unique_ptr<seq::rt::Engine>>
createAotEngine(ModuleOp module, const seq::rt::EngineOptions &options) {
  llvm::Expected<seq::cpu::ModelSignature> signature =
      seq::cpu::ModelSignature::of(module);
  if (!signature)
    return signature.takeError();
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
  return std::make_unique<AotEngine>(handle, api, std::move(*signature),
                                     options.threads);
}

} // namespace

void seq::registerAotEngine() { rt::registerEngine("aot", createAotEngine); }

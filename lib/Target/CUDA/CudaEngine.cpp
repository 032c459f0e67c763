#include "seq/Target/CUDA/CudaEngine.h"

#include "seq/Target/CUDA/CudaSystem.h"
#include "seq/Target/CUDA/CudaToolchain.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <dlfcn.h>
#include <optional>

using namespace llvm;

namespace seq::cuda {
namespace {

Error error(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// The generated library's C API (runtime/seqc_model.h.in), via dlsym.
struct ModelApi {
  void *(*createSized)(int64_t, int64_t);
  void (*destroy)(void *);
  int (*runAll)(void *, const float *const *, int64_t, const int64_t *, float *const *);
  const char *(*lastError)(void *);
  int (*outputRankOf)(int);
  int (*outputShapeOf)(void *, int, int64_t, const int64_t *, int64_t *);
  int (*getState)(void *, float *);
  int (*setState)(void *, const float *);
};

/// Rows per call of the library; larger inputs run in chunks.
constexpr int64_t kChunkRows = 256;

class CudaEngine : public rt::Engine {
public:
  CudaEngine(std::string dir, void *library, ModelApi api, ModelIO io)
      : dir(std::move(dir)), library(library), api(api) {
    initIO(std::move(io));
  }

  ~CudaEngine() override {
    if (model)
      api.destroy(model);
    if (library)
      dlclose(library);
    sys::fs::remove_directories(dir);
  }

  /// The inputs fit io() (Engine::runAll checked them): every port through
  /// seqc_model_run_all, in chunks of rows.
  Expected<std::vector<rt::Tensor>> execute(ArrayRef<rt::TensorView> inputs) override {
    const ModelIO &ports = io();
    int64_t batch = inputs.front().shape[0];
    // A fixed batch (a stateful model's) is the one batch every call takes.
    int64_t fixedBatch = ports.inputs.front().shape[0];
    if (fixedBatch >= 0 && batch != fixedBatch)
      return error("the model runs only its fixed batch of " + Twine(fixedBatch) +
                   ", got " + inputs.front().shapeString());
    std::vector<int64_t> seqLens;
    int64_t longest = 0;
    for (auto [k, port] : llvm::enumerate(ports.inputs)) {
      seqLens.push_back(port.steps() < 0 ? inputs[k].shape[1] : 0);
      longest = std::max(longest, seqLens.back());
    }
    int64_t chunk = fixedBatch >= 0 ? fixedBatch
                                    : std::min(std::max<int64_t>(batch, 1), kChunkRows);
    if (Error e = reserve(chunk, longest))
      return std::move(e);

    std::vector<rt::Tensor> outputs;
    std::vector<int64_t> rowOut;
    for (size_t k = 0; k < ports.outputs.size(); ++k) {
      std::vector<int64_t> shape(api.outputRankOf(k));
      if (api.outputShapeOf(model, k, chunk, seqLens.data(), shape.data()))
        return error(api.lastError(model));
      int64_t perRow = 1;
      for (size_t i = 1; i < shape.size(); ++i)
        perRow *= shape[i];
      rowOut.push_back(perRow);
      shape[0] = batch;
      outputs.push_back(rt::Tensor::zeros(shape));
    }
    std::lock_guard<std::mutex> lock(stateMutex);
    // The library's instance runs from the engine's state (which may have
    // been set or reset since the last call) and leaves its new one there.
    if (!stateValues.empty() && api.setState(model, stateValues.data()))
      return error(api.lastError(model));
    std::vector<const float *> in(inputs.size());
    std::vector<float *> out(outputs.size());
    for (int64_t first = 0; first < batch; first += chunk) {
      int64_t rows = std::min(chunk, batch - first);
      for (auto [k, x] : llvm::enumerate(inputs))
        in[k] = x.data + first * (x.numElements() / batch);
      for (size_t k = 0; k < outputs.size(); ++k)
        out[k] = outputs[k].data.data() + first * rowOut[k];
      if (api.runAll(model, in.data(), rows, seqLens.data(), out.data()))
        return error(api.lastError(model));
    }
    if (!stateValues.empty() && api.getState(model, stateValues.data()))
      return error(api.lastError(model));
    return outputs;
  }

private:
  /// An instance whose memory fits `rows` and `seqLen`, created (once per
  /// growth, never per call) with seqc_model_create_sized.
  Error reserve(int64_t rows, int64_t seqLen) {
    if (model && rows <= maxRows && seqLen <= maxSeqLen)
      return Error::success();
    if (model)
      api.destroy(model);
    maxRows = std::max(maxRows, rows);
    maxSeqLen = std::max<int64_t>({maxSeqLen, seqLen, 1});
    model = api.createSized(maxRows, maxSeqLen);
    if (!model)
      return error(api.lastError(nullptr));
    return Error::success();
  }

  std::string dir;
  void *library;
  ModelApi api;
  void *model = nullptr;
  int64_t maxRows = 0, maxSeqLen = 0;
};

template <typename Fn> bool resolve(void *library, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

/// Builds the model's library in a new temporary directory (on a GPU with
/// nvcc, or for the CPU simulation) and loads it.
Expected<std::unique_ptr<rt::Engine>> loadCudaEngine(mlir::ModuleOp module,
                                                     const CudaEmitOptions &options,
                                                     bool simulate) {
  std::string backend = simulate                                   ? "cuda-sim"
                        : options.rnnBackend == RnnBackend::Cudnn ? "cudnn"
                                                                  : "cuda";
  std::optional<NvccInfo> nvcc;
  std::vector<std::string> archs;
  if (!simulate) {
    SystemProbe gpus = probeGpus();
    if (gpus.gpus.empty())
      return error("the " + backend + " engine needs an NVIDIA GPU: " + gpus.gpuProblem +
                   " (see seq-compile --doctor; --engine=cuda-sim runs its code in a CPU "
                   "simulation)");
    Expected<NvccInfo> found = findNvcc();
    if (!found)
      return found.takeError();
    nvcc = *found;
    const GpuInfo &gpu = gpus.gpus.front();
    archs = {"sm_" + std::to_string(gpu.major) + std::to_string(gpu.minor)};
  }

  SmallString<128> dir;
  if (std::error_code ec = sys::fs::createUniqueDirectory("seqc-cuda-engine", dir))
    return error("cannot create a temporary directory: " + ec.message());
  auto cleanup = [&](Error e) -> Expected<std::unique_ptr<rt::Engine>> {
    sys::fs::remove_directories(dir);
    return std::move(e);
  };
  Expected<CudaLibrary> library = simulate
                                      ? buildSimulatedCudaLibrary(module, options, dir)
                                      : buildCudaLibrary(module, options, *nvcc, archs, dir);
  if (!library)
    return cleanup(library.takeError());
  void *handle = dlopen(library->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return cleanup(error(describeLoaderError(why ? why : "dlopen failed")));
  }
  ModelApi api;
  if (!resolve(handle, "seqc_model_create_sized", api.createSized) ||
      !resolve(handle, "seqc_model_destroy", api.destroy) ||
      !resolve(handle, "seqc_model_run_all", api.runAll) ||
      !resolve(handle, "seqc_last_error", api.lastError) ||
      !resolve(handle, "seqc_model_output_rank_of", api.outputRankOf) ||
      !resolve(handle, "seqc_model_output_shape_of", api.outputShapeOf) ||
      !resolve(handle, "seqc_model_get_state", api.getState) ||
      !resolve(handle, "seqc_model_set_state", api.setState)) {
    dlclose(handle);
    return cleanup(error("the built library lacks the seqc C API"));
  }
  // Fail early (no GPU kernel image, cuDNN version, ...) with a small
  // instance: one row, but the longest sequence the library plans for (a
  // model that crops or slides a window over a time axis of any length
  // refuses shorter ones).
  void *probe = api.createSized(1, options.maxSeqLen);
  if (!probe) {
    std::string why = api.lastError(nullptr);
    dlclose(handle);
    return cleanup(error("the " + backend + " engine: " + why));
  }
  api.destroy(probe);
  Expected<ModelIO> io =
      seq::modelIO(module.lookupSymbol<mlir::func::FuncOp>("predict"));
  if (!io) {
    dlclose(handle);
    return cleanup(io.takeError());
  }
  return std::make_unique<CudaEngine>(dir.str().str(), handle, api, std::move(*io));
}

} // namespace

Expected<std::unique_ptr<rt::Engine>> createCudaEngine(mlir::ModuleOp module,
                                                       const CudaEmitOptions &options) {
  return loadCudaEngine(module, options, /*simulate=*/false);
}

void registerCudaEngines() {
  rt::registerEngine("cuda", [](mlir::ModuleOp module, const rt::EngineOptions &) {
    return createCudaEngine(module, CudaEmitOptions());
  });
  rt::registerEngine("cudnn", [](mlir::ModuleOp module, const rt::EngineOptions &) {
    CudaEmitOptions options;
    options.rnnBackend = RnnBackend::Cudnn;
    options.convBackend = ConvBackend::Cudnn;
    return createCudaEngine(module, options);
  });
  // The cuda engine's code in the CPU simulation: slow, for checking a
  // model's CUDA path where there is no GPU.
  rt::registerEngine("cuda-sim", [](mlir::ModuleOp module, const rt::EngineOptions &) {
    return loadCudaEngine(module, CudaEmitOptions(), /*simulate=*/true);
  });
}

} // namespace seq::cuda

// Every good fixture through the "cuda" engine (fused kernels) and, where
// cuDNN can express the model, the "cudnn" engine: outputs must match
// Keras' own within 1e-4. Needs an NVIDIA GPU and nvcc; skipped otherwise.
// The libraries are built in parallel (nvcc is the slow part); the runs
// take turns on the GPU.
#include "seq/Frontend/Keras/Importer.h"
#include "seq/Runtime/Npy.h"
#include "seq/Target/CUDA/CudaEngine.h"
#include "seq/Target/CUDA/CudaSystem.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

using namespace seq;

namespace {

struct Fixture {
  std::string name, model, config;
};

std::vector<Fixture> goodFixtures() {
  std::vector<Fixture> fixtures;
  auto text = llvm::MemoryBuffer::getFile(SEQ_FIXTURES_DIR "/manifest.json");
  if (!text)
    return fixtures;
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*text)->getBuffer());
  if (!json) {
    llvm::consumeError(json.takeError());
    return fixtures;
  }
  for (const llvm::json::Value &f : *json->getAsObject()->getArray("fixtures")) {
    const llvm::json::Object &o = *f.getAsObject();
    Fixture fx;
    fx.name = o.getString("name")->str();
    fx.model = o.getString("model")->str();
    if (std::optional<llvm::StringRef> config = o.getString("config"))
      fx.config = config->str();
    fixtures.push_back(fx);
  }
  return fixtures;
}

std::string path(const std::string &file) { return SEQ_FIXTURES_DIR "/" + file; }

/// "" when the engine's output matches, else what went wrong.
std::string check(mlir::ModuleOp module, cuda::RnnBackend backend, const rt::Tensor &input,
                  const rt::Tensor &expected, std::mutex &gpu, bool &refused) {
  cuda::CudaEmitOptions options;
  options.rnnBackend = backend;
  llvm::Expected<std::unique_ptr<rt::Engine>> engine = cuda::createCudaEngine(module, options);
  if (!engine) {
    std::string why = llvm::toString(engine.takeError());
    // cuDNN's fixed cell cannot express every model; that refusal is a result.
    refused = backend == cuda::RnnBackend::Cudnn && why.find("--rnn-backend=cudnn") != std::string::npos;
    return refused ? "" : why;
  }
  std::lock_guard<std::mutex> lock(gpu);
  llvm::Expected<rt::Tensor> output = (*engine)->run(input);
  if (!output)
    return llvm::toString(output.takeError());
  if (output->shape != expected.shape)
    return "output shape " + output->shapeString() + ", expected " + expected.shapeString();
  double worst = 0;
  for (size_t i = 0; i < expected.data.size(); ++i) {
    double e = std::fabs(double(output->data[i]) - expected.data[i]);
    worst = std::isnan(e) ? INFINITY : std::max(worst, e);
  }
  if (!(worst <= 1e-4))
    return "max abs error " + std::to_string(worst) + " > 1e-4";
  return "";
}

TEST(CudaFixtures, EveryFixtureMatchesKerasOnTheGpu) {
  cuda::SystemProbe probe = cuda::probeGpus();
  if (probe.gpus.empty())
    GTEST_SKIP() << "no NVIDIA GPU: " << probe.gpuProblem;
  std::vector<Fixture> fixtures = goodFixtures();
  ASSERT_FALSE(fixtures.empty()) << "cannot read " SEQ_FIXTURES_DIR "/manifest.json";

  struct Result {
    std::string fused, cudnn;
    bool cudnnRefused = false;
  };
  std::vector<Result> results(fixtures.size());
  std::atomic<size_t> next{0};
  std::mutex gpu;
  auto worker = [&] {
    for (size_t i; (i = next++) < fixtures.size();) {
      const Fixture &f = fixtures[i];
      mlir::MLIRContext context;
      keras::ImportOptions options;
      options.modelPath = path(f.model);
      if (!f.config.empty())
        options.configPath = path(f.config);
      llvm::Expected<keras::ImportedModel> model = keras::importKerasModel(context, options);
      llvm::Expected<rt::Tensor> input = rt::readNpy(path(f.name + ".input.npy"));
      llvm::Expected<rt::Tensor> expected = rt::readNpy(path(f.name + ".expected.npy"));
      if (!model || !input || !expected) {
        results[i].fused = "cannot load the fixture: " +
                           (!model ? llvm::toString(model.takeError()) : std::string()) +
                           (!input ? llvm::toString(input.takeError()) : std::string()) +
                           (!expected ? llvm::toString(expected.takeError()) : std::string());
        continue;
      }
      results[i].fused = check(*model->module, cuda::RnnBackend::Fused, *input, *expected, gpu,
                               results[i].cudnnRefused);
      results[i].cudnn = check(*model->module, cuda::RnnBackend::Cudnn, *input, *expected, gpu,
                               results[i].cudnnRefused);
    }
  };
  unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back(worker);
  for (std::thread &t : pool)
    t.join();

  int cudnnRuns = 0;
  for (size_t i = 0; i < fixtures.size(); ++i) {
    EXPECT_EQ(results[i].fused, "") << fixtures[i].name << " (cuda engine)";
    EXPECT_EQ(results[i].cudnn, "") << fixtures[i].name << " (cudnn engine)";
    cudnnRuns += !results[i].cudnnRefused;
  }
  // Most RNN fixtures are LSTM / GRU(reset_after) with default activations.
  EXPECT_GT(cudnnRuns, 40);
}

} // namespace

//===- keras_import.cpp - Fuzz the Keras importer on configs --------------===//
//
// The whole importer past the file readers: a model config (Keras 1, 2 or 3,
// Sequential or Functional) with weights of the shapes the input names,
// through importModelSource (the config's translation and parsing, weight
// checks, every layer emitter, the graph's wiring), then the module's
// verifier, the fusion pipeline and the conversion to linalg that every
// compile runs, each verified after it. The input is JSON:
//
//   {"config": {...model.to_json()...}, "keras_version": "2.15.0",
//    "backend": "tensorflow", "keras3": false,
//    "weights": {"dense": [[12, 4], [4]], ...}}
//
// Each named layer (or nested layer, by its own name) has arrays of those
// shapes (at most 2^22 floats in all) and fixed positive values; a layer
// not named has none. A stage may refuse a model with an error; one that
// builds IR that does not verify aborts the harness. Mutations are
// structure-aware (JsonMutator.h) three times in four: they change the
// input's values, not its syntax.
//
// With SEQ_FUZZ_LOWER set (campaigns: scripts/fuzz.sh --lower), a module that
// reached linalg goes on through the rest of the CPU lowering, bufferization
// and kernels to the LLVM dialect (a model that gets there takes about 100
// times as long; mutants mostly stop earlier: 4-5 times fewer inputs a second).
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "JsonMutator.h"
#include "KerasConfig.h"
#include "ModelSource.h"

#include "seq/Conversion/Passes.h"
#include "seq/Dialect/Seq/Transforms/Pipelines.h"
#include "seq/Target/CPU/Pipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

using namespace seq;
using namespace seq::keras;

namespace {

constexpr int64_t kMaxWeightFloats = int64_t(1) << 22;
constexpr size_t kMaxRank = 8;

/// The arrays the input names for each layer, read once per layer.
class SynthesizedWeights : public WeightStore {
public:
  explicit SynthesizedWeights(const llvm::json::Object *shapes) : shapes(shapes) {}

  llvm::Expected<std::vector<WeightArray>> read(const LayerConfig &layer) override {
    std::vector<WeightArray> arrays;
    if (!shapes)
      return arrays;
    // A nested model's layer by its scoped name ("inner/dense") or its own.
    std::string name = layer.getName();
    const llvm::json::Array *list = shapes->getArray(name);
    if (!list)
      list = shapes->getArray(llvm::StringRef(name).rsplit('/').second);
    if (!list)
      return arrays;
    for (const llvm::json::Value &entry : *list) {
      const llvm::json::Array *dims = entry.getAsArray();
      if (!dims || dims->size() > kMaxRank)
        return layer.error("fuzz: a weight shape is a list of at most 8 sizes");
      WeightArray array;
      array.name = name + "/" + std::to_string(arrays.size());
      int64_t count = 1;
      for (const llvm::json::Value &dim : *dims) {
        std::optional<int64_t> size = dim.getAsInteger();
        if (!size || *size < 0 || *size > kMaxWeightFloats)
          return layer.error("fuzz: a weight size is an integer in [0, 2^22]");
        array.shape.push_back(*size);
        count *= *size;
        if (count > kMaxWeightFloats)
          break;
      }
      if (count > kMaxWeightFloats - used)
        return layer.error("fuzz: more than 2^22 weight floats");
      used += count;
      array.data.resize(count);
      for (int64_t i = 0; i < count; ++i)
        array.data[i] = static_cast<float>(i % 7 + 1) * 0.125f; // variances too
      arrays.push_back(std::move(array));
    }
    return arrays;
  }

private:
  const llvm::json::Object *shapes;
  int64_t used = 0;
};

/// Aborts, printing the module, where `stage` built IR that does not verify.
void mustVerify(mlir::ModuleOp module, const char *stage) {
  if (mlir::succeeded(mlir::verify(module)))
    return;
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  std::fprintf(stderr, "%s built a module that does not verify:\n%s\n", stage, text.c_str());
  std::abort();
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned seed) {
  return fuzz::mutateJson(data, size, maxSize, seed);
}

static bool lowerToLLVM = false;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fuzz::setReaderTimeout();
  lowerToLLVM = std::getenv("SEQ_FUZZ_LOWER") != nullptr;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto root = parseModelJson(llvm::StringRef(reinterpret_cast<const char *>(data), size),
                             "fuzz.json", "fuzz input");
  if (!fuzz::check(root))
    return 0;
  const llvm::json::Object *input = root->getAsObject();
  const llvm::json::Value *config = input ? input->get("config") : nullptr;
  if (!config)
    return 0;
  ModelSource source;
  source.path = "fuzz.json";
  source.format = "json+weights";
  source.config = *config;
  source.kerasVersion = input->getString("keras_version").value_or("").str();
  source.backend = input->getString("backend").value_or("").str();
  source.keras3Layout = input->getBoolean("keras3").value_or(false);
  source.suppliedWeights = std::make_unique<SynthesizedWeights>(input->getObject("weights"));

  mlir::MLIRContext context;
  context.disableMultithreading();
  if (lowerToLLVM) {
    mlir::DialectRegistry registry;
    seq::cpu::registerPipelineDialects(registry);
    context.appendDialectRegistry(registry);
  }
  // Diagnostics are part of a refusal: they must not reach stderr.
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  ImportOptions options;
  options.modelPath = "fuzz.json";
  auto model = importModelSource(context, source, options);
  if (!fuzz::check(model))
    return 0;
  mlir::ModuleOp module = model->module.get();
  mustVerify(module, "the importer");
  // What every compile runs next, each stage's output verified (a stage may
  // refuse with an error; it may not build invalid IR).
  mlir::PassManager fuse(&context);
  fuse.enableVerifier(false);
  buildFusePipeline(fuse);
  if (mlir::failed(fuse.run(module)))
    return 0;
  mustVerify(module, "the fusion pipeline");
  mlir::PassManager lower(&context);
  lower.enableVerifier(false);
  lower.addPass(createConvertSeqToLinalg());
  if (mlir::failed(lower.run(module)))
    return 0;
  mustVerify(module, "--seq-to-linalg");
  if (!lowerToLLVM)
    return 0;
  // The same pipeline every compile runs; --seq-to-linalg finds nothing left.
  if (llvm::Error error = seq::cpu::lowerToLLVMDialect(module, /*fuse=*/false))
    fuzz::consume(std::move(error));
  else
    mustVerify(module, "the CPU lowering");
  return 0;
}

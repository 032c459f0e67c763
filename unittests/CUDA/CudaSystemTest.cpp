// The parts of the CUDA backend that need no GPU: nvcc version parsing,
// --cuda-arch parsing, loader-error messages, --doctor verdicts and the
// generated header.
#include "seq/Target/CUDA/CudaEmitter.h"
#include "seq/Target/CUDA/CudaSystem.h"
#include "seq/Target/CUDA/CudaToolchain.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace seq::cuda;

namespace {

TEST(CudaToolchain, ParsesNvccVersion) {
  NvccInfo info;
  ASSERT_TRUE(parseNvccVersion("nvcc: NVIDIA (R) Cuda compiler driver\n"
                               "Cuda compilation tools, release 13.0, V13.0.88\n",
                               info));
  EXPECT_EQ(info.major, 13);
  EXPECT_EQ(info.minor, 0);
  EXPECT_EQ(info.version, "13.0.88");
  ASSERT_TRUE(parseNvccVersion("Cuda compilation tools, release 11.8", info));
  EXPECT_EQ(info.version, "11.8");
  EXPECT_FALSE(parseNvccVersion("gcc (Debian 12.2.0-14) 12.2.0", info));
}

TEST(CudaToolchain, ParsesCudaArchs) {
  llvm::Expected<std::vector<std::string>> archs = parseCudaArchs("sm_90, 80,sm_90");
  ASSERT_TRUE(bool(archs)) << llvm::toString(archs.takeError());
  EXPECT_EQ(*archs, (std::vector<std::string>{"sm_80", "sm_90"}));
  for (const char *bad : {"", "sm_5", "compute_80", "sm_60", "sm_x"}) {
    llvm::Expected<std::vector<std::string>> rejected = parseCudaArchs(bad);
    ASSERT_FALSE(bool(rejected)) << bad;
    EXPECT_NE(llvm::toString(rejected.takeError()).find("--cuda-arch"), std::string::npos);
  }
}

TEST(CudaToolchain, NvccArgumentsBuildEveryArchAndPtxOfTheNewest) {
  NvccBuild build;
  build.archs = {"sm_80", "sm_90"};
  std::string line = llvm::join(nvccArguments("m.cu", "libm.so", build), " ");
  EXPECT_NE(line.find("-gencode arch=compute_80,code=sm_80"), std::string::npos) << line;
  EXPECT_NE(line.find("-gencode arch=compute_90,code=sm_90"), std::string::npos) << line;
  EXPECT_NE(line.find("arch=compute_90,code=compute_90"), std::string::npos) << line;
  EXPECT_NE(line.find("-shared"), std::string::npos);
  EXPECT_NE(line.find("--threads 0"), std::string::npos) << line;
  EXPECT_EQ(line.find("-lcudnn"), std::string::npos);
  EXPECT_EQ(line.find("SEQC_RUNTIME_LINKED"), std::string::npos) << line;
  build.cudnn = true;
  EXPECT_NE(llvm::join(nvccArguments("m.cu", "libm.so", build), " ").find("-lcudnn"),
            std::string::npos);
  // With the runtime compiled once, the .cu leaves its own copy out.
  build.runtimeObject = "cache/cuda-runtime-1.o";
  line = llvm::join(nvccArguments("m.cu", "libm.so", build), " ");
  EXPECT_NE(line.find("m.cu -DSEQC_RUNTIME_LINKED cache/cuda-runtime-1.o"), std::string::npos)
      << line;
}

TEST(CudaSystem, LoaderErrorsNameTheVersionNeeded) {
  std::string cudnn =
      describeLoaderError("libcudnn.so.9: cannot open shared object file: No such file or directory");
  EXPECT_EQ(cudnn.rfind("libcudnn.so.9 not found: the cuDNN backend needs cuDNN 9 (built against ", 0),
            0u)
      << cudnn;
  std::string driver = describeLoaderError("libcuda.so.1: cannot open shared object file");
  EXPECT_NE(driver.find("needs an NVIDIA driver for CUDA"), std::string::npos) << driver;
  std::string runtime = describeLoaderError("libcudart.so.13: cannot open shared object file");
  EXPECT_NE(runtime.find("needs the CUDA"), std::string::npos) << runtime;
  EXPECT_EQ(describeLoaderError("undefined symbol: foo"), "undefined symbol: foo");
}

TEST(CudaSystem, VersionTexts) {
  EXPECT_EQ(cudartVersionText(13000), "13.0");
  EXPECT_EQ(cudartVersionText(12080), "12.8");
  EXPECT_EQ(cudnnVersionText(91900), "9.19.0");
  EXPECT_EQ(cudnnVersionText(8907), "8.9.7");
  EXPECT_EQ(cudnnVersionText(0), "none");
}

SystemProbe machineWithGpu() {
  SystemProbe p;
  p.driver.found = true;
  p.driver.version = 13000;
  p.driverVersion = "580.65.06";
  p.cudnn.found = true;
  p.cudnn.version = 91900;
  p.cudart.found = true;
  p.cudart.version = 13000;
  NvccInfo nvcc;
  nvcc.path = "/usr/local/cuda/bin/nvcc";
  nvcc.version = "13.0.88";
  nvcc.major = 13;
  p.nvcc = nvcc;
  p.gpus.push_back({"NVIDIA H200", 9, 0, 150ull << 30});
  return p;
}

TEST(CudaSystem, VerdictsWithAGpu) {
  std::vector<BackendVerdict> v = backendVerdicts(machineWithGpu(), {"eager"});
  ASSERT_EQ(v.size(), 3u);
  for (const BackendVerdict &b : v)
    EXPECT_TRUE(b.usable) << b.name << ": " << b.reason;
}

TEST(CudaSystem, VerdictsSayWhatIsMissing) {
  SystemProbe noDriver = machineWithGpu();
  noDriver.driver = LibraryProbe();
  noDriver.gpus.clear();
  std::vector<BackendVerdict> v = backendVerdicts(noDriver, {});
  EXPECT_TRUE(v[0].usable);
  EXPECT_FALSE(v[1].usable);
  EXPECT_NE(v[1].reason.find("no NVIDIA driver"), std::string::npos) << v[1].reason;
  EXPECT_FALSE(v[2].usable);

  SystemProbe oldDriver = machineWithGpu();
  oldDriver.driver.version = 12040;
  v = backendVerdicts(oldDriver, {});
  EXPECT_FALSE(v[1].usable);
  EXPECT_NE(v[1].reason.find("supports CUDA 12.4"), std::string::npos) << v[1].reason;

  SystemProbe noCudnn = machineWithGpu();
  noCudnn.cudnn = LibraryProbe();
  v = backendVerdicts(noCudnn, {});
  EXPECT_TRUE(v[1].usable);
  EXPECT_FALSE(v[2].usable);
  EXPECT_NE(v[2].reason.find("libcudnn.so.9 not found"), std::string::npos) << v[2].reason;

  SystemProbe oldCudnn = machineWithGpu();
  oldCudnn.cudnn.version = 8907;
  v = backendVerdicts(oldCudnn, {});
  EXPECT_FALSE(v[2].usable);
  EXPECT_NE(v[2].reason.find("cuDNN 8.9.7 found"), std::string::npos) << v[2].reason;

  SystemProbe oldGpu = machineWithGpu();
  oldGpu.gpus = {{"Tesla V100", 7, 0, 16ull << 30}};
  v = backendVerdicts(oldGpu, {});
  EXPECT_FALSE(v[1].usable);
  EXPECT_NE(v[1].reason.find("--cuda-arch=sm_70"), std::string::npos) << v[1].reason;

  SystemProbe noNvcc = machineWithGpu();
  noNvcc.nvcc.reset();
  noNvcc.nvccProblem = "nvcc not found";
  v = backendVerdicts(noNvcc, {});
  EXPECT_FALSE(v[1].usable);
  EXPECT_NE(v[1].reason.find("nvcc not found"), std::string::npos);
}

TEST(CudaSystem, DoctorReportListsEverything) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printDoctorReport(machineWithGpu(), {"eager", "jit"}, os);
  for (const char *line : {"NVIDIA driver: 580.65.06, supports CUDA 13.0", "CUDA runtime: found 13.0",
                           "cuDNN: found 9.19.0", "nvcc: 13.0.88",
                           "GPU 0: NVIDIA H200, compute capability 9.0, 150.0 GiB",
                           "cpu   yes", "cuda  yes", "cudnn yes"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
}

TEST(CudaSystem, ProbingNeverFails) {
  // Whatever this machine has, probing returns and the report prints.
  SystemProbe p = probeSystem();
  std::string text;
  llvm::raw_string_ostream os(text);
  printDoctorReport(p, {}, os);
  EXPECT_NE(text.find("Backends:"), std::string::npos);
  EXPECT_EQ(p.gpus.empty(), !p.gpuProblem.empty());
}

TEST(CudaModelHeader, DeclaresTheSeqcApi) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::func::FuncDialect>();
  mlir::OpBuilder b(&context);
  auto module = mlir::ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module.getBody());
  auto f32 = b.getF32Type();
  auto type = b.getFunctionType({mlir::RankedTensorType::get({mlir::ShapedType::kDynamic, 10, 12}, f32)},
                                {mlir::RankedTensorType::get({mlir::ShapedType::kDynamic, 1}, f32)});
  mlir::func::FuncOp::create(b, b.getUnknownLoc(), "predict", type);
  std::string header = cudaModelHeader(module, "libseed.h", "libseed.so", "sm_80,sm_90", false);
  for (const char *decl :
       {"#ifndef SEQC_LIBSEED_H", "input:  [?, 10, 12]", "output: [?, 1]", "CUDA sm_80,sm_90",
        "seqc_model *seqc_model_create(void);",
        "seqc_model *seqc_model_create_sized(int64_t max_batch, int64_t max_seq_len);",
        "int seqc_model_run(seqc_model *model, const float *input, int64_t batch,",
        "const char *seqc_last_error(seqc_model *model);",
        "int64_t seqc_model_output_size(seqc_model *model, int64_t batch,",
        "int64_t seqc_model_max_batch(seqc_model *model);", "int seqc_model_input_rank(void);",
        "const char *seqc_model_metadata_json(void);", "SEQC_ERROR_DEVICE = 4"})
    EXPECT_NE(header.find(decl), std::string::npos) << decl;
  module->erase();
}

} // namespace

// The CUDA backend's flags:
//
//   seq-compile model.h5 --target=cuda -o libmodel_cuda.so   (+ libmodel_cuda.h)
//   seq-compile model.h5 --target=cuda --emit=cuda -o model.cu
//       [--rnn-backend=fused|cudnn] [--cuda-arch=sm_80,sm_90] [--nvcc=PATH]
//       [--cuda-max-batch=N] [--cuda-max-seq-len=N]
//   seq-compile --doctor
//
// and the "cuda" / "cudnn" engines for --run and --compare.
#include "Actions.h"
#include "Mode.h"

#include "seq/Runtime/OutputFile.h"

#include "seq/Runtime/Engine.h"
#include "seq/Target/CUDA/CudaEmitter.h"
#include "seq/Target/CUDA/CudaEngine.h"
#include "seq/Target/CUDA/CudaSystem.h"
#include "seq/Target/CUDA/CudaToolchain.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::opt<bool> doctor("doctor",
                     cl::desc("Print the NVIDIA driver, CUDA, cuDNN, nvcc and GPUs found, and "
                              "which backends can run here"),
                     cl::cat(seqc::seqCompileCategory));
cl::opt<seq::cuda::RnnBackend> rnnBackend(
    "rnn-backend", cl::desc("--target=cuda: how LSTM/GRU layers run"),
    cl::values(clEnumValN(seq::cuda::RnnBackend::Fused, "fused",
                          "seqc's persistent fused kernels (default)"),
               clEnumValN(seq::cuda::RnnBackend::Cudnn, "cudnn",
                          "cudnnRNNForward (cuDNN 9; LSTM and GRU reset_after=True)")),
    cl::init(seq::cuda::RnnBackend::Fused), cl::cat(seqc::seqCompileCategory));
cl::opt<seq::cuda::ConvBackend> convBackend(
    "conv-backend", cl::desc("--target=cuda: how Conv1D/2D/3D layers run"),
    cl::values(clEnumValN(seq::cuda::ConvBackend::Direct, "direct",
                          "seqc's direct convolution kernels (default)"),
               clEnumValN(seq::cuda::ConvBackend::Cudnn, "cudnn",
                          "cudnnConvolutionForward (cuDNN 9)"),
               clEnumValN(seq::cuda::ConvBackend::Auto, "auto",
                          "whichever of the two is faster on the GPU for the input's shape "
                          "(timed at its first call)")),
    cl::init(seq::cuda::ConvBackend::Direct), cl::cat(seqc::seqCompileCategory));
cl::opt<seq::cuda::GemmMath> cudaMath(
    "cuda-math",
    cl::desc("--target=cuda: the arithmetic of Dense layers and recurrent input projections"),
    cl::values(clEnumValN(seq::cuda::GemmMath::Fp32, "fp32", "exact float32 (default)"),
               clEnumValN(seq::cuda::GemmMath::Tf32, "tf32",
                          "tensor cores in TF32 on compute capability 8.0+ (operands "
                          "rounded to 10 mantissa bits: about 1e-3 relative)"),
               clEnumValN(seq::cuda::GemmMath::Bf16, "bf16",
                          "tensor cores in BF16 on compute capability 8.0+ (operands "
                          "rounded to 7 mantissa bits: about 1e-2 relative)")),
    cl::init(seq::cuda::GemmMath::Fp32), cl::cat(seqc::seqCompileCategory));
cl::opt<std::string> cudaArch("cuda-arch",
                              cl::desc("--target=cuda: GPU architectures to build for"),
                              cl::value_desc("sm_80,sm_90"), cl::init("sm_80,sm_90"),
                              cl::cat(seqc::seqCompileCategory));
cl::opt<std::string> nvccPath("nvcc", cl::desc("--target=cuda: the nvcc to use"),
                              cl::value_desc("path"), cl::cat(seqc::seqCompileCategory));
cl::opt<int64_t> maxBatch(
    "cuda-max-batch",
    cl::desc("--target=cuda: batch bound of seqc_model_create() (default 64)"),
    cl::value_desc("N"), cl::init(64), cl::cat(seqc::seqCompileCategory));
cl::opt<int64_t> maxSeqLen(
    "cuda-max-seq-len",
    cl::desc("--target=cuda: bound of a dynamic time axis in seqc_model_create() (default 512)"),
    cl::value_desc("N"), cl::init(512), cl::cat(seqc::seqCompileCategory));
cl::opt<std::string> weightsFile(
    "cuda-weights",
    cl::desc("--emit=cuda: write the weights to this file (raw float32) instead of "
             "into the source, which pulls them in with .incbin; a relative path is "
             "resolved from the directory nvcc runs in"),
    cl::value_desc("file"), cl::cat(seqc::seqCompileCategory));
cl::opt<bool> skipFusion("cuda-skip-fusion", cl::Hidden,
                         cl::desc("--target=cuda: emit the layer-level ops as they are"),
                         cl::cat(seqc::seqCompileCategory));

[[maybe_unused]] const bool enginesRegistered = (seq::cuda::registerCudaEngines(), true);

std::optional<int> runDoctor() {
  if (!doctor)
    return std::nullopt;
  seqc::registerEngines();
  std::vector<std::string> engines;
  for (const std::string &name : seq::rt::engineNames())
    if (name != "cuda" && name != "cudnn")
      engines.push_back(name);
  seq::cuda::printDoctorReport(seq::cuda::probeSystem(nvccPath), engines, outs());
  outs().flush();
  return 0;
}


/// libmodel_cuda.so -> libmodel_cuda.h
std::string headerPathFor(StringRef library) {
  SmallString<256> path(library);
  sys::path::replace_extension(path, ".h");
  return path.str().str();
}


std::optional<int> runCuda(seqc::Session &session) {
  if (seqc::plan().mode != seqc::Mode::Compile)
    return std::nullopt;
  bool emitSource = seqc::plan().emit == seqc::Emit::CudaSource;
  if (!emitSource && seqc::plan().emit != seqc::Emit::CudaLibrary)
    return std::nullopt;

  seq::cuda::CudaEmitOptions options;
  options.rnnBackend = rnnBackend;
  options.convBackend = convBackend;
  options.gemmMath = cudaMath;
  options.maxBatch = maxBatch;
  options.maxSeqLen = maxSeqLen;
  options.fuse = !skipFusion;
  if (maxBatch < 1 || maxSeqLen < 1)
    return seqc::fail("--cuda-max-batch and --cuda-max-seq-len must be at least 1", 2);
  Expected<std::vector<std::string>> archs = seq::cuda::parseCudaArchs(cudaArch);
  if (!archs)
    return seqc::fail(toString(archs.takeError()), 2);
  options.builtForArchs = join(*archs, ",");
  mlir::ModuleOp module = *session.model.module;

  if (emitSource) {
    options.weightsFile = weightsFile;
    Expected<seq::cuda::CudaModule> emitted = seq::cuda::emitCudaModule(module, options);
    if (!emitted)
      return seqc::fail(toString(emitted.takeError()));
    if (!weightsFile.empty()) {
      StringRef bytes(reinterpret_cast<const char *>(emitted->weights.data()),
                      emitted->weights.size() * sizeof(float));
      if (Error e = seq::rt::writeOutputFile(
              weightsFile, [&](raw_ostream &out) {
                out << bytes;
                return Error::success();
              }))
        return seqc::fail(toString(std::move(e)));
    }
    return seqc::writeOutput(emitted->source);
  }

  if (seqc::outputPath == "-")
    return seqc::fail("--target=cuda builds a shared library: give -o libmodel.so (or "
                      "--emit=cuda for the CUDA source)",
                      2);
  Expected<seq::cuda::NvccInfo> nvcc = seq::cuda::findNvcc(nvccPath);
  if (!nvcc)
    return seqc::fail(toString(nvcc.takeError()));
  SmallString<128> dir;
  if (std::error_code ec = sys::fs::createUniqueDirectory("seqc-cuda", dir))
    return seqc::fail("cannot create a temporary directory: " + ec.message());
  Expected<seq::cuda::CudaLibrary> library =
      seq::cuda::buildCudaLibrary(module, options, *nvcc, *archs, dir);
  if (!library)
    return seqc::fail(toString(library.takeError())); // the log stays in `dir`
  std::string header = headerPathFor(seqc::outputPath);
  std::string headerText = seq::cuda::cudaModelHeader(
      module, sys::path::filename(header), sys::path::filename(seqc::outputPath),
      options.builtForArchs, library->usesCudnn);
  std::string headerFile = (dir + "/public.h").str();
  Error installed = seq::rt::writeOutputFile(headerFile, [&](raw_ostream &out) {
    out << headerText;
    return Error::success();
  });
  if (!installed)
    installed = seq::rt::installOutputFiles(
        {{library->path, seqc::outputPath}, {headerFile, header}});
  sys::fs::remove_directories(dir);
  if (installed)
    return seqc::fail(toString(std::move(installed)));
  return 0;
}

/// --emit=cuda-runtime: the C API every CUDA library links, which
/// seq-compile compiles once; for building an emitted .cu the same way.
std::optional<int> writeCudaRuntime() {
  if (seqc::plan().mode != seqc::Mode::Compile || seqc::plan().emit != seqc::Emit::CudaRuntime)
    return std::nullopt;
  if (!seqc::inputPath.empty())
    return seqc::fail("--emit=cuda-runtime writes the runtime that every CUDA library links, "
                      "the same for every model: give no model file",
                      2);
  return seqc::writeOutput(seq::cuda::cudaRuntimeSource());
}

seqc::RegisterAction doctorAction(5, seqc::StandaloneAction(runDoctor));
seqc::RegisterAction cudaRuntimeAction(6, seqc::StandaloneAction(writeCudaRuntime));
// Before the CPU backend's action (40), which takes any "-o lib.so".
seqc::RegisterAction cudaAction(30, seqc::ModelAction(runCuda));

} // namespace

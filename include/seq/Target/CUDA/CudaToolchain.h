// Finding nvcc and building an emitted model into a shared library.
#ifndef SEQ_TARGET_CUDA_CUDATOOLCHAIN_H
#define SEQ_TARGET_CUDA_CUDATOOLCHAIN_H

#include "seq/Target/CUDA/CudaEmitter.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace seq::cuda {

/// The oldest nvcc seqc's generated code is written for.
inline constexpr int kMinNvccMajor = 12;

struct NvccInfo {
  std::string path;
  std::string version; ///< "13.0.88"
  int major = 0, minor = 0;
};

/// Finds nvcc: `explicitPath` when given, else $CUDA_HOME/bin/nvcc,
/// $CUDA_PATH/bin/nvcc, nvcc on PATH, then the CUDA found when seqc was
/// built. Runs `nvcc --version` and refuses one older than kMinNvccMajor.
llvm::Expected<NvccInfo> findNvcc(llvm::StringRef explicitPath = "");

/// Parses "nvcc --version" output ("... release 13.0, V13.0.88").
bool parseNvccVersion(llvm::StringRef text, NvccInfo &info);

/// "sm_90,sm_80" (or "90,80") -> {"sm_80", "sm_90"}: validated, sorted, unique.
llvm::Expected<std::vector<std::string>> parseCudaArchs(llvm::StringRef list);

struct NvccBuild {
  std::vector<std::string> archs = {"sm_80", "sm_90"};
  bool cudnn = false;
  /// The runtime (cudaRuntimeSource) compiled once, linked instead of the
  /// copy in the .cu; empty: the .cu's own.
  std::string runtimeObject;
};

/// The nvcc command line (without nvcc itself) that builds `cuFile` into
/// the shared library `soFile`.
std::vector<std::string> nvccArguments(llvm::StringRef cuFile, llvm::StringRef soFile,
                                       const NvccBuild &build);

/// Where seq-compile keeps what it builds once and reuses: $SEQC_CACHE_DIR,
/// else $XDG_CACHE_HOME/seqc, else $HOME/.cache/seqc (empty: none).
std::string cacheDirectory();

/// How many runtime objects the cache keeps (the most recently used).
inline constexpr size_t kKeptRuntimeObjects = 16;

/// "DIR (N CUDA runtime objects: ...)", or why there is no cache: for
/// --doctor.
std::string describeRuntimeCache();

/// The runtime compiled by `nvcc` for `archs` into an object: from the cache
/// when this nvcc compiled this runtime for them before, else compiled in
/// `workDir` and then kept in the cache (where there is one).
llvm::Expected<std::string> cudaRuntimeObject(const NvccInfo &nvcc,
                                              const std::vector<std::string> &archs,
                                              llvm::StringRef workDir);

/// A library buildCudaLibrary built.
struct CudaLibrary {
  std::string path;
  /// It calls cuDNN (linked with -lcudnn: libcudnn.so.9 at run time).
  bool usesCudnn = false;
};

/// Emits `module`, writes model.cu (and its weights file) into `workDir`
/// and builds `workDir`/libmodel.so with nvcc. On failure the message is one
/// line naming the nvcc version found and the one needed, with the first
/// compiler error and the log's path.
llvm::Expected<CudaLibrary> buildCudaLibrary(mlir::ModuleOp module, CudaEmitOptions options,
                                             const NvccInfo &nvcc,
                                             const std::vector<std::string> &archs,
                                             llvm::StringRef workDir);

/// Emits `module` and builds `workDir`/libmodel.so for the CPU simulation
/// (kernels/seqc_cuda_sim.h: CUDA threads as fibers) with the host C++
/// compiler ($SEQC_HOST_CXX, else clang++ or c++ on PATH): the cuda-sim
/// engine, which checks a model's CUDA code where there is no GPU. On failure
/// one line with the compiler's first error and the log's path.
llvm::Expected<CudaLibrary> buildSimulatedCudaLibrary(mlir::ModuleOp module,
                                                      CudaEmitOptions options,
                                                      llvm::StringRef workDir);

} // namespace seq::cuda

#endif

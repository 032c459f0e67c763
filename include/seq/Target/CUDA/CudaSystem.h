// What this machine has for the CUDA backends: driver, CUDA runtime, cuDNN,
// nvcc and GPUs, probed with dlopen so that seqc never links against the
// CUDA libraries; and the versions seqc was built against. Used by
// `seq-compile --doctor` and to turn loader errors into messages that name
// the version a backend needs.
#ifndef SEQ_TARGET_CUDA_CUDASYSTEM_H
#define SEQ_TARGET_CUDA_CUDASYSTEM_H

#include "seq/Target/CUDA/CudaToolchain.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace seq::cuda {

/// The versions of the headers seqc was built with (0 when absent), as
/// CUDART_VERSION (13000) and CUDNN_VERSION (91900).
int builtCudartVersion();
int builtCudnnVersion();
/// "13.0" / "9.19.0"; "none" for 0.
std::string cudartVersionText(int version);
std::string cudnnVersionText(int version);

struct LibraryProbe {
  bool found = false;
  std::string path;    ///< where the loader found it
  int version = 0;     ///< from its version function
  std::string problem; ///< why not found
};

struct GpuInfo {
  std::string name;
  int major = 0, minor = 0;
  uint64_t memoryBytes = 0;
};

struct SystemProbe {
  /// The kernel module's version ("580.65.06"), from
  /// /proc/driver/nvidia/version; empty if absent.
  std::string driverVersion;
  /// libcuda: found, cuDriverGetVersion (CUDA version the driver supports).
  LibraryProbe driver;
  LibraryProbe cudart, cudnn;
  std::optional<NvccInfo> nvcc;
  std::string nvccProblem;
  std::vector<GpuInfo> gpus;
  std::string gpuProblem; ///< why no GPU was listed
};

/// Probes everything; never fails (problems are recorded).
SystemProbe probeSystem(llvm::StringRef nvccPath = "");

/// Only libcuda and its GPUs (what the engines need to know before building).
SystemProbe probeGpus();

struct BackendVerdict {
  std::string name; ///< cpu, cuda, cudnn
  bool usable = false;
  std::string reason;
};

std::vector<BackendVerdict> backendVerdicts(const SystemProbe &probe,
                                            const std::vector<std::string> &cpuEngines);

/// The --doctor report.
void printDoctorReport(const SystemProbe &probe, const std::vector<std::string> &cpuEngines,
                       llvm::raw_ostream &os);

/// Rewrites a dlopen/dlerror message about a missing CUDA library into one
/// naming the version needed, e.g. "libcudnn.so.9 not found: the cuDNN
/// backend needs cuDNN 9 (built against 9.19.0)". Other messages come back
/// unchanged.
std::string describeLoaderError(llvm::StringRef dlerrorText);

} // namespace seq::cuda

#endif

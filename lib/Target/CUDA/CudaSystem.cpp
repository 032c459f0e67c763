#include "seq/Target/CUDA/CudaSystem.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

#include <dlfcn.h>
#include <link.h>

using namespace llvm;

// From CMake, which reads them out of the headers it found (0 if none).
#ifndef SEQ_BUILT_CUDART_VERSION
#define SEQ_BUILT_CUDART_VERSION 0
#endif
#ifndef SEQ_BUILT_CUDNN_VERSION
#define SEQ_BUILT_CUDNN_VERSION 0
#endif
#ifndef SEQ_CUDA_LIBRARY_DIR
#define SEQ_CUDA_LIBRARY_DIR "/usr/local/cuda/lib64"
#endif
#ifndef SEQ_CUDNN_LIBRARY_DIR
#define SEQ_CUDNN_LIBRARY_DIR ""
#endif

namespace seq::cuda {

int builtCudartVersion() { return SEQ_BUILT_CUDART_VERSION; }
int builtCudnnVersion() { return SEQ_BUILT_CUDNN_VERSION; }

std::string cudartVersionText(int v) {
  if (v <= 0)
    return "none";
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string cudnnVersionText(int v) {
  if (v <= 0)
    return "none";
  // cuDNN >= 9 encodes major*10000 + minor*100 + patch; 8.x used *1000.
  if (v >= 90000)
    return std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." +
           std::to_string(v % 100);
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 100) + "." +
         std::to_string(v % 100);
}

static int cudartMajor() {
  return builtCudartVersion() ? builtCudartVersion() / 1000 : 13;
}
static int cudnnMajor() {
  int v = builtCudnnVersion();
  return v >= 90000 ? v / 10000 : v ? v / 1000 : 9;
}

namespace {

std::string loadedPath(void *handle, StringRef fallback) {
  struct link_map *map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
    return map->l_name;
  return fallback.str();
}

/// dlopen of the first name that loads; records the path or the first error.
void *openFirst(ArrayRef<std::string> names, LibraryProbe &probe) {
  for (const std::string &name : names) {
    if (name.empty())
      continue;
    if (void *handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      probe.found = true;
      probe.path = loadedPath(handle, name);
      return handle;
    }
    if (probe.problem.empty())
      if (const char *why = dlerror())
        probe.problem = why;
  }
  return nullptr;
}

template <typename Fn> Fn symbol(void *handle, const char *name) {
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

std::string kernelModuleVersion() {
  auto text = MemoryBuffer::getFile("/proc/driver/nvidia/version", /*IsText=*/true);
  if (!text)
    return "";
  Regex module("Kernel Module +([0-9][0-9.]*)");
  SmallVector<StringRef, 2> m;
  if (module.match((*text)->getBuffer(), &m))
    return m[1].str();
  return "";
}

/// libcuda: the driver's CUDA version and the GPUs.
void probeDriver(SystemProbe &probe) {
  probe.driverVersion = kernelModuleVersion();
  void *cuda = openFirst({"libcuda.so.1", "libcuda.so"}, probe.driver);
  if (!cuda) {
    probe.gpuProblem = "no NVIDIA driver: libcuda.so.1 not found";
    return;
  }
  using InitFn = int (*)(unsigned);
  using VersionFn = int (*)(int *);
  using CountFn = int (*)(int *);
  using GetFn = int (*)(int *, int);
  using NameFn = int (*)(char *, int, int);
  using AttributeFn = int (*)(int *, int, int);
  using MemoryFn = int (*)(size_t *, int);
  using ErrorFn = int (*)(int, const char **);
  auto init = symbol<InitFn>(cuda, "cuInit");
  auto version = symbol<VersionFn>(cuda, "cuDriverGetVersion");
  auto count = symbol<CountFn>(cuda, "cuDeviceGetCount");
  auto get = symbol<GetFn>(cuda, "cuDeviceGet");
  auto name = symbol<NameFn>(cuda, "cuDeviceGetName");
  auto attribute = symbol<AttributeFn>(cuda, "cuDeviceGetAttribute");
  auto memory = symbol<MemoryFn>(cuda, "cuDeviceTotalMem_v2");
  auto errorString = symbol<ErrorFn>(cuda, "cuGetErrorString");
  if (version)
    version(&probe.driver.version);
  if (!init || !count || !get || !name || !attribute || !memory) {
    probe.gpuProblem = "libcuda lacks the driver API functions seqc uses";
    return;
  }
  if (int rc = init(0)) {
    const char *text = nullptr;
    if (errorString)
      errorString(rc, &text);
    probe.gpuProblem = "cuInit failed: " + std::string(text ? text : "error " + std::to_string(rc));
    return;
  }
  int n = 0;
  if (count(&n) != 0 || n == 0) {
    probe.gpuProblem = "the driver sees no GPU";
    return;
  }
  for (int i = 0; i < n; ++i) {
    int device = 0;
    if (get(&device, i) != 0)
      continue;
    GpuInfo gpu;
    char text[256] = {0};
    name(text, sizeof(text) - 1, device);
    gpu.name = text;
    attribute(&gpu.major, /*CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR=*/75, device);
    attribute(&gpu.minor, /*CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR=*/76, device);
    size_t bytes = 0;
    memory(&bytes, device);
    gpu.memoryBytes = bytes;
    probe.gpus.push_back(gpu);
  }
}

void probeRuntime(SystemProbe &probe) {
  std::string major = std::to_string(cudartMajor());
  void *cudart = openFirst({"libcudart.so." + major, "libcudart.so",
                            SEQ_CUDA_LIBRARY_DIR "/libcudart.so." + major},
                           probe.cudart);
  if (cudart)
    if (auto version = symbol<int (*)(int *)>(cudart, "cudaRuntimeGetVersion"))
      version(&probe.cudart.version);
}

void probeCudnn(SystemProbe &probe) {
  std::string major = std::to_string(cudnnMajor());
  std::string dir = SEQ_CUDNN_LIBRARY_DIR;
  void *cudnn = openFirst({"libcudnn.so." + major, "libcudnn.so",
                           dir.empty() ? "" : dir + "/libcudnn.so." + major,
                           SEQ_CUDA_LIBRARY_DIR "/libcudnn.so." + major},
                          probe.cudnn);
  if (cudnn)
    if (auto version = symbol<size_t (*)()>(cudnn, "cudnnGetVersion"))
      probe.cudnn.version = static_cast<int>(version());
}

std::string gib(uint64_t bytes) {
  std::string text;
  raw_string_ostream(text) << format("%.1f GiB", double(bytes) / (1ull << 30));
  return text;
}

/// Why the fused CUDA backend cannot run here, or "" if it can.
std::string cudaProblem(const SystemProbe &p) {
  int needMajor = p.nvcc ? p.nvcc->major : cudartMajor();
  std::string needDriver = "a driver for CUDA " + std::to_string(needMajor) + ".0 or newer";
  if (!p.nvcc)
    return "cannot build: " + p.nvccProblem;
  if (!p.driver.found)
    return "no NVIDIA driver (libcuda.so.1 not found): install " + needDriver +
           " and a GPU of compute capability 8.0 or newer";
  if (p.driver.version / 1000 < needMajor)
    return "the driver supports CUDA " + cudartVersionText(p.driver.version) + ", nvcc " +
           p.nvcc->version + " builds for CUDA " + std::to_string(needMajor) +
           ": install " + needDriver;
  if (p.gpus.empty())
    return "no GPU: " + p.gpuProblem;
  for (const GpuInfo &gpu : p.gpus)
    if (gpu.major >= 8)
      return "";
  const GpuInfo &gpu = p.gpus.front();
  if (gpu.major >= 7)
    return "the GPU (" + gpu.name + ", compute capability " + std::to_string(gpu.major) + "." +
           std::to_string(gpu.minor) + ") needs --cuda-arch=sm_" + std::to_string(gpu.major) +
           std::to_string(gpu.minor) + " (the default builds sm_80,sm_90)";
  return "the GPU (" + gpu.name + ") has compute capability " + std::to_string(gpu.major) +
         "." + std::to_string(gpu.minor) + "; seqc's kernels need 7.0 or newer";
}

} // namespace

SystemProbe probeGpus() {
  SystemProbe probe;
  probeDriver(probe);
  return probe;
}

SystemProbe probeSystem(StringRef nvccPath) {
  SystemProbe probe;
  probeDriver(probe);
  probeRuntime(probe);
  probeCudnn(probe);
  Expected<NvccInfo> nvcc = findNvcc(nvccPath);
  if (nvcc)
    probe.nvcc = *nvcc;
  else
    probe.nvccProblem = toString(nvcc.takeError());
  return probe;
}

std::vector<BackendVerdict> backendVerdicts(const SystemProbe &p,
                                            const std::vector<std::string> &cpuEngines) {
  std::vector<BackendVerdict> verdicts;
  std::string engines;
  for (const std::string &e : cpuEngines)
    engines += (engines.empty() ? "" : ", ") + e;
  verdicts.push_back({"cpu", true,
                      "runs on this CPU" +
                          (engines.empty() ? std::string() : " (engines: " + engines + ")")});
  std::string problem = cudaProblem(p);
  verdicts.push_back({"cuda", problem.empty(),
                      problem.empty() ? "fused kernels: nvcc " + p.nvcc->version + ", driver for CUDA " +
                                            cudartVersionText(p.driver.version) + ", " +
                                            p.gpus.front().name
                                      : problem});
  std::string needCudnn = "cuDNN " + std::to_string(cudnnMajor()) + " (built against " +
                          cudnnVersionText(builtCudnnVersion()) + ")";
  std::string cudnnProblem;
  if (!problem.empty())
    cudnnProblem = "needs the cuda backend, which cannot run: " + problem;
  else if (!p.cudnn.found)
    cudnnProblem = "libcudnn.so." + std::to_string(cudnnMajor()) +
                   " not found: the cuDNN backend needs " + needCudnn;
  else if (cudnnVersionText(p.cudnn.version).substr(0, 2) !=
           std::to_string(cudnnMajor()) + ".")
    cudnnProblem = "cuDNN " + cudnnVersionText(p.cudnn.version) + " found, the cuDNN backend needs " +
                   needCudnn;
  verdicts.push_back({"cudnn", cudnnProblem.empty(),
                      cudnnProblem.empty() ? "cudnnRNNForward for LSTM/GRU: cuDNN " +
                                                 cudnnVersionText(p.cudnn.version)
                                           : cudnnProblem});
  return verdicts;
}

void printDoctorReport(const SystemProbe &p, const std::vector<std::string> &cpuEngines,
                       raw_ostream &os) {
  os << "seqc doctor: what this machine offers seqc's backends\n\n";
  os << "NVIDIA driver: ";
  if (p.driver.found)
    os << (p.driverVersion.empty() ? std::string("version unknown") : p.driverVersion)
       << ", supports CUDA " << cudartVersionText(p.driver.version) << " (" << p.driver.path
       << ")\n";
  else
    os << "not found (" << (p.driver.problem.empty() ? "libcuda.so.1 not loadable" : p.driver.problem)
       << ")" << (p.driverVersion.empty() ? "" : "; kernel module " + p.driverVersion) << "\n";
  os << "CUDA runtime: "
     << (p.cudart.found ? "found " + cudartVersionText(p.cudart.version) + " (" + p.cudart.path + ")"
                        : "not found (" + p.cudart.problem + ")")
     << ", built against " << cudartVersionText(builtCudartVersion()) << "\n";
  os << "cuDNN: "
     << (p.cudnn.found ? "found " + cudnnVersionText(p.cudnn.version) + " (" + p.cudnn.path + ")"
                       : "not found (" + p.cudnn.problem + ")")
     << ", built against " << cudnnVersionText(builtCudnnVersion()) << "\n";
  os << "nvcc: "
     << (p.nvcc ? p.nvcc->version + " (" + p.nvcc->path + ")" : "not found (" + p.nvccProblem + ")")
     << "\n";
  os << "seqc cache: " << describeRuntimeCache() << "\n";
  if (p.gpus.empty())
    os << "GPUs: none (" << p.gpuProblem << ")\n";
  for (auto [i, gpu] : llvm::enumerate(p.gpus))
    os << "GPU " << i << ": " << gpu.name << ", compute capability " << gpu.major << "."
       << gpu.minor << ", " << gib(gpu.memoryBytes) << "\n";
  os << "\nBackends:\n";
  for (const BackendVerdict &v : backendVerdicts(p, cpuEngines))
    os << "  " << left_justify(v.name, 6) << (v.usable ? "yes  " : "no   ") << v.reason << "\n";
}

std::string describeLoaderError(StringRef text) {
  auto missing = [&](StringRef lib) {
    return text.contains(lib) && (text.contains("cannot open") || text.contains("not found") ||
                                  text.contains("No such file"));
  };
  std::string seeDoctor = " (see seq-compile --doctor)";
  if (missing("libcudnn")) {
    std::string soname = "libcudnn.so." + std::to_string(cudnnMajor());
    return soname + " not found: the cuDNN backend needs cuDNN " + std::to_string(cudnnMajor()) +
           " (built against " + cudnnVersionText(builtCudnnVersion()) +
           "); install it or add its directory to LD_LIBRARY_PATH" + seeDoctor;
  }
  if (missing("libcudart"))
    return "libcudart.so." + std::to_string(cudartMajor()) +
           " not found: the CUDA backend needs the CUDA " + std::to_string(cudartMajor()) +
           " runtime (built against " + cudartVersionText(builtCudartVersion()) + ")" + seeDoctor;
  if (missing("libcuda.so"))
    return "libcuda.so.1 not found: the CUDA backend needs an NVIDIA driver for CUDA " +
           std::to_string(cudartMajor()) + ".0 or newer" + seeDoctor;
  return text.str();
}

} // namespace seq::cuda

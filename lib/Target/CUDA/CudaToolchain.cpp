#include "seq/Target/CUDA/CudaToolchain.h"

#include "seq/Target/CUDA/CudaEmitter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <optional>

using namespace llvm;

#ifndef SEQ_CUDA_BIN_DIR
#define SEQ_CUDA_BIN_DIR "/usr/local/cuda/bin"
#endif
#ifndef SEQ_CUDNN_LIBRARY_DIR
#define SEQ_CUDNN_LIBRARY_DIR ""
#endif
#ifndef SEQ_CUDNN_INCLUDE_DIR
#define SEQ_CUDNN_INCLUDE_DIR ""
#endif

#include "KernelLibrary.h"

namespace seq::cuda {

static Error error(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// Runs `program args...` with stdout and stderr in `logPath`; returns the
/// exit code (-1 if it could not start, with `why` set).
static int runLogged(StringRef program, ArrayRef<std::string> args, StringRef logPath,
                     std::string &why) {
  std::vector<StringRef> argv{program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<StringRef> redirects[] = {StringRef(""), logPath, logPath};
  return sys::ExecuteAndWait(program, argv, std::nullopt, redirects, /*SecondsToWait=*/0,
                             /*MemoryLimit=*/0, &why);
}

bool parseNvccVersion(StringRef text, NvccInfo &info) {
  Regex release("release ([0-9]+)\\.([0-9]+)(, V([0-9][0-9.]*))?");
  SmallVector<StringRef, 5> m;
  if (!release.match(text, &m))
    return false;
  info.major = std::stoi(m[1].str());
  info.minor = std::stoi(m[2].str());
  info.version = m.size() > 4 && !m[4].empty() ? m[4].str() : (m[1] + "." + m[2]).str();
  return true;
}

static Expected<NvccInfo> queryNvcc(StringRef path) {
  SmallString<128> log;
  if (std::error_code ec = sys::fs::createTemporaryFile("seqc-nvcc-version", "txt", log))
    return error("cannot create a temporary file: " + ec.message());
  std::string why;
  int rc = runLogged(path, {"--version"}, log, why);
  auto text = MemoryBuffer::getFile(log);
  sys::fs::remove(log);
  NvccInfo info;
  info.path = path.str();
  if (rc != 0 || !text || !parseNvccVersion((*text)->getBuffer(), info))
    return error("'" + path + "' does not run as nvcc (" +
                 (why.empty() ? "no version in its --version output" : why) + ")");
  return info;
}

Expected<NvccInfo> findNvcc(StringRef explicitPath) {
  std::vector<std::string> candidates;
  if (!explicitPath.empty()) {
    candidates.push_back(explicitPath.str());
  } else {
    for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
      if (std::optional<std::string> dir = sys::Process::GetEnv(var))
        candidates.push_back(*dir + "/bin/nvcc");
    if (ErrorOr<std::string> onPath = sys::findProgramByName("nvcc"))
      candidates.push_back(*onPath);
    candidates.push_back(SEQ_CUDA_BIN_DIR "/nvcc");
  }
  for (const std::string &path : candidates) {
    if (!sys::fs::can_execute(path))
      continue;
    Expected<NvccInfo> info = queryNvcc(path);
    if (!info)
      return info.takeError();
    if (info->major < kMinNvccMajor)
      return error("nvcc " + info->version + " (" + info->path + ") is too old: seqc needs nvcc from CUDA " +
                   Twine(kMinNvccMajor) + ".0 or newer (install a newer CUDA toolkit or pass --nvcc=PATH)");
    return info;
  }
  if (!explicitPath.empty())
    return error("nvcc not found at '" + explicitPath + "'");
  return error("nvcc not found (looked at $CUDA_HOME/bin, $CUDA_PATH/bin, PATH and " SEQ_CUDA_BIN_DIR
               "): --target=cuda needs the CUDA toolkit " +
               Twine(kMinNvccMajor) + ".0 or newer; install it or pass --nvcc=PATH");
}

Expected<std::vector<std::string>> parseCudaArchs(StringRef list) {
  std::vector<std::string> archs;
  SmallVector<StringRef> parts;
  list.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    part = part.trim();
    part.consume_front("sm_");
    unsigned cc = 0;
    if (part.getAsInteger(10, cc) || cc < 10 || cc > 200)
      return error("--cuda-arch: '" + part + "' is not a GPU architecture (expected e.g. sm_80,sm_90)");
    if (cc < 70)
      return error("--cuda-arch: sm_" + Twine(cc) +
                   " is too old: seqc's kernels need compute capability 7.0 or newer");
    archs.push_back("sm_" + std::to_string(cc));
  }
  if (archs.empty())
    return error("--cuda-arch: no architecture given (expected e.g. sm_80,sm_90)");
  llvm::sort(archs, [](const std::string &a, const std::string &b) {
    return std::stoi(a.substr(3)) < std::stoi(b.substr(3));
  });
  archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
  return archs;
}

/// What every seqc nvcc command compiles with: optimised, position
/// independent, hidden symbols (the C API is marked visible), code for each
/// of `archs` and PTX of the newest, so that newer GPUs can JIT it, those
/// targets compiled in parallel (`--threads 0`: one thread per core; a
/// 2-architecture model builds in two thirds of the time on 2 cores).
static std::vector<std::string> commonArguments(const std::vector<std::string> &archs) {
  std::vector<std::string> args = {"-O3", "-std=c++17", "--threads", "0", "-Xcompiler", "-fPIC",
                                   "-Xcompiler", "-fvisibility=hidden"};
  for (const std::string &arch : archs) {
    std::string cc = arch.substr(3);
    args.push_back("-gencode");
    args.push_back("arch=compute_" + cc + ",code=sm_" + cc);
  }
  std::string newest = archs.back().substr(3);
  args.push_back("-gencode");
  args.push_back("arch=compute_" + newest + ",code=compute_" + newest);
  return args;
}

std::vector<std::string> nvccArguments(StringRef cuFile, StringRef soFile,
                                       const NvccBuild &build) {
  std::vector<std::string> args = commonArguments(build.archs);
  args.push_back("-shared");
  args.push_back("-o");
  args.push_back(soFile.str());
  args.push_back(cuFile.str());
  if (!build.runtimeObject.empty()) {
    args.push_back("-DSEQC_RUNTIME_LINKED");
    args.push_back(build.runtimeObject);
  }
  if (build.cudnn) {
    if (StringRef(SEQ_CUDNN_INCLUDE_DIR).size())
      args.push_back("-I" SEQ_CUDNN_INCLUDE_DIR);
    if (StringRef(SEQ_CUDNN_LIBRARY_DIR).size()) {
      args.push_back("-L" SEQ_CUDNN_LIBRARY_DIR);
      args.push_back("-Xlinker");
      args.push_back("-rpath," SEQ_CUDNN_LIBRARY_DIR);
    }
    args.push_back("-lcudnn");
  }
  return args;
}

/// The first line of an nvcc log that reports an error, else its first line.
static std::string firstErrorLine(StringRef log) {
  SmallVector<StringRef> lines;
  log.split(lines, '\n', -1, false);
  for (StringRef line : lines)
    if (line.contains("error"))
      return line.trim().str();
  return lines.empty() ? std::string("no output") : lines.front().trim().str();
}

static Error writeFile(StringRef path, StringRef bytes) {
  std::error_code ec;
  raw_fd_ostream out(path, ec, sys::fs::OF_None);
  if (ec)
    return error("cannot write '" + path + "': " + ec.message());
  out << bytes;
  out.close();
  if (out.has_error())
    return error("cannot write '" + path + "': " + out.error().message());
  return Error::success();
}

std::string cacheDirectory() {
  if (std::optional<std::string> dir = sys::Process::GetEnv("SEQC_CACHE_DIR"))
    return *dir;
  if (std::optional<std::string> dir = sys::Process::GetEnv("XDG_CACHE_HOME"); dir && !dir->empty())
    return *dir + "/seqc";
  if (std::optional<std::string> home = sys::Process::GetEnv("HOME"); home && !home->empty())
    return *home + "/.cache/seqc";
  return "";
}

/// Why a compiler run failed: why it could not start, else its log's first
/// error, else its exit code.
static std::string failureDetail(int rc, StringRef why, StringRef logFile) {
  if (!why.empty())
    return why.str();
  auto log = MemoryBuffer::getFile(logFile);
  return log ? firstErrorLine((*log)->getBuffer()) : "exit code " + std::to_string(rc);
}

/// Runs nvcc; on failure, one line with its first error and the log's path.
static Error runNvcc(const NvccInfo &nvcc, ArrayRef<std::string> args, StringRef logFile,
                     StringRef needs) {
  std::string why;
  int rc = runLogged(nvcc.path, args, logFile, why);
  if (rc == 0)
    return Error::success();
  std::string detail = failureDetail(rc, why, logFile);
  return error("nvcc failed (nvcc " + nvcc.version + " at " + nvcc.path +
               "; seqc needs nvcc from CUDA " + Twine(kMinNvccMajor) + ".0 or newer" + needs +
               "): " + detail + " (full log: " + logFile + ")");
}

/// Marks a file as used now.
static void touch(StringRef path) {
  int fd;
  if (sys::fs::openFileForWrite(path, fd, sys::fs::CD_OpenExisting, sys::fs::OF_Append))
    return;
  sys::fs::setLastAccessAndModificationTime(fd, std::chrono::system_clock::now());
  sys::Process::SafelyCloseFileDescriptor(fd);
}

/// The runtime objects in the cache, each with when it was last used.
static std::vector<std::pair<sys::TimePoint<>, std::string>> runtimeObjectsIn(StringRef cache) {
  std::vector<std::pair<sys::TimePoint<>, std::string>> objects;
  std::error_code ec;
  for (sys::fs::directory_iterator it(cache, ec), end; it != end && !ec; it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    sys::fs::file_status status;
    if (name.starts_with("cuda-runtime-") && name.ends_with(".o") &&
        !sys::fs::status(it->path(), status))
      objects.emplace_back(status.getLastModificationTime(), it->path());
  }
  return objects;
}

/// Keeps the kKeptRuntimeObjects most recently used runtime objects in the
/// cache (there is one per nvcc, set of architectures and seqc version), so
/// that it does not grow with every upgrade.
static void pruneRuntimeObjects(StringRef cache) {
  auto objects = runtimeObjectsIn(cache);
  if (objects.size() <= kKeptRuntimeObjects)
    return;
  llvm::sort(objects, [](const auto &a, const auto &b) { return a.first > b.first; });
  for (size_t i = kKeptRuntimeObjects; i < objects.size(); ++i)
    sys::fs::remove(objects[i].second);
}

std::string describeRuntimeCache() {
  std::string cache = cacheDirectory();
  if (cache.empty())
    return "none ($SEQC_CACHE_DIR, $XDG_CACHE_HOME and $HOME are unset): each CUDA library "
           "compiles seqc's runtime again";
  size_t count = runtimeObjectsIn(cache).size();
  return cache + " (" + std::to_string(count) + " CUDA runtime object" +
         (count == 1 ? "" : "s") + ": one per nvcc, set of GPU architectures and seqc version, the " +
         std::to_string(kKeptRuntimeObjects) + " most recently used kept)";
}

Expected<std::string> cudaRuntimeObject(const NvccInfo &nvcc,
                                        const std::vector<std::string> &archs,
                                        StringRef workDir) {
  std::string source = cudaRuntimeSource();
  std::vector<std::string> flags = commonArguments(archs);
  flags.push_back("-c");
  // The object depends on the source, the flags (the architectures among
  // them) and the nvcc that built it.
  std::string key = source + '\0' + nvcc.path + '\0' + nvcc.version + '\0' + join(flags, " ");
  std::string name = "cuda-runtime-" + utohexstr(xxh3_64bits(key), /*LowerCase=*/true) + ".o";
  std::string cache = cacheDirectory();
  SmallString<256> cached(cache);
  sys::path::append(cached, name);
  if (!cache.empty() && sys::fs::exists(cached)) {
    touch(cached);
    pruneRuntimeObjects(cache);
    return cached.str().str();
  }

  SmallString<256> cuFile(workDir), object(workDir), logFile(workDir);
  sys::path::append(cuFile, "seqc_runtime.cu");
  sys::path::append(object, "seqc_runtime.o");
  sys::path::append(logFile, "nvcc-runtime.log");
  if (Error e = writeFile(cuFile, source))
    return std::move(e);
  std::vector<std::string> args = flags;
  args.insert(args.end(), {"-o", object.str().str(), cuFile.str().str()});
  if (Error e = runNvcc(nvcc, args, logFile, ""))
    return std::move(e);
  // Kept for the next build: copied under a unique name, then renamed, so
  // that concurrent builds never see half a file. Without a cache, the
  // object stays in workDir.
  SmallString<256> partial;
  if (!cache.empty() && !sys::fs::create_directories(cache) &&
      !sys::fs::createUniqueFile(cached + ".%%%%%%%%.partial", partial)) {
    if (!sys::fs::copy_file(object, partial) && !sys::fs::rename(partial, cached)) {
      pruneRuntimeObjects(cache);
      return cached.str().str();
    }
    sys::fs::remove(partial);
  }
  return object.str().str();
}

/// Emits `module` into `workDir`: model.cu, and model.weights, which the
/// library reads from its absolute path. Returns the emitted module.
static Expected<CudaModule> writeModel(mlir::ModuleOp module, CudaEmitOptions options,
                                       StringRef workDir, StringRef builtFor) {
  SmallString<256> cuFile(workDir), weightsFile(workDir);
  sys::path::append(cuFile, "model.cu");
  sys::path::append(weightsFile, "model.weights");
  SmallString<256> absoluteWeights(weightsFile);
  sys::fs::make_absolute(absoluteWeights);
  options.weightsFile = absoluteWeights.str().str();
  options.builtForArchs = builtFor.str();
  Expected<CudaModule> emitted = emitCudaModule(module, options);
  if (!emitted)
    return emitted.takeError();
  if (Error e = writeFile(cuFile, emitted->source))
    return std::move(e);
  if (Error e = writeFile(weightsFile,
                          StringRef(reinterpret_cast<const char *>(emitted->weights.data()),
                                    emitted->weights.size() * sizeof(float))))
    return std::move(e);
  return emitted;
}

Expected<CudaLibrary> buildCudaLibrary(mlir::ModuleOp module, CudaEmitOptions options,
                                       const NvccInfo &nvcc,
                                       const std::vector<std::string> &archs,
                                       StringRef workDir) {
  SmallString<256> cuFile(workDir), soFile(workDir), logFile(workDir);
  sys::path::append(cuFile, "model.cu");
  sys::path::append(soFile, "libmodel.so");
  sys::path::append(logFile, "nvcc.log");
  Expected<CudaModule> emitted = writeModel(module, options, workDir, join(archs, ","));
  if (!emitted)
    return emitted.takeError();

  NvccBuild build;
  build.archs = archs;
  build.cudnn = emitted->usesCudnn;
  Expected<std::string> runtime = cudaRuntimeObject(nvcc, archs, workDir);
  if (!runtime)
    return runtime.takeError();
  build.runtimeObject = *runtime;
  if (Error e = runNvcc(nvcc, nvccArguments(cuFile, soFile, build), logFile,
                        build.cudnn ? " and the cuDNN 9 headers and library" : ""))
    return std::move(e);
  return CudaLibrary{soFile.str().str(), build.cudnn};
}

/// The host C++ compiler for the simulation: $SEQC_HOST_CXX, else the first
/// of clang++-22, clang++, c++ and g++ on PATH (clang compiles the
/// simulated kernels in half g++'s time).
static Expected<std::string> findHostCompiler() {
  if (std::optional<std::string> chosen = sys::Process::GetEnv("SEQC_HOST_CXX")) {
    if (ErrorOr<std::string> path = sys::findProgramByName(*chosen))
      return *path;
    return error("SEQC_HOST_CXX is '" + *chosen + "', which is not a program on PATH");
  }
  for (StringRef name : {"clang++-22", "clang++", "c++", "g++"})
    if (ErrorOr<std::string> path = sys::findProgramByName(name))
      return *path;
  return error("the cuda-sim engine needs a C++17 compiler (clang++ or c++ on PATH, or "
               "SEQC_HOST_CXX)");
}

Expected<CudaLibrary> buildSimulatedCudaLibrary(mlir::ModuleOp module, CudaEmitOptions options,
                                                StringRef workDir) {
  Expected<std::string> cxx = findHostCompiler();
  if (!cxx)
    return cxx.takeError();
  SmallString<256> cuFile(workDir), soFile(workDir), logFile(workDir), simHeader(workDir),
      cudnnSimHeader(workDir);
  sys::path::append(cuFile, "model.cu");
  sys::path::append(soFile, "libmodel.so");
  sys::path::append(logFile, "compile.log");
  sys::path::append(simHeader, "seqc_cuda_sim.h");
  sys::path::append(cudnnSimHeader, "seqc_cudnn_sim.h");
  Expected<CudaModule> emitted = writeModel(module, options, workDir, "simulation");
  if (!emitted)
    return emitted.takeError();
  if (Error e = writeFile(simHeader, simulationHeaderSource()))
    return std::move(e);
  if (Error e = writeFile(cudnnSimHeader, cudnnSimulationHeaderSource()))
    return std::move(e);
  std::vector<std::string> args = {"-std=c++17", "-O1", "-w", "-fPIC", "-shared",
                                   "-DSEQC_CPU_SIMULATION", "-include", simHeader.str().str(),
                                   "-x", "c++", cuFile.str().str(), "-o", soFile.str().str(),
                                   "-pthread"};
  std::string why;
  int rc = runLogged(*cxx, args, logFile, why);
  if (rc != 0)
    return error("the simulated CUDA library does not compile with " + *cxx + ": " +
                 failureDetail(rc, why, logFile) + " (full log: " + logFile + ")");
  return CudaLibrary{soFile.str().str(), emitted->usesCudnn};
}

} // namespace seq::cuda

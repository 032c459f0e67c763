//===- Sandbox.h - Run untrusted parsing in a limited child process -*- C++ -*-===//
//
// Some libraries that read model files (libhdf5 1.10.8 above all) corrupt
// memory or loop forever on crafted input, and seqc cannot fix them. Such
// reading runs in a forked child: limited CPU time, address space and wall
// time, no core file, and (where libseccomp is available) no system calls
// beyond memory management and writing to its one pipe. The child sends its
// result as bytes; the parent gets them, or learns that the child crashed or
// ran out of time, and stays alive either way.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FRONTEND_KERAS_SANDBOX_H
#define SEQ_FRONTEND_KERAS_SANDBOX_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <memory>

#include <sys/types.h>
#include <string>
#include <vector>

namespace seq::keras {

struct SandboxLimits {
  /// Wall-clock seconds for the child (for a stream: the longest wait for
  /// its next byte), and its CPU seconds unless cpuSeconds is set.
  unsigned seconds = 120;
  unsigned cpuSeconds = 0;
  /// Address space the child may add to what the process already maps.
  uint64_t extraMemoryBytes = uint64_t(1) << 30;
  /// The most bytes the parent accepts from the child.
  uint64_t maxOutputBytes = uint64_t(1) << 30;
  /// What the child reads ("model", "mlir", "dataset"): test faults
  /// (SEQC_INJECT_READER_FAULT=crash@dataset) can aim at one kind.
  const char *purpose = "model";
};

struct SandboxResult {
  enum Status {
    Finished, ///< The child exited normally; `output` is all it wrote.
    Crashed,  ///< Killed by a signal (SIGSEGV, SIGABRT, out of memory, ...).
    TimedOut, ///< Ran past its wall-clock or CPU time.
    TooMuchOutput,
    NotStarted, ///< fork or pipe failed; `detail` says why.
  } status;
  std::vector<char> output;
  std::string detail;
};

/// Writes bytes to the parent from inside the child; buffered.
class SandboxWriter {
public:
  explicit SandboxWriter(int fd) : fd(fd) {}
  ~SandboxWriter() { flush(); }
  void write(const void *data, size_t size);
  void flush();

private:
  int fd;
  std::vector<char> buffer;
};

/// Runs `body` in a sandboxed child and collects what it writes.
SandboxResult runSandboxed(llvm::function_ref<void(SandboxWriter &)> body,
                           const SandboxLimits &limits);

/// A sandboxed child whose output is read as it comes, for streams larger
/// than memory: the child blocks while the parent is busy, and `seconds`
/// of the limits is how long the parent waits for the next byte.
class SandboxStream {
public:
  /// Null (with `error` set) when the child cannot be started.
  static std::unique_ptr<SandboxStream>
  start(llvm::function_ref<void(SandboxWriter &)> body,
        const SandboxLimits &limits, std::string &error);
  ~SandboxStream();

  /// Reads exactly `size` bytes; false at the end of the stream, on a
  /// timeout, or when the child died (finish() tells which).
  bool read(void *data, size_t size);
  bool timedOutWaiting() const { return timedOut; }
  /// Stops the child if it still runs and says how it ended.
  SandboxResult::Status finish(std::string &detail);

private:
  SandboxStream() = default;
  pid_t child = -1;
  int fd = -1;
  unsigned idleSeconds = 0;
  bool ended = false, timedOut = false;
  SandboxResult::Status status = SandboxResult::Finished;
};

/// The most bytes of decoded data (weights, attributes) a reader may produce
/// from a file of `fileBytes` bytes: a small file cannot declare gigabytes.
uint64_t readerByteBudget(uint64_t fileBytes);

/// The limits for reading one model file of `fileBytes` bytes:
/// SEQC_READER_TIMEOUT (seconds) overrides the time limit.
SandboxLimits readerLimits(uint64_t fileBytes);

} // namespace seq::keras

#endif // SEQ_FRONTEND_KERAS_SANDBOX_H

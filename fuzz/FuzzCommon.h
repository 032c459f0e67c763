//===- FuzzCommon.h - Shared pieces of the fuzz harnesses -------*- C++ -*-===//
//
// Harnesses call seqc's real entry points on the input bytes and consume
// every result and error. Readers that run in the sandboxed child get a wall
// clock of SEQ_FUZZ_READER_TIMEOUT seconds (default 1: fuzz inputs are small,
// and libhdf5 hangs on some) so that a hang inside libhdf5 or MLIR's parser
// is the sandbox's timeout error, well before libFuzzer's -timeout=10 would
// call the whole input a hang.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FUZZ_FUZZCOMMON_H
#define SEQ_FUZZ_FUZZCOMMON_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/resource.h>

namespace seq::fuzz {

inline void setReaderTimeout() {
  const char *seconds = std::getenv("SEQ_FUZZ_READER_TIMEOUT");
  setenv("SEQC_READER_TIMEOUT", seconds ? seconds : "1", 1);
}

/// Consumes an error (printed if SEQ_FUZZ_VERBOSE is set); an error without
/// a message aborts the harness. Messages may quote names from the input,
/// newlines included: seq-compile escapes them when it prints the error.
inline void consume(llvm::Error error) {
  if (!error)
    return;
  std::string message = llvm::toString(std::move(error));
  if (std::getenv("SEQ_FUZZ_VERBOSE"))
    std::fprintf(stderr, "%s\n", message.c_str());
  if (message.empty()) {
    std::fprintf(stderr, "an error without a message\n");
    std::abort();
  }
}

template <typename T> bool check(llvm::Expected<T> &value) {
  if (value)
    return true;
  consume(value.takeError());
  return false;
}

/// Keeps `data` in $SEQ_FUZZ_ISOLATED_DIR (if set) when the sandboxed child
/// crashed or timed out on it: working as designed, but worth a look.
/// At most 100 per process, named <what>-<size>-<FNV-1a hash>; all are
/// counted.
inline unsigned long isolatedInputs = 0;
inline void keepIsolated(const uint8_t *data, size_t size, const char *what) {
  static int kept = 0;
  ++isolatedInputs;
  const char *dir = std::getenv("SEQ_FUZZ_ISOLATED_DIR");
  if (!dir || kept >= 100)
    return;
  uint64_t hash = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i)
    hash = (hash ^ data[i]) * 1099511628211ull;
  char name[64];
  std::snprintf(name, sizeof name, "/%s-%zu-%016llx", what, size,
                static_cast<unsigned long long>(hash));
  if (std::FILE *f = std::fopen((std::string(dir) + name).c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    ++kept;
  }
}

/// Consumes the error of an entry point that reads in the sandboxed child;
/// an error saying that `reader` (e.g. "the HDF5 library") failed is the
/// child crashing or hanging, so the input is kept as isolated.
inline void consumeReaderError(llvm::Error error, const uint8_t *data,
                               size_t size, const char *reader,
                               const char *what) {
  std::string message = llvm::toString(std::move(error));
  if (message.find(reader) != std::string::npos)
    keepIsolated(data, size, what);
  consume(llvm::createStringError(llvm::inconvertibleErrorCode(), message));
}

/// At exit, the peak resident size of the largest sandboxed child this
/// process waited for (libFuzzer's -rss_limit_mb sees only this process):
/// scripts/fuzz.sh reports it.
struct ReportChildren {
  ReportChildren() {
    std::atexit([] {
      struct rusage usage;
      if (getrusage(RUSAGE_CHILDREN, &usage) == 0)
        std::fprintf(stderr, "stat::max_child_rss_mb: %ld\n",
                     usage.ru_maxrss / 1024);
      std::fprintf(stderr, "stat::isolated_inputs: %lu\n", isolatedInputs);
    });
  }
};
static ReportChildren reportChildren;

} // namespace seq::fuzz

#endif

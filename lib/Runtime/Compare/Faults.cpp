#include "seq/Runtime/Compare.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace seq::rt {

// Where the injected leak's blocks escape to, so that the compiler cannot
// drop the allocation as dead code.
static void *volatile leakSink;

llvm::Expected<Fault> faultFromEnvironment() {
  const char *value = std::getenv("SEQC_INJECT_FAULT");
  if (!value || !*value)
    return Fault::None;
  llvm::StringRef name(value);
  if (name == "leak")
    return Fault::Leak;
  if (name == "slow")
    return Fault::Slow;
  if (name == "corrupt")
    return Fault::Corrupt;
  if (name == "flaky")
    return Fault::Flaky;
  if (name == "crash")
    return Fault::Crash;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "SEQC_INJECT_FAULT='" + name + "': expected leak, slow, corrupt, flaky or crash");
}

void injectFault(Fault fault, int64_t iteration, Tensor &output, bool timed) {
  bool ofTheOutput = fault == Fault::Corrupt || fault == Fault::Flaky;
  if (!timed && !ofTheOutput)
    return;
  switch (fault) {
  case Fault::None:
    return;
  case Fault::Leak: {
    // 64 KiB per iteration, touched so that it shows in the RSS too.
    void *lost = std::malloc(64 * 1024);
    std::memset(lost, 1, 64 * 1024);
    leakSink = lost;
    return;
  }
  case Fault::Slow:
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return;
  case Fault::Corrupt:
    if (!output.data.empty())
      output.data[0] += 1.0f;
    return;
  case Fault::Flaky:
    // One iteration off in the last bit of its first value: the output is
    // right at the end, but the engine did not compute the same each call.
    if (iteration == 2 && !output.data.empty())
      output.data[0] = std::nextafter(output.data[0], INFINITY);
    return;
  case Fault::Crash:
    // Heap corruption, as XLA's "corrupted double-linked list": glibc
    // detects the double free and aborts the process.
    if (iteration == 3) {
      void *volatile block = std::malloc(32);
      std::free(block);
      std::free(block);
      std::abort(); // Should glibc ever not notice.
    }
    return;
  }
}

} // namespace seq::rt

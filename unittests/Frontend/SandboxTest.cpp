//===- SandboxTest.cpp - Tests for the sandboxed reader process -----------===//

#include "seq/Frontend/Keras/Sandbox.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

using namespace seq::keras;

namespace {

SandboxLimits quick() {
  SandboxLimits limits;
  limits.seconds = 2;
  limits.extraMemoryBytes = uint64_t(256) << 20;
  limits.maxOutputBytes = uint64_t(64) << 20;
  return limits;
}

std::string text(const SandboxResult &result) {
  return std::string(result.output.begin(), result.output.end());
}

TEST(SandboxTest, HandsBackWhatTheChildWrites) {
  SandboxResult result = runSandboxed(
      [](SandboxWriter &out) {
        std::string big(3 << 20, 'x'); // more than a pipe holds
        out.write(big.data(), big.size());
        out.write("end", 3);
      },
      quick());
  ASSERT_EQ(result.status, SandboxResult::Finished) << result.detail;
  ASSERT_EQ(result.output.size(), (3u << 20) + 3);
  EXPECT_EQ(text(result).substr(3 << 20), "end");
}

TEST(SandboxTest, ChildCannotOpenFilesOrWriteElsewhere) {
  SandboxResult result = runSandboxed(
      [](SandboxWriter &out) {
        int fd = open("/etc/passwd", O_RDONLY);
        out.write(fd < 0 && errno == EPERM ? "open-denied " : "open-allowed ",
                  fd < 0 && errno == EPERM ? 12 : 13);
        ssize_t n = write(2, "x", 1);
        out.write(n < 0 ? "write-denied" : "write-allowed",
                  n < 0 ? 12 : 13);
      },
      quick());
  ASSERT_EQ(result.status, SandboxResult::Finished) << result.detail;
  EXPECT_EQ(text(result), "open-denied write-denied");
}

TEST(SandboxTest, CrashHangAndMemoryExhaustionAreReported) {
  SandboxResult crashed =
      runSandboxed(
      [](SandboxWriter &) { *static_cast<volatile int *>(nullptr) = 1; },
      quick());
  EXPECT_EQ(crashed.status, SandboxResult::Crashed);

  SandboxResult hung = runSandboxed(
      [](SandboxWriter &) {
        // Unsigned, so that it wraps: an int would overflow after 2^31
        // steps, which UBSan reports as a crash.
        for (volatile unsigned i = 0;; i = i + 1)
          ;
      },
      quick());
  EXPECT_EQ(hung.status, SandboxResult::TimedOut);

  SandboxResult exhausted = runSandboxed(
      [](SandboxWriter &out) {
        // More than the limit allows: malloc fails inside the limit.
        // Through a volatile: clang removes an allocation that is never
        // used, and with it the failure this test is about.
        void *volatile p = std::malloc(size_t(1) << 30);
        out.write(p ? "allocated" : "refused", p ? 9 : 7);
      },
      quick());
  ASSERT_EQ(exhausted.status, SandboxResult::Finished);
  EXPECT_EQ(text(exhausted), "refused");
}

TEST(SandboxTest, OutputBeyondTheLimitStopsTheChild) {
  SandboxLimits limits = quick();
  limits.maxOutputBytes = 1 << 20;
  SandboxResult result = runSandboxed(
      [](SandboxWriter &out) {
        std::string chunk(1 << 16, 'y');
        for (;;)
          out.write(chunk.data(), chunk.size());
      },
      limits);
  EXPECT_EQ(result.status, SandboxResult::TooMuchOutput);
}

TEST(SandboxTest, BudgetFollowsTheFileSize) {
  EXPECT_EQ(readerByteBudget(0), uint64_t(64) << 20);
  EXPECT_EQ(readerByteBudget(1000), (uint64_t(64) << 20) + 16000);
  EXPECT_EQ(readerByteBudget(uint64_t(1) << 50), uint64_t(1) << 44);
}

} // namespace

//===- Sandbox.cpp - Run untrusted parsing in a limited child process -----===//

#include "seq/Frontend/Keras/Sandbox.h"

#include "llvm/ADT/StringRef.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef SEQ_HAVE_SECCOMP
#include <seccomp.h>
#endif

// AddressSanitizer (scripts/sanitize-test.sh, scripts/fuzz.sh) queries the
// signal stack before every noreturn call, _exit included: in those builds
// only, the child may call sigaltstack (which affects nothing but itself).
#if defined(__SANITIZE_ADDRESS__)
#define SEQ_SANDBOX_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SEQ_SANDBOX_UNDER_ASAN 1
#endif
#endif

namespace seq::keras {

void SandboxWriter::write(const void *data, size_t size) {
  const char *bytes = static_cast<const char *>(data);
  buffer.insert(buffer.end(), bytes, bytes + size);
  if (buffer.size() >= (1u << 16))
    flush();
}

void SandboxWriter::flush() {
  size_t done = 0;
  while (done < buffer.size()) {
    ssize_t n = ::write(fd, buffer.data() + done, buffer.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      _exit(3); // The parent is gone or refuses more: nothing to do.
    done += static_cast<size_t>(n);
  }
  buffer.clear();
}

namespace {

/// The process's current virtual size, so that the child's limit is what it
/// may add rather than a guess at what the host process already maps.
uint64_t currentAddressSpace() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  if (!(statm >> pages))
    return uint64_t(4) << 30;
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

void limit(int resource, uint64_t value) {
  struct rlimit r;
  r.rlim_cur = r.rlim_max = value;
  setrlimit(resource, &r);
}

/// Only memory management, time, and writing to `fd`; anything else (open,
/// socket, exec, ...) fails with EPERM.
void restrictSystemCalls(int fd) {
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
#ifdef SEQ_HAVE_SECCOMP
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ERRNO(EPERM));
  if (!filter)
    _exit(4);
  for (int call :
       {SCMP_SYS(read), SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(lseek),
        SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(mprotect),
        SCMP_SYS(brk), SCMP_SYS(madvise), SCMP_SYS(futex), SCMP_SYS(exit),
        SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn),
        SCMP_SYS(rt_sigprocmask), SCMP_SYS(getpid), SCMP_SYS(gettid),
        SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday),
        SCMP_SYS(sched_yield), SCMP_SYS(getrandom)})
    seccomp_rule_add(filter, SCMP_ACT_ALLOW, call, 0);
  seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
                   SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(fd)));
#ifdef SEQ_SANDBOX_UNDER_ASAN
  seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(sigaltstack), 0);
#endif
  if (seccomp_load(filter) != 0)
    _exit(4);
  seccomp_release(filter);
#else
  (void)fd;
#endif
}

/// Test hook: SEQC_INJECT_READER_FAULT=crash|hang|oom makes the child fail
/// that way, so that tests can show the parent survives each; a suffix
/// "@PURPOSE" (crash@dataset) aims at one kind of reader only.
void injectFault(const char *purpose) {
  const char *setting = std::getenv("SEQC_INJECT_READER_FAULT");
  if (!setting)
    return;
  llvm::StringRef value(setting);
  auto [kind, target] = value.split('@');
  if (!target.empty() && target != purpose)
    return;
  std::string faultText = kind.str();
  const char *fault = faultText.c_str();
  // raise() would be refused by the filter: fault as a bad pointer does.
  if (!std::strcmp(fault, "crash"))
    *static_cast<volatile int *>(nullptr) = 1;
  if (!std::strcmp(fault, "hang"))
    for (volatile unsigned long i = 0;; i = i + 1)
      ;
  if (!std::strcmp(fault, "oom")) {
    // Kept where the optimizer cannot see it unused: clang removes a malloc
    // whose memory is never read, and with it this whole loop.
    static char *volatile sink;
    for (;;) {
      // Touch every page, as a runaway allocation inside a library would.
      char *p = static_cast<char *>(std::malloc(size_t(64) << 20));
      if (!p)
        std::abort();
      std::memset(p, 1, size_t(64) << 20);
      sink = p;
    }
  }
}

[[noreturn]] void runChild(int fd, llvm::function_ref<void(SandboxWriter &)> body,
                           const SandboxLimits &limits) {
  // A dead parent must not leave a reader running.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  limit(RLIMIT_CORE, 0);
  limit(RLIMIT_FSIZE, 0);
  // The hard CPU limit one second above the soft one: at the soft limit the
  // kernel sends SIGXCPU, which reap() reports as a timeout; with equal
  // limits it sends SIGKILL instead, which read as a crash whenever the CPU
  // limit came before the wall-clock one (HDF5FileTest flaked on this).
  uint64_t cpuSeconds = limits.cpuSeconds ? limits.cpuSeconds : limits.seconds;
  struct rlimit cpu = {cpuSeconds, cpuSeconds + 1};
  setrlimit(RLIMIT_CPU, &cpu);
  limit(RLIMIT_AS, currentAddressSpace() + limits.extraMemoryBytes);
  restrictSystemCalls(fd);
  injectFault(limits.purpose);
  {
    SandboxWriter writer(fd);
    body(writer);
  }
  _exit(0);
}

} // namespace

namespace {

/// Forks the child; its pid and the read end of its pipe, or an error.
bool startChild(llvm::function_ref<void(SandboxWriter &)> body,
                const SandboxLimits &limits, pid_t &child, int &fd,
                std::string &error) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("cannot create a pipe: ") + strerror(errno);
    return false;
  }
  child = fork();
  if (child < 0) {
    error = std::string("cannot fork: ") + strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (child == 0) {
    close(fds[0]);
    runChild(fds[1], body, limits);
  }
  close(fds[1]);
  fd = fds[0];
  return true;
}

/// Kills the child if asked, reaps it, and says how it ended.
SandboxResult::Status reap(pid_t child, bool kill, bool timedOut,
                           std::string &detail) {
  if (kill)
    ::kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR)
    ;
  if (timedOut || (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU))
    return SandboxResult::TimedOut;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return SandboxResult::Finished;
  detail = WIFSIGNALED(status)
               ? std::string("signal ") + strsignal(WTERMSIG(status))
               : "exit status " + std::to_string(WEXITSTATUS(status));
  return SandboxResult::Crashed;
}

/// Waits up to `milliseconds` for `fd` to be readable; false on timeout.
bool waitReadable(int fd, int64_t milliseconds) {
  for (;;) {
    if (milliseconds <= 0)
      return false;
    struct pollfd p = {fd, POLLIN, 0};
    auto start = std::chrono::steady_clock::now();
    int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(milliseconds, 1 << 30)));
    if (ready > 0)
      return true;
    if (ready == 0)
      return false;
    if (errno != EINTR)
      return true; // let read() report it
    milliseconds -= std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  }
}

} // namespace

SandboxResult runSandboxed(llvm::function_ref<void(SandboxWriter &)> body,
                           const SandboxLimits &limits) {
  SandboxResult result{SandboxResult::NotStarted, {}, {}};
  pid_t child;
  int fd;
  if (!startChild(body, limits, child, fd, result.detail))
    return result;

  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::seconds(limits.seconds);
  bool timedOut = false, tooMuch = false;
  char chunk[1 << 16];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - Clock::now())
                    .count();
    if (!waitReadable(fd, left)) {
      timedOut = true;
      break;
    }
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    if (result.output.size() + n > limits.maxOutputBytes) {
      tooMuch = true;
      break;
    }
    result.output.insert(result.output.end(), chunk, chunk + n);
  }
  close(fd);
  result.status = reap(child, timedOut || tooMuch, timedOut, result.detail);
  if (tooMuch)
    result.status = SandboxResult::TooMuchOutput;
  return result;
}

std::unique_ptr<SandboxStream>
SandboxStream::start(llvm::function_ref<void(SandboxWriter &)> body,
                     const SandboxLimits &limits, std::string &error) {
  std::unique_ptr<SandboxStream> stream(new SandboxStream());
  stream->idleSeconds = limits.seconds;
  if (!startChild(body, limits, stream->child, stream->fd, error))
    return nullptr;
  return stream;
}

bool SandboxStream::read(void *data, size_t size) {
  char *bytes = static_cast<char *>(data);
  while (size > 0 && !ended) {
    if (!waitReadable(fd, int64_t(idleSeconds) * 1000)) {
      timedOut = ended = true;
      break;
    }
    ssize_t n = ::read(fd, bytes, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ended = true;
      break;
    }
    bytes += n;
    size -= static_cast<size_t>(n);
  }
  return size == 0;
}

SandboxResult::Status SandboxStream::finish(std::string &detail) {
  if (fd >= 0) {
    close(fd);
    fd = -1;
  }
  if (child <= 0)
    return status;
  // A child still writing after the reader is done is stopped: the parent
  // reads exactly what it needs.
  status = reap(child, /*kill=*/!ended || timedOut, timedOut, detail);
  child = -1;
  return status;
}

SandboxStream::~SandboxStream() {
  std::string detail;
  finish(detail);
}

SandboxLimits readerLimits(uint64_t fileBytes) {
  SandboxLimits limits;
  if (const char *text = std::getenv("SEQC_READER_TIMEOUT")) {
    char *end = nullptr;
    unsigned long seconds = std::strtoul(text, &end, 10);
    if (end != text && *end == 0 && seconds > 0 && seconds < 86400)
      limits.seconds = static_cast<unsigned>(seconds);
  }
  // What the reader may hold: the decoded arrays (bounded by the reader's
  // own byte budget) plus libraries' working memory.
  uint64_t budget = readerByteBudget(fileBytes);
  limits.extraMemoryBytes = 2 * budget + (uint64_t(512) << 20);
  limits.maxOutputBytes = budget + (uint64_t(64) << 20);
  return limits;
}

uint64_t readerByteBudget(uint64_t fileBytes) {
  // Uncompressed float32 data cannot exceed the file; float16/int8 storage
  // and compression can, within reason.
  uint64_t budget = uint64_t(64) << 20;
  if (fileBytes < (uint64_t(1) << 40))
    budget += 16 * fileBytes;
  else
    budget = uint64_t(1) << 44;
  return budget;
}

} // namespace seq::keras

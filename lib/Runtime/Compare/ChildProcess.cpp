#include "seq/Runtime/Compare.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace seq::rt {

llvm::Expected<ChildStatus> runChild(const std::vector<std::string> &argv) {
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  if (int error = posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot start '" + argv[0] +
                                       "': " + std::strerror(error));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     std::string("waitpid: ") + std::strerror(errno));
  if (WIFSIGNALED(status))
    return ChildStatus{true, WTERMSIG(status)};
  return ChildStatus{false, WEXITSTATUS(status)};
}

static llvm::Error systemError(const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 what + ": " + std::strerror(errno));
}

/// One byte over the socket; false when the other side is gone.
static bool sendByte(int fd, char byte) {
  for (;;) {
    if (::send(fd, &byte, 1, MSG_NOSIGNAL) == 1)
      return true;
    if (errno != EINTR)
      return false;
  }
}

/// The next byte, or 0 when the other side is gone.
static char receiveByte(int fd) {
  char byte;
  for (;;) {
    ssize_t n = ::read(fd, &byte, 1);
    if (n == 1)
      return byte;
    if (n < 0 && errno == EINTR)
      continue;
    return 0;
  }
}

llvm::Expected<WorkerProcess> WorkerProcess::start(const std::vector<std::string> &argv) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return systemError("socketpair");
  // The child's end goes to kWorkerChannelFd; a copy above it first, so that
  // dup2 never meets the same number (which would keep close-on-exec).
  int childEnd = ::fcntl(fds[1], F_DUPFD_CLOEXEC, kWorkerChannelFd + 1);
  ::close(fds[1]);
  if (childEnd < 0) {
    ::close(fds[0]);
    return systemError("fcntl");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, childEnd, kWorkerChannelFd);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int error = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(childEnd);
  if (error) {
    ::close(fds[0]);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot start '" + argv[0] +
                                       "': " + std::strerror(error));
  }
  return WorkerProcess(pid, fds[0]);
}

bool WorkerProcess::round() {
  if (fd < 0)
    return false;
  if (sendByte(fd, 'r') && receiveByte(fd) == 'd')
    return true;
  ::close(fd); // Died or failed: finish() tells how.
  fd = -1;
  return false;
}

llvm::Expected<ChildStatus> WorkerProcess::finish() {
  if (fd >= 0) {
    (void)sendByte(fd, 'q');
    ::close(fd);
    fd = -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return systemError("waitpid");
  pid = -1;
  if (WIFSIGNALED(status))
    return ChildStatus{true, WTERMSIG(status)};
  return ChildStatus{false, WEXITSTATUS(status)};
}

WorkerProcess::WorkerProcess(WorkerProcess &&other) noexcept
    : pid(other.pid), fd(other.fd) {
  other.pid = -1;
  other.fd = -1;
}

WorkerProcess::~WorkerProcess() {
  if (fd >= 0)
    ::close(fd);
  if (pid > 0) { // Never finished: do not leave it behind.
    ::kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

WorkerCommand nextWorkerCommand() {
  return receiveByte(kWorkerChannelFd) == 'r' ? WorkerCommand::Round
                                              : WorkerCommand::Finish;
}

void workerRoundDone() { (void)sendByte(kWorkerChannelFd, 'd'); }

} // namespace seq::rt

#include "seq/Runtime/Compare.h"

#include <cerrno>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>

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

} // namespace seq::rt

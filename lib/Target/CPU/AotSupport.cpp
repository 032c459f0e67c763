#include "AotSupport.h"

#include "seq/Runtime/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using llvm::Error;
using llvm::StringRef;
namespace fs = llvm::sys::fs;

namespace {
Error failure(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}
} // namespace

llvm::Expected<seq::cpu::TempDir> seq::cpu::TempDir::create(StringRef prefix) {
  llvm::SmallString<256> path;
  if (std::error_code ec = fs::createUniqueDirectory(prefix, path))
    return failure("cannot create a temporary directory: " + ec.message());
  return TempDir(path.str().str());
}

seq::cpu::TempDir::~TempDir() {
  if (!dir.empty())
    fs::remove_directories(dir, /*IgnoreErrors=*/true);
}

std::string seq::cpu::TempDir::file(StringRef name) const {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return path.str().str();
}

Error seq::cpu::writeFile(StringRef path, StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return failure("cannot write '" + path + "': " + ec.message());
  os << contents;
  os.close();
  if (os.has_error())
    return failure("cannot write '" + path + "': " + os.error().message());
  return Error::success();
}

Error seq::cpu::writeFileAtomically(StringRef path, StringRef contents) {
  return seq::rt::writeOutputFile(path, [&](llvm::raw_ostream &os) {
    os << contents;
    return Error::success();
  });
}

llvm::Expected<std::string> seq::cpu::findCCompiler() {
  if (const char *cc = std::getenv("CC"); cc && *cc) {
    if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName(cc);
        path && fs::can_execute(*path))
      return *path;
    return failure("$CC is '" + StringRef(cc) + "', which is not on PATH");
  }
  if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName("cc"))
    return *path;
  return failure("no C compiler found to link the library: install one (e.g. "
                 "gcc) or set $CC");
}

Error seq::cpu::runTool(const std::vector<std::string> &args, const TempDir &dir) {
  std::string log = dir.file("tool-stderr.txt");
  std::vector<StringRef> argv(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(args[0], argv, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &message);
  if (rc == 0)
    return Error::success();
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    output = (*buffer)->getBuffer().trim().str();
  std::string command;
  for (const std::string &a : args)
    command += (command.empty() ? "" : " ") + a;
  return failure("'" + command + "' failed" +
                 (message.empty() ? "" : " (" + message + ")") +
                 (output.empty() ? "" : ": " + output));
}

Error seq::cpu::installFiles(
    const std::vector<std::pair<std::string, std::string>> &files) {
  return seq::rt::installOutputFiles(files);
}

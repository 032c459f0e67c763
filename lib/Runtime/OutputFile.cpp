#include "seq/Runtime/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <atomic>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
namespace fs = llvm::sys::fs;

namespace seq::rt {
namespace {

std::atomic<bool> removeOnInterrupt{false};

Error outputError(StringRef path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot write '" + path + "': " + message);
}

} // namespace

void setRemoveTemporariesOnInterrupt(bool remove) { removeOnInterrupt = remove; }

Expected<OutputFile> OutputFile::create(StringRef path) {
  OutputFile out;
  out.userPath = path.str();
  if (path == "-") {
    std::error_code ec;
    out.stream = std::make_unique<llvm::raw_fd_ostream>("-", ec);
    if (ec)
      return outputError(path, ec.message());
    return std::move(out);
  }
  struct stat status;
  if (::stat(out.userPath.c_str(), &status) == 0 && !S_ISREG(status.st_mode)) {
    if (S_ISDIR(status.st_mode))
      return outputError(path, "it is a directory");
    // A device, FIFO or socket: written in place, never replaced.
    int fd = ::open(out.userPath.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
      return outputError(path, std::strerror(errno));
    out.stream = std::make_unique<llvm::raw_fd_ostream>(fd, /*shouldClose=*/true);
    return std::move(out);
  }
  // A regular file, or a path to create; through a symbolic link, its target.
  llvm::SmallString<256> target(path);
  if (fs::is_symlink_file(path)) {
    if (std::error_code ec = fs::real_path(path, target))
      return outputError(path, "it is a symbolic link that cannot be "
                               "followed (" + ec.message() + ")");
  }
  out.target = target.str().str();
  llvm::SmallString<256> model(out.target);
  llvm::sys::path::remove_filename(model);
  llvm::sys::path::append(model, "." + llvm::sys::path::filename(out.target) +
                                     ".seqc-tmp-%%%%%%%%");
  int fd = -1;
  llvm::SmallString<256> temporary;
  if (std::error_code ec = fs::createUniqueFile(model, fd, temporary))
    return outputError(path, "cannot create a temporary file beside it: " +
                                 ec.message());
  out.temporary = temporary.str().str();
  if (removeOnInterrupt)
    llvm::sys::RemoveFileOnSignal(out.temporary);
  out.stream = std::make_unique<llvm::raw_fd_ostream>(fd, /*shouldClose=*/true);
  return std::move(out);
}

OutputFile::OutputFile(OutputFile &&other) noexcept
    : userPath(std::move(other.userPath)), target(std::move(other.target)),
      temporary(std::move(other.temporary)), stream(std::move(other.stream)),
      done(other.done) {
  other.done = true;
}

OutputFile &OutputFile::operator=(OutputFile &&other) noexcept {
  if (this != &other) {
    discard();
    userPath = std::move(other.userPath);
    target = std::move(other.target);
    temporary = std::move(other.temporary);
    stream = std::move(other.stream);
    done = other.done;
    other.done = true;
  }
  return *this;
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() {
  if (done)
    return;
  done = true;
  if (stream) {
    stream->flush();
    stream->clear_error();
  }
  if (!temporary.empty()) {
    fs::remove(temporary);
    llvm::sys::DontRemoveFileOnSignal(temporary);
  }
}

Error OutputFile::flush() {
  stream->flush();
  if (std::error_code ec = stream->error()) {
    stream->clear_error();
    return outputError(userPath, ec.message());
  }
  return Error::success();
}

Error OutputFile::rename() {
  done = true;
  if (temporary.empty())
    return Error::success();
  // Keep the permissions a new file would get (createUniqueFile uses 0600).
  mode_t mask = ::umask(0);
  ::umask(mask);
  fs::setPermissions(temporary, static_cast<fs::perms>(0666 & ~mask));
  std::error_code ec = fs::rename(temporary, target);
  llvm::sys::DontRemoveFileOnSignal(temporary);
  if (ec) {
    fs::remove(temporary);
    return outputError(userPath, ec.message());
  }
  return Error::success();
}

Error OutputFile::commit() {
  if (Error e = flush()) {
    discard();
    return e;
  }
  return rename();
}

Error writeOutputFile(StringRef path,
                      llvm::function_ref<Error(llvm::raw_ostream &)> write) {
  Expected<OutputFile> out = OutputFile::create(path);
  if (!out)
    return out.takeError();
  if (Error e = write(out->os())) {
    out->discard();
    return e;
  }
  return out->commit();
}

Error installOutputFiles(
    const std::vector<std::pair<std::string, std::string>> &files) {
  std::vector<OutputFile> outputs;
  for (const auto &[from, to] : files) {
    auto bytes = llvm::MemoryBuffer::getFile(from, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
    if (!bytes)
      return outputError(to, "cannot read '" + from +
                                 "': " + bytes.getError().message());
    Expected<OutputFile> out = OutputFile::create(to);
    if (!out)
      return out.takeError();
    out->os() << (*bytes)->getBuffer();
    if (Error e = out->flush())
      return e;
    outputs.push_back(std::move(*out));
  }
  for (OutputFile &out : outputs)
    if (Error e = out.rename())
      return e;
  return Error::success();
}

} // namespace seq::rt

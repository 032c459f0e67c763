// Writing what the user named with -o, safely:
// - "-" is standard output;
// - an existing device, FIFO or socket (/dev/null, /dev/full, a pipe) is
//   written in place, as a stream: it is never replaced by a regular file;
// - anything else is a regular file, reached through any symbolic links:
//   the bytes go to a temporary file beside the final target, which is
//   renamed over it on commit, so nothing half-written is ever seen there.
//
// A temporary is removed if the process dies of SIGINT/SIGTERM only when
// setRemoveTemporariesOnInterrupt(true) was called (seq-compile does, unless
// it was started with SIGINT ignored, as nohup and background jobs do: then
// an interrupt must not take the output away mid-run).
#ifndef SEQ_RUNTIME_OUTPUTFILE_H
#define SEQ_RUNTIME_OUTPUTFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace seq::rt {

class OutputFile {
public:
  static llvm::Expected<OutputFile> create(llvm::StringRef path);
  OutputFile(OutputFile &&other) noexcept;
  OutputFile &operator=(OutputFile &&other) noexcept;
  ~OutputFile();

  llvm::raw_ostream &os() { return *stream; }
  /// The path the user named, for messages.
  llvm::StringRef path() const { return userPath; }
  /// Flushes and, for a regular file, renames the temporary into place.
  llvm::Error commit();
  /// Removes the temporary (if any); the destination is left as it was.
  void discard();

  /// Splits commit() for several outputs that must appear together: check
  /// (flush) every file first, then rename them all.
  llvm::Error flush();
  llvm::Error rename();

private:
  OutputFile() = default;

  std::string userPath;
  std::string target; ///< The final regular file ("" for a stream).
  std::string temporary;
  std::unique_ptr<llvm::raw_fd_ostream> stream;
  bool done = false;
};

/// create(), `write` into it, commit(); on any failure nothing is left.
llvm::Error writeOutputFile(
    llvm::StringRef path,
    llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);

/// Copies each (from, to) file into place together: every destination is
/// written to its temporary first, then all are renamed.
llvm::Error installOutputFiles(
    const std::vector<std::pair<std::string, std::string>> &files);

void setRemoveTemporariesOnInterrupt(bool remove);

} // namespace seq::rt

#endif

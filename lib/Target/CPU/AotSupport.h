// Files and tools for the AOT compiler: a temporary directory, atomic
// installation of several outputs, running the C compiler.
#ifndef SEQ_LIB_TARGET_CPU_AOTSUPPORT_H
#define SEQ_LIB_TARGET_CPU_AOTSUPPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace seq::cpu {

/// A directory under the system temp dir, removed with everything in it.
class TempDir {
public:
  static llvm::Expected<TempDir> create(llvm::StringRef prefix);
  TempDir(TempDir &&other) noexcept : dir(std::move(other.dir)) { other.dir.clear(); }
  TempDir(const TempDir &) = delete;
  ~TempDir();
  const std::string &path() const { return dir; }
  std::string file(llvm::StringRef name) const;

private:
  explicit TempDir(std::string dir) : dir(std::move(dir)) {}
  std::string dir;
};

llvm::Error writeFile(llvm::StringRef path, llvm::StringRef contents);
/// Writes through a temporary file in the same directory, then renames.
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents);

/// $CC, else `cc` on PATH.
llvm::Expected<std::string> findCCompiler();

/// Runs `args[0]` with `args`; on failure the error has the command's
/// stderr (kept in `dir`).
llvm::Error runTool(const std::vector<std::string> &args, const TempDir &dir);

/// Copies each (from, to) pair next to its destination, then renames them
/// all into place; on any failure nothing is left at the destinations.
llvm::Error
installFiles(const std::vector<std::pair<std::string, std::string>> &files);

} // namespace seq::cpu

#endif

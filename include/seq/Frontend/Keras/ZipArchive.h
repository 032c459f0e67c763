//===- ZipArchive.h - Read members of a zip archive -------------*- C++ -*-===//
//
// Reads archives as Python's zipfile writes them (Keras 3 .keras files):
// stored and deflated members, ZIP64 sizes and offsets, an archive comment.
// The whole file is read into memory; members are checked against their
// recorded sizes and CRC-32 when read.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FRONTEND_KERAS_ZIPARCHIVE_H
#define SEQ_FRONTEND_KERAS_ZIPARCHIVE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace seq::keras {

class ZipArchive {
public:
  static llvm::Expected<ZipArchive> open(llvm::StringRef path);
  /// An archive already in memory; `displayName` stands for it in messages.
  static llvm::Expected<ZipArchive>
  openBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
             llvm::StringRef displayName);

  llvm::StringRef path() const { return displayPath; }

  /// Member names in central directory order (directories end in '/').
  std::vector<std::string> names() const;
  bool contains(llvm::StringRef name) const;
  /// The uncompressed bytes of a member; a member that declares more than
  /// `maxBytes` is refused before anything is allocated.
  llvm::Expected<std::vector<char>>
  read(llvm::StringRef name, uint64_t maxBytes = UINT64_MAX) const;
  /// The stored (compressed) size of a member; 0 if there is none.
  uint64_t storedSize(llvm::StringRef name) const;

private:
  struct Member {
    std::string name;
    uint16_t flags;
    uint16_t method;
    uint32_t crc;
    uint64_t compressedSize;
    uint64_t size;
    uint64_t localHeaderOffset;
  };

  ZipArchive(std::string path, std::unique_ptr<llvm::MemoryBuffer> buffer)
      : displayPath(std::move(path)), buffer(std::move(buffer)) {}

  llvm::Error error(const llvm::Twine &message) const;
  llvm::Error readCentralDirectory();
  const Member *find(llvm::StringRef name) const;

  std::string displayPath;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  std::vector<Member> members;
};

} // namespace seq::keras

#endif // SEQ_FRONTEND_KERAS_ZIPARCHIVE_H

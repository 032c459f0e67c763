//===- ZipArchive.cpp - Read members of a zip archive ---------------------===//
//
// Record layouts follow PKWARE's APPNOTE.TXT; all integers are little-endian.
//
//===----------------------------------------------------------------------===//

#include "seq/Frontend/Keras/ZipArchive.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <optional>

using namespace seq::keras;
using llvm::Expected;
using llvm::StringRef;

namespace {

constexpr uint32_t localHeaderSignature = 0x04034b50;
constexpr uint32_t centralHeaderSignature = 0x02014b50;
constexpr uint32_t endSignature = 0x06054b50;
constexpr uint32_t zip64EndSignature = 0x06064b50;
constexpr uint32_t zip64LocatorSignature = 0x07064b50;
constexpr uint16_t zip64ExtraId = 0x0001;

constexpr size_t localHeaderSize = 30;
constexpr size_t centralHeaderSize = 46;
constexpr size_t endSize = 22;
constexpr size_t zip64EndSize = 56;
constexpr size_t zip64LocatorSize = 20;
constexpr size_t maxCommentSize = 0xffff;

/// Deflate cannot expand data more than about 1032:1, so a larger recorded
/// size is corrupt (and allocating it could exhaust memory).
constexpr uint64_t maxDeflateRatio = 1032;

/// Little-endian reads at offsets the caller has bounds-checked.
uint16_t read16(StringRef data, uint64_t offset) {
  return llvm::support::endian::read16le(data.data() + offset);
}
uint32_t read32(StringRef data, uint64_t offset) {
  return llvm::support::endian::read32le(data.data() + offset);
}
uint64_t read64(StringRef data, uint64_t offset) {
  return llvm::support::endian::read64le(data.data() + offset);
}

/// Offset of the end of central directory record: the last signature whose
/// comment length reaches exactly to the end of the file.
std::optional<uint64_t> findEndRecord(StringRef data) {
  if (data.size() < endSize)
    return std::nullopt;
  uint64_t lowest = data.size() > endSize + maxCommentSize
                        ? data.size() - endSize - maxCommentSize
                        : 0;
  for (uint64_t offset = data.size() - endSize;; --offset) {
    if (read32(data, offset) == endSignature &&
        offset + endSize + read16(data, offset + 20) == data.size())
      return offset;
    if (offset == lowest)
      return std::nullopt;
  }
}

/// Replaces the 32-bit fields saturated at 0xffffffff with the 64-bit values
/// of a ZIP64 extra field, which holds exactly those, in this order.
bool applyZip64Extra(StringRef extra, uint64_t &size, uint64_t &compressedSize,
                     uint64_t &localHeaderOffset) {
  while (extra.size() >= 4) {
    uint16_t id = read16(extra, 0);
    uint16_t length = read16(extra, 2);
    if (extra.size() - 4 < length)
      return false;
    StringRef field = extra.substr(4, length);
    extra = extra.drop_front(4 + length);
    if (id != zip64ExtraId)
      continue;
    uint64_t offset = 0;
    for (uint64_t *value : {&size, &compressedSize, &localHeaderOffset}) {
      if (*value != UINT32_MAX)
        continue;
      if (field.size() - offset < 8)
        return false;
      *value = read64(field, offset);
      offset += 8;
    }
  }
  return true;
}

/// Inflates raw deflate data that must produce exactly `out.size()` bytes.
bool inflateExactly(StringRef input, std::vector<char> &out) {
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
    return false;
  // zlib counts in uInt, so feed inputs and outputs over 4 GiB in pieces.
  auto *nextIn = reinterpret_cast<const Bytef *>(input.data());
  uint64_t inLeft = input.size();
  Bytef emptySink;
  auto *nextOut =
      out.empty() ? &emptySink : reinterpret_cast<Bytef *>(out.data());
  uint64_t outLeft = out.size();
  int status = Z_OK;
  while (status == Z_OK) {
    if (stream.avail_in == 0 && inLeft > 0) {
      stream.next_in = const_cast<Bytef *>(nextIn);
      stream.avail_in = std::min<uint64_t>(inLeft, UINT_MAX);
      nextIn += stream.avail_in;
      inLeft -= stream.avail_in;
    }
    if (stream.avail_out == 0) {
      stream.next_out = nextOut;
      stream.avail_out = std::min<uint64_t>(outLeft, UINT_MAX);
      nextOut += stream.avail_out;
      outLeft -= stream.avail_out;
    }
    status = inflate(&stream, Z_NO_FLUSH);
  }
  inflateEnd(&stream);
  return status == Z_STREAM_END && stream.total_out == out.size();
}

} // namespace

llvm::Error ZipArchive::error(const llvm::Twine &message) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + displayPath + "': " + message);
}

Expected<ZipArchive> ZipArchive::open(StringRef path) {
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + path + "': " + message);
  };
  if (llvm::sys::fs::is_directory(path))
    return fail("is a directory, not a zip archive");
  if (!llvm::sys::fs::exists(path))
    return fail("no such file");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail("cannot read: " + buffer.getError().message());
  return openBuffer(std::move(*buffer), path);
}

Expected<ZipArchive>
ZipArchive::openBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                       StringRef displayName) {
  ZipArchive archive(displayName.str(), std::move(buffer));
  if (llvm::Error err = archive.readCentralDirectory())
    return std::move(err);
  return std::move(archive);
}

llvm::Error ZipArchive::readCentralDirectory() {
  StringRef data = buffer->getBuffer();
  std::optional<uint64_t> end = findEndRecord(data);
  if (!end)
    return error(data.starts_with("PK\x03\x04")
                     ? "truncated zip archive (no end of central directory)"
                     : "not a zip archive");
  uint64_t count = read16(data, *end + 10);
  uint64_t directorySize = read32(data, *end + 12);
  uint64_t directoryOffset = read32(data, *end + 16);

  if (*end >= zip64LocatorSize &&
      read32(data, *end - zip64LocatorSize) == zip64LocatorSignature) {
    uint64_t zip64End = read64(data, *end - zip64LocatorSize + 8);
    if (data.size() < zip64EndSize || zip64End > data.size() - zip64EndSize ||
        read32(data, zip64End) != zip64EndSignature)
      return error("corrupt ZIP64 end of central directory");
    count = read64(data, zip64End + 32);
    directorySize = read64(data, zip64End + 40);
    directoryOffset = read64(data, zip64End + 48);
  }
  if (directoryOffset > data.size() ||
      directorySize > data.size() - directoryOffset)
    return error("truncated zip archive (central directory extends past the "
                 "end of the file)");

  StringRef directory = data.substr(directoryOffset, directorySize);
  // Names seen so far: a linear search per entry would make a directory of
  // a million tiny entries take hours.
  llvm::StringSet<> seen;
  for (uint64_t index = 0; index < count; ++index) {
    if (directory.size() < centralHeaderSize ||
        read32(directory, 0) != centralHeaderSignature)
      return error("corrupt zip central directory at entry " +
                   llvm::Twine(index));
    uint16_t nameLength = read16(directory, 28);
    uint16_t extraLength = read16(directory, 30);
    uint16_t commentLength = read16(directory, 32);
    uint64_t entrySize =
        centralHeaderSize + nameLength + extraLength + commentLength;
    if (directory.size() < entrySize)
      return error("corrupt zip central directory at entry " +
                   llvm::Twine(index));

    Member member;
    member.name = directory.substr(centralHeaderSize, nameLength).str();
    member.flags = read16(directory, 8);
    member.method = read16(directory, 10);
    member.crc = read32(directory, 16);
    member.compressedSize = read32(directory, 20);
    member.size = read32(directory, 24);
    member.localHeaderOffset = read32(directory, 42);
    StringRef extra =
        directory.substr(centralHeaderSize + nameLength, extraLength);
    if (!applyZip64Extra(extra, member.size, member.compressedSize,
                         member.localHeaderOffset))
      return error("corrupt ZIP64 extra field of zip member '" + member.name +
                   "'");
    // Readers disagree on which of two same-named members counts (Python's
    // zipfile and Keras take the last): a file that relies on it is refused.
    if (!seen.insert(member.name).second)
      return error("zip member '" + member.name +
                   "' appears twice: refused, since readers disagree on "
                   "which copy counts");
    members.push_back(std::move(member));
    directory = directory.drop_front(entrySize);
  }
  return llvm::Error::success();
}

std::vector<std::string> ZipArchive::names() const {
  std::vector<std::string> result;
  for (const Member &member : members)
    result.push_back(member.name);
  return result;
}

const ZipArchive::Member *ZipArchive::find(StringRef name) const {
  for (const Member &member : members)
    if (member.name == name)
      return &member;
  return nullptr;
}

bool ZipArchive::contains(StringRef name) const { return find(name); }

uint64_t ZipArchive::storedSize(StringRef name) const {
  const Member *member = find(name);
  return member ? member->compressedSize : 0;
}

Expected<std::vector<char>> ZipArchive::read(StringRef name,
                                             uint64_t maxBytes) const {
  const Member *member = find(name);
  std::string label = ("zip member '" + name + "'").str();
  if (!member)
    return error(label + " not found");
  if (member->size > maxBytes)
    return error(label + " declares " + llvm::Twine(member->size) +
                 " bytes uncompressed, more than the " +
                 llvm::Twine(maxBytes) +
                 " seqc accepts for it (the file is corrupt or hostile)");
  if (member->flags & 1)
    return error(label + " is encrypted, which is not supported");
  if (member->method != 0 && member->method != 8)
    return error(label + " uses compression method " +
                 llvm::Twine(member->method) +
                 "; only stored (0) and deflate (8) are supported");

  // Only the local header's name and extra lengths are used: its sizes may be
  // zero (written later in a data descriptor) and its extra field may differ.
  StringRef data = buffer->getBuffer();
  uint64_t header = member->localHeaderOffset;
  if (header > data.size() || data.size() - header < localHeaderSize ||
      read32(data, header) != localHeaderSignature)
    return error(label + " has no local header at offset " +
                 llvm::Twine(header) + " (truncated or corrupt archive)");
  uint64_t start = header + localHeaderSize + read16(data, header + 26) +
                   read16(data, header + 28);
  if (start > data.size() || member->compressedSize > data.size() - start)
    return error(label + " is truncated");
  StringRef compressed = data.substr(start, member->compressedSize);

  std::vector<char> bytes;
  if (member->method == 0) {
    if (member->compressedSize != member->size)
      return error("stored " + label + " has different compressed (" +
                   llvm::Twine(member->compressedSize) +
                   ") and uncompressed (" + llvm::Twine(member->size) +
                   ") sizes");
    bytes.assign(compressed.begin(), compressed.end());
  } else {
    if (member->size / maxDeflateRatio > member->compressedSize)
      return error(label + " records an impossible uncompressed size of " +
                   llvm::Twine(member->size) + " bytes");
    bytes.resize(member->size);
    if (!inflateExactly(compressed, bytes))
      return error(label + " has corrupt deflate data or a wrong size");
  }

  uint32_t crc =
      crc32_z(0, reinterpret_cast<const Bytef *>(bytes.data()), bytes.size());
  if (crc != member->crc)
    return error(label + " fails its CRC-32 check (recorded 0x" +
                 llvm::utohexstr(member->crc) + ", computed 0x" +
                 llvm::utohexstr(crc) + ")");
  return std::move(bytes);
}

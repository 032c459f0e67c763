//===- TensorBundle.cpp - Read TensorFlow checkpoints ---------------------===//
//
// The index is a table in LevelDB's format (tensorflow/core/lib/io/table):
// a 48-byte footer (the metaindex and index block handles, then a magic
// number), blocks of prefix-compressed key/value entries followed by their
// restart points, each block trailed by a compression byte and a masked
// CRC-32C. The index block maps keys to data blocks; the data blocks map ""
// to the BundleHeaderProto and every tensor name to its BundleEntryProto.
//
//===----------------------------------------------------------------------===//

#include "seq/Frontend/Keras/TensorBundle.h"

#include "seq/Frontend/Keras/ModelFile.h"
#include "seq/Frontend/Keras/ProtoWire.h"

#include "llvm/Support/Endian.h"

#include <array>
#include <cstdio>

using namespace llvm;

namespace seq::keras {

namespace {

constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kFooterSize = 48;
constexpr size_t kBlockTrailerSize = 5;
/// Beyond what any Keras model's checkpoint index needs (tens of bytes per
/// variable), and bounds on what a crafted one may make seqc hold.
constexpr uint64_t kMaxIndexBytes = uint64_t(256) << 20;
constexpr size_t kMaxKeyBytes = 64 << 10;
constexpr size_t kMaxEntries = size_t(1) << 20;
constexpr uint32_t kMaxShards = 4096;
constexpr size_t kMaxRank = 32;
constexpr uint64_t kMaxStringBytes = uint64_t(256) << 20;

const std::array<uint32_t, 256> &crcTable() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

uint32_t crc32cExtend(uint32_t crc, StringRef data) {
  const std::array<uint32_t, 256> &table = crcTable();
  crc = ~crc;
  for (char ch : data)
    crc = table[(crc ^ static_cast<uint8_t>(ch)) & 0xff] ^ (crc >> 8);
  return ~crc;
}

uint32_t mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

struct BlockHandle {
  uint64_t offset = 0, size = 0;
};

bool readHandle(StringRef data, size_t &pos, BlockHandle &handle) {
  return readVarint(data, pos, handle.offset) && readVarint(data, pos, handle.size);
}

std::string shardName(StringRef prefix, uint32_t shard, uint32_t count) {
  char suffix[40];
  snprintf(suffix, sizeof suffix, ".data-%05u-of-%05u", shard, count);
  return (prefix + suffix).str();
}

} // namespace

uint32_t maskedCrc32c(StringRef data) { return mask(crc32cExtend(0, data)); }

std::string TensorBundle::dtypeName(int dtype) {
  switch (dtype) {
  case Float:
    return "float32";
  case Double:
    return "float64";
  case Int32:
    return "int32";
  case String:
    return "string";
  case Int64:
    return "int64";
  case BFloat16:
    return "bfloat16";
  case Half:
    return "float16";
  default:
    return "dtype " + std::to_string(dtype);
  }
}

unsigned TensorBundle::dtypeSize(int dtype) {
  switch (dtype) {
  case Float:
  case Int32:
    return 4;
  case Double:
  case Int64:
    return 8;
  case BFloat16:
  case Half:
    return 2;
  default:
    return 0;
  }
}

Error TensorBundle::error(const Twine &message) const {
  return createStringError(inconvertibleErrorCode(),
                           "'" + displayPath + "': " + message);
}

const TensorBundle::Entry *TensorBundle::find(StringRef name) const {
  auto it = entries.find(name);
  return it == entries.end() ? nullptr : &it->second;
}

Error TensorBundle::addEntry(StringRef key, StringRef value) {
  std::string what = ("the checkpoint entry '" + key + "'").str();
  if (key.empty()) {
    // BundleHeaderProto: num_shards = 1, endianness = 2 (0: little).
    return forEachProtoField(value, what, [&](const ProtoField &f) -> Error {
      if (f.number == 1 && f.type == ProtoField::Varint) {
        if (f.value == 0 || f.value > kMaxShards)
          return error("the checkpoint header counts " + Twine(f.value) + " data shards");
        numShards = static_cast<uint32_t>(f.value);
      } else if (f.number == 2 && f.type == ProtoField::Varint && f.value != 0) {
        return error("a big-endian checkpoint, which seqc does not read: save it "
                     "again on a little-endian machine");
      }
      return Error::success();
    });
  }
  if (entries.size() >= kMaxEntries)
    return error("more than " + Twine(kMaxEntries) + " checkpoint entries");
  Entry entry;
  Error e = forEachProtoField(value, what, [&](const ProtoField &f) -> Error {
    switch (f.number) {
    case 1:
      entry.dtype = static_cast<int>(std::min<uint64_t>(f.value, INT32_MAX));
      break;
    case 2: // TensorShapeProto: dim = 2 {size = 1}, unknown_rank = 3
      return forEachProtoField(f.bytes, what, [&](const ProtoField &d) -> Error {
        if (d.number == 3 && d.value)
          return error(what + " has a shape of unknown rank");
        if (d.number != 2)
          return Error::success();
        if (entry.shape.size() >= kMaxRank)
          return error(what + " has more than " + Twine(kMaxRank) + " axes");
        int64_t size = 0;
        if (Error e = forEachProtoField(d.bytes, what, [&](const ProtoField &s) {
              if (s.number == 1 && s.type == ProtoField::Varint)
                size = static_cast<int64_t>(s.value);
              return Error::success();
            }))
          return e;
        if (size < 0)
          return error(what + " has an axis of size " + Twine(size));
        entry.shape.push_back(size);
        return Error::success();
      });
    case 3:
      entry.shard = static_cast<uint32_t>(std::min<uint64_t>(f.value, UINT32_MAX));
      break;
    case 4:
      entry.offset = f.value;
      break;
    case 5:
      entry.size = f.value;
      break;
    case 6:
      entry.maskedCrc = static_cast<uint32_t>(f.value);
      break;
    case 7:
      entry.sliced = true;
      break;
    }
    return Error::success();
  });
  if (e)
    return e;
  if (!entries.try_emplace(key, std::move(entry)).second)
    return error(what + " is in the index twice");
  keys.push_back(key.str());
  return Error::success();
}

Error TensorBundle::readIndex(StringRef index) {
  if (index.size() < kFooterSize ||
      support::endian::read64le(index.data() + index.size() - 8) != kTableMagic)
    return error("not a TensorFlow checkpoint index (no table footer)");
  StringRef footer = index.take_back(kFooterSize);
  size_t pos = 0;
  BlockHandle metaindex, indexHandle;
  if (!readHandle(footer, pos, metaindex) || !readHandle(footer, pos, indexHandle))
    return error("the checkpoint index's footer is corrupt");

  auto block = [&](BlockHandle handle, StringRef what) -> Expected<StringRef> {
    uint64_t limit = index.size() - kFooterSize;
    if (handle.offset > limit || handle.size > limit - handle.offset ||
        kBlockTrailerSize > limit - handle.offset - handle.size)
      return error("the checkpoint index's " + what + " lies outside the file");
    StringRef contents = index.substr(handle.offset, handle.size);
    StringRef trailer = index.substr(handle.offset + handle.size, kBlockTrailerSize);
    if (trailer[0] != 0)
      return error("the checkpoint index's " + what + " is compressed (type " +
                   Twine(int(uint8_t(trailer[0]))) +
                   "), which TensorFlow never writes and seqc does not read");
    uint32_t stored = support::endian::read32le(trailer.data() + 1);
    if (mask(crc32cExtend(crc32cExtend(0, contents), trailer.take_front(1))) != stored)
      return error("the checkpoint index's " + what +
                   " does not match its CRC-32C: the file is corrupt");
    return contents;
  };
  // Calls `visit` with each key and value of a block.
  auto entriesOf = [&](StringRef contents, StringRef what,
                       function_ref<Error(StringRef, StringRef)> visit) -> Error {
    auto corrupt = [&] { return error("the checkpoint index's " + what + " is corrupt"); };
    if (contents.size() < 4)
      return corrupt();
    uint32_t restarts = support::endian::read32le(contents.data() + contents.size() - 4);
    if (restarts > (contents.size() - 4) / 4)
      return corrupt();
    StringRef data = contents.drop_back(4 + size_t(restarts) * 4);
    std::string key;
    size_t pos = 0;
    while (pos < data.size()) {
      uint64_t shared, unshared, valueSize;
      if (!readVarint(data, pos, shared) || !readVarint(data, pos, unshared) ||
          !readVarint(data, pos, valueSize) || shared > key.size() ||
          unshared > data.size() - pos || valueSize > data.size() - pos - unshared)
        return corrupt();
      if (shared + unshared > kMaxKeyBytes)
        return error("a checkpoint key of more than " + Twine(kMaxKeyBytes) + " bytes");
      key.resize(shared);
      key.append(data.data() + pos, unshared);
      pos += unshared;
      if (Error e = visit(key, data.substr(pos, valueSize)))
        return e;
      pos += valueSize;
    }
    return Error::success();
  };

  Expected<StringRef> indexBlock = block(indexHandle, "index block");
  if (!indexBlock)
    return indexBlock.takeError();
  return entriesOf(*indexBlock, "index block", [&](StringRef, StringRef value) -> Error {
    size_t at = 0;
    BlockHandle handle;
    if (!readHandle(value, at, handle))
      return error("the checkpoint index's index block is corrupt");
    Expected<StringRef> dataBlock = block(handle, "data block");
    if (!dataBlock)
      return dataBlock.takeError();
    return entriesOf(*dataBlock, "data block",
                     [&](StringRef key, StringRef value) { return addEntry(key, value); });
  });
}

Expected<TensorBundle>
TensorBundle::openBuffers(std::unique_ptr<MemoryBuffer> index,
                          std::vector<std::unique_ptr<MemoryBuffer>> shards,
                          StringRef displayName) {
  TensorBundle bundle(displayName.str());
  if (index->getBufferSize() > kMaxIndexBytes)
    return bundle.error("a checkpoint index of " + Twine(index->getBufferSize()) +
                        " bytes, more than the " + Twine(kMaxIndexBytes) + " seqc reads");
  if (Error e = bundle.readIndex(index->getBuffer()))
    return std::move(e);
  if (shards.size() != bundle.numShards)
    return bundle.error("the checkpoint counts " + Twine(bundle.numShards) +
                        " data shards, " + Twine(shards.size()) + " are given");
  bundle.shards = std::move(shards);
  return std::move(bundle);
}

Expected<TensorBundle> TensorBundle::open(StringRef prefix) {
  TensorBundle named(prefix.str());
  Expected<std::unique_ptr<MemoryBuffer>> index =
      readModelFile((prefix + ".index").str(), kMaxIndexBytes);
  if (!index)
    return index.takeError();
  if (Error e = named.readIndex((*index)->getBuffer()))
    return std::move(e);
  std::vector<std::unique_ptr<MemoryBuffer>> shards;
  for (uint32_t i = 0; i < named.numShards; ++i) {
    Expected<std::unique_ptr<MemoryBuffer>> shard =
        readModelFile(shardName(prefix, i, named.numShards), UINT64_MAX);
    if (!shard)
      return shard.takeError();
    shards.push_back(std::move(*shard));
  }
  named.shards = std::move(shards);
  return std::move(named);
}

Expected<StringRef> TensorBundle::readBytes(StringRef name) const {
  const Entry *entry = find(name);
  if (!entry)
    return error("no tensor '" + name + "' in the checkpoint");
  if (entry->sliced)
    return error("tensor '" + name + "' is saved in slices (a partitioned "
                 "variable), which seqc does not read");
  if (entry->shard >= shards.size())
    return error("tensor '" + name + "' is in data shard " + Twine(entry->shard) +
                 " of " + Twine(shards.size()));
  StringRef data = shards[entry->shard]->getBuffer();
  if (entry->offset > data.size() || entry->size > data.size() - entry->offset)
    return error("tensor '" + name + "' lies outside its data shard: the checkpoint "
                 "is truncated or corrupt");
  // A fixed-size tensor's bytes are its elements, every one.
  if (unsigned elementSize = dtypeSize(entry->dtype)) {
    uint64_t count = 1;
    for (int64_t dim : entry->shape)
      if (dim && count > (UINT64_MAX / 8) / uint64_t(dim))
        return error("tensor '" + name + "' has more elements than memory holds");
      else
        count *= uint64_t(dim);
    if (count * elementSize != entry->size)
      return error("tensor '" + name + "' holds " + Twine(entry->size) +
                   " bytes, its shape needs " + Twine(count * elementSize));
  }
  StringRef bytes = data.substr(entry->offset, entry->size);
  if (entry->dtype != String && maskedCrc32c(bytes) != entry->maskedCrc)
    return error("tensor '" + name + "' does not match its CRC-32C: the checkpoint "
                 "is corrupt");
  return bytes;
}

Expected<std::string> TensorBundle::readScalarString(StringRef name) const {
  const Entry *entry = find(name);
  if (entry && (entry->dtype != String || !entry->shape.empty()))
    return error("tensor '" + name + "' is not a string");
  Expected<StringRef> bytes = readBytes(name);
  if (!bytes)
    return bytes.takeError();
  // [varint64 length] [masked CRC-32C of the length] [the bytes], the
  // length checksummed as 4 bytes (8 beyond 4 GiB, which seqc refuses); the
  // entry's CRC-32C runs over that length, the masked length CRC and the
  // bytes.
  size_t pos = 0;
  uint64_t length;
  if (!readVarint(*bytes, pos, length) || bytes->size() - pos < 4 ||
      length != bytes->size() - pos - 4)
    return error("string tensor '" + name + "' is corrupt");
  if (length > kMaxStringBytes)
    return error("string tensor '" + name + "' is " + Twine(length) +
                 " bytes, more than the " + Twine(kMaxStringBytes) + " seqc reads");
  char length4[4];
  support::endian::write32le(length4, static_cast<uint32_t>(length));
  uint32_t lengthCrc = crc32cExtend(0, StringRef(length4, 4));
  StringRef storedLengthCrc = bytes->substr(pos, 4);
  StringRef text = bytes->substr(pos + 4);
  if (mask(lengthCrc) != support::endian::read32le(storedLengthCrc.data()) ||
      mask(crc32cExtend(crc32cExtend(lengthCrc, storedLengthCrc), text)) != entry->maskedCrc)
    return error("string tensor '" + name + "' does not match its CRC-32C: the "
                 "checkpoint is corrupt");
  return text.str();
}

} // namespace seq::keras

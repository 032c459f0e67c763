//===- BundleBuilder.h - Write TensorFlow checkpoints for tests -*- C++ -*-===//
//
// Protocol buffer fields and tensor bundles (a LevelDB-format index and one
// data shard) as TensorFlow writes them, with hooks to break them.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_UNITTESTS_FRONTEND_BUNDLEBUILDER_H
#define SEQ_UNITTESTS_FRONTEND_BUNDLEBUILDER_H

#include "seq/Frontend/Keras/TensorBundle.h"

#include "llvm/Support/Endian.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace seq::test {

struct ProtoWriter {
  std::string out;
  void varint(uint64_t v) {
    do {
      out += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
      v >>= 7;
    } while (v);
  }
  ProtoWriter &number(uint32_t field, uint64_t v) {
    varint(uint64_t(field) << 3);
    varint(v);
    return *this;
  }
  ProtoWriter &bytes(uint32_t field, const std::string &b) {
    varint(uint64_t(field) << 3 | 2);
    varint(b.size());
    out += b;
    return *this;
  }
  ProtoWriter &fixed32(uint32_t field, uint32_t v) {
    varint(uint64_t(field) << 3 | 5);
    char b[4];
    llvm::support::endian::write32le(b, v);
    out.append(b, 4);
    return *this;
  }
};

class BundleBuilder {
public:
  std::string data;
  /// Key -> BundleEntryProto (or, for "", BundleHeaderProto).
  std::map<std::string, std::string> entries;

  BundleBuilder() { entries[""] = ProtoWriter().number(1, 1).out; }

  static std::string entry(int dtype, const std::vector<int64_t> &shape, uint64_t offset,
                           uint64_t size, uint32_t crc) {
    ProtoWriter dims;
    for (int64_t d : shape)
      dims.bytes(2, ProtoWriter().number(1, d).out);
    ProtoWriter e;
    e.number(1, dtype).bytes(2, dims.out);
    if (offset)
      e.number(4, offset);
    e.number(5, size).fixed32(6, crc);
    return e.out;
  }

  void addFloats(const std::string &name, const std::vector<int64_t> &shape,
                 const std::vector<float> &values) {
    std::string bytes(values.size() * 4, '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    entries[name] = entry(keras::TensorBundle::Float, shape, data.size(), bytes.size(),
                          keras::maskedCrc32c(bytes));
    data += bytes;
  }

  /// A scalar string tensor: varint length, masked CRC of the length as 4
  /// bytes, the bytes; the entry's CRC over the length's 4 bytes, that CRC
  /// and the bytes.
  void addString(const std::string &name, const std::string &text) {
    ProtoWriter length;
    length.varint(text.size());
    char length4[4];
    llvm::support::endian::write32le(length4, static_cast<uint32_t>(text.size()));
    uint32_t lengthCrc = keras::maskedCrc32c(std::string(length4, 4));
    char stored[4];
    llvm::support::endian::write32le(stored, lengthCrc);
    std::string bytes = length.out + std::string(stored, 4) + text;
    // (CRC-32C extended over the three parts, computed here the slow way: as
    // the CRC of their concatenation.)
    entries[name] =
        entry(keras::TensorBundle::String, {}, data.size(), bytes.size(),
              keras::maskedCrc32c(std::string(length4, 4) + std::string(stored, 4) + text));
    data += bytes;
  }

  /// The index: one data block holding every entry (keys prefix-compressed
  /// against the one before), the index block, the footer.
  std::string index(char compression = 0) const {
    std::string block;
    std::string previous;
    for (const auto &[key, value] : entries) {
      size_t shared = 0;
      while (shared < key.size() && shared < previous.size() && key[shared] == previous[shared])
        ++shared;
      ProtoWriter head;
      head.varint(shared);
      head.varint(key.size() - shared);
      head.varint(value.size());
      block += head.out + key.substr(shared) + value;
      previous = key;
    }
    block += std::string("\0\0\0\0", 4) + std::string("\1\0\0\0", 4); // restart 0; 1 restart
    std::string file;
    ProtoWriter dataHandle;
    dataHandle.varint(file.size());
    dataHandle.varint(block.size());
    appendBlock(file, block, compression);
    ProtoWriter indexBlock;
    std::string lastKey = entries.empty() ? "" : entries.rbegin()->first;
    indexBlock.varint(0);
    indexBlock.varint(lastKey.size());
    indexBlock.varint(dataHandle.out.size());
    std::string iblock = indexBlock.out + lastKey + dataHandle.out +
                         std::string("\0\0\0\0", 4) + std::string("\1\0\0\0", 4);
    ProtoWriter handles;
    handles.varint(file.size()); // the metaindex block, which no reader needs
    handles.varint(0);
    handles.varint(file.size());
    handles.varint(iblock.size());
    appendBlock(file, iblock, 0);
    std::string footer = handles.out;
    footer.resize(40, '\0');
    char magic[8];
    llvm::support::endian::write64le(magic, 0xdb4775248b80fb57ull);
    return file + footer + std::string(magic, 8);
  }

private:
  static void appendBlock(std::string &file, const std::string &block, char type) {
    char trailer[5];
    trailer[0] = type;
    llvm::support::endian::write32le(trailer + 1,
                                     keras::maskedCrc32c(block + std::string(1, type)));
    file += block + std::string(trailer, 5);
  }
};

} // namespace seq::test

#endif // SEQ_UNITTESTS_FRONTEND_BUNDLEBUILDER_H

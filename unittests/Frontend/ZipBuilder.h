//===- ZipBuilder.h - Write zip archives byte by byte for tests -*- C++ -*-===//
//
// Lays out local headers, the central directory and the end records as in
// PKWARE's APPNOTE.TXT, so tests control every field (and can corrupt any).
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_UNITTESTS_FRONTEND_ZIPBUILDER_H
#define SEQ_UNITTESTS_FRONTEND_ZIPBUILDER_H

#include <zlib.h>

#include <cstdint>
#include <string>

namespace seq::test {

enum : uint16_t { zipStored = 0, zipDeflated = 8 };

class ZipBuilder {
public:
  /// With `zip64`, sizes and offsets go in ZIP64 extra fields and end records.
  explicit ZipBuilder(bool zip64 = false) : zip64(zip64) {}

  /// Adds a member; with a method other than stored or deflated the bytes are
  /// stored raw under that method number.
  void add(const std::string &name, const std::string &data,
           uint16_t method = zipStored, uint16_t flags = 0) {
    std::string stored = method == zipDeflated ? deflateRaw(data) : data;
    uint32_t crc =
        crc32_z(0, reinterpret_cast<const Bytef *>(data.data()), data.size());
    uint64_t offset = local.size();

    put32(local, 0x04034b50);
    put16(local, zip64 ? 45 : 20);
    put16(local, flags);
    put16(local, method);
    put16(local, 0);    // Time.
    put16(local, 0x21); // Date: 1980-01-01.
    put32(local, crc);
    put32(local, zip64 ? 0xffffffff : stored.size());
    put32(local, zip64 ? 0xffffffff : data.size());
    put16(local, name.size());
    put16(local, zip64 ? 20 : 0);
    local += name;
    if (zip64) {
      put16(local, 0x0001);
      put16(local, 16);
      put64(local, data.size());
      put64(local, stored.size());
    }
    local += stored;

    put32(central, 0x02014b50);
    put16(central, zip64 ? 45 : 20); // Made by.
    put16(central, zip64 ? 45 : 20); // Needed.
    put16(central, flags);
    put16(central, method);
    put16(central, 0);
    put16(central, 0x21);
    put32(central, crc);
    put32(central, zip64 ? 0xffffffff : stored.size());
    put32(central, zip64 ? 0xffffffff : data.size());
    put16(central, name.size());
    put16(central, zip64 ? 28 : 0);
    put16(central, 0); // Comment length.
    put16(central, 0); // Disk.
    put16(central, 0); // Internal attributes.
    put32(central, 0); // External attributes.
    put32(central, zip64 ? 0xffffffff : offset);
    central += name;
    if (zip64) {
      put16(central, 0x0001);
      put16(central, 24);
      put64(central, data.size());
      put64(central, stored.size());
      put64(central, offset);
    }
    ++count;
  }

  /// The whole archive, ending with `comment`.
  std::string finish(const std::string &comment = "") const {
    std::string archive = local + central;
    if (zip64) {
      uint64_t zip64End = archive.size();
      put32(archive, 0x06064b50);
      put64(archive, 44); // Size of the rest of this record.
      put16(archive, 45);
      put16(archive, 45);
      put32(archive, 0);
      put32(archive, 0);
      put64(archive, count);
      put64(archive, count);
      put64(archive, central.size());
      put64(archive, local.size());
      put32(archive, 0x07064b50); // Locator.
      put32(archive, 0);
      put64(archive, zip64End);
      put32(archive, 1);
    }
    put32(archive, 0x06054b50);
    put16(archive, 0);
    put16(archive, 0);
    put16(archive, zip64 ? 0xffff : count);
    put16(archive, zip64 ? 0xffff : count);
    put32(archive, zip64 ? 0xffffffff : central.size());
    put32(archive, zip64 ? 0xffffffff : local.size());
    put16(archive, comment.size());
    return archive + comment;
  }

  static std::string deflateRaw(const std::string &data) {
    z_stream stream{};
    deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8,
                 Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&stream, data.size()), '\0');
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
    stream.avail_in = data.size();
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = out.size();
    deflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
  }

private:
  static void put16(std::string &out, uint64_t value) { putLE(out, value, 2); }
  static void put32(std::string &out, uint64_t value) { putLE(out, value, 4); }
  static void put64(std::string &out, uint64_t value) { putLE(out, value, 8); }
  static void putLE(std::string &out, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i)
      out += static_cast<char>(value >> (8 * i));
  }

  bool zip64;
  std::string local;
  std::string central;
  uint64_t count = 0;
};

} // namespace seq::test

#endif // SEQ_UNITTESTS_FRONTEND_ZIPBUILDER_H

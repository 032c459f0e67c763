//===- ProtoWire.cpp - Read protocol buffer messages field by field -------===//

#include "seq/Frontend/Keras/ProtoWire.h"

#include "llvm/Support/Endian.h"

using namespace llvm;

namespace seq::keras {

bool readVarint(StringRef data, size_t &pos, uint64_t &value) {
  value = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (pos >= data.size())
      return false;
    uint8_t byte = static_cast<uint8_t>(data[pos++]);
    value |= uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return true;
  }
  return false;
}

Error forEachProtoField(StringRef message, StringRef what,
                        function_ref<Error(const ProtoField &)> visit) {
  auto malformed = [&](size_t at, const Twine &why) {
    return createStringError(inconvertibleErrorCode(),
                             what + " is not a valid protocol buffer (" + why +
                                 " at byte " + Twine(at) + ")");
  };
  size_t pos = 0;
  while (pos < message.size()) {
    size_t start = pos;
    uint64_t tag;
    if (!readVarint(message, pos, tag))
      return malformed(start, "a truncated field tag");
    ProtoField field;
    field.number = static_cast<uint32_t>(tag >> 3);
    if (field.number == 0 || (tag >> 3) > 0x1fffffff)
      return malformed(start, "field number " + Twine(tag >> 3));
    switch (tag & 7) {
    case ProtoField::Varint:
      field.type = ProtoField::Varint;
      if (!readVarint(message, pos, field.value))
        return malformed(start, "a truncated varint");
      break;
    case ProtoField::Fixed64:
      field.type = ProtoField::Fixed64;
      if (message.size() - pos < 8)
        return malformed(start, "a truncated 64-bit field");
      field.value = support::endian::read64le(message.data() + pos);
      pos += 8;
      break;
    case ProtoField::Fixed32:
      field.type = ProtoField::Fixed32;
      if (message.size() - pos < 4)
        return malformed(start, "a truncated 32-bit field");
      field.value = support::endian::read32le(message.data() + pos);
      pos += 4;
      break;
    case ProtoField::Bytes: {
      field.type = ProtoField::Bytes;
      uint64_t length;
      if (!readVarint(message, pos, length))
        return malformed(start, "a truncated length");
      if (length > message.size() - pos)
        return malformed(start, "a length of " + Twine(length) + " past the end");
      field.bytes = message.substr(pos, length);
      pos += length;
      break;
    }
    default:
      return malformed(start, "wire type " + Twine(tag & 7));
    }
    if (Error e = visit(field))
      return e;
  }
  return Error::success();
}

} // namespace seq::keras

//===- ProtoWire.h - Read protocol buffer messages field by field -*- C++ -*-===//
//
// The protobuf wire format, enough to read the few TensorFlow messages a
// SavedModel or checkpoint keeps Keras' model in (keras_metadata.pb, the
// checkpoint's entries and object graph) without protoc or libprotobuf: a
// message is a sequence of (field number, wire type, value) records. Every
// length is checked against the bytes there are; groups (deprecated wire
// types 3 and 4) are refused.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FRONTEND_KERAS_PROTOWIRE_H
#define SEQ_FRONTEND_KERAS_PROTOWIRE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace seq::keras {

struct ProtoField {
  enum WireType { Varint = 0, Fixed64 = 1, Bytes = 2, Fixed32 = 5 };
  uint32_t number = 0;
  WireType type = Varint;
  /// The value of a varint or fixed field.
  uint64_t value = 0;
  /// The contents of a length-delimited field (string, bytes, message).
  llvm::StringRef bytes;
};

/// Calls `visit` with each field of `message` in order; stops at the first
/// error, the message's or the visitor's. `what` names the message in the
/// errors this raises ("keras_metadata.pb").
llvm::Error
forEachProtoField(llvm::StringRef message, llvm::StringRef what,
                  llvm::function_ref<llvm::Error(const ProtoField &)> visit);

/// Reads a base-128 varint at `pos` of `data`, advancing `pos`; false when
/// it runs past the end or beyond 10 bytes.
bool readVarint(llvm::StringRef data, size_t &pos, uint64_t &value);

} // namespace seq::keras

#endif // SEQ_FRONTEND_KERAS_PROTOWIRE_H

//===- SavedObjects.cpp - Keras' objects in a SavedModel or checkpoint ----===//
//
// Field numbers from tf_keras/protobuf/saved_metadata.proto and
// tensorflow/core/protobuf/trackable_object_graph.proto.
//
//===----------------------------------------------------------------------===//

#include "seq/Frontend/Keras/SavedObjects.h"

#include "seq/Frontend/Keras/ProtoWire.h"

using namespace llvm;

namespace seq::keras {

namespace {

constexpr size_t kMaxNodes = size_t(1) << 22;

Error tooMany(StringRef where, StringRef what) {
  return createStringError(inconvertibleErrorCode(), "'" + where + "': " + what +
                                                         " has more than " +
                                                         Twine(kMaxNodes) + " objects");
}

} // namespace

Expected<std::vector<KerasMetadataNode>> readKerasMetadata(StringRef bytes,
                                                           StringRef where) {
  std::string what = ("'" + where + "'").str();
  std::vector<KerasMetadataNode> nodes;
  Error e = forEachProtoField(bytes, what, [&](const ProtoField &f) -> Error {
    if (f.number != 1 || f.type != ProtoField::Bytes)
      return Error::success();
    if (nodes.size() >= kMaxNodes)
      return tooMany(where, "keras_metadata.pb");
    KerasMetadataNode node;
    if (Error e = forEachProtoField(f.bytes, what, [&](const ProtoField &g) {
          if (g.type == ProtoField::Bytes) {
            if (g.number == 3)
              node.nodePath = g.bytes.str();
            else if (g.number == 4)
              node.identifier = g.bytes.str();
            else if (g.number == 5)
              node.metadata = g.bytes.str();
          }
          return Error::success();
        }))
      return e;
    nodes.push_back(std::move(node));
    return Error::success();
  });
  if (e)
    return std::move(e);
  return nodes;
}

Expected<std::vector<CheckpointObject>> readObjectGraph(StringRef bytes,
                                                        StringRef where) {
  std::string what = ("the object graph of '" + where + "'").str();
  std::vector<CheckpointObject> nodes;
  Error e = forEachProtoField(bytes, what, [&](const ProtoField &f) -> Error {
    if (f.number != 1 || f.type != ProtoField::Bytes)
      return Error::success();
    if (nodes.size() >= kMaxNodes)
      return tooMany(where, "the checkpoint's object graph");
    CheckpointObject node;
    if (Error e = forEachProtoField(f.bytes, what, [&](const ProtoField &g) -> Error {
          if (g.type != ProtoField::Bytes)
            return Error::success();
          if (g.number == 1) { // ObjectReference: node_id = 1, local_name = 2
            uint64_t id = 0; // proto3 leaves 0 out
            std::string name;
            if (Error e = forEachProtoField(g.bytes, what, [&](const ProtoField &r) {
                  if (r.number == 1 && r.type == ProtoField::Varint)
                    id = r.value;
                  else if (r.number == 2 && r.type == ProtoField::Bytes)
                    name = r.bytes.str();
                  return Error::success();
                }))
              return e;
            if (id >= kMaxNodes)
              return createStringError(inconvertibleErrorCode(),
                                       what + " names object " + Twine(id));
            node.children.emplace_back(std::move(name), static_cast<int>(id));
          } else if (g.number == 2) { // SerializedTensor: name = 1, checkpoint_key = 3
            std::string name, key;
            if (Error e = forEachProtoField(g.bytes, what, [&](const ProtoField &t) {
                  if (t.type == ProtoField::Bytes && t.number == 1)
                    name = t.bytes.str();
                  else if (t.type == ProtoField::Bytes && t.number == 3)
                    key = t.bytes.str();
                  return Error::success();
                }))
              return e;
            if (name == "VARIABLE_VALUE")
              node.variableKey = std::move(key);
          }
          return Error::success();
        }))
      return e;
    nodes.push_back(std::move(node));
    return Error::success();
  });
  if (e)
    return std::move(e);
  for (const CheckpointObject &node : nodes)
    for (const auto &[name, id] : node.children)
      if (static_cast<size_t>(id) >= nodes.size())
        return createStringError(inconvertibleErrorCode(),
                                 what + " names object " + Twine(id) + " of " +
                                     Twine(nodes.size()));
  return nodes;
}

} // namespace seq::keras

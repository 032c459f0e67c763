//===- SavedObjects.cpp - Keras' objects in a SavedModel or checkpoint ----===//
//
// Field numbers from tf_keras/protobuf/saved_metadata.proto,
// tensorflow/core/protobuf/trackable_object_graph.proto, saved_model.proto,
// meta_graph.proto and saved_object_graph.proto.
//
//===----------------------------------------------------------------------===//

#include "seq/Frontend/Keras/SavedObjects.h"

#include "seq/Frontend/Keras/ProtoWire.h"

#include <deque>

using namespace llvm;

namespace seq::keras {

namespace {

constexpr size_t kMaxNodes = size_t(1) << 22;

Error tooMany(StringRef where, StringRef what) {
  return createStringError(inconvertibleErrorCode(), "'" + where + "': " + what +
                                                         " has more than " +
                                                         Twine(kMaxNodes) + " objects");
}

/// Longer paths from the model are not Keras layers' (and not kept).
constexpr size_t kMaxPathBytes = 4096;

Error objectError(const Twine &what, const Twine &message) {
  return createStringError(inconvertibleErrorCode(), what + " " + message);
}

/// An ObjectReference: node_id = 1 (0 when left out), local_name = 2.
Error readReference(StringRef bytes, StringRef what,
                    std::vector<std::pair<std::string, int>> &children) {
  uint64_t id = 0;
  std::string name;
  if (Error e = forEachProtoField(bytes, what, [&](const ProtoField &r) {
        if (r.number == 1 && r.type == ProtoField::Varint)
          id = r.value;
        else if (r.number == 2 && r.type == ProtoField::Bytes)
          name = r.bytes.str();
        return Error::success();
      }))
    return e;
  if (id >= kMaxNodes)
    return objectError(what, "names object " + Twine(id));
  children.emplace_back(std::move(name), static_cast<int>(id));
  return Error::success();
}

/// Every child index names a node.
Error checkChildren(const std::vector<std::vector<std::pair<std::string, int>>> &children,
                    StringRef what) {
  for (const auto &list : children)
    for (const auto &[name, id] : list)
      if (static_cast<size_t>(id) >= children.size())
        return objectError(what, "names object " + Twine(id) + " of " + Twine(children.size()));
  return Error::success();
}

/// The message of `number` (the first one) in `message`; empty if none.
Expected<StringRef> firstMessage(StringRef message, uint32_t number, StringRef what) {
  StringRef found;
  bool seen = false;
  if (Error e = forEachProtoField(message, what, [&](const ProtoField &f) {
        if (!seen && f.number == number && f.type == ProtoField::Bytes) {
          found = f.bytes;
          seen = true;
        }
        return Error::success();
      }))
    return std::move(e);
  return found;
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
          if (g.number == 1)
            return readReference(g.bytes, what, node.children);
          if (g.number == 2) { // SerializedTensor: name = 1, checkpoint_key = 3
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
  std::vector<std::vector<std::pair<std::string, int>>> children;
  for (const CheckpointObject &node : nodes)
    children.push_back(node.children);
  if (Error e = checkChildren(children, what))
    return std::move(e);
  return nodes;
}

Expected<std::vector<KerasMetadataNode>> readSavedModelKerasNodes(StringRef bytes,
                                                                  StringRef where) {
  std::string what = ("'" + where + "'").str();
  // SavedModel.meta_graphs = 2 -> MetaGraphDef.object_graph_def = 7.
  Expected<StringRef> metaGraph = firstMessage(bytes, 2, what);
  if (!metaGraph)
    return metaGraph.takeError();
  Expected<StringRef> objectGraph = firstMessage(*metaGraph, 7, what);
  if (!objectGraph)
    return objectGraph.takeError();
  // SavedObjectGraph.nodes = 1: SavedObject children = 1, user_object = 4
  // (SavedUserObject identifier = 1, metadata = 3).
  std::vector<std::vector<std::pair<std::string, int>>> children;
  std::vector<KerasMetadataNode> objects;
  Error e = forEachProtoField(*objectGraph, what, [&](const ProtoField &f) -> Error {
    if (f.number != 1 || f.type != ProtoField::Bytes)
      return Error::success();
    if (objects.size() >= kMaxNodes)
      return tooMany(where, "saved_model.pb");
    children.emplace_back();
    KerasMetadataNode object;
    if (Error e = forEachProtoField(f.bytes, what, [&](const ProtoField &g) -> Error {
          if (g.type != ProtoField::Bytes)
            return Error::success();
          if (g.number == 1)
            return readReference(g.bytes, what, children.back());
          if (g.number == 4)
            return forEachProtoField(g.bytes, what, [&](const ProtoField &u) {
              if (u.type == ProtoField::Bytes && u.number == 1)
                object.identifier = u.bytes.str();
              else if (u.type == ProtoField::Bytes && u.number == 3)
                object.metadata = u.bytes.str();
              return Error::success();
            });
          return Error::success();
        }))
      return e;
    objects.push_back(std::move(object));
    return Error::success();
  });
  if (e)
    return std::move(e);
  if (Error e = checkChildren(children, what))
    return std::move(e);
  // Paths from the model, breadth first: each object's first.
  std::vector<KerasMetadataNode> nodes;
  if (objects.empty())
    return nodes;
  objects[0].nodePath = "root";
  std::deque<int> queue{0};
  while (!queue.empty()) {
    int node = queue.front();
    queue.pop_front();
    for (const auto &[name, child] : children[node]) {
      std::string path = objects[node].nodePath + "." + name;
      if (!objects[child].nodePath.empty() || child == 0 || path.size() > kMaxPathBytes)
        continue;
      objects[child].nodePath = std::move(path);
      queue.push_back(child);
    }
  }
  for (KerasMetadataNode &object : objects)
    if (StringRef(object.identifier).starts_with("_tf_keras") && !object.metadata.empty() &&
        !object.nodePath.empty())
      nodes.push_back(std::move(object));
  return nodes;
}

} // namespace seq::keras

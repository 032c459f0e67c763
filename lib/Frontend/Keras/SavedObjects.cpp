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

Error tooMany(StringRef what) {
  return createStringError(inconvertibleErrorCode(),
                           what + " has more than " + Twine(kMaxNodes) + " objects");
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

/// Every child index names one of `count` objects.
Error checkChildren(ArrayRef<std::pair<std::string, int>> children, size_t count,
                    StringRef what) {
  for (const auto &[name, id] : children)
    if (static_cast<size_t>(id) >= count)
      return objectError(what, "names object " + Twine(id) + " of " + Twine(count));
  return Error::success();
}

/// Copies the string fields of `message` numbered as in `fields`.
Error readStrings(StringRef message, StringRef what,
                  std::initializer_list<std::pair<uint32_t, std::string *>> fields) {
  return forEachProtoField(message, what, [&](const ProtoField &f) {
    for (auto [number, value] : fields)
      if (f.number == number && f.type == ProtoField::Bytes)
        *value = f.bytes.str();
    return Error::success();
  });
}

/// Calls `visit` with the bytes of each `number` field of `message` (a
/// repeated message: the objects of a graph), at most kMaxNodes of them.
Error forEachObject(StringRef message, uint32_t number, StringRef what,
                    function_ref<Error(StringRef)> visit) {
  size_t count = 0;
  return forEachProtoField(message, what, [&](const ProtoField &f) -> Error {
    if (f.number != number || f.type != ProtoField::Bytes)
      return Error::success();
    if (++count > kMaxNodes)
      return tooMany(what);
    return visit(f.bytes);
  });
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
  Error e = forEachObject(bytes, 1, what, [&](StringRef object) -> Error {
    KerasMetadataNode node;
    if (Error e = readStrings(object, what,
                              {{3, &node.nodePath}, {4, &node.identifier}, {5, &node.metadata}}))
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
  Error e = forEachObject(bytes, 1, what, [&](StringRef object) -> Error {
    CheckpointObject node;
    if (Error e = forEachProtoField(object, what, [&](const ProtoField &g) -> Error {
          if (g.type != ProtoField::Bytes)
            return Error::success();
          if (g.number == 1)
            return readReference(g.bytes, what, node.children);
          if (g.number == 2) { // SerializedTensor: name = 1, checkpoint_key = 3
            std::string name, key;
            if (Error e = readStrings(g.bytes, what, {{1, &name}, {3, &key}}))
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
    if (Error e = checkChildren(node.children, nodes.size(), what))
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
  Error e = forEachObject(*objectGraph, 1, what, [&](StringRef saved) -> Error {
    children.emplace_back();
    KerasMetadataNode object;
    if (Error e = forEachProtoField(saved, what, [&](const ProtoField &g) -> Error {
          if (g.type != ProtoField::Bytes)
            return Error::success();
          if (g.number == 1)
            return readReference(g.bytes, what, children.back());
          if (g.number == 4)
            return readStrings(g.bytes, what, {{1, &object.identifier}, {3, &object.metadata}});
          return Error::success();
        }))
      return e;
    objects.push_back(std::move(object));
    return Error::success();
  });
  if (e)
    return std::move(e);
  for (const auto &list : children)
    if (Error e = checkChildren(list, children.size(), what))
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

//===- TensorBundleTest.cpp - Tests for TF checkpoint reading -------------===//

#include "seq/Frontend/Keras/ProtoWire.h"
#include "seq/Frontend/Keras/SavedObjects.h"
#include "seq/Frontend/Keras/TensorBundle.h"

#include "BundleBuilder.h"
#include "TestUtil.h"

using namespace seq::keras;
using namespace seq::test;
using llvm::MemoryBuffer;

namespace {

llvm::Expected<TensorBundle> openBundle(const std::string &index, const std::string &data) {
  std::vector<std::unique_ptr<MemoryBuffer>> shards;
  shards.push_back(MemoryBuffer::getMemBufferCopy(data, "data"));
  return TensorBundle::openBuffers(MemoryBuffer::getMemBufferCopy(index, "index"),
                                   std::move(shards), "ckpt");
}

BundleBuilder twoTensors() {
  BundleBuilder b;
  b.addFloats("layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE", {2, 3},
              {1, 2, 3, 4, 5, 6});
  b.addFloats("layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE", {3}, {0.5f, -1, 2});
  b.addString("_CHECKPOINTABLE_OBJECT_GRAPH", "graph bytes");
  return b;
}

TEST(TensorBundleTest, ReadsEntriesTensorsAndStrings) {
  BundleBuilder b = twoTensors();
  auto bundle = openBundle(b.index(), b.data);
  ASSERT_TRUE(succeeded(bundle));
  // Sorted, as the table keeps them; the header ("") is not an entry.
  EXPECT_EQ(bundle->names(), (std::vector<std::string>{
                                 "_CHECKPOINTABLE_OBJECT_GRAPH",
                                 "layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE",
                                 "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"}));
  const TensorBundle::Entry *kernel =
      bundle->find("layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->dtype, TensorBundle::Float);
  EXPECT_EQ(kernel->shape, (std::vector<int64_t>{2, 3}));
  auto bytes = bundle->readBytes("layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE");
  ASSERT_TRUE(succeeded(bytes));
  ASSERT_EQ(bytes->size(), 12u);
  float bias[3];
  std::memcpy(bias, bytes->data(), 12);
  EXPECT_EQ(bias[0], 0.5f);
  EXPECT_EQ(bias[2], 2.0f);
  auto graph = bundle->readScalarString("_CHECKPOINTABLE_OBJECT_GRAPH");
  ASSERT_TRUE(succeeded(graph));
  EXPECT_EQ(*graph, "graph bytes");
  EXPECT_TRUE(failsWith(bundle->readBytes("nothing"), "no tensor 'nothing'"));
}

TEST(TensorBundleTest, RefusesCorruptTensorsAndIndexes) {
  BundleBuilder b = twoTensors();
  std::string index = b.index();
  std::string data = b.data;
  data[0] ^= 1; // the kernel's first byte
  auto bundle = openBundle(index, data);
  ASSERT_TRUE(succeeded(bundle));
  EXPECT_TRUE(failsWith(bundle->readBytes("layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"),
                        "does not match its CRC-32C"));

  std::string flipped = index;
  flipped[3] ^= 1; // inside the data block
  EXPECT_TRUE(failsWith(openBundle(flipped, b.data), "does not match its CRC-32C"));
  EXPECT_TRUE(failsWith(openBundle(b.index(/*compression=*/1), b.data), "is compressed"));
  EXPECT_TRUE(failsWith(openBundle(index.substr(0, 30), b.data), "no table footer"));
  EXPECT_TRUE(failsWith(openBundle(index.substr(10), b.data), "lies outside the file"));
  // The data shard cut short.
  auto cut = openBundle(index, b.data.substr(0, 20));
  ASSERT_TRUE(succeeded(cut));
  EXPECT_TRUE(failsWith(cut->readBytes("layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE"),
                        "lies outside its data shard"));
}

TEST(TensorBundleTest, RefusesWhatSeqcDoesNotRead) {
  BundleBuilder b = twoTensors();
  b.entries[""] = ProtoWriter().number(1, 1).number(2, 1).out;
  EXPECT_TRUE(failsWith(openBundle(b.index(), b.data), "big-endian"));

  BundleBuilder shards = twoTensors();
  shards.entries[""] = ProtoWriter().number(1, 2).out;
  EXPECT_TRUE(failsWith(openBundle(shards.index(), shards.data), "counts 2 data shards, 1 are given"));

  BundleBuilder sliced = twoTensors();
  sliced.entries["part"] = BundleBuilder::entry(TensorBundle::Float, {2}, 0, 8, 0) +
                           ProtoWriter().bytes(7, "").out;
  auto bundle = openBundle(sliced.index(), sliced.data);
  ASSERT_TRUE(succeeded(bundle));
  EXPECT_TRUE(failsWith(bundle->readBytes("part"), "partitioned variable"));

  // A shape that needs more bytes than the entry has.
  BundleBuilder wrong = twoTensors();
  wrong.entries["short"] = BundleBuilder::entry(TensorBundle::Float, {4}, 0, 8, 0);
  auto mismatched = openBundle(wrong.index(), wrong.data);
  ASSERT_TRUE(succeeded(mismatched));
  EXPECT_TRUE(failsWith(mismatched->readBytes("short"), "holds 8 bytes, its shape needs 16"));
  EXPECT_TRUE(failsWith(mismatched->readScalarString("short"), "is not a string"));
}

TEST(ProtoWireTest, RefusesMalformedMessages) {
  auto fields = [](const std::string &bytes) -> llvm::Expected<int> {
    int count = 0;
    if (llvm::Error e = forEachProtoField(bytes, "m", [&](const ProtoField &) {
          ++count;
          return llvm::Error::success();
        }))
      return std::move(e);
    return count;
  };
  auto ok = fields(ProtoWriter().number(1, 300).bytes(2, "abc").fixed32(3, 7).out);
  ASSERT_TRUE(succeeded(ok));
  EXPECT_EQ(*ok, 3);
  EXPECT_TRUE(failsWith(fields("\x08"), "a truncated varint at byte 0"));
  EXPECT_TRUE(failsWith(fields("\x12\x05" "ab"), "past the end"));
  EXPECT_TRUE(failsWith(fields("\x0b"), "wire type 3"));
  EXPECT_TRUE(failsWith(fields(std::string("\x00\x01", 2)), "field number 0"));
  EXPECT_TRUE(failsWith(fields("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
                        "a truncated varint"));
}

TEST(SavedObjectsTest, ReadsObjectGraphsAndKerasMetadata) {
  // Node 0 has children "layer-0" (node 1) and "root" (node 0, whose id
  // proto3 leaves out); node 1 a variable.
  ProtoWriter node0, node1;
  node0.bytes(1, ProtoWriter().number(1, 1).bytes(2, "layer-0").out);
  node0.bytes(1, ProtoWriter().bytes(2, "root").out);
  node1.bytes(2, ProtoWriter()
                     .bytes(1, "VARIABLE_VALUE")
                     .bytes(2, "dense/kernel")
                     .bytes(3, "layer-0/kernel/.ATTRIBUTES/VARIABLE_VALUE")
                     .out);
  std::string graph = ProtoWriter().bytes(1, node0.out).bytes(1, node1.out).out;
  auto objects = readObjectGraph(graph, "ckpt");
  ASSERT_TRUE(succeeded(objects));
  ASSERT_EQ(objects->size(), 2u);
  EXPECT_EQ((*objects)[0].children,
            (std::vector<std::pair<std::string, int>>{{"layer-0", 1}, {"root", 0}}));
  EXPECT_EQ((*objects)[1].variableKey, "layer-0/kernel/.ATTRIBUTES/VARIABLE_VALUE");

  std::string dangling =
      ProtoWriter().bytes(1, ProtoWriter().bytes(1, ProtoWriter().number(1, 5).out).out).out;
  EXPECT_TRUE(failsWith(readObjectGraph(dangling, "ckpt"), "names object 5 of 1"));

  std::string metadata = ProtoWriter()
                             .bytes(1, ProtoWriter()
                                           .number(2, 0)
                                           .bytes(3, "root")
                                           .bytes(4, "_tf_keras_sequential")
                                           .bytes(5, R"({"name": "m"})")
                                           .out)
                             .out;
  auto nodes = readKerasMetadata(metadata, "keras_metadata.pb");
  ASSERT_TRUE(succeeded(nodes));
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].nodePath, "root");
  EXPECT_EQ((*nodes)[0].identifier, "_tf_keras_sequential");
  EXPECT_EQ((*nodes)[0].metadata, R"({"name": "m"})");
}

TEST(SavedObjectsTest, ReadsKerasObjectsOfSavedModels) {
  // TensorFlow before 2.5: SavedModel.meta_graphs[0].object_graph_def's
  // objects; paths breadth first, Keras' user objects only.
  auto user = [](const std::string &identifier, const std::string &metadata) {
    return ProtoWriter().bytes(1, identifier).bytes(3, metadata).out;
  };
  auto object = [](const std::vector<std::pair<int, std::string>> &children,
                   const std::string &userObject) {
    ProtoWriter w;
    for (const auto &[id, name] : children)
      w.bytes(1, ProtoWriter().number(1, id).bytes(2, name).out);
    if (!userObject.empty())
      w.bytes(4, userObject);
    return w.out;
  };
  std::string graph = ProtoWriter()
                          .bytes(1, object({{1, "layer_with_weights-0"}, {1, "layer-0"},
                                            {2, "variables"}},
                                           user("_tf_keras_sequential", "{}")))
                          .bytes(1, object({{2, "kernel"}}, user("_tf_keras_layer", "{\"name\": \"d\"}")))
                          .bytes(1, object({}, user("trackable_list_wrapper", "")))
                          .out;
  std::string savedModel =
      ProtoWriter().number(1, 1).bytes(2, ProtoWriter().bytes(2, "graph_def").bytes(7, graph).out).out;
  auto nodes = readSavedModelKerasNodes(savedModel, "saved_model.pb");
  ASSERT_TRUE(succeeded(nodes));
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[0].nodePath, "root");
  EXPECT_EQ((*nodes)[1].nodePath, "root.layer_with_weights-0");
  EXPECT_EQ((*nodes)[1].metadata, "{\"name\": \"d\"}");
  EXPECT_TRUE(failsWith(readSavedModelKerasNodes("\x12\x03\x3a\x01\x0a", "saved_model.pb"),
                        "a truncated length"));
}

} // namespace

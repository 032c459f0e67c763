// Nested models (lib/Frontend/Keras/NestedModels.cpp) on hand-written
// configs: what parseModelConfig makes of a model called as a layer.
#include "KerasConfig.h"

#include "gtest/gtest.h"

using namespace seq::keras;

namespace {

llvm::json::Value parse(llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  EXPECT_TRUE(bool(value)) << llvm::toString(value.takeError());
  return value ? std::move(*value) : llvm::json::Value(nullptr);
}

const LayerConfig *callOf(const ModelConfig &model, llvm::StringRef id) {
  for (const LayerConfig &layer : model.layers)
    if (layer.getCallId() == id)
      return &layer;
  return nullptr;
}

// tf_keras numbers a nested model's calls from 1 (its node 0 is the call
// that built it): a Siamese "tower" called on a and b.
constexpr const char *kSiamese = R"({"class_name": "Functional", "config": {
  "name": "siamese",
  "layers": [
    {"class_name": "InputLayer", "name": "a", "config": {"name": "a"}, "inbound_nodes": []},
    {"class_name": "InputLayer", "name": "b", "config": {"name": "b"}, "inbound_nodes": []},
    {"class_name": "Functional", "name": "tower", "config": {"name": "tower",
      "layers": [
        {"class_name": "InputLayer", "name": "i", "config": {"name": "i"}, "inbound_nodes": []},
        {"class_name": "Activation", "name": "t1", "config": {"name": "t1"},
         "inbound_nodes": [[["i", 0, 0, {}]]]},
        {"class_name": "Activation", "name": "t2", "config": {"name": "t2"},
         "inbound_nodes": [[["t1", 0, 0, {}]]]}],
      "input_layers": [["i", 0, 0]], "output_layers": [["t2", 0, 0]]},
     "inbound_nodes": [[["a", 0, 0, {}]], [["b", 0, 0, {}]]]},
    {"class_name": "Add", "name": "sum", "config": {"name": "sum"},
     "inbound_nodes": [[["tower", 1, 0, {}], ["tower", 2, 0, {}]]]}],
  "input_layers": [["a", 0, 0], ["b", 0, 0]],
  "output_layers": [["sum", 0, 0], ["tower", 2, 0]]}})";

TEST(NestedModels, ASharedNestedModelsLayersAreCalledOncePerCall) {
  llvm::json::Value root = parse(kSiamese);
  llvm::Expected<ModelConfig> model = parseModelConfig(root, "siamese.json");
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  ASSERT_EQ(model->layers.size(), 5u);
  const LayerConfig *second = callOf(*model, "tower/t1\x1f" "1");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->getName(), "tower/t1");
  EXPECT_EQ(second->getCallCount(), 2);
  EXPECT_EQ(second->getInputs(), std::vector<std::string>{"b"});
  ASSERT_EQ(second->getScopes().size(), 1u);
  EXPECT_EQ(second->getScopes()[0].name, "tower");
  EXPECT_EQ(second->getScopes()[0].className, "Functional");
  const LayerConfig *sum = callOf(*model, "sum");
  ASSERT_NE(sum, nullptr);
  EXPECT_TRUE(sum->getScopes().empty());
  EXPECT_EQ(sum->getInputs(),
            (std::vector<std::string>{"tower/t2", "tower/t2\x1f" "1"}));
  EXPECT_EQ(model->outputs, (std::vector<std::string>{"sum", "tower/t2\x1f" "1"}));
}

// Keras 3 numbers calls from 0; a nested Sequential is a chain.
TEST(NestedModels, ANestedSequentialIsAChain) {
  llvm::json::Value root = parse(R"({"class_name": "Functional", "config": {
    "name": "m",
    "layers": [
      {"class_name": "InputLayer", "name": "x", "config": {"name": "x"}, "inbound_nodes": []},
      {"class_name": "Sequential", "name": "base", "config": {"name": "base", "layers": [
        {"class_name": "InputLayer", "config": {"name": "input_layer"}},
        {"class_name": "Activation", "config": {"name": "s1"}},
        {"class_name": "Activation", "config": {"name": "s2"}}]},
       "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__",
         "config": {"keras_history": ["x", 0, 0]}}], "kwargs": {"mask": null}}]},
      {"class_name": "Activation", "name": "head", "config": {"name": "head"},
       "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__",
         "config": {"keras_history": ["base", 0, 0]}}], "kwargs": {}}]}],
    "input_layers": [["x", 0, 0]], "output_layers": [["head", 0, 0]]}})");
  llvm::Expected<ModelConfig> model = parseModelConfig(root, "m.json");
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  ASSERT_EQ(model->layers.size(), 3u);
  EXPECT_EQ(model->layers[0].getName(), "base/s1");
  EXPECT_EQ(model->layers[0].getInputs(), std::vector<std::string>{"x"});
  EXPECT_EQ(model->layers[1].getInputs(), std::vector<std::string>{"base/s1"});
  EXPECT_EQ(model->layers[2].getInputs(), std::vector<std::string>{"base/s2"});
  ASSERT_EQ(model->inputs.size(), 1u);
  EXPECT_EQ(model->inputs[0].name, "x");
}

// Two nested models that pass their input through, each called on the
// other's output: a cycle, reported (not followed forever).
TEST(NestedModels, IdentityModelsReadingEachOtherAreACycle) {
  auto identity = [](const char *name, const char *reads) {
    return std::string(R"({"class_name": "Functional", "name": ")") + name +
           R"(", "config": {"name": ")" + name + R"(", "layers": [
             {"class_name": "InputLayer", "name": "i", "config": {"name": "i"},
              "inbound_nodes": []}],
             "input_layers": [["i", 0, 0]], "output_layers": [["i", 0, 0]]},
           "inbound_nodes": [[[")" + reads + R"(", 1, 0, {}]]]})";
  };
  llvm::json::Value root = parse(
      R"({"class_name": "Functional", "config": {"name": "m", "layers": [
        {"class_name": "InputLayer", "name": "x", "config": {"name": "x"}, "inbound_nodes": []},)" +
      identity("p", "q") + "," + identity("q", "p") + R"(],
        "input_layers": [["x", 0, 0]], "output_layers": [["p", 1, 0]]}})");
  llvm::Expected<ModelConfig> model = parseModelConfig(root, "m.json");
  ASSERT_FALSE(bool(model));
  EXPECT_NE(llvm::toString(model.takeError()).find("in a cycle"), std::string::npos);
}

} // namespace

namespace {

// A model called 300 times inside a model called 300 times: 90000 calls of
// its layer, more than kMaxInlinedCalls; refused before they are made.
TEST(NestedModels, ExpansionIsBounded) {
  auto calls = [](const char *from, int count) {
    std::string nodes;
    for (int i = 0; i < count; ++i)
      nodes += std::string(i ? "," : "") + "[[\"" + from + "\", 0, 0, {}]]";
    return "[" + nodes + "]";
  };
  std::string inner = R"({"class_name": "Functional", "name": "a", "config": {"name": "a",
    "layers": [
      {"class_name": "InputLayer", "name": "i", "config": {"name": "i"}, "inbound_nodes": []},
      {"class_name": "Activation", "name": "r", "config": {"name": "r"},
       "inbound_nodes": [[["i", 0, 0, {}]]]}],
    "input_layers": [["i", 0, 0]], "output_layers": [["r", 0, 0]]},
    "inbound_nodes": )" + calls("j", 300) + "}";
  std::string outer = R"({"class_name": "Functional", "name": "b", "config": {"name": "b",
    "layers": [
      {"class_name": "InputLayer", "name": "j", "config": {"name": "j"}, "inbound_nodes": []},
      )" + inner + R"(],
    "input_layers": [["j", 0, 0]], "output_layers": [["a", 1, 0]]},
    "inbound_nodes": )" + calls("x", 300) + "}";
  llvm::json::Value root = parse(
      R"({"class_name": "Functional", "config": {"name": "m", "layers": [
        {"class_name": "InputLayer", "name": "x", "config": {"name": "x"}, "inbound_nodes": []},)" +
      outer + R"(], "input_layers": [["x", 0, 0]], "output_layers": [["b", 1, 0]]}})");
  llvm::Expected<ModelConfig> model = parseModelConfig(root, "m.json");
  ASSERT_FALSE(bool(model));
  EXPECT_NE(llvm::toString(model.takeError())
                .find("the nested models expand to more than 65536 layer calls"),
            std::string::npos);
}

} // namespace

// The Keras 1 translation (lib/Frontend/Keras/Keras1.cpp) on hand-written
// configs and weights: which models count as Keras 1, what their configs and
// weights become.
#include "Keras1.h"

#include "gtest/gtest.h"

using namespace seq::keras;

namespace {

llvm::json::Value parse(llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  EXPECT_TRUE(bool(value)) << llvm::toString(value.takeError());
  return value ? std::move(*value) : llvm::json::Value(nullptr);
}

llvm::json::Value sequential(llvm::StringRef layers) {
  return parse(("{\"class_name\": \"Sequential\", \"config\": [" + layers + "]}").str());
}

/// The translated config of the model's layer `index`.
const llvm::json::Object &layerConfig(const llvm::json::Value &model, size_t index) {
  return *(*model.getAsObject()->getArray("config"))[index]
              .getAsObject()
              ->getObject("config");
}

TEST(Keras1, TheVersionDecidesWhenThereIsOne) {
  llvm::json::Value keras1 = sequential(
      R"({"class_name": "Dense", "config": {"name": "d", "output_dim": 2}})");
  EXPECT_TRUE(isKeras1Model("1.2.2", keras1));
  EXPECT_TRUE(isKeras1Model("1.0.8", sequential("")));
  EXPECT_FALSE(isKeras1Model("2.2.4", keras1));
  EXPECT_FALSE(isKeras1Model("2.19.0", keras1));
}

TEST(Keras1, WithoutAVersionKeras1ArgumentNamesTell) {
  EXPECT_TRUE(isKeras1Model("", sequential(
      R"({"class_name": "Dense", "config": {"name": "d", "output_dim": 2}})")));
  EXPECT_TRUE(isKeras1Model("", sequential(
      R"({"class_name": "Dropout", "config": {"name": "d", "p": 0.5}})")));
  EXPECT_TRUE(isKeras1Model("", sequential(
      R"({"class_name": "Convolution1D", "config": {"name": "c"}})")));
  // Inside a wrapper, and in a Model config.
  EXPECT_TRUE(isKeras1Model("", sequential(
      R"({"class_name": "Bidirectional", "config": {"name": "b", "layer":
          {"class_name": "LSTM", "config": {"name": "l", "inner_activation": "sigmoid"}}}})")));
  EXPECT_TRUE(isKeras1Model("", parse(
      R"({"class_name": "Model", "config": {"name": "m", "layers": [
          {"name": "g", "class_name": "GRU", "config": {"name": "g", "consume_less": "gpu"}}]}})")));
}

TEST(Keras1, Keras2And3ConfigsWithoutAVersionAreNotKeras1) {
  // Embedding's output_dim has the same name in every version.
  EXPECT_FALSE(isKeras1Model("", sequential(
      R"({"class_name": "Embedding", "config": {"name": "e", "input_dim": 10, "output_dim": 4}},
         {"class_name": "LSTM", "config": {"name": "l", "units": 3, "recurrent_activation": "sigmoid"}},
         {"class_name": "Dropout", "config": {"name": "d", "rate": 0.5}})")));
  EXPECT_FALSE(isKeras1Model("", parse(
      R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
          {"module": "keras.layers", "class_name": "Conv1D", "config": {"name": "c",
           "filters": 2, "kernel_size": [3], "padding": "valid", "dtype": "float32"}}]}})")));
}

TEST(Keras1, RecurrentArgumentsAndDefaults) {
  llvm::json::Value model = sequential(
      R"({"class_name": "LSTM", "config": {"name": "lstm_1", "output_dim": 4,
          "consume_less": "gpu", "input_dim": 3, "input_length": 5}},
         {"class_name": "GRU", "config": {"name": "gru_1", "output_dim": 2,
          "inner_activation": "sigmoid"}})");
  ASSERT_FALSE(bool(translateKeras1Config(model, "m.h5", "1.2.2")));
  const llvm::json::Object &lstm = layerConfig(model, 0);
  EXPECT_EQ(lstm.getInteger("units"), 4);
  EXPECT_FALSE(lstm.get("output_dim"));
  EXPECT_FALSE(lstm.get("consume_less"));
  // Keras 1's default recurrent activation, always a bias.
  EXPECT_EQ(lstm.getString("recurrent_activation"), "hard_sigmoid");
  EXPECT_EQ(lstm.getBoolean("use_bias"), true);
  // input_dim/input_length on the first layer are its input shape.
  EXPECT_EQ(*lstm.get("batch_input_shape"),
            llvm::json::Value(llvm::json::Array{nullptr, 5, 3}));
  const llvm::json::Object &gru = layerConfig(model, 1);
  EXPECT_EQ(gru.getString("recurrent_activation"), "sigmoid");
  EXPECT_EQ(gru.getBoolean("reset_after"), false);
  EXPECT_FALSE(gru.get("batch_input_shape"));
}

TEST(Keras1, ConvolutionPoolingAndTimeDistributedDense) {
  llvm::json::Value model = sequential(
      R"({"class_name": "Convolution1D", "config": {"name": "c", "nb_filter": 2,
          "filter_length": 3, "border_mode": "same", "subsample_length": 2, "bias": false}},
         {"class_name": "MaxPooling1D", "config": {"name": "p", "pool_length": 2,
          "stride": null, "border_mode": "valid"}},
         {"class_name": "TimeDistributedDense", "config": {"name": "t", "output_dim": 3,
          "activation": "tanh"}})");
  ASSERT_FALSE(bool(translateKeras1Config(model, "m.h5", "1.2.2")));
  const llvm::json::Array &layers = *model.getAsObject()->getArray("config");
  EXPECT_EQ(layers[0].getAsObject()->getString("class_name"), "Conv1D");
  EXPECT_EQ(layers[0].getAsObject()->getString("source_class_name"), "Convolution1D");
  const llvm::json::Object &conv = layerConfig(model, 0);
  EXPECT_EQ(conv.getInteger("filters"), 2);
  EXPECT_EQ(conv.getInteger("kernel_size"), 3);
  EXPECT_EQ(conv.getInteger("strides"), 2);
  EXPECT_EQ(conv.getString("padding"), "same");
  EXPECT_EQ(conv.getBoolean("use_bias"), false);
  const llvm::json::Object &pool = layerConfig(model, 1);
  EXPECT_EQ(pool.getInteger("pool_size"), 2);
  EXPECT_FALSE(pool.get("strides")); // null: the pool length
  EXPECT_EQ(pool.getString("padding"), "valid");
  EXPECT_EQ(layers[2].getAsObject()->getString("class_name"), "TimeDistributed");
  const llvm::json::Object *dense = layerConfig(model, 2).getObject("layer");
  ASSERT_TRUE(dense);
  EXPECT_EQ(dense->getString("class_name"), "Dense");
  EXPECT_EQ(dense->getObject("config")->getInteger("units"), 3);
  EXPECT_EQ(dense->getObject("config")->getString("name"), "t/dense");
}

TEST(Keras1, UnsupportedFeaturesNameLayerClassAndOption) {
  llvm::json::Value model = sequential(
      R"({"class_name": "Convolution1D", "config": {"name": "c", "border_mode": "full"}})");
  llvm::Error e = translateKeras1Config(model, "m.h5", "1.2.2");
  EXPECT_EQ(llvm::toString(std::move(e)),
            "'m.h5': layer 'c' (Convolution1D): Keras 1 border_mode 'full' is not "
            "supported (valid and same are)");
}

TEST(Keras1, BatchNormalizationModeZeroOfKeras11And12) {
  const char *bn = R"({"class_name": "BatchNormalization", "config": {"name": "bn",
      "mode": 0, "axis": -1, "epsilon": 0.001, "momentum": 0.99,
      "beta_init": "zero", "gamma_init": "one", "gamma_regularizer": null,
      "beta_regularizer": null}})";
  llvm::json::Value model = sequential(bn);
  ASSERT_FALSE(bool(translateKeras1Config(model, "m.h5", "1.1.0")));
  const llvm::json::Object &config = layerConfig(model, 0);
  EXPECT_FALSE(config.get("mode"));
  EXPECT_FALSE(config.get("gamma_init"));
  EXPECT_EQ(config.getNumber("epsilon"), 0.001);
  EXPECT_EQ(config.getInteger("axis"), -1);

  llvm::json::Value old = sequential(bn);
  EXPECT_NE(llvm::toString(translateKeras1Config(old, "m.h5", ""))
                .find("BatchNormalization from Keras 1.0 (no keras_version)"),
            std::string::npos);
  llvm::json::Value sampleWise = sequential(
      R"({"class_name": "BatchNormalization", "config": {"name": "bn", "mode": 2}})");
  EXPECT_NE(llvm::toString(translateKeras1Config(sampleWise, "m.h5", "1.2.2"))
                .find("BatchNormalization mode 2 is not supported, only mode 0"),
            std::string::npos);
}

WeightArray array(std::string name, std::vector<int64_t> shape, std::vector<float> data) {
  return WeightArray{std::move(name), std::move(shape), std::move(data)};
}

TEST(Keras1, PerGateLstmWeightsFuseInKeras2GateOrder) {
  llvm::json::Value model = sequential(
      R"({"class_name": "LSTM", "config": {"name": "l", "units": 1}})");
  LayerConfig layer("LSTM", "l", &layerConfig(model, 0), "m.h5");
  // Keras 1 order i, c, f, o; one input, one unit: W = 10*g+1, U = 10*g+2,
  // b = 10*g+3 for gate position g.
  std::vector<WeightArray> weights;
  const char *gates = "icfo";
  for (int g = 0; g < 4; ++g) {
    std::string suffix = std::string("_") + gates[g] + ":0";
    weights.push_back(array("l_W" + suffix, {1, 1}, {10.0f * g + 1}));
    weights.push_back(array("l_U" + suffix, {1, 1}, {10.0f * g + 2}));
    weights.push_back(array("l_b" + suffix, {1}, {10.0f * g + 3}));
  }
  ASSERT_FALSE(bool(translateKeras1Weights(layer, weights, "tensorflow")));
  ASSERT_EQ(weights.size(), 3u);
  // Keras 2: i, f, c, o.
  EXPECT_EQ(weights[0].shape, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(weights[0].data, (std::vector<float>{1, 21, 11, 31}));
  EXPECT_EQ(weights[1].data, (std::vector<float>{2, 22, 12, 32}));
  EXPECT_EQ(weights[2].shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(weights[2].data, (std::vector<float>{3, 23, 13, 33}));
}

TEST(Keras1, PerGateKernelsFuseRowByRow) {
  llvm::json::Value model = sequential(
      R"({"class_name": "GRU", "config": {"name": "g", "units": 2}})");
  LayerConfig layer("GRU", "g", &layerConfig(model, 0), "m.h5");
  // Two inputs, two units: row r of gate g's W is {100g+10r, 100g+10r+1}.
  std::vector<WeightArray> weights;
  for (int g = 0; g < 3; ++g) {
    std::string gate(1, "zrh"[g]);
    weights.push_back(array("g_W_" + gate, {2, 2},
                            {100.f * g, 100.f * g + 1, 100.f * g + 10, 100.f * g + 11}));
    weights.push_back(array("g_U_" + gate, {2, 2}, {0, 0, 0, 0}));
    weights.push_back(array("g_b_" + gate, {2}, {0, 0}));
  }
  ASSERT_FALSE(bool(translateKeras1Weights(layer, weights, "tensorflow")));
  ASSERT_EQ(weights.size(), 3u);
  EXPECT_EQ(weights[0].shape, (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(weights[0].data, (std::vector<float>{0, 1, 100, 101, 200, 201,
                                                  10, 11, 110, 111, 210, 211}));
}

TEST(Keras1, FusedGpuWeightsStayAsTheyAre) {
  llvm::json::Value model = sequential(
      R"({"class_name": "LSTM", "config": {"name": "l", "units": 1}})");
  LayerConfig layer("LSTM", "l", &layerConfig(model, 0), "m.h5");
  std::vector<WeightArray> weights = {array("l_W:0", {1, 4}, {1, 2, 3, 4}),
                                      array("l_U:0", {1, 4}, {5, 6, 7, 8}),
                                      array("l_b:0", {4}, {9, 10, 11, 12})};
  ASSERT_FALSE(bool(translateKeras1Weights(layer, weights, "tensorflow")));
  EXPECT_EQ(weights[0].data, (std::vector<float>{1, 2, 3, 4}));
}

TEST(Keras1, ConvolutionKernelsOfEveryLayout) {
  llvm::json::Value model = sequential(
      R"({"class_name": "Conv1D", "config": {"name": "c", "filters": 1, "kernel_size": 3}})");
  LayerConfig layer("Conv1D", "c", &layerConfig(model, 0), "m.h5");
  // Keras 1.2: (filter_length, 1, input_dim, nb_filter).
  std::vector<WeightArray> weights = {array("c_W:0", {3, 1, 1, 1}, {1, 2, 3})};
  ASSERT_FALSE(bool(translateKeras1Weights(layer, weights, "tensorflow")));
  EXPECT_EQ(weights[0].shape, (std::vector<int64_t>{3, 1, 1}));
  EXPECT_EQ(weights[0].data, (std::vector<float>{1, 2, 3}));
  // Keras 1.1 on Theano: (nb_filter, input_dim, filter_length, 1), flipped.
  weights = {array("c_W", {1, 1, 3, 1}, {1, 2, 3})};
  ASSERT_FALSE(bool(translateKeras1Weights(layer, weights, "theano")));
  EXPECT_EQ(weights[0].shape, (std::vector<int64_t>{3, 1, 1}));
  EXPECT_EQ(weights[0].data, (std::vector<float>{3, 2, 1}));
}

} // namespace

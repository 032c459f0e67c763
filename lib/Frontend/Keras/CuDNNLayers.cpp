#include "CuDNNLayers.h"

using namespace llvm;

namespace seq::keras {

namespace {

void translateEntry(json::Object &entry) {
  std::optional<StringRef> cls = entry.getString("class_name");
  json::Object *config = entry.getObject("config");
  if (!cls || !config || (*cls != "CuDNNLSTM" && *cls != "CuDNNGRU"))
    return;
  bool lstm = *cls == "CuDNNLSTM";
  entry[kSourceClassKey] = *cls;
  entry["class_name"] = lstm ? "LSTM" : "GRU";
  (*config)["activation"] = "tanh";
  (*config)["recurrent_activation"] = "sigmoid";
  (*config)["use_bias"] = true;
  if (!lstm)
    (*config)["reset_after"] = true;
}

/// One recurrent layer's [kernel, recurrent_kernel, bias] from cuDNN's
/// layout to Keras' (see the header).
Error fromCuDNN(const LayerConfig &layer, bool lstm, MutableArrayRef<WeightArray> weights) {
  size_t gates = lstm ? 4 : 3;
  if (weights.size() != 3 || weights[0].shape.size() != 2 || weights[1].shape.size() != 2)
    return layer.error("the file has " + Twine(weights.size()) + " weight arrays for this " +
                       (lstm ? "CuDNNLSTM" : "CuDNNGRU") +
                       ", expected kernel, recurrent_kernel and bias of 2, 2 and 1 axes");
  int64_t inputs = weights[0].shape[0], units = weights[1].shape[0];
  int64_t width = static_cast<int64_t>(gates) * units;
  if (weights[0].shape[1] != width || weights[1].shape[1] != width ||
      weights[2].shape != std::vector<int64_t>{2 * width})
    return layer.error("its weights have shapes that do not fit " + Twine(units) +
                       " units of a " + (lstm ? "CuDNNLSTM" : "CuDNNGRU") +
                       " (kernel (inputs, " + Twine(width) + "), recurrent_kernel (" +
                       Twine(units) + ", " + Twine(width) + "), bias (" + Twine(2 * width) +
                       "))");
  // Gate g's block of a (rows, width) kernel, element (r, u), is
  // data[r * width + g * units + u]; cuDNN reads the block's row-major
  // elements as its (units, rows) matrix W, and x @ W^T is Keras' x @ K
  // with K[r][u] = block element number u * rows + r.
  auto relayout = [&](WeightArray &kernel, int64_t rows) {
    std::vector<float> out(kernel.data.size());
    for (size_t g = 0; g < gates; ++g)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t u = 0; u < units; ++u) {
          int64_t flat = u * rows + r; // in the block, row-major
          int64_t from = (flat / units) * width + static_cast<int64_t>(g) * units + flat % units;
          out[r * width + static_cast<int64_t>(g) * units + u] = kernel.data[from];
        }
    kernel.data = std::move(out);
  };
  relayout(weights[0], inputs);
  relayout(weights[1], units);
  WeightArray &bias = weights[2];
  if (lstm) {
    std::vector<float> sum(width);
    for (int64_t i = 0; i < width; ++i)
      sum[i] = bias.data[i] + bias.data[width + i];
    bias.data = std::move(sum);
    bias.shape = {width};
  } else {
    bias.shape = {2, width};
  }
  return Error::success();
}

} // namespace

void translateCuDNNConfig(json::Value &root) { forEachLayerEntry(root, translateEntry); }

Error translateCuDNNWeights(const LayerConfig &layer, std::vector<WeightArray> &weights) {
  StringRef source = layer.getSourceClassName();
  if (source == "CuDNNLSTM" || source == "CuDNNGRU")
    return fromCuDNN(layer, source == "CuDNNLSTM", weights);
  if (layer.getClassName() != "Bidirectional")
    return Error::success();
  Expected<LayerConfig> inner = layer.getInnerLayer("layer");
  if (!inner) {
    consumeError(inner.takeError()); // the emitter reports it
    return Error::success();
  }
  StringRef innerSource = inner->getSourceClassName();
  if (innerSource != "CuDNNLSTM" && innerSource != "CuDNNGRU")
    return Error::success();
  if (weights.size() != 6)
    return layer.error("the file has " + Twine(weights.size()) + " weight arrays for this " +
                       "Bidirectional(" + innerSource + "), expected 6");
  bool lstm = innerSource == "CuDNNLSTM";
  if (Error e = fromCuDNN(layer, lstm, MutableArrayRef(weights).take_front(3)))
    return e;
  return fromCuDNN(layer, lstm, MutableArrayRef(weights).drop_front(3));
}

} // namespace seq::keras

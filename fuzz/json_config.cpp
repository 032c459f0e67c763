//===- json_config.cpp - Fuzz the Keras model config parser ---------------===//
//
// parseModelJson (size and depth bounds), parseModelConfig, then every typed
// accessor on every key of every layer, and wrapped layers one level down.
// Mutations are structure-aware (JsonMutator.h) three times in four.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "JsonMutator.h"
#include "KerasConfig.h"

using namespace seq;
using seq::keras::LayerConfig;

namespace {

void touch(const LayerConfig &layer, int depth) {
  (void)layer.getClassName().size();
  (void)layer.getName().size();
  std::vector<std::string> keys;
  for (const auto &entry : layer.getObject())
    keys.push_back(entry.first.str());
  keys.push_back("units"); // And a few that may be absent.
  keys.push_back("layer");
  for (const std::string &key : keys) {
    (void)layer.has(key);
    auto i = layer.getInt(key);
    fuzz::check(i);
    auto io = layer.getIntOr(key, 7);
    fuzz::check(io);
    auto is = layer.getIntOrSingleton(key);
    fuzz::check(is);
    auto s = layer.getSize(key);
    fuzz::check(s);
    auto so = layer.getSizeOr(key, 1);
    fuzz::check(so);
    auto ss = layer.getSizeOrSingleton(key);
    fuzz::check(ss);
    auto b = layer.getBoolOr(key, false);
    fuzz::check(b);
    auto d = layer.getDoubleOr(key, 0.5);
    fuzz::check(d);
    auto str = layer.getStringOr(key, "x");
    fuzz::check(str);
    auto list = layer.getIntList(key);
    fuzz::check(list);
    auto shape = layer.getShape(key);
    fuzz::check(shape);
    if (depth < 2) {
      auto inner = layer.getInnerLayer(key);
      if (fuzz::check(inner))
        touch(*inner, depth + 1);
    }
  }
  fuzz::consume(layer.error("fuzz"));
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned seed) {
  return fuzz::mutateJson(data, size, maxSize, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto root = keras::parseModelJson(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.json",
      "model config");
  if (!fuzz::check(root))
    return 0;
  auto model = keras::parseModelConfig(*root, "fuzz.json");
  if (!fuzz::check(model))
    return 0;
  (void)model->modelName.size();
  if (model->inputShape)
    (void)model->inputShape->size();
  for (const LayerConfig &layer : model->layers)
    touch(layer, 0);
  return 0;
}

//===- JsonMutator.h - Structure-aware mutations of JSON inputs -*- C++ -*-===//
//
// libFuzzer's byte mutations mostly break a JSON document; a model config
// is reached through its values. mutateJson parses the input and changes one
// value where it stands: a number to a corner (0, -1, 2^31, 2^40, ...) or a
// neighbour, a boolean flipped, a string swapped for another of the
// document's or a Keras keyword, an array or object shortened, an element
// doubled, a value dropped to null; one to three such changes. A quarter
// of the inputs, and those that do not parse or would grow over `maxSize`,
// get libFuzzer's own mutation instead.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FUZZ_JSONMUTATOR_H
#define SEQ_FUZZ_JSONMUTATOR_H

#include "KerasConfig.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize)
    __attribute__((weak));

namespace seq::fuzz {

namespace json_mutator {

/// Every value of the document, depth first.
inline void collect(llvm::json::Value &value, std::vector<llvm::json::Value *> &values) {
  values.push_back(&value);
  if (llvm::json::Array *array = value.getAsArray())
    for (llvm::json::Value &element : *array)
      collect(element, values);
  if (llvm::json::Object *object = value.getAsObject())
    for (auto &entry : *object)
      collect(entry.second, values);
}

inline void mutateOne(llvm::json::Value &value, const std::vector<std::string> &strings,
                      std::minstd_rand &random) {
  auto pick = [&](size_t n) { return static_cast<size_t>(random() % n); };
  if (pick(16) == 0) {
    value = nullptr;
    return;
  }
  if (std::optional<int64_t> i = value.getAsInteger()) {
    static const int64_t corners[] = {0, 1, -1, 2, 3, 7, 255, 65536, int64_t(1) << 31,
                                      -(int64_t(1) << 31), int64_t(1) << 40};
    value = pick(2) ? corners[pick(std::size(corners))]
                    : *i + static_cast<int64_t>(pick(5)) - 2;
    return;
  }
  if (std::optional<double> d = value.getAsNumber()) {
    static const double corners[] = {0.0, -0.0, 1.0, -1.0, 1e-30, 1e30, 0.5, 3.5e38};
    value = corners[pick(std::size(corners))];
    return;
  }
  if (std::optional<bool> b = value.getAsBoolean()) {
    value = !*b;
    return;
  }
  if (value.getAsString()) {
    static const char *keywords[] = {"", "same", "valid", "causal", "channels_first",
                                     "channels_last", "relu", "linear", "tanh", "concat",
                                     "sum", "ave", "mul", "float16", "int32", "Dense",
                                     "LSTM", "Functional", "Sequential"};
    if (!strings.empty() && pick(2))
      value = strings[pick(strings.size())];
    else
      value = keywords[pick(std::size(keywords))];
    return;
  }
  if (llvm::json::Array *array = value.getAsArray()) {
    if (array->empty())
      return;
    size_t at = pick(array->size());
    switch (pick(3)) {
    case 0:
      array->erase(array->begin() + at);
      break;
    case 1:
      if (array->size() < 64)
        array->push_back(llvm::json::Value((*array)[at]));
      break;
    default:
      array->clear();
    }
    return;
  }
  if (llvm::json::Object *object = value.getAsObject()) {
    if (object->empty())
      return;
    auto entry = object->begin();
    std::advance(entry, pick(object->size()));
    std::string key = entry->first.str();
    object->erase(key);
  }
}

} // namespace json_mutator

inline size_t mutateJson(uint8_t *data, size_t size, size_t maxSize, unsigned seed) {
  auto bytewise = [&] { return LLVMFuzzerMutate ? LLVMFuzzerMutate(data, size, maxSize) : size; };
  std::minstd_rand random(seed);
  // A quarter of the time libFuzzer's own (odd bytes inside strings too).
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  if (random() % 4 == 0)
    return bytewise();
  // Parsed within the importer's bounds on size and nesting.
  llvm::Expected<llvm::json::Value> document = keras::parseModelJson(input, "fuzz", "input");
  if (!document) {
    llvm::consumeError(document.takeError());
    return bytewise();
  }
  std::vector<llvm::json::Value *> values;
  json_mutator::collect(*document, values);
  std::vector<std::string> strings;
  for (llvm::json::Value *value : values)
    if (std::optional<llvm::StringRef> s = value->getAsString())
      strings.push_back(s->str());
  int changes = 1 + static_cast<int>(random() % 3);
  for (int i = 0; i < changes; ++i) {
    json_mutator::mutateOne(*values[random() % values.size()], strings, random);
    // A change may free the values under it: collect them again.
    values.clear();
    json_mutator::collect(*document, values);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << *document;
  os.flush();
  if (text.size() > maxSize)
    return bytewise();
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

} // namespace seq::fuzz

#endif

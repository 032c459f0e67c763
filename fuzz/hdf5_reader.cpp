//===- hdf5_reader.cpp - Fuzz the HDF5 model reader on file images --------===//
//
// HDF5File::openImage (the sandboxed libhdf5 child plus the parent's decoding
// of its records), then every query HDF5File answers on every object.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "seq/Frontend/Keras/HDF5File.h"

#include <fstream>

using namespace seq;
using seq::keras::HDF5File;

namespace {

size_t visited;

void walk(const HDF5File &file, const std::string &path, int depth) {
  // Hard links can form cycles: bound the walk, not the file.
  if (depth > 12 || ++visited > 4096)
    return;
  (void)file.exists(path);
  (void)file.hasAttribute(path, "keras_version");
  auto names = file.attributeNames(path);
  if (fuzz::check(names))
    for (const std::string &name : *names) {
      auto text = file.readStringAttribute(path, name);
      if (fuzz::check(text))
        (void)text->size();
      auto list = file.readStringListAttribute(path, name);
      if (fuzz::check(list))
        (void)list->size();
    }
  // The Keras split-attribute form (layer_names0, layer_names1, ...).
  auto split = file.readStringListAttribute(path, "layer_names");
  fuzz::check(split);
  if (file.isDataset(path)) {
    auto data = file.readFloatDataset(path);
    if (fuzz::check(data)) {
      volatile float sum = 0;
      for (float f : data->data)
        sum = sum + f;
      (void)data->shape.size();
    }
    return;
  }
  if (!file.isGroup(path))
    return;
  auto children = file.children(path);
  if (!fuzz::check(children))
    return;
  for (const std::string &child : *children)
    walk(file, path == "/" ? "/" + child : path + "/" + child, depth + 1);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fuzz::setReaderTimeout();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto file = HDF5File::openImage(
      llvm::ArrayRef<char>(reinterpret_cast<const char *>(data), size),
      "fuzz.h5");
  if (!file) {
    fuzz::consumeReaderError(file.takeError(), data, size, "the HDF5 library",
                             "hdf5");
    return 0;
  }
  visited = 0;
  walk(*file, "/", 0);
  (void)file->exists("model_weights/dense/dense/kernel:0");
  (void)file->exists("../x");
  (void)file->exists("//a//b/");
  return 0;
}

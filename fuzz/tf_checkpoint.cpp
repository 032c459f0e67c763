//===- tf_checkpoint.cpp - Fuzz the TensorFlow checkpoint reader ----------===//
//
// The input is a tensor bundle: a 4-byte little-endian length, that many
// bytes of index (<prefix>.index), the rest its one data shard. Every entry
// is read, string entries as strings, and the object graph parsed; the
// whole input is also parsed as keras_metadata.pb and as an object graph.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "seq/Frontend/Keras/SavedObjects.h"
#include "seq/Frontend/Keras/TensorBundle.h"

#include "llvm/Support/Endian.h"

using namespace seq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  auto metadata = keras::readKerasMetadata(input, "keras_metadata.pb");
  fuzz::check(metadata);
  auto graph = keras::readObjectGraph(input, "ckpt");
  fuzz::check(graph);
  if (size < 4)
    return 0;
  size_t indexSize = std::min<size_t>(llvm::support::endian::read32le(data), size - 4);
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> shards;
  shards.push_back(llvm::MemoryBuffer::getMemBuffer(input.drop_front(4 + indexSize), "shard",
                                                    /*RequiresNullTerminator=*/false));
  auto bundle = keras::TensorBundle::openBuffers(
      llvm::MemoryBuffer::getMemBuffer(input.substr(4, indexSize), "index",
                                       /*RequiresNullTerminator=*/false),
      std::move(shards), "ckpt");
  if (!fuzz::check(bundle))
    return 0;
  for (const std::string &name : bundle->names()) {
    auto bytes = bundle->readBytes(name);
    fuzz::check(bytes);
    if (bundle->find(name)->dtype == keras::TensorBundle::String) {
      auto text = bundle->readScalarString(name);
      if (fuzz::check(text)) {
        auto objects = keras::readObjectGraph(*text, "ckpt");
        fuzz::check(objects);
      }
    }
  }
  return 0;
}

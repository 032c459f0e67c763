//===- zip_reader.cpp - Fuzz the zip reader (Keras 3 .keras archives) -----===//
//
// ZipArchive::openBuffer, then every member read with the cap the importer
// uses for configs, and the members the importer looks up by name.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "seq/Frontend/Keras/ZipArchive.h"

using namespace seq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.keras",
      /*RequiresNullTerminator=*/false);
  auto archive = keras::ZipArchive::openBuffer(std::move(buffer), "fuzz.keras");
  if (!fuzz::check(archive))
    return 0;
  for (const std::string &name : archive->names()) {
    (void)archive->contains(name);
    (void)archive->storedSize(name);
    auto bytes = archive->read(name, uint64_t(16) << 20);
    if (fuzz::check(bytes)) {
      volatile char last = bytes->empty() ? 0 : bytes->back();
      (void)last;
    }
  }
  for (const char *name : {"config.json", "metadata.json", "model.weights.h5"}) {
    auto bytes = archive->read(name, 1024);
    fuzz::check(bytes);
  }
  return 0;
}

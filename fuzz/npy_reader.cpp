//===- npy_reader.cpp - Fuzz the .npy reader ------------------------------===//

#include "FuzzCommon.h"
#include "seq/Runtime/Npy.h"

using namespace seq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto tensor = rt::readNpyBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.npy");
  if (!fuzz::check(tensor))
    return 0;
  int64_t elements = 1;
  for (int64_t dim : tensor->shape)
    elements *= dim;
  volatile float sum = 0;
  for (float f : tensor->data)
    sum = sum + f;
  if (elements != static_cast<int64_t>(tensor->data.size()))
    __builtin_trap(); // The shape must describe the data.
  return 0;
}

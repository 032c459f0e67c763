// Every call of an engine on one input gives the same bits: the check that
// --compare's workers and seqc.compare make on each call's output.
#include "seq/Runtime/Compare.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

namespace seq::rt {

std::optional<std::string> bitwiseDifference(const Tensor &first, const Tensor &later) {
  if (first.shape != later.shape)
    return "its shape is " + later.shapeString() + ", was " + first.shapeString();
  for (size_t i = 0; i < first.data.size(); ++i)
    if (std::memcmp(&first.data[i], &later.data[i], sizeof(float)) != 0)
      return llvm::formatv("element {0} is {1:e8}, was {2:e8}", i, later.data[i],
                           first.data[i])
          .str();
  return std::nullopt;
}

std::optional<std::string> RepeatCheck::next(const Tensor &output) {
  ++calls;
  if (!first) {
    first = output;
    return std::nullopt;
  }
  if (differed)
    return std::nullopt;
  std::optional<std::string> difference = bitwiseDifference(*first, output);
  if (!difference)
    return std::nullopt;
  differed = true;
  return "call " + std::to_string(calls) + " differs from call 1: " + *difference;
}

} // namespace seq::rt

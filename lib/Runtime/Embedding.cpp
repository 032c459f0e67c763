//===- Embedding.cpp - Keras Embedding ------------------------------------===//

#include "Detail.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace seq::rt;

static std::string formatId(float id) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.9g", id);
  return text;
}

llvm::Expected<Tensor> seq::rt::embedding(const Tensor &ids,
                                          const Tensor &table) {
  detail::requireRank(table, 2, "embedding table");
  int64_t vocab = table.shape[0], dim = table.shape[1];
  std::vector<int64_t> shape = ids.shape;
  shape.push_back(dim);
  Tensor y = Tensor::zeros(shape);
  for (size_t i = 0; i < ids.data.size(); ++i) {
    float id = ids.data[i];
    if (std::trunc(id) != id) // also true for NaN
      return llvm::createStringError("embedding id " + formatId(id) +
                                     " is not an integer");
    if (id < 0 || id >= vocab)
      return llvm::createStringError("embedding id " + formatId(id) +
                                     " out of range [0, " + llvm::Twine(vocab) +
                                     ")");
    std::copy_n(&table.data[int64_t(id) * dim], dim, &y.data[i * dim]);
  }
  return y;
}

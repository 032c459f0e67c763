//===- Shape.cpp - Flatten, Reshape, RepeatVector, TimeDistributed steps --===//

#include "Detail.h"

#include <algorithm>
#include <optional>

using namespace seq::rt;
using detail::require;

/// Product of the dimensions from axis `first` on.
static int64_t productFrom(const Tensor &x, int64_t first) {
  int64_t n = 1;
  for (int64_t i = first; i < x.rank(); ++i)
    n *= x.shape[i];
  return n;
}

Tensor seq::rt::flatten(const Tensor &x) {
  require(x.rank() >= 1, "flatten input must have a batch axis");
  return Tensor{{x.shape[0], productFrom(x, 1)}, x.data};
}

llvm::Expected<Tensor>
seq::rt::reshape(const Tensor &x,
                 const std::vector<int64_t> &targetWithoutBatch) {
  require(x.rank() >= 1, "reshape input must have a batch axis");
  Tensor target;
  target.shape = targetWithoutBatch;
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        "cannot reshape " + x.shapeString() +
        " to (batch, ...) = " + target.shapeString() + ": " + why);
  };

  int64_t perRow = productFrom(x, 1);
  int64_t known = 1;
  std::optional<size_t> inferred;
  for (size_t i = 0; i < targetWithoutBatch.size(); ++i) {
    int64_t d = targetWithoutBatch[i];
    if (d == -1) {
      if (inferred)
        return fail("more than one -1");
      inferred = i;
    } else if (d < 0) {
      return fail("negative dimension");
    } else {
      known *= d;
    }
  }
  std::vector<int64_t> shape = {x.shape[0]};
  shape.insert(shape.end(), targetWithoutBatch.begin(),
               targetWithoutBatch.end());
  if (inferred) {
    if (known == 0 || perRow % known != 0)
      return fail(llvm::Twine(perRow) + " elements per batch row do not divide "
                                        "into the known dimensions");
    shape[*inferred + 1] = perRow / known;
  } else if (known != perRow) {
    return fail(llvm::Twine(perRow) + " elements per batch row, target has " +
                llvm::Twine(known));
  }
  return Tensor{shape, x.data};
}

Tensor seq::rt::repeatVector(const Tensor &x, int64_t n) {
  detail::requireRank(x, 2, "repeat_vector input");
  int64_t batch = x.shape[0], f = x.shape[1];
  Tensor y = Tensor::zeros({batch, n, f});
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      std::copy_n(&x.data[b * f], f, &y.data[(b * n + i) * f]);
  return y;
}

Tensor seq::rt::sliceTime(const Tensor &x, int64_t t) {
  require(x.rank() >= 2 && t >= 0 && t < x.shape[1],
          "cannot take time step " + llvm::Twine(t) + " of " + x.shapeString());
  int64_t batch = x.shape[0], steps = x.shape[1], n = productFrom(x, 2);
  std::vector<int64_t> shape = {batch};
  shape.insert(shape.end(), x.shape.begin() + 2, x.shape.end());
  Tensor y = Tensor::zeros(shape);
  for (int64_t b = 0; b < batch; ++b)
    std::copy_n(&x.data[(b * steps + t) * n], n, &y.data[b * n]);
  return y;
}

void seq::rt::setTime(Tensor &y, int64_t t, const Tensor &slice) {
  require(y.rank() >= 2 && t >= 0 && t < y.shape[1],
          "cannot set time step " + llvm::Twine(t) + " of " + y.shapeString());
  std::vector<int64_t> expected = {y.shape[0]};
  expected.insert(expected.end(), y.shape.begin() + 2, y.shape.end());
  require(slice.shape == expected, "time step " + slice.shapeString() +
                                       " does not fit " + y.shapeString());
  int64_t batch = y.shape[0], steps = y.shape[1], n = productFrom(y, 2);
  for (int64_t b = 0; b < batch; ++b)
    std::copy_n(&slice.data[b * n], n, &y.data[(b * steps + t) * n]);
}

//===- Tensor.cpp ---------------------------------------------------------===//

#include "seq/Runtime/Tensor.h"
#include "Detail.h"

#include "llvm/Support/ErrorHandling.h"

using namespace seq::rt;

Tensor Tensor::zeros(std::vector<int64_t> shape) {
  for (int64_t d : shape)
    detail::require(d >= 0, "negative dimension in shape");
  Tensor t;
  t.shape = std::move(shape);
  t.data.assign(t.numElements(), 0.0f);
  return t;
}

namespace {
int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// As Python prints a tuple: "(2, 5, 3)", "(4,)", "()".
std::string tupleText(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}
} // namespace

int64_t Tensor::numElements() const { return elementCount(shape); }

std::vector<int64_t> Tensor::strides() const {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t i = rank() - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

int64_t Tensor::offset(std::initializer_list<int64_t> index) const {
  detail::require(static_cast<int64_t>(index.size()) == rank(),
                  "index of rank " + llvm::Twine(index.size()) +
                      " into a tensor of shape " + shapeString());
  int64_t flat = 0;
  int64_t dim = 0;
  for (int64_t i : index) {
    detail::require(i >= 0 && i < shape[dim],
                    "index " + llvm::Twine(i) + " out of bounds for axis " +
                        llvm::Twine(dim) + " of shape " + shapeString());
    flat = flat * shape[dim] + i;
    ++dim;
  }
  return flat;
}

Tensor Tensor::rows(int64_t first, int64_t count) const {
  return TensorView(*this).rows(first, count).copy();
}

std::string Tensor::shapeString() const { return tupleText(shape); }

int64_t TensorView::numElements() const { return elementCount(shape); }

TensorView TensorView::rows(int64_t first, int64_t count) const {
  int64_t rowSize = shape.empty() || shape[0] == 0 ? 0 : numElements() / shape[0];
  TensorView part = *this;
  part.shape[0] = count;
  part.data = data + first * rowSize;
  part.size = count * rowSize;
  return part;
}

Tensor TensorView::copy() const {
  return Tensor{shape, std::vector<float>(data, data + size)};
}

std::string TensorView::shapeString() const { return tupleText(shape); }

void detail::require(bool ok, const llvm::Twine &message) {
  if (!ok)
    llvm::reportFatalUsageError("seq runtime: " + message);
}

void detail::requireRank(const Tensor &t, int64_t rank,
                         const llvm::Twine &what) {
  require(t.rank() == rank, what + " must have rank " + llvm::Twine(rank) +
                                ", got shape " + t.shapeString());
}

int64_t detail::numRows(const Tensor &t) {
  int64_t n = 1;
  for (int64_t i = 0; i + 1 < t.rank(); ++i)
    n *= t.shape[i];
  return n;
}

void detail::unflatten(int64_t flat, llvm::ArrayRef<int64_t> sizes,
                       llvm::MutableArrayRef<int64_t> index) {
  for (size_t i = sizes.size(); i-- > 0;) {
    index[i] = flat % sizes[i];
    flat /= sizes[i];
  }
}

int64_t detail::product(llvm::ArrayRef<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t d : sizes)
    n *= d;
  return n;
}

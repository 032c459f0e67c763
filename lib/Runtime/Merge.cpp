//===- Merge.cpp - Keras' merge layers: Add ... Minimum, Concatenate ------===//

#include "Detail.h"

#include <algorithm>

using namespace seq::rt;
using detail::require;

/// `t` repeated along its axes of size 1 to `shape` (of t's rank); a copy
/// of `t` when it has that shape.
static Tensor broadcastTo(const Tensor &t, const std::vector<int64_t> &shape) {
  if (t.shape == shape)
    return t;
  Tensor y = Tensor::zeros(shape);
  size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  for (float &v : y.data) {
    int64_t from = 0;
    for (size_t a = 0; a < rank; ++a)
      from = from * t.shape[a] + (t.shape[a] == 1 ? 0 : index[a]);
    v = t.data[from];
    for (size_t a = rank; a-- > 0;)
      if (++index[a] < shape[a])
        break;
      else
        index[a] = 0;
  }
  return y;
}

Tensor seq::rt::merge(llvm::ArrayRef<const Tensor *> inputs, MergeKind kind) {
  require(inputs.size() >= 2, "a merge needs at least two inputs");
  require(kind != MergeKind::Subtract || inputs.size() == 2,
          "subtract takes exactly two inputs");
  // One rank; axes of size 1 broadcast against the others' size there.
  std::vector<int64_t> shape = inputs[0]->shape;
  for (const Tensor *t : inputs) {
    bool fits = t->shape.size() == shape.size();
    for (size_t a = 0; fits && a < shape.size(); ++a) {
      if (shape[a] == 1)
        shape[a] = t->shape[a];
      fits = t->shape[a] == 1 || t->shape[a] == shape[a];
    }
    require(fits, "merge inputs " + inputs[0]->shapeString() + " and " + t->shapeString() +
                      " do not broadcast");
  }
  Tensor y = broadcastTo(*inputs[0], shape);
  for (const Tensor *input : inputs.drop_front()) {
    // Only an input that broadcasts is copied (repeated).
    Tensor repeated;
    const Tensor *t = input;
    if (input->shape != shape) {
      repeated = broadcastTo(*input, shape);
      t = &repeated;
    }
    for (size_t i = 0; i < y.data.size(); ++i) {
      float a = y.data[i], b = t->data[i];
      switch (kind) {
      case MergeKind::Add:
      case MergeKind::Average:
        y.data[i] = a + b;
        break;
      case MergeKind::Subtract:
        y.data[i] = a - b;
        break;
      case MergeKind::Multiply:
        y.data[i] = a * b;
        break;
      case MergeKind::Maximum:
        y.data[i] = std::max(a, b);
        break;
      case MergeKind::Minimum:
        y.data[i] = std::min(a, b);
        break;
      case MergeKind::Divide:
        y.data[i] = a / b;
        break;
      }
    }
  }
  if (kind == MergeKind::Average)
    for (float &v : y.data)
      v /= static_cast<float>(inputs.size());
  return y;
}

Tensor seq::rt::concatenate(llvm::ArrayRef<const Tensor *> inputs, int64_t axis) {
  require(inputs.size() >= 2, "a concatenation needs at least two inputs");
  const std::vector<int64_t> &first = inputs[0]->shape;
  require(axis >= 1 && axis < static_cast<int64_t>(first.size()),
          "concatenation axis " + llvm::Twine(axis) + " is not a non-batch axis of " +
              inputs[0]->shapeString());
  std::vector<int64_t> shape = first;
  shape[axis] = 0;
  for (const Tensor *t : inputs) {
    bool fits = t->shape.size() == first.size();
    for (size_t a = 0; fits && a < first.size(); ++a)
      fits = static_cast<int64_t>(a) == axis || t->shape[a] == first[a];
    require(fits, "concatenation inputs " + inputs[0]->shapeString() + " and " +
                      t->shapeString() + " differ off axis " + llvm::Twine(axis));
    shape[axis] += t->shape[axis];
  }
  // Each input is `outer` blocks of shape[axis..] rows.
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a)
    outer *= first[a];
  for (size_t a = axis + 1; a < first.size(); ++a)
    inner *= first[a];
  Tensor y = Tensor::zeros(shape);
  int64_t width = shape[axis] * inner, offset = 0;
  for (const Tensor *t : inputs) {
    int64_t block = t->shape[axis] * inner;
    for (int64_t o = 0; o < outer; ++o)
      std::copy_n(&t->data[o * block], block, &y.data[o * width + offset]);
    offset += block;
  }
  return y;
}

//===- Tensor.h - Dense float32 tensor of the reference runtime -*- C++ -*-===//
//
// A plain row-major (C order) float32 array with its shape. The reference
// interpreter favours obviousness over speed, so this is just two vectors.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_RUNTIME_TENSOR_H
#define SEQ_RUNTIME_TENSOR_H

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace seq::rt {

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;

  /// A tensor of `shape` filled with 0.0f.
  static Tensor zeros(std::vector<int64_t> shape);

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  /// Product of the dimensions (1 for a rank-0 tensor).
  int64_t numElements() const;
  /// Row-major strides in elements.
  std::vector<int64_t> strides() const;
  /// Flat index of a full multi-index; aborts on a wrong rank or a coordinate
  /// out of bounds.
  int64_t offset(std::initializer_list<int64_t> index) const;
  float &at(std::initializer_list<int64_t> index) {
    return data[offset(index)];
  }
  float at(std::initializer_list<int64_t> index) const {
    return data[offset(index)];
  }
  /// Rows [first, first + count) of axis 0, copied.
  Tensor rows(int64_t first, int64_t count) const;
  /// The shape as Python prints a tuple: "(2, 5, 3)", "(4,)", "()".
  std::string shapeString() const;
};

/// A row-major float32 array someone else keeps (a Tensor's, a NumPy
/// array's, a C caller's buffer) and its shape: what an engine reads a
/// call's inputs from, without a copy. Valid while that owner is.
struct TensorView {
  std::vector<int64_t> shape;
  const float *data = nullptr;
  /// Floats at `data` (an engine checks it against the shape).
  int64_t size = 0;

  TensorView() = default;
  TensorView(std::vector<int64_t> shape, const float *data, int64_t size)
      : shape(std::move(shape)), data(data), size(size) {}
  /// A view of `t`, which must outlive it.
  TensorView(const Tensor &t)
      : shape(t.shape), data(t.data.data()), size(static_cast<int64_t>(t.data.size())) {}

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  /// Product of the dimensions (1 for a rank-0 tensor).
  int64_t numElements() const;
  /// Rows [first, first + count) of axis 0, still in the owner's buffer.
  TensorView rows(int64_t first, int64_t count) const;
  /// The values, copied.
  Tensor copy() const;
  /// As Tensor::shapeString.
  std::string shapeString() const;
};

} // namespace seq::rt

#endif // SEQ_RUNTIME_TENSOR_H

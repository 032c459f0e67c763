//===- Dense.cpp - Keras Dense --------------------------------------------===//

#include "Detail.h"

using namespace seq::rt;
using detail::require;

Tensor seq::rt::dense(const Tensor &x, const Tensor &kernel, const Tensor *bias,
                      Activation act, float alpha) {
  require(x.rank() >= 2,
          "dense input must have rank >= 2, got shape " + x.shapeString());
  detail::requireRank(kernel, 2, "dense kernel");
  int64_t in = kernel.shape[0], units = kernel.shape[1];
  require(x.shape.back() == in, "dense input " + x.shapeString() +
                                    " does not match kernel " +
                                    kernel.shapeString());
  require(!bias || bias->shape == std::vector<int64_t>{units},
          "dense bias " + (bias ? bias->shapeString() : "") +
              " does not match kernel " + kernel.shapeString());

  std::vector<int64_t> outShape = x.shape;
  outShape.back() = units;
  Tensor y = Tensor::zeros(outShape);
  for (int64_t r = 0, rows = detail::numRows(x); r < rows; ++r) {
    for (int64_t u = 0; u < units; ++u) {
      double sum = bias ? bias->data[u] : 0.0;
      for (int64_t i = 0; i < in; ++i)
        sum += double(x.data[r * in + i]) * kernel.data[i * units + u];
      y.data[r * units + u] = static_cast<float>(sum);
    }
  }
  applyActivation(act, alpha, y);
  return y;
}

//===- Normalization.cpp - Keras BatchNormalization and LayerNormalization ===//

#include "Detail.h"

#include <cmath>

using namespace seq::rt;
using detail::require;

static void requireVector(const Tensor *t, int64_t n, llvm::StringRef what) {
  require(!t || t->shape == std::vector<int64_t>{n},
          what + " should have shape (" + llvm::Twine(n) + ",), got " +
              (t ? t->shapeString() : ""));
}

Tensor seq::rt::batchNorm(const Tensor &x, const Tensor *gamma,
                          const Tensor *beta, const Tensor &movingMean,
                          const Tensor &movingVariance, float epsilon) {
  require(x.rank() >= 1, "batch_norm input must have rank >= 1");
  int64_t n = x.shape.back();
  requireVector(gamma, n, "batch_norm gamma");
  requireVector(beta, n, "batch_norm beta");
  requireVector(&movingMean, n, "batch_norm moving mean");
  requireVector(&movingVariance, n, "batch_norm moving variance");
  Tensor y = x;
  for (size_t i = 0; i < y.data.size(); ++i) {
    int64_t c = i % n;
    double v = (double(x.data[i]) - movingMean.data[c]) /
               std::sqrt(double(movingVariance.data[c]) + epsilon);
    if (gamma)
      v *= gamma->data[c];
    if (beta)
      v += beta->data[c];
    y.data[i] = static_cast<float>(v);
  }
  return y;
}

Tensor seq::rt::layerNorm(const Tensor &x, const Tensor *gamma,
                          const Tensor *beta, float epsilon) {
  require(x.rank() >= 1, "layer_norm input must have rank >= 1");
  int64_t n = x.shape.back();
  requireVector(gamma, n, "layer_norm gamma");
  requireVector(beta, n, "layer_norm beta");
  Tensor y = x;
  for (int64_t r = 0, rows = detail::numRows(x); r < rows; ++r) {
    const float *row = &x.data[r * n];
    double mean = 0;
    for (int64_t c = 0; c < n; ++c)
      mean += row[c];
    mean /= n;
    double variance = 0;
    for (int64_t c = 0; c < n; ++c)
      variance += (row[c] - mean) * (row[c] - mean);
    variance /= n;
    double scale = 1 / std::sqrt(variance + epsilon);
    for (int64_t c = 0; c < n; ++c) {
      double v = (row[c] - mean) * scale;
      if (gamma)
        v *= gamma->data[c];
      if (beta)
        v += beta->data[c];
      y.data[r * n + c] = static_cast<float>(v);
    }
  }
  return y;
}

//===- Normalization.cpp - Keras BatchNormalization and LayerNormalization ===//

#include "Detail.h"

#include <algorithm>
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

Tensor seq::rt::groupNorm(const Tensor &x, const Tensor &gamma,
                          const Tensor &beta, int64_t groups, float epsilon) {
  require(x.rank() >= 2, "group_norm input must have rank >= 2");
  const int64_t channels = x.shape.back();
  require(groups >= 1 && channels % groups == 0,
          "group_norm groups must divide the channels of " + x.shapeString());
  requireVector(&gamma, channels, "group_norm gamma");
  requireVector(&beta, channels, "group_norm beta");
  const int64_t batch = x.shape[0], perGroup = channels / groups;
  const int64_t positions = batch ? x.numElements() / (batch * channels) : 0;
  const int64_t count = positions * perGroup;
  Tensor y = x;
  for (int64_t b = 0; b < batch; ++b) {
    const float *sample = &x.data[b * positions * channels];
    for (int64_t g = 0; g < groups; ++g) {
      auto at = [&](int64_t p, int64_t c) {
        return double(sample[p * channels + g * perGroup + c]);
      };
      double mean = 0;
      for (int64_t p = 0; p < positions; ++p)
        for (int64_t c = 0; c < perGroup; ++c)
          mean += at(p, c);
      mean /= count;
      double variance = 0;
      for (int64_t p = 0; p < positions; ++p)
        for (int64_t c = 0; c < perGroup; ++c)
          variance += (at(p, c) - mean) * (at(p, c) - mean);
      variance /= count;
      double scale = 1 / std::sqrt(variance + epsilon);
      for (int64_t p = 0; p < positions; ++p)
        for (int64_t c = 0; c < perGroup; ++c) {
          int64_t channel = g * perGroup + c;
          y.data[(b * positions + p) * channels + channel] = static_cast<float>(
              (at(p, c) - mean) * scale * gamma.data[channel] + beta.data[channel]);
        }
    }
  }
  return y;
}

namespace {

/// Each last-axis row of x times factor(sum of its squares, row length).
Tensor scaleRowsBySquares(const Tensor &x,
                          double (*factor)(double squares, int64_t n,
                                           float epsilon),
                          float epsilon, const Tensor *scale) {
  int64_t n = x.shape.back();
  Tensor y = x;
  for (int64_t r = 0, rows = detail::numRows(x); r < rows; ++r) {
    const float *row = &x.data[r * n];
    double squares = 0;
    for (int64_t c = 0; c < n; ++c)
      squares += double(row[c]) * row[c];
    double f = factor(squares, n, epsilon);
    for (int64_t c = 0; c < n; ++c)
      y.data[r * n + c] =
          static_cast<float>(row[c] * f * (scale ? scale->data[c] : 1.0f));
  }
  return y;
}

} // namespace

Tensor seq::rt::unitNorm(const Tensor &x, float epsilon) {
  require(x.rank() >= 1, "unit_norm input must have rank >= 1");
  return scaleRowsBySquares(
      x,
      [](double squares, int64_t, float epsilon) {
        return 1 / std::sqrt(std::max(squares, static_cast<double>(epsilon)));
      },
      epsilon, nullptr);
}

Tensor seq::rt::rmsNorm(const Tensor &x, const Tensor &scale, float epsilon) {
  require(x.rank() >= 1, "rms_norm input must have rank >= 1");
  requireVector(&scale, x.shape.back(), "rms_norm scale");
  return scaleRowsBySquares(
      x,
      [](double squares, int64_t n, float epsilon) {
        return 1 / std::sqrt(squares / n + epsilon);
      },
      epsilon, &scale);
}

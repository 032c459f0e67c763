//===- Pooling.cpp - Keras 1-D pooling ------------------------------------===//

#include "Detail.h"

#include <algorithm>
#include <cmath>

using namespace seq::rt;
using detail::require;

namespace {
enum class PoolKind { Max, Avg };
} // namespace

static Tensor pool1d(llvm::StringRef name, PoolKind kind, const Tensor &x,
                     int64_t poolSize, int64_t stride, Padding padding) {
  detail::requireRank(x, 3, name + " input");
  require(padding != Padding::Causal, name + " has no causal padding");
  int64_t batch = x.shape[0], steps = x.shape[1], channels = x.shape[2];
  detail::Window1d w = detail::window1d(steps, poolSize, stride, padding);
  Tensor y = Tensor::zeros({batch, w.outLength, channels});
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t o = 0; o < w.outLength; ++o) {
      // Padded positions are skipped: they never win the max and, as in TF,
      // do not count towards the average's divisor.
      int64_t first = std::max(o * stride - w.padLeft, int64_t(0));
      int64_t last = std::min(o * stride - w.padLeft + poolSize, steps);
      for (int64_t c = 0; c < channels; ++c) {
        double max = -INFINITY, sum = 0;
        for (int64_t t = first; t < last; ++t) {
          double v = x.data[(b * steps + t) * channels + c];
          max = std::max(max, v);
          sum += v;
        }
        y.data[(b * w.outLength + o) * channels + c] = static_cast<float>(
            kind == PoolKind::Max ? max : sum / double(last - first));
      }
    }
  }
  return y;
}

Tensor seq::rt::maxPool1d(const Tensor &x, int64_t poolSize, int64_t stride,
                          Padding padding) {
  return pool1d("max_pool1d", PoolKind::Max, x, poolSize, stride, padding);
}

Tensor seq::rt::avgPool1d(const Tensor &x, int64_t poolSize, int64_t stride,
                          Padding padding) {
  return pool1d("avg_pool1d", PoolKind::Avg, x, poolSize, stride, padding);
}

static Tensor globalPool1d(llvm::StringRef name, PoolKind kind,
                           const Tensor &x, const Tensor *mask) {
  detail::requireRank(x, 3, name + " input");
  int64_t batch = x.shape[0], steps = x.shape[1], channels = x.shape[2];
  detail::require(!mask || mask->shape == std::vector<int64_t>{batch, steps},
                  name + " mask " + (mask ? mask->shapeString() : "") +
                      " does not fit input " + x.shapeString());
  Tensor y = Tensor::zeros({batch, channels});
  for (int64_t b = 0; b < batch; ++b) {
    double count = 0;
    for (int64_t t = 0; t < steps; ++t)
      count += mask ? mask->data[b * steps + t] : 1.0;
    for (int64_t c = 0; c < channels; ++c) {
      double max = -INFINITY, sum = 0;
      for (int64_t t = 0; t < steps; ++t) {
        double v = x.data[(b * steps + t) * channels + c];
        max = std::max(max, v);
        sum += mask ? v * mask->data[b * steps + t] : v;
      }
      y.data[b * channels + c] =
          static_cast<float>(kind == PoolKind::Max ? max : sum / count);
    }
  }
  return y;
}

Tensor seq::rt::globalMaxPool1d(const Tensor &x) {
  return globalPool1d("global_max_pool1d", PoolKind::Max, x, nullptr);
}

Tensor seq::rt::globalAvgPool1d(const Tensor &x, const Tensor *mask) {
  return globalPool1d("global_avg_pool1d", PoolKind::Avg, x, mask);
}

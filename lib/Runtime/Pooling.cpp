//===- Pooling.cpp - Keras pooling in 1 to 3 dimensions -------------------===//

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

Tensor seq::rt::pooling(const Tensor &x, llvm::ArrayRef<int64_t> window,
                        llvm::ArrayRef<int64_t> strides, Padding padding,
                        bool isMax) {
  const int64_t n = static_cast<int64_t>(window.size());
  require(n >= 1 && x.rank() == n + 2 &&
              static_cast<int64_t>(strides.size()) == n,
          "pooling input " + x.shapeString() + " does not match a " +
              llvm::Twine(n) + "-D window");
  require(padding != Padding::Causal, "pooling has no causal padding");
  const int64_t batch = x.shape[0], channels = x.shape.back();
  std::vector<int64_t> outShape{batch}, outSizes;
  std::vector<detail::Window1d> windows;
  for (int64_t i = 0; i < n; ++i) {
    windows.push_back(
        detail::window1d(x.shape[i + 1], window[i], strides[i], padding));
    outSizes.push_back(windows.back().outLength);
  }
  outShape.insert(outShape.end(), outSizes.begin(), outSizes.end());
  outShape.push_back(channels);
  Tensor y = Tensor::zeros(outShape);
  std::vector<int64_t> xStrides = x.strides();
  const int64_t positions = detail::product(outSizes);
  std::vector<int64_t> o(n), first(n), extent(n), at(n);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t p = 0; p < positions; ++p) {
      detail::unflatten(p, outSizes, o);
      // Padded positions are skipped: they never win the max and, as in TF,
      // do not count towards the average's divisor.
      for (int64_t i = 0; i < n; ++i) {
        int64_t start = o[i] * strides[i] - windows[i].padLeft;
        first[i] = std::max(start, int64_t(0));
        extent[i] = std::min(start + window[i], x.shape[i + 1]) - first[i];
      }
      const int64_t count = detail::product(extent);
      for (int64_t c = 0; c < channels; ++c) {
        double max = -INFINITY, sum = 0;
        for (int64_t e = 0; e < count; ++e) {
          detail::unflatten(e, extent, at);
          int64_t offset = b * xStrides[0] + c;
          for (int64_t i = 0; i < n; ++i)
            offset += (first[i] + at[i]) * xStrides[i + 1];
          double v = x.data[offset];
          max = std::max(max, v);
          sum += v;
        }
        y.data[(b * positions + p) * channels + c] =
            static_cast<float>(isMax ? max : sum / double(count));
      }
    }
  }
  return y;
}

Tensor seq::rt::globalPooling(const Tensor &x, bool isMax, bool keepdims) {
  require(x.rank() >= 3, "global pooling input " + x.shapeString() +
                             " has no axis between batch and channels");
  int64_t batch = x.shape[0], channels = x.shape.back();
  int64_t positions =
      detail::product(llvm::ArrayRef<int64_t>(x.shape).slice(1, x.rank() - 2));
  Tensor rows{{batch, positions, channels}, x.data};
  Tensor y = globalPool1d(isMax ? "global_max_pool" : "global_avg_pool",
                          isMax ? PoolKind::Max : PoolKind::Avg, rows, nullptr);
  if (keepdims) {
    y.shape.assign(x.rank(), 1);
    y.shape.front() = batch;
    y.shape.back() = channels;
  }
  return y;
}

/// x pooled along `axis` to `out` outputs by Keras' adaptive windows.
static Tensor adaptivePoolAxis(const Tensor &x, int64_t axis, int64_t out,
                               bool isMax) {
  std::vector<int64_t> shape = x.shape;
  const int64_t length = x.shape[axis];
  shape[axis] = out;
  Tensor y = Tensor::zeros(shape);
  const int64_t inner =
      detail::product(llvm::ArrayRef<int64_t>(x.shape).drop_front(axis + 1));
  const int64_t outer =
      detail::product(llvm::ArrayRef<int64_t>(x.shape).take_front(axis));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t t = 0; t < out; ++t) {
      const int64_t start = t * length / out;
      const int64_t end = ((t + 1) * length + out - 1) / out;
      float *dst = &y.data[(o * out + t) * inner];
      for (int64_t i = 0; i < inner; ++i) {
        double max = -INFINITY, sum = 0;
        for (int64_t s = start; s < end; ++s) {
          double v = x.data[(o * length + s) * inner + i];
          max = std::max(max, v);
          sum += v;
        }
        dst[i] = static_cast<float>(isMax ? max : sum / double(end - start));
      }
    }
  return y;
}

Tensor seq::rt::adaptivePooling(const Tensor &x,
                                llvm::ArrayRef<int64_t> outSizes, bool isMax) {
  const int64_t n = static_cast<int64_t>(outSizes.size());
  require(n >= 1 && x.rank() == n + 2,
          "adaptive pooling input " + x.shapeString() + " does not have " +
              llvm::Twine(n) + " spatial axes");
  for (int64_t size : outSizes)
    require(size >= 1, "adaptive pooling output sizes must be positive");
  Tensor y = x;
  for (int64_t i = 1; i <= n; ++i)
    if (y.shape[i] != outSizes[i - 1])
      y = adaptivePoolAxis(y, i, outSizes[i - 1], isMax);
  return y;
}

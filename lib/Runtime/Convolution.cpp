//===- Convolution.cpp - Keras Conv1D -------------------------------------===//

#include "Detail.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace seq::rt;
using detail::require;

detail::Window1d detail::window1d(int64_t length, int64_t window,
                                  int64_t stride, Padding padding) {
  require(stride >= 1 && window >= 1, "window and stride must be >= 1");
  switch (padding) {
  case Padding::Valid:
    return {length >= window ? (length - window) / stride + 1 : 0, 0};
  case Padding::Same: {
    int64_t out = (length + stride - 1) / stride;
    int64_t total = std::max((out - 1) * stride + window - length, int64_t(0));
    return {out, total / 2};
  }
  case Padding::Causal:
    // Left-pad by window - 1, then slide as valid.
    return {length >= 1 ? (length - 1) / stride + 1 : 0, window - 1};
  }
  llvm_unreachable("unknown padding");
}

Tensor seq::rt::conv1d(const Tensor &x, const Tensor &kernel,
                       const Tensor *bias, int64_t stride, int64_t dilation,
                       Padding padding, Activation act, float alpha) {
  detail::requireRank(x, 3, "conv1d input");
  detail::requireRank(kernel, 3, "conv1d kernel");
  int64_t batch = x.shape[0], steps = x.shape[1], channels = x.shape[2];
  int64_t k = kernel.shape[0], filters = kernel.shape[2];
  require(kernel.shape[1] == channels, "conv1d kernel " + kernel.shapeString() +
                                           " does not match input " +
                                           x.shapeString());
  require(!bias || bias->shape == std::vector<int64_t>{filters},
          "conv1d bias does not match kernel " + kernel.shapeString());
  require(dilation >= 1, "conv1d dilation must be >= 1");

  detail::Window1d w =
      detail::window1d(steps, dilation * (k - 1) + 1, stride, padding);
  Tensor y = Tensor::zeros({batch, w.outLength, filters});
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t o = 0; o < w.outLength; ++o) {
      for (int64_t f = 0; f < filters; ++f) {
        double sum = bias ? bias->data[f] : 0.0;
        for (int64_t j = 0; j < k; ++j) {
          int64_t t = o * stride - w.padLeft + j * dilation;
          if (t < 0 || t >= steps)
            continue; // zero padding
          for (int64_t c = 0; c < channels; ++c)
            sum += double(x.data[(b * steps + t) * channels + c]) *
                   kernel.data[(j * channels + c) * filters + f];
        }
        y.data[(b * w.outLength + o) * filters + f] = static_cast<float>(sum);
      }
    }
  }
  applyActivation(act, alpha, y);
  return y;
}

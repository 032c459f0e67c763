//===- Convolution.cpp - Keras Conv1D/2D/3D and Conv*Transpose ------------===//

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

Tensor seq::rt::convolution(const Tensor &x, const Tensor &kernel,
                            const Tensor *bias, llvm::ArrayRef<int64_t> strides,
                            llvm::ArrayRef<int64_t> dilations, int64_t groups,
                            Padding padding, Activation act, float alpha) {
  const int64_t n = kernel.rank() - 2;
  require(n >= 1 && x.rank() == n + 2 &&
              static_cast<int64_t>(strides.size()) == n &&
              static_cast<int64_t>(dilations.size()) == n,
          "convolution input " + x.shapeString() + " does not match kernel " +
              kernel.shapeString());
  require(padding != Padding::Causal, "only conv1d has causal padding");
  const int64_t batch = x.shape[0], channels = x.shape.back();
  const int64_t groupChannels = kernel.shape[n], filters = kernel.shape[n + 1];
  require(groups >= 1 && groupChannels * groups == channels &&
              filters % groups == 0,
          "convolution kernel " + kernel.shapeString() + " does not match " +
              llvm::Twine(groups) + " groups of input " + x.shapeString());
  require(!bias || bias->shape == std::vector<int64_t>{filters},
          "convolution bias does not match kernel " + kernel.shapeString());
  const int64_t groupFilters = filters / groups;

  std::vector<int64_t> outShape{batch}, outSizes, kernelSizes;
  std::vector<detail::Window1d> windows;
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = kernel.shape[i];
    detail::Window1d w = detail::window1d(
        x.shape[i + 1], dilations[i] * (k - 1) + 1, strides[i], padding);
    windows.push_back(w);
    outSizes.push_back(w.outLength);
    kernelSizes.push_back(k);
  }
  outShape.insert(outShape.end(), outSizes.begin(), outSizes.end());
  outShape.push_back(filters);
  Tensor y = Tensor::zeros(outShape);
  std::vector<int64_t> xStrides = x.strides(), kStrides = kernel.strides();
  const int64_t positions = detail::product(outSizes);
  const int64_t taps = detail::product(kernelSizes);
  std::vector<int64_t> o(n), k(n);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t p = 0; p < positions; ++p) {
      detail::unflatten(p, outSizes, o);
      for (int64_t f = 0; f < filters; ++f) {
        int64_t firstChannel = (f / groupFilters) * groupChannels;
        double sum = bias ? bias->data[f] : 0.0;
        for (int64_t t = 0; t < taps; ++t) {
          detail::unflatten(t, kernelSizes, k);
          int64_t xBase = b * xStrides[0] + firstChannel, kBase = f;
          bool inside = true;
          for (int64_t i = 0; i < n && inside; ++i) {
            int64_t at = o[i] * strides[i] - windows[i].padLeft +
                         k[i] * dilations[i];
            inside = at >= 0 && at < x.shape[i + 1]; // else zero padding
            xBase += at * xStrides[i + 1];
            kBase += k[i] * kStrides[i];
          }
          if (!inside)
            continue;
          for (int64_t c = 0; c < groupChannels; ++c)
            sum += double(x.data[xBase + c]) * kernel.data[kBase + c * kStrides[n]];
        }
        y.data[(b * positions + p) * filters + f] = static_cast<float>(sum);
      }
    }
  }
  applyActivation(act, alpha, y);
  return y;
}

Tensor seq::rt::transposedConvolution(const Tensor &x, const Tensor &kernel,
                                      const Tensor *bias,
                                      llvm::ArrayRef<int64_t> strides,
                                      llvm::ArrayRef<int64_t> dilations,
                                      llvm::ArrayRef<int64_t> outSizes,
                                      llvm::ArrayRef<int64_t> pads,
                                      Activation act, float alpha) {
  const int64_t n = kernel.rank() - 2;
  require(n >= 1 && x.rank() == n + 2 &&
              static_cast<int64_t>(strides.size()) == n &&
              static_cast<int64_t>(dilations.size()) == n &&
              static_cast<int64_t>(outSizes.size()) == n &&
              static_cast<int64_t>(pads.size()) == n,
          "transposed convolution input " + x.shapeString() +
              " does not match kernel " + kernel.shapeString());
  const int64_t batch = x.shape[0], channels = x.shape.back();
  const int64_t filters = kernel.shape[n];
  require(kernel.shape[n + 1] == channels,
          "transposed convolution kernel " + kernel.shapeString() +
              " does not match input " + x.shapeString());
  require(!bias || bias->shape == std::vector<int64_t>{filters},
          "transposed convolution bias does not match kernel " +
              kernel.shapeString());
  std::vector<int64_t> outShape{batch}, kernelSizes;
  outShape.insert(outShape.end(), outSizes.begin(), outSizes.end());
  outShape.push_back(filters);
  for (int64_t i = 0; i < n; ++i)
    kernelSizes.push_back(kernel.shape[i]);
  Tensor y = Tensor::zeros(outShape);
  std::vector<int64_t> xStrides = x.strides(), kStrides = kernel.strides();
  const int64_t positions = detail::product(outSizes);
  const int64_t taps = detail::product(kernelSizes);
  std::vector<int64_t> o(n), k(n);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t p = 0; p < positions; ++p) {
      detail::unflatten(p, outSizes, o);
      for (int64_t f = 0; f < filters; ++f) {
        double sum = bias ? bias->data[f] : 0.0;
        for (int64_t t = 0; t < taps; ++t) {
          detail::unflatten(t, kernelSizes, k);
          int64_t xBase = b * xStrides[0], kBase = f * kStrides[n];
          bool inside = true;
          for (int64_t i = 0; i < n && inside; ++i) {
            int64_t at = o[i] + pads[i] - k[i] * dilations[i];
            // Only input positions on the stride grid reach this output.
            inside = at >= 0 && at % strides[i] == 0 &&
                     at / strides[i] < x.shape[i + 1];
            xBase += at / strides[i] * xStrides[i + 1];
            kBase += k[i] * kStrides[i];
          }
          if (!inside)
            continue;
          for (int64_t c = 0; c < channels; ++c)
            sum += double(x.data[xBase + c]) * kernel.data[kBase + c];
        }
        y.data[(b * positions + p) * filters + f] = static_cast<float>(sum);
      }
    }
  }
  applyActivation(act, alpha, y);
  return y;
}

//===- Activations.cpp - Keras activation functions -----------------------===//
//
// Elementwise activations are evaluated in double and rounded once to float.
//
//===----------------------------------------------------------------------===//

#include "Detail.h"

#include <algorithm>
#include <cmath>

using namespace seq::rt;

static double sigmoid(double x) {
  // Either branch exponentiates a non-positive number, so nothing overflows.
  if (x >= 0)
    return 1 / (1 + std::exp(-x));
  double e = std::exp(x);
  return e / (1 + e);
}

/// log(1 + exp(x)) without overflow for large x.
static double softplus(double x) {
  return std::log1p(std::exp(-std::abs(x))) + std::max(x, 0.0);
}

static double activate(Activation act, double alpha, double x) {
  constexpr double kSeluAlpha = 1.6732632423543772;
  constexpr double kSeluScale = 1.0507009873554805;
  constexpr double kSqrt2OverPi = 0.7978845608028654;
  switch (act) {
  case Activation::Linear:
    return x;
  case Activation::Relu:
    return std::max(x, 0.0);
  case Activation::Tanh:
    return std::tanh(x);
  case Activation::Sigmoid:
    return sigmoid(x);
  case Activation::HardSigmoidKeras2:
    return std::clamp(0.2 * x + 0.5, 0.0, 1.0);
  case Activation::HardSigmoidKeras3:
    return std::clamp(x + 3, 0.0, 6.0) / 6;
  case Activation::Elu:
    return x > 0 ? x : alpha * std::expm1(x);
  case Activation::Selu:
    return kSeluScale * (x > 0 ? x : kSeluAlpha * std::expm1(x));
  case Activation::Gelu:
    // = 0.5 x (1 + erf(x / sqrt 2)), without 1 + erf cancelling for x < 0.
    return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
  case Activation::GeluTanh:
    // = 0.5 x (1 + tanh(u)), without 1 + tanh cancelling for x < 0.
    return x * sigmoid(2 * kSqrt2OverPi * (x + 0.044715 * x * x * x));
  case Activation::Swish:
    return x * sigmoid(x);
  case Activation::Softplus:
    return softplus(x);
  case Activation::Softsign:
    return x / (1 + std::abs(x));
  case Activation::LeakyRelu:
    return x >= 0 ? x : alpha * x;
  case Activation::Exponential:
    return std::exp(x);
  case Activation::Relu6:
    return std::clamp(x, 0.0, 6.0);
  case Activation::HardSilu:
    return x * std::clamp(x + 3, 0.0, 6.0) / 6;
  case Activation::Mish:
    return x * std::tanh(softplus(x));
  case Activation::Celu:
    return std::max(x, 0.0) + alpha * std::expm1(std::min(x, 0.0) / alpha);
  case Activation::HardTanh:
    return std::clamp(x, -1.0, 1.0);
  case Activation::LogSigmoid:
    return -softplus(-x);
  case Activation::SparsePlus:
    return x <= -1 ? 0.0 : x < 1 ? 0.25 * (x + 1) * (x + 1) : x;
  case Activation::Squareplus:
    // = (x + sqrt(x^2 + 4)) / 2, without x + sqrt(...) cancelling for x < 0.
    return x >= 0 ? (x + std::hypot(x, 2.0)) / 2 : 2 / (std::hypot(x, 2.0) - x);
  case Activation::TanhShrink:
    return x - std::tanh(x);
  case Activation::SoftShrink:
    return x > 0.5 ? x - 0.5 : x < -0.5 ? x + 0.5 : 0.0;
  case Activation::HardShrink:
    return std::abs(x) > 0.5 ? x : 0.0;
  case Activation::SparseSigmoid:
    return x <= -1 ? 0.0 : x >= 1 ? 1.0 : 0.5 * (x + 1);
  case Activation::ThresholdedRelu:
    return x > alpha ? x : 0.0;
  case Activation::Sqrt:
    return std::sqrt(x);
  case Activation::Rsqrt:
    return 1 / std::sqrt(x);
  case Activation::Log:
    return std::log(x);
  case Activation::Abs:
    return std::abs(x);
  case Activation::Reciprocal:
    return alpha / x;
  case Activation::Softmax:
  case Activation::LogSoftmax:
    break;
  }
  detail::require(false, "softmax is not an elementwise activation");
  return 0;
}

void detail::activateRow(Activation act, float alpha,
                         llvm::MutableArrayRef<float> row) {
  if (act != Activation::Softmax && act != Activation::LogSoftmax) {
    for (float &v : row)
      v = static_cast<float>(activate(act, alpha, v));
    return;
  }
  // Subtracting the maximum keeps exp() in range without changing the result.
  double max = -INFINITY;
  for (float v : row)
    max = std::max<double>(max, v);
  std::vector<double> e(row.size());
  double sum = 0;
  for (size_t i = 0; i < row.size(); ++i)
    sum += e[i] = std::exp(row[i] - max);
  if (act == Activation::LogSoftmax) {
    // log(exp(x - max) / sum) = x - max - log(sum), exact for large |x|.
    double logSum = std::log(sum);
    for (float &v : row)
      v = static_cast<float>(v - max - logSum);
    return;
  }
  for (size_t i = 0; i < row.size(); ++i)
    row[i] = static_cast<float>(e[i] / sum);
}

void seq::rt::applyActivation(Activation act, float alpha, Tensor &t) {
  int64_t rowLength = t.rank() == 0 ? 1 : t.shape.back();
  if (rowLength == 0)
    return;
  for (size_t start = 0; start < t.data.size(); start += rowLength)
    detail::activateRow(
        act, alpha, llvm::MutableArrayRef<float>(&t.data[start], rowLength));
}

void seq::rt::applyRowActivation(Activation act, int64_t axis, Tensor &t) {
  detail::require(act == Activation::Softmax || act == Activation::LogSoftmax,
                  "applyRowActivation takes softmax or log_softmax");
  detail::require(axis >= 0 && axis < t.rank(), "softmax axis out of range");
  int64_t n = t.shape[axis];
  int64_t inner = 1;
  for (int64_t i = axis + 1; i < t.rank(); ++i)
    inner *= t.shape[i];
  if (n == 0 || inner == 0)
    return;
  int64_t outer = static_cast<int64_t>(t.data.size()) / (n * inner);
  std::vector<float> row(n);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < inner; ++k) {
      float *base = &t.data[o * n * inner + k];
      for (int64_t i = 0; i < n; ++i)
        row[i] = base[i * inner];
      detail::activateRow(act, 0.0f, row);
      for (int64_t i = 0; i < n; ++i)
        base[i * inner] = row[i];
    }
}

void seq::rt::reluLayer(float negativeSlope, float threshold,
                        std::optional<float> maxValue, Tensor &t) {
  for (float &v : t.data) {
    double x = v;
    double p = threshold != 0 ? (x > threshold ? x : 0.0) : std::max(x, 0.0);
    if (maxValue)
      p = std::clamp(p, 0.0, double(*maxValue));
    v = static_cast<float>(p - double(negativeSlope) *
                                   std::max(double(threshold) - x, 0.0));
  }
}

void seq::rt::clip(float minValue, float maxValue, Tensor &t) {
  for (float &v : t.data)
    if (v > maxValue)
      v = maxValue;
    else if (v < minValue)
      v = minValue;
}

Tensor seq::rt::prelu(const Tensor &x, const Tensor &alpha) {
  detail::require(alpha.rank() + 1 == x.rank(),
                  "prelu alpha must have the input's rank minus one");
  for (int64_t i = 0; i < alpha.rank(); ++i)
    detail::require(alpha.shape[i] == 1 || alpha.shape[i] == x.shape[i + 1],
                    "prelu alpha " + alpha.shapeString() +
                        " does not broadcast to input " + x.shapeString());
  Tensor y = x;
  int64_t perSample = 1;
  for (int64_t i = 1; i < x.rank(); ++i)
    perSample *= x.shape[i];
  std::vector<int64_t> alphaStrides = alpha.strides();
  for (size_t flat = 0; flat < y.data.size(); ++flat) {
    float &v = y.data[flat];
    if (v >= 0)
      continue;
    // Decompose the index within the sample, last axis first.
    int64_t rest = perSample ? static_cast<int64_t>(flat) % perSample : 0;
    int64_t a = 0;
    for (int64_t i = x.rank() - 1; i >= 1; --i) {
      int64_t coord = rest % x.shape[i];
      rest /= x.shape[i];
      if (alpha.shape[i - 1] != 1)
        a += coord * alphaStrides[i - 1];
    }
    v = alpha.data[a] * v;
  }
  return y;
}

Tensor seq::rt::truncate(const Tensor &x) {
  Tensor y = x;
  for (float &v : y.data)
    v = std::trunc(v);
  return y;
}

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
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case Activation::GeluTanh:
    return 0.5 * x * (1 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
  case Activation::Swish:
    return x * sigmoid(x);
  case Activation::Softplus:
    return std::log1p(std::exp(-std::abs(x))) + std::max(x, 0.0);
  case Activation::Softsign:
    return x / (1 + std::abs(x));
  case Activation::LeakyRelu:
    return x >= 0 ? x : alpha * x;
  case Activation::Exponential:
    return std::exp(x);
  case Activation::Softmax:
    break;
  }
  detail::require(false, "softmax is not an elementwise activation");
  return 0;
}

void detail::activateRow(Activation act, float alpha,
                         llvm::MutableArrayRef<float> row) {
  if (act != Activation::Softmax) {
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

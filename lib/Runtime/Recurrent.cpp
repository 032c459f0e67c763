//===- Recurrent.cpp - Keras LSTM, GRU, SimpleRNN and Bidirectional -------===//
//
// Each step sums its gate pre-activations in double, rounds them to float and
// applies the activations per gate block, as Keras applies them to (B, units)
// tensors (which matters only for softmax).
//
//===----------------------------------------------------------------------===//

#include "Detail.h"

#include <algorithm>
#include <functional>

using namespace seq::rt;
using detail::require;

namespace {
struct RnnDims {
  int64_t batch, steps, in, units;
};
} // namespace

static RnnDims checkRnn(llvm::StringRef layer, const Tensor &x,
                        const Tensor &kernel, const Tensor &recurrentKernel,
                        int64_t gates) {
  detail::requireRank(x, 3, layer + " input");
  detail::requireRank(kernel, 2, layer + " kernel");
  detail::requireRank(recurrentKernel, 2, layer + " recurrent kernel");
  RnnDims d{x.shape[0], x.shape[1], x.shape[2], recurrentKernel.shape[0]};
  require(kernel.shape == std::vector<int64_t>{d.in, gates * d.units} &&
              recurrentKernel.shape[1] == gates * d.units,
          layer + " kernel " + kernel.shapeString() + " and recurrent kernel " +
              recurrentKernel.shapeString() + " do not fit input " +
              x.shapeString());
  return d;
}

static void requireBias(llvm::StringRef layer, const Tensor *bias,
                        std::vector<int64_t> expected) {
  require(!bias || bias->shape == expected,
          layer + " bias " + (bias ? bias->shapeString() : "") +
              " should have shape " + Tensor{expected, {}}.shapeString());
}

/// acc[j] += sum_i v[i] * w[i, j] for w of shape (n, acc.size()).
static void accumulate(std::vector<double> &acc, const float *v,
                       const Tensor &w) {
  int64_t n = w.shape[0], cols = w.shape[1];
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < cols; ++j)
      acc[j] += double(v[i]) * w.data[i * cols + j];
}

/// Rounds `values[block*units, (block+1)*units)` to float and activates it.
static std::vector<float> gate(const std::vector<double> &values, int64_t block,
                               int64_t units, Activation act, float alpha) {
  std::vector<float> g(values.begin() + block * units,
                       values.begin() + (block + 1) * units);
  detail::activateRow(act, alpha, g);
  return g;
}

/// Runs `step(x_t, state)` over time for each batch row from a zero state of
/// `stateSize` floats whose first `units` are the output h.
static Tensor
scan(const Tensor &x, const RnnDims &d, int64_t stateSize,
     const RnnOptions &options,
     const std::function<void(const float *, std::vector<float> &)> &step) {
  Tensor y = options.returnSequences
                 ? Tensor::zeros({d.batch, d.steps, d.units})
                 : Tensor::zeros({d.batch, d.units});
  for (int64_t b = 0; b < d.batch; ++b) {
    std::vector<float> state(stateSize, 0.0f);
    for (int64_t s = 0; s < d.steps; ++s) {
      int64_t t = options.goBackwards ? d.steps - 1 - s : s;
      step(&x.data[(b * d.steps + t) * d.in], state);
      if (options.returnSequences)
        std::copy_n(state.begin(), d.units,
                    &y.data[(b * d.steps + s) * d.units]);
    }
    if (!options.returnSequences)
      std::copy_n(state.begin(), d.units, &y.data[b * d.units]);
  }
  return y;
}

Tensor seq::rt::lstm(const Tensor &x, const Tensor &kernel,
                     const Tensor &recurrentKernel, const Tensor *bias,
                     const RnnOptions &options) {
  RnnDims d = checkRnn("lstm", x, kernel, recurrentKernel, 4);
  requireBias("lstm", bias, {4 * d.units});
  int64_t u = d.units;
  // state = [h, c]
  return scan(
      x, d, 2 * u, options, [&](const float *xt, std::vector<float> &state) {
        std::vector<double> z(4 * u, 0.0);
        if (bias)
          z.assign(bias->data.begin(), bias->data.end());
        accumulate(z, xt, kernel);
        accumulate(z, state.data(), recurrentKernel);
        Activation rec = options.recurrentActivation, act = options.activation;
        std::vector<float> i = gate(z, 0, u, rec, options.alpha);
        std::vector<float> f = gate(z, 1, u, rec, options.alpha);
        std::vector<float> g = gate(z, 2, u, act, options.alpha);
        std::vector<float> o = gate(z, 3, u, rec, options.alpha);
        std::vector<float> c(u);
        for (int64_t k = 0; k < u; ++k)
          c[k] = static_cast<float>(double(f[k]) * state[u + k] +
                                    double(i[k]) * g[k]);
        std::vector<float> actC = c;
        detail::activateRow(act, options.alpha, actC);
        for (int64_t k = 0; k < u; ++k) {
          state[k] = static_cast<float>(double(o[k]) * actC[k]);
          state[u + k] = c[k];
        }
      });
}

Tensor seq::rt::gru(const Tensor &x, const Tensor &kernel,
                    const Tensor &recurrentKernel, const Tensor *bias,
                    bool resetAfter, const RnnOptions &options) {
  RnnDims d = checkRnn("gru", x, kernel, recurrentKernel, 3);
  int64_t u = d.units;
  if (resetAfter)
    requireBias("gru", bias, {2, 3 * u});
  else
    requireBias("gru", bias, {3 * u});
  return scan(x, d, u, options, [&](const float *xt, std::vector<float> &h) {
    // xw = x W + input bias; hu = h U (+ recurrent bias when resetAfter).
    std::vector<double> xw(3 * u, 0.0), hu(3 * u, 0.0);
    if (bias) {
      std::copy_n(bias->data.begin(), 3 * u, xw.begin());
      if (resetAfter)
        std::copy_n(bias->data.begin() + 3 * u, 3 * u, hu.begin());
    }
    accumulate(xw, xt, kernel);
    accumulate(hu, h.data(), recurrentKernel);

    std::vector<double> zr(2 * u);
    for (int64_t k = 0; k < 2 * u; ++k)
      zr[k] = xw[k] + hu[k];
    std::vector<float> z =
        gate(zr, 0, u, options.recurrentActivation, options.alpha);
    std::vector<float> r =
        gate(zr, 1, u, options.recurrentActivation, options.alpha);

    std::vector<float> candidate(u);
    if (resetAfter) {
      for (int64_t k = 0; k < u; ++k)
        candidate[k] = static_cast<float>(xw[2 * u + k] + r[k] * hu[2 * u + k]);
    } else {
      // The reset gate scales h before it meets U_h: (r * h) U_h.
      std::vector<float> rh(u);
      for (int64_t k = 0; k < u; ++k)
        rh[k] = r[k] * h[k];
      for (int64_t k = 0; k < u; ++k) {
        double sum = xw[2 * u + k];
        for (int64_t j = 0; j < u; ++j)
          sum += double(rh[j]) * recurrentKernel.data[j * 3 * u + 2 * u + k];
        candidate[k] = static_cast<float>(sum);
      }
    }
    detail::activateRow(options.activation, options.alpha, candidate);
    for (int64_t k = 0; k < u; ++k)
      h[k] =
          static_cast<float>(double(z[k]) * h[k] + (1.0 - z[k]) * candidate[k]);
  });
}

Tensor seq::rt::simpleRnn(const Tensor &x, const Tensor &kernel,
                          const Tensor &recurrentKernel, const Tensor *bias,
                          const RnnOptions &options) {
  RnnDims d = checkRnn("simple_rnn", x, kernel, recurrentKernel, 1);
  requireBias("simple_rnn", bias, {d.units});
  return scan(x, d, d.units, options,
              [&](const float *xt, std::vector<float> &h) {
                std::vector<double> sum(d.units, 0.0);
                if (bias)
                  sum.assign(bias->data.begin(), bias->data.end());
                accumulate(sum, xt, kernel);
                accumulate(sum, h.data(), recurrentKernel);
                h = gate(sum, 0, d.units, options.activation, options.alpha);
              });
}

Tensor seq::rt::bidirectionalMerge(const Tensor &forward,
                                   const Tensor &backward, MergeMode mode,
                                   bool sequences) {
  require(forward.shape == backward.shape,
          "bidirectional forward " + forward.shapeString() + " and backward " +
              backward.shapeString() + " differ in shape");
  require(forward.rank() == (sequences ? 3 : 2),
          "bidirectional output has unexpected shape " + forward.shapeString());
  Tensor back = backward;
  if (sequences) {
    int64_t batch = back.shape[0], steps = back.shape[1], f = back.shape[2];
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t t = 0; t < steps; ++t)
        std::copy_n(&backward.data[(b * steps + steps - 1 - t) * f], f,
                    &back.data[(b * steps + t) * f]);
  }

  int64_t f = forward.shape.back();
  if (mode == MergeMode::Concat) {
    std::vector<int64_t> shape = forward.shape;
    shape.back() = 2 * f;
    Tensor y = Tensor::zeros(shape);
    for (int64_t r = 0, rows = detail::numRows(forward); r < rows; ++r) {
      std::copy_n(&forward.data[r * f], f, &y.data[2 * r * f]);
      std::copy_n(&back.data[r * f], f, &y.data[(2 * r + 1) * f]);
    }
    return y;
  }
  Tensor y = Tensor::zeros(forward.shape);
  for (size_t i = 0; i < y.data.size(); ++i) {
    double a = forward.data[i], b = back.data[i];
    switch (mode) {
    case MergeMode::Sum:
      y.data[i] = static_cast<float>(a + b);
      break;
    case MergeMode::Mul:
      y.data[i] = static_cast<float>(a * b);
      break;
    case MergeMode::Ave:
      y.data[i] = static_cast<float>((a + b) / 2);
      break;
    case MergeMode::Concat:
      break;
    }
  }
  return y;
}

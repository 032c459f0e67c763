//===- Recurrent.cpp - Keras LSTM, GRU, SimpleRNN and Bidirectional -------===//
//
// Each layer is its input projection x W + b (one dense() over all steps,
// rounded to float as Keras' own matmul is) followed by a recurrence. Each
// step adds h U to the projection in double, rounds the gate pre-activations
// to float and applies the activations per gate block, as Keras applies them
// to (B, units) tensors (which matters only for softmax).
//
//===----------------------------------------------------------------------===//

#include "Detail.h"

#include <algorithm>
#include <functional>
#include <optional>

using namespace seq::rt;
using detail::require;

namespace {
struct RecurrenceDims {
  int64_t batch, steps, units;
};
} // namespace

/// Checks a recurrence's operands: projection (B, T, gates*u) and recurrent
/// kernel (u, gates*u).
static RecurrenceDims checkRecurrence(llvm::StringRef cell,
                                      const Tensor &projection,
                                      const Tensor &recurrentKernel,
                                      int64_t gates) {
  detail::requireRank(projection, 3, cell + " input projection");
  detail::requireRank(recurrentKernel, 2, cell + " recurrent kernel");
  RecurrenceDims d{projection.shape[0], projection.shape[1],
                   recurrentKernel.shape[0]};
  require(recurrentKernel.shape[1] == gates * d.units &&
              projection.shape[2] == gates * d.units,
          cell + " recurrent kernel " + recurrentKernel.shapeString() +
              " does not fit input projection " + projection.shapeString());
  return d;
}

/// Checks a layer's kernels against its input x (B, T, in).
static void checkLayer(llvm::StringRef layer, const Tensor &x,
                       const Tensor &kernel, const Tensor &recurrentKernel,
                       int64_t gates) {
  detail::requireRank(x, 3, layer + " input");
  detail::requireRank(kernel, 2, layer + " kernel");
  detail::requireRank(recurrentKernel, 2, layer + " recurrent kernel");
  int64_t units = recurrentKernel.shape[0];
  require(kernel.shape == std::vector<int64_t>{x.shape[2], gates * units} &&
              recurrentKernel.shape[1] == gates * units,
          layer + " kernel " + kernel.shapeString() + " and recurrent kernel " +
              recurrentKernel.shapeString() + " do not fit input " +
              x.shapeString());
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

/// Runs `step(p_t, state)` over time for each batch row from the initial
/// state (zero without one) of `states` x units floats whose first `units`
/// are the output h; p_t is the input projection of step t.
static Tensor
scan(const Tensor &projection, const RecurrenceDims &d, int64_t states,
     const RnnOptions &options,
     const std::function<void(const float *, std::vector<float> &)> &step) {
  int64_t width = projection.shape[2];
  const Tensor *mask = options.mask;
  require(!mask || mask->shape == std::vector<int64_t>{d.batch, d.steps},
          "mask " + (mask ? mask->shapeString() : std::string()) +
              " does not fit the (batch, steps) of input projection " +
              projection.shapeString());
  std::vector<int64_t> stateShape{states, d.batch, d.units};
  const Tensor *initial = options.initialState;
  require(!initial || initial->shape == stateShape,
          "initial state " + (initial ? initial->shapeString() : std::string()) +
              " should have shape " + Tensor{stateShape, {}}.shapeString());
  if (options.finalState)
    *options.finalState = Tensor::zeros(stateShape);
  Tensor y = options.returnSequences
                 ? Tensor::zeros({d.batch, d.steps, d.units})
                 : Tensor::zeros({d.batch, d.units});
  for (int64_t b = 0; b < d.batch; ++b) {
    std::vector<float> state(states * d.units, 0.0f);
    if (initial)
      for (int64_t s = 0; s < states; ++s)
        std::copy_n(&initial->data[(s * d.batch + b) * d.units], d.units,
                    &state[s * d.units]);
    // What a step emits: the state after a step that ran; after a masked
    // step the previous output, which is zeros (not the initial state)
    // before the row's first unmasked step, or zeros with
    // zeroOutputForMask.
    bool kept = true, seen = false;
    auto emits = [&] { return kept || (seen && !options.zeroOutputForMask); };
    for (int64_t s = 0; s < d.steps; ++s) {
      int64_t t = options.goBackwards ? d.steps - 1 - s : s;
      kept = !mask || mask->data[b * d.steps + t] != 0.0f;
      seen |= kept;
      if (kept)
        step(&projection.data[(b * d.steps + t) * width], state);
      if (options.returnSequences && emits())
        std::copy_n(state.begin(), d.units,
                    &y.data[(b * d.steps + s) * d.units]);
    }
    if (!options.returnSequences && d.steps > 0 && emits())
      std::copy_n(state.begin(), d.units, &y.data[b * d.units]);
    if (options.finalState)
      for (int64_t s = 0; s < states; ++s)
        std::copy_n(&state[s * d.units], d.units,
                    &options.finalState->data[(s * d.batch + b) * d.units]);
  }
  return y;
}

/// x W + bias for every step, as the recurrences take it.
static Tensor inputProjection(const Tensor &x, const Tensor &kernel,
                              const Tensor *bias) {
  return dense(x, kernel, bias, Activation::Linear, 0.0f);
}

/// The LSTM cell on one row: z (4u gate pre-activations, i f c o) and the
/// row's h and c (u each), updated in place.
static void lstmCell(const std::vector<double> &z, float *h, float *c,
                     int64_t u, const RnnOptions &options) {
  Activation rec = options.recurrentActivation, act = options.activation;
  std::vector<float> i = gate(z, 0, u, rec, options.recurrentAlpha);
  std::vector<float> f = gate(z, 1, u, rec, options.recurrentAlpha);
  std::vector<float> g = gate(z, 2, u, act, options.alpha);
  std::vector<float> o = gate(z, 3, u, rec, options.recurrentAlpha);
  std::vector<float> newC(u);
  for (int64_t k = 0; k < u; ++k)
    newC[k] = static_cast<float>(double(f[k]) * c[k] + double(i[k]) * g[k]);
  std::vector<float> actC = newC;
  detail::activateRow(act, options.alpha, actC);
  for (int64_t k = 0; k < u; ++k) {
    h[k] = static_cast<float>(double(o[k]) * actC[k]);
    c[k] = newC[k];
  }
}

Tensor seq::rt::lstmRecurrence(const Tensor &projection,
                               const Tensor &recurrentKernel,
                               const RnnOptions &options) {
  RecurrenceDims d = checkRecurrence("lstm", projection, recurrentKernel, 4);
  int64_t u = d.units;
  // state = [h, c]
  return scan(projection, d, 2, options,
              [&](const float *pt, std::vector<float> &state) {
                std::vector<double> z(pt, pt + 4 * u);
                accumulate(z, state.data(), recurrentKernel);
                lstmCell(z, state.data(), state.data() + u, u, options);
              });
}

Tensor seq::rt::gruRecurrence(const Tensor &projection,
                              const Tensor &recurrentKernel,
                              const Tensor *recurrentBias, bool resetAfter,
                              const RnnOptions &options) {
  RecurrenceDims d = checkRecurrence("gru", projection, recurrentKernel, 3);
  int64_t u = d.units;
  require(resetAfter || !recurrentBias,
          "gru recurrence without reset_after takes no recurrent bias");
  requireBias("gru recurrence", recurrentBias, {3 * u});
  return scan(
      projection, d, 1, options, [&](const float *pt, std::vector<float> &h) {
        // hu = h U (+ recurrent bias when resetAfter).
        std::vector<double> hu(3 * u, 0.0);
        if (recurrentBias)
          hu.assign(recurrentBias->data.begin(), recurrentBias->data.end());
        accumulate(hu, h.data(), recurrentKernel);

        std::vector<double> zr(2 * u);
        for (int64_t k = 0; k < 2 * u; ++k)
          zr[k] = double(pt[k]) + hu[k];
        std::vector<float> z =
            gate(zr, 0, u, options.recurrentActivation,
                 options.recurrentAlpha);
        std::vector<float> r =
            gate(zr, 1, u, options.recurrentActivation,
                 options.recurrentAlpha);

        std::vector<float> candidate(u);
        if (resetAfter) {
          for (int64_t k = 0; k < u; ++k)
            candidate[k] = static_cast<float>(double(pt[2 * u + k]) +
                                              r[k] * hu[2 * u + k]);
        } else {
          // The reset gate scales h before it meets U_h: (r * h) U_h.
          std::vector<float> rh(u);
          for (int64_t k = 0; k < u; ++k)
            rh[k] = r[k] * h[k];
          for (int64_t k = 0; k < u; ++k) {
            double sum = pt[2 * u + k];
            for (int64_t j = 0; j < u; ++j)
              sum +=
                  double(rh[j]) * recurrentKernel.data[j * 3 * u + 2 * u + k];
            candidate[k] = static_cast<float>(sum);
          }
        }
        detail::activateRow(options.activation, options.alpha, candidate);
        for (int64_t k = 0; k < u; ++k)
          h[k] = static_cast<float>(double(z[k]) * h[k] +
                                    (1.0 - z[k]) * candidate[k]);
      });
}

Tensor seq::rt::simpleRnnRecurrence(const Tensor &projection,
                                    const Tensor &recurrentKernel,
                                    const RnnOptions &options) {
  RecurrenceDims d =
      checkRecurrence("simple_rnn", projection, recurrentKernel, 1);
  return scan(projection, d, 1, options,
              [&](const float *pt, std::vector<float> &h) {
                std::vector<double> sum(pt, pt + d.units);
                accumulate(sum, h.data(), recurrentKernel);
                h = gate(sum, 0, d.units, options.activation, options.alpha);
              });
}

Tensor seq::rt::lstm(const Tensor &x, const Tensor &kernel,
                     const Tensor &recurrentKernel, const Tensor *bias,
                     const RnnOptions &options) {
  checkLayer("lstm", x, kernel, recurrentKernel, 4);
  requireBias("lstm", bias, {kernel.shape[1]});
  return lstmRecurrence(inputProjection(x, kernel, bias), recurrentKernel,
                        options);
}

Tensor seq::rt::gru(const Tensor &x, const Tensor &kernel,
                    const Tensor &recurrentKernel, const Tensor *bias,
                    bool resetAfter, const RnnOptions &options) {
  checkLayer("gru", x, kernel, recurrentKernel, 3);
  int64_t gates = kernel.shape[1];
  if (!resetAfter) {
    requireBias("gru", bias, {gates});
    return gruRecurrence(inputProjection(x, kernel, bias), recurrentKernel,
                         nullptr, false, options);
  }
  requireBias("gru", bias, {2, gates});
  // Row 0 is the input bias, row 1 the recurrent bias.
  std::optional<Tensor> inputBias, recurrentBias;
  if (bias) {
    inputBias = Tensor{
        {gates},
        std::vector<float>(bias->data.begin(), bias->data.begin() + gates)};
    recurrentBias = Tensor{
        {gates},
        std::vector<float>(bias->data.begin() + gates, bias->data.end())};
  }
  return gruRecurrence(
      inputProjection(x, kernel, inputBias ? &*inputBias : nullptr),
      recurrentKernel, recurrentBias ? &*recurrentBias : nullptr, true,
      options);
}

Tensor seq::rt::simpleRnn(const Tensor &x, const Tensor &kernel,
                          const Tensor &recurrentKernel, const Tensor *bias,
                          const RnnOptions &options) {
  checkLayer("simple_rnn", x, kernel, recurrentKernel, 1);
  requireBias("simple_rnn", bias, {kernel.shape[1]});
  return simpleRnnRecurrence(inputProjection(x, kernel, bias), recurrentKernel,
                             options);
}

Tensor seq::rt::bidirectionalMerge(const Tensor &forward,
                                   const Tensor &backward, MergeMode mode,
                                   bool sequences) {
  std::vector<int64_t> forwardRows(forward.shape), backwardRows(backward.shape);
  if (mode == MergeMode::Concat && !forwardRows.empty() &&
      !backwardRows.empty()) {
    // Concat may join directions of different widths.
    forwardRows.pop_back();
    backwardRows.pop_back();
  }
  require(forwardRows == backwardRows,
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

  if (mode == MergeMode::Concat) {
    int64_t f = forward.shape.back(), g = back.shape.back();
    std::vector<int64_t> shape = forward.shape;
    shape.back() = f + g;
    Tensor y = Tensor::zeros(shape);
    for (int64_t r = 0, rows = detail::numRows(forward); r < rows; ++r) {
      std::copy_n(&forward.data[r * f], f, &y.data[r * (f + g)]);
      std::copy_n(&back.data[r * g], g, &y.data[r * (f + g) + f]);
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

Tensor seq::rt::convLstm(const Tensor &x, const Tensor &kernel,
                         const Tensor &recurrentKernel, const Tensor *bias,
                         llvm::ArrayRef<int64_t> strides,
                         llvm::ArrayRef<int64_t> dilations, Padding padding,
                         const RnnOptions &options) {
  require(!options.mask, "conv_lstm takes no mask");
  int64_t n = x.rank() - 3;
  require(n >= 1 && n <= 3, "conv_lstm input " + x.shapeString() +
                                " must have 1 to 3 spatial axes");
  detail::requireRank(kernel, n + 2, "conv_lstm kernel");
  detail::requireRank(recurrentKernel, n + 2, "conv_lstm recurrent kernel");
  int64_t batch = x.shape[0], steps = x.shape[1], u = recurrentKernel.shape[n];
  require(kernel.shape[n + 1] == 4 * u && recurrentKernel.shape[n + 1] == 4 * u,
          "conv_lstm kernel " + kernel.shapeString() + " and recurrent kernel " +
              recurrentKernel.shapeString() + " do not fit");
  requireBias("conv_lstm", bias, {4 * u});

  // The input convolution of every step at once, over (B*T, d..., C).
  Tensor frames{{batch * steps}, x.data};
  frames.shape.insert(frames.shape.end(), x.shape.begin() + 2, x.shape.end());
  Tensor projection = convolution(frames, kernel, bias, strides, dilations, 1,
                                  padding, Activation::Linear, 0.0f);
  std::vector<int64_t> stateShape = projection.shape;
  stateShape[0] = batch;
  stateShape.back() = u;
  int64_t positions = 1;
  for (int64_t i = 1; i <= n; ++i)
    positions *= stateShape[i];

  Tensor h = Tensor::zeros(stateShape), c = Tensor::zeros(stateShape);
  // The states together are (2, B, d..., u): h then c.
  Tensor states{{2}, {}};
  states.shape.insert(states.shape.end(), stateShape.begin(), stateShape.end());
  if (const Tensor *s0 = options.initialState) {
    require(s0->shape == states.shape, "conv_lstm initial state " + s0->shapeString() +
                                           " must be " + states.shapeString());
    auto half = s0->data.begin() + static_cast<std::ptrdiff_t>(h.data.size());
    std::copy(s0->data.begin(), half, h.data.begin());
    std::copy(half, s0->data.end(), c.data.begin());
  }
  std::vector<int64_t> outShape = stateShape;
  if (options.returnSequences)
    outShape.insert(outShape.begin() + 1, steps);
  Tensor y = Tensor::zeros(outShape);
  std::vector<int64_t> ones(n, 1);
  int64_t stepSize = positions * u;
  for (int64_t s = 0; s < steps; ++s) {
    int64_t t = options.goBackwards ? steps - 1 - s : s;
    Tensor hu = convolution(h, recurrentKernel, nullptr, ones, ones, 1,
                            Padding::Same, Activation::Linear, 0.0f);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t p = 0; p < positions; ++p) {
        int64_t row = b * positions + p;
        const float *pt = &projection.data[((b * steps + t) * positions + p) * 4 * u];
        std::vector<double> z(4 * u);
        for (int64_t j = 0; j < 4 * u; ++j)
          z[j] = double(pt[j]) + hu.data[row * 4 * u + j];
        lstmCell(z, &h.data[row * u], &c.data[row * u], u, options);
      }
    if (options.returnSequences)
      for (int64_t b = 0; b < batch; ++b)
        std::copy_n(&h.data[b * stepSize], stepSize,
                    &y.data[(b * steps + s) * stepSize]);
  }
  if (options.finalState) {
    states.data = h.data;
    states.data.insert(states.data.end(), c.data.begin(), c.data.end());
    *options.finalState = std::move(states);
  }
  return options.returnSequences ? y : h;
}

// The recurrence kernels of ReferenceKernels.h (seq.*_recurrence in the
// eager interpreter): one step by hand, and the layer kernels equal to
// dense() + recurrence bit for bit, so there is one cell implementation.
#include "seq/Runtime/ReferenceKernels.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace seq::rt;

namespace {

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

RnnOptions options(bool returnSequences, bool goBackwards = false) {
  RnnOptions o;
  o.returnSequences = returnSequences;
  o.goBackwards = goBackwards;
  return o;
}

/// Deterministic values in [-0.5, 0.5).
Tensor filled(std::vector<int64_t> shape, int seed) {
  Tensor t = Tensor::zeros(std::move(shape));
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = static_cast<float>((i * 37 + seed * 101) % 97) / 97.0f - 0.5f;
  return t;
}

void expectNear(const Tensor &actual, const std::vector<int64_t> &shape,
                const std::vector<double> &expected) {
  ASSERT_EQ(actual.shape, shape) << actual.shapeString();
  ASSERT_EQ(actual.data.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual.data[i], expected[i], 1e-6) << "at flat index " << i;
}

TEST(LstmRecurrenceTest, TwoStepsByHand) {
  // One unit: projection columns i, f, c, o per step.
  Tensor projection{{1, 2, 4}, {0.5, 1.0, -0.2, 0.3, -0.4, 0.2, 0.9, -0.1}};
  Tensor recurrent{{1, 4}, {0.1, 0.4, -0.6, 0.7}};
  double h = 0, c = 0;
  std::vector<double> hs;
  for (int t = 0; t < 2; ++t) {
    const float *p = &projection.data[4 * t];
    double i = sigmoid(p[0] + 0.1 * h), f = sigmoid(p[1] + 0.4 * h);
    double g = std::tanh(p[2] - 0.6 * h), o = sigmoid(p[3] + 0.7 * h);
    c = f * c + i * g;
    h = o * std::tanh(c);
    hs.push_back(h);
  }
  expectNear(lstmRecurrence(projection, recurrent, options(true)), {1, 2, 1},
             hs);
  expectNear(lstmRecurrence(projection, recurrent, options(false)), {1, 1},
             {hs[1]});
}

TEST(GruRecurrenceTest, ResetAfterAddsRecurrentBiasBeforeTheResetGate) {
  // One unit: projection columns z, r, h; recurrent kernel (1, 3).
  Tensor projection{{1, 2, 3}, {0.3, -0.2, 0.5, -0.1, 0.4, -0.6}};
  Tensor recurrent{{1, 3}, {0.5, -0.3, 0.8}};
  Tensor recurrentBias{{3}, {0.1, 0.2, -0.3}};
  double h = 0;
  std::vector<double> hs;
  for (int t = 0; t < 2; ++t) {
    const float *p = &projection.data[3 * t];
    double z = sigmoid(p[0] + 0.5 * h + 0.1);
    double r = sigmoid(p[1] - 0.3 * h + 0.2);
    double hh = std::tanh(p[2] + r * (0.8 * h - 0.3));
    h = z * h + (1 - z) * hh;
    hs.push_back(h);
  }
  expectNear(
      gruRecurrence(projection, recurrent, &recurrentBias, true, options(true)),
      {1, 2, 1}, hs);
}

TEST(GruRecurrenceTest, ResetBeforeScalesTheStateFirst) {
  Tensor projection{{1, 2, 3}, {0.3, -0.2, 0.5, -0.1, 0.4, -0.6}};
  Tensor recurrent{{1, 3}, {0.5, -0.3, 0.8}};
  double h = 0;
  for (int t = 0; t < 2; ++t) {
    const float *p = &projection.data[3 * t];
    double z = sigmoid(p[0] + 0.5 * h), r = sigmoid(p[1] - 0.3 * h);
    double hh = std::tanh(p[2] + 0.8 * (r * h));
    h = z * h + (1 - z) * hh;
  }
  expectNear(
      gruRecurrence(projection, recurrent, nullptr, false, options(false)),
      {1, 1}, {h});
}

TEST(SimpleRnnRecurrenceTest, BackwardsByHand) {
  Tensor projection{{1, 3, 1}, {0.5, -1.0, 0.25}};
  Tensor recurrent{{1, 1}, {0.6}};
  double h = 0;
  std::vector<double> hs;
  for (int t = 2; t >= 0; --t) {
    h = std::tanh(projection.data[t] + 0.6 * h);
    hs.push_back(h);
  }
  expectNear(simpleRnnRecurrence(projection, recurrent, options(true, true)),
             {1, 3, 1}, hs);
}

TEST(RecurrenceTest, LayersAreDenseProjectionPlusRecurrence) {
  Tensor x = filled({2, 4, 3}, 1);
  for (bool sequences : {false, true}) {
    for (bool backwards : {false, true}) {
      RnnOptions o = options(sequences, backwards);
      Tensor lstmKernel = filled({3, 8}, 2), lstmRecurrent = filled({2, 8}, 3),
             lstmBias = filled({8}, 4);
      EXPECT_EQ(
          lstm(x, lstmKernel, lstmRecurrent, &lstmBias, o).data,
          lstmRecurrence(dense(x, lstmKernel, &lstmBias, Activation::Linear, 0),
                         lstmRecurrent, o)
              .data);

      Tensor gruKernel = filled({3, 6}, 5), gruRecurrent = filled({2, 6}, 6),
             gruBias = filled({2, 6}, 7);
      Tensor inputBias{{6}, {gruBias.data.begin(), gruBias.data.begin() + 6}};
      Tensor recurrentBias{{6}, {gruBias.data.begin() + 6, gruBias.data.end()}};
      EXPECT_EQ(
          gru(x, gruKernel, gruRecurrent, &gruBias, true, o).data,
          gruRecurrence(dense(x, gruKernel, &inputBias, Activation::Linear, 0),
                        gruRecurrent, &recurrentBias, true, o)
              .data);

      Tensor rnnKernel = filled({3, 2}, 8), rnnRecurrent = filled({2, 2}, 9);
      EXPECT_EQ(simpleRnn(x, rnnKernel, rnnRecurrent, nullptr, o).data,
                simpleRnnRecurrence(
                    dense(x, rnnKernel, nullptr, Activation::Linear, 0),
                    rnnRecurrent, o)
                    .data);
    }
  }
}

TEST(BidirectionalTest, ConcatJoinsDirectionsOfDifferentWidths) {
  Tensor forward{{1, 2}, {1, 2}}, backward{{1, 1}, {3}};
  Tensor merged = bidirectionalMerge(forward, backward, MergeMode::Concat,
                                     /*sequences=*/false);
  EXPECT_EQ(merged.shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(merged.data, (std::vector<float>{1, 2, 3}));
}

} // namespace

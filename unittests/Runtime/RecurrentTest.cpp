#include "TestUtil.h"
#include "seq/Runtime/ReferenceKernels.h"

#include <cmath>

using namespace seq::rt;

static double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

static RnnOptions options(bool returnSequences, bool goBackwards = false) {
  RnnOptions o;
  o.returnSequences = returnSequences;
  o.goBackwards = goBackwards;
  return o;
}

//===----------------------------------------------------------------------===//
// LSTM
//===----------------------------------------------------------------------===//

// One unit, one input feature: gate columns i, f, c, o.
static const Tensor kLstmKernel{{1, 4}, {0.5, -0.3, 0.8, 0.2}};
static const Tensor kLstmRecurrent{{1, 4}, {0.1, 0.4, -0.6, 0.7}};
static const Tensor kLstmBias{{4}, {0.05, 1.0, -0.1, 0.2}};

/// One LSTM step for the single-unit weights above, written out by hand.
static void lstmStep(double x, double &h, double &c) {
  double i = sigmoid(0.5 * x + 0.1 * h + 0.05);
  double f = sigmoid(-0.3 * x + 0.4 * h + 1.0);
  double g = std::tanh(0.8 * x - 0.6 * h - 0.1);
  double o = sigmoid(0.2 * x + 0.7 * h + 0.2);
  c = f * c + i * g;
  h = o * std::tanh(c);
}

TEST(LstmTest, OneUnitByHand) {
  Tensor x{{1, 2, 1}, {1.0, -2.0}};
  double h = 0, c = 0;
  lstmStep(1.0, h, c);
  double h1 = h;
  lstmStep(-2.0, h, c);
  expectTensor(lstm(x, kLstmKernel, kLstmRecurrent, &kLstmBias, options(true)),
               {1, 2, 1}, {float(h1), float(h)});
  expectTensor(lstm(x, kLstmKernel, kLstmRecurrent, &kLstmBias, options(false)),
               {1, 1}, {float(h)});
}

TEST(LstmTest, GoBackwardsReturnsProcessingOrder) {
  Tensor x{{1, 2, 1}, {1.0, -2.0}};
  double h = 0, c = 0;
  lstmStep(-2.0, h, c);
  double h1 = h;
  lstmStep(1.0, h, c);
  expectTensor(
      lstm(x, kLstmKernel, kLstmRecurrent, &kLstmBias, options(true, true)),
      {1, 2, 1}, {float(h1), float(h)});
  expectTensor(
      lstm(x, kLstmKernel, kLstmRecurrent, &kLstmBias, options(false, true)),
      {1, 1}, {float(h)});
}

TEST(LstmTest, GateBlocksWithTwoUnitsAndBatches) {
  // Two units, no recurrence and no bias, so each gate is visible in one step:
  // kernel columns [i0 i1 | f0 f1 | c0 c1 | o0 o1].
  Tensor kernel{{1, 8}, {1, 2, 0, 0, 0.5, -1, 3, -2}};
  Tensor recurrent = Tensor::zeros({2, 8});
  Tensor x{{2, 1, 1}, {1.0, 0.5}};
  std::vector<float> expected;
  for (double v : {1.0, 0.5}) {
    for (int k = 0; k < 2; ++k) {
      double i = sigmoid(v * (k ? 2 : 1));
      double g = std::tanh(v * (k ? -1 : 0.5));
      double o = sigmoid(v * (k ? -2 : 3));
      expected.push_back(float(o * std::tanh(i * g))); // c starts at 0
    }
  }
  expectTensor(lstm(x, kernel, recurrent, nullptr, options(false)), {2, 2},
               expected);
}

//===----------------------------------------------------------------------===//
// GRU
//===----------------------------------------------------------------------===//

// Two units, one input feature: columns [z0 z1 | r0 r1 | h0 h1].
static const Tensor kGruKernel{{1, 6}, {0.5, -0.4, 0.3, 0.9, -0.7, 0.6}};
static const Tensor kGruRecurrent{
    {2, 6}, {0.2, -0.1, 0.4, 0.3, 0.8, -0.5, -0.3, 0.6, 0.1, -0.2, 0.7, 0.9}};

static double u(int row, int col) { return kGruRecurrent.data[row * 6 + col]; }

/// A GRU step written out per unit; `bin`/`brec` are the input and recurrent
/// biases (brec all zero for reset_after=false).
static void gruStep(double x, std::vector<double> &h, bool resetAfter,
                    const std::vector<double> &bin,
                    const std::vector<double> &brec) {
  std::vector<double> z(2), r(2), hh(2);
  for (int k = 0; k < 2; ++k) {
    z[k] = sigmoid(kGruKernel.data[k] * x + bin[k] + h[0] * u(0, k) +
                   h[1] * u(1, k) + brec[k]);
    r[k] = sigmoid(kGruKernel.data[2 + k] * x + bin[2 + k] +
                   h[0] * u(0, 2 + k) + h[1] * u(1, 2 + k) + brec[2 + k]);
  }
  for (int k = 0; k < 2; ++k) {
    double xh = kGruKernel.data[4 + k] * x + bin[4 + k];
    if (resetAfter)
      hh[k] = std::tanh(
          xh + r[k] * (h[0] * u(0, 4 + k) + h[1] * u(1, 4 + k) + brec[4 + k]));
    else
      hh[k] =
          std::tanh(xh + r[0] * h[0] * u(0, 4 + k) + r[1] * h[1] * u(1, 4 + k));
  }
  for (int k = 0; k < 2; ++k)
    h[k] = z[k] * h[k] + (1 - z[k]) * hh[k];
}

TEST(GruTest, ResetBeforeByHand) {
  std::vector<double> bin = {0.1, -0.2, 0.3, 0.05, -0.1, 0.2};
  Tensor bias{{6}, std::vector<float>(bin.begin(), bin.end())};
  Tensor x{{1, 3, 1}, {1.0, -0.5, 2.0}};
  std::vector<double> h = {0, 0};
  std::vector<float> expected;
  for (double v : {1.0, -0.5, 2.0}) {
    gruStep(v, h, false, bin, std::vector<double>(6, 0.0));
    expected.insert(expected.end(), h.begin(), h.end());
  }
  expectTensor(gru(x, kGruKernel, kGruRecurrent, &bias, false, options(true)),
               {1, 3, 2}, expected);
}

TEST(GruTest, ResetAfterByHand) {
  std::vector<double> bin = {0.1, -0.2, 0.3, 0.05, -0.1, 0.2};
  std::vector<double> brec = {-0.3, 0.2, 0.1, -0.4, 0.5, -0.6};
  std::vector<float> both(bin.begin(), bin.end());
  both.insert(both.end(), brec.begin(), brec.end());
  Tensor bias{{2, 6}, both};
  Tensor x{{1, 3, 1}, {1.0, -0.5, 2.0}};
  std::vector<double> h = {0, 0};
  for (double v : {1.0, -0.5, 2.0})
    gruStep(v, h, true, bin, brec);
  expectTensor(gru(x, kGruKernel, kGruRecurrent, &bias, true, options(false)),
               {1, 2}, {float(h[0]), float(h[1])});

  // The two forms really differ on these weights.
  std::vector<double> before = {0, 0};
  for (double v : {1.0, -0.5, 2.0})
    gruStep(v, before, false, bin, std::vector<double>(6, 0.0));
  EXPECT_GT(std::abs(before[0] - h[0]), 1e-3);
}

TEST(GruTest, GoBackwardsWithoutBias) {
  Tensor x{{1, 2, 1}, {1.0, -0.5}};
  std::vector<double> zeros(6, 0.0), h = {0, 0};
  std::vector<float> expected;
  for (double v : {-0.5, 1.0}) {
    gruStep(v, h, true, zeros, zeros);
    expected.insert(expected.end(), h.begin(), h.end());
  }
  expectTensor(
      gru(x, kGruKernel, kGruRecurrent, nullptr, true, options(true, true)),
      {1, 2, 2}, expected);
}

//===----------------------------------------------------------------------===//
// SimpleRNN and Bidirectional
//===----------------------------------------------------------------------===//

static const Tensor kRnnKernel{{1, 1}, {0.5}};
static const Tensor kRnnRecurrent{{1, 1}, {-0.8}};
static const Tensor kRnnBias{{1}, {0.1}};

TEST(SimpleRnnTest, ForwardAndBackwardByHand) {
  Tensor x{{1, 2, 1}, {1.0, 3.0}};
  double f1 = std::tanh(0.5 * 1 + 0.1);
  double f2 = std::tanh(0.5 * 3 - 0.8 * f1 + 0.1);
  expectTensor(
      simpleRnn(x, kRnnKernel, kRnnRecurrent, &kRnnBias, options(true)),
      {1, 2, 1}, {float(f1), float(f2)});
  double b1 = std::tanh(0.5 * 3 + 0.1);
  double b2 = std::tanh(0.5 * 1 - 0.8 * b1 + 0.1);
  expectTensor(
      simpleRnn(x, kRnnKernel, kRnnRecurrent, &kRnnBias, options(true, true)),
      {1, 2, 1}, {float(b1), float(b2)});
  expectTensor(
      simpleRnn(x, kRnnKernel, kRnnRecurrent, &kRnnBias, options(false, true)),
      {1, 1}, {float(b2)});
}

TEST(SimpleRnnTest, ReluActivation) {
  RnnOptions o = options(true);
  o.activation = Activation::Relu;
  Tensor x{{1, 2, 1}, {-1.0, 4.0}};
  // h1 = relu(-0.5 + 0.1) = 0; h2 = relu(2 + 0.1) = 2.1.
  expectTensor(simpleRnn(x, kRnnKernel, kRnnRecurrent, &kRnnBias, o), {1, 2, 1},
               {0, 2.1});
}

TEST(BidirectionalTest, FlipsBackwardSequenceAndMerges) {
  // The backward layer ran from t=1 to t=0, so 20 belongs to time 0.
  Tensor forward{{1, 2, 1}, {1, 2}};
  Tensor backward{{1, 2, 1}, {10, 20}};
  expectTensor(bidirectionalMerge(forward, backward, MergeMode::Concat, true),
               {1, 2, 2}, {1, 20, 2, 10});
  expectTensor(bidirectionalMerge(forward, backward, MergeMode::Sum, true),
               {1, 2, 1}, {21, 12});
  expectTensor(bidirectionalMerge(forward, backward, MergeMode::Mul, true),
               {1, 2, 1}, {20, 20});
  expectTensor(bidirectionalMerge(forward, backward, MergeMode::Ave, true),
               {1, 2, 1}, {10.5, 6});
}

TEST(BidirectionalTest, LastStatesAreNotFlipped) {
  Tensor forward{{2, 2}, {1, 2, 3, 4}};
  Tensor backward{{2, 2}, {5, 6, 7, 8}};
  expectTensor(bidirectionalMerge(forward, backward, MergeMode::Concat, false),
               {2, 4}, {1, 2, 5, 6, 3, 4, 7, 8});
  expectTensor(bidirectionalMerge(forward, backward, MergeMode::Ave, false),
               {2, 2}, {3, 4, 5, 6});
}

TEST(BidirectionalTest, AlignsSimpleRnnStatesWithInputTime) {
  Tensor x{{1, 2, 1}, {1.0, 3.0}};
  Tensor fwd =
      simpleRnn(x, kRnnKernel, kRnnRecurrent, &kRnnBias, options(true));
  Tensor bwd =
      simpleRnn(x, kRnnKernel, kRnnRecurrent, &kRnnBias, options(true, true));
  // At time 1 the backward layer has seen only x1; at time 0 all of x.
  double b1 = std::tanh(0.5 * 3 + 0.1);
  double b2 = std::tanh(0.5 * 1 - 0.8 * b1 + 0.1);
  Tensor merged = bidirectionalMerge(fwd, bwd, MergeMode::Concat, true);
  expectTensor(merged, {1, 2, 2},
               {fwd.data[0], float(b2), fwd.data[1], float(b1)});
}

#include "TestUtil.h"
#include "seq/Runtime/ReferenceKernels.h"

#include <cmath>

using namespace seq::rt;

/// Applies `act` to a (1, n) tensor holding `xs`.
static std::vector<float> apply(Activation act, std::vector<float> xs,
                                float alpha = 0) {
  Tensor t{{1, static_cast<int64_t>(xs.size())}, xs};
  applyActivation(act, alpha, t);
  return t.data;
}

// The expected values in double: some are computed (std::expm1, std::sqrt),
// which a braced list of floats may not narrow (clang refuses).
static void expectValues(Activation act, std::vector<float> xs,
                         std::vector<double> expected, float alpha = 0) {
  std::vector<float> got = apply(act, xs, alpha);
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-6) << "at x = " << xs[i];
}

TEST(ActivationsTest, Basic) {
  expectValues(Activation::Linear, {-2, 0, 1.5}, {-2, 0, 1.5});
  expectValues(Activation::Relu, {-2, 0, 1.5}, {0, 0, 1.5});
  expectValues(Activation::Tanh, {-1, 0, 1},
               {-0.7615941559557649, 0, 0.7615941559557649});
  expectValues(Activation::Exponential, {0, 1}, {1, 2.718281828459045});
  expectValues(Activation::Softsign, {-1, 3}, {-0.5, 0.75});
}

TEST(ActivationsTest, SigmoidIsStable) {
  expectValues(Activation::Sigmoid, {0, 1, -1},
               {0.5, 0.7310585786300049, 0.2689414213699951});
  std::vector<float> extreme = apply(Activation::Sigmoid, {-1000, 1000});
  EXPECT_EQ(extreme[0], 0.0f);
  EXPECT_EQ(extreme[1], 1.0f);
}

TEST(ActivationsTest, HardSigmoidKeras2VersusKeras3) {
  // Keras 2: clip(0.2x + 0.5, 0, 1); Keras 3: relu6(x + 3) / 6.
  expectValues(Activation::HardSigmoidKeras2, {-3, -2, 0, 1, 2, 3},
               {0, 0.1, 0.5, 0.7, 0.9, 1});
  expectValues(Activation::HardSigmoidKeras3, {-3, -2, 0, 1, 2, 3},
               {0, 1.0 / 6, 0.5, 4.0 / 6, 5.0 / 6, 1});
}

TEST(ActivationsTest, EluSeluLeakyRelu) {
  expectValues(Activation::Elu, {-1, 0, 2}, {-0.6321205588285577, 0, 2}, 1.0f);
  expectValues(Activation::Elu, {-1}, {0.5 * -0.6321205588285577}, 0.5f);
  expectValues(Activation::Selu, {-1, 0, 2},
               {-1.1113307378125625, 0, 2 * 1.0507009873554805});
  expectValues(Activation::LeakyRelu, {-2, 0, 3}, {-0.6, 0, 3}, 0.3f);
}

TEST(ActivationsTest, GeluExactAndTanh) {
  expectValues(Activation::Gelu, {-2, 0, 1},
               {-0.04550026389635842, 0, 0.8413447460685429});
  expectValues(Activation::GeluTanh, {-2, 0, 1},
               {-0.04540230591222494, 0, 0.8411919906082768});
}

TEST(ActivationsTest, SwishAndSoftplus) {
  expectValues(Activation::Swish, {-2, 0, 1},
               {-0.2384058440442351, 0, 0.7310585786300049});
  expectValues(Activation::Softplus, {0, 2},
               {0.6931471805599453, 2.1269280110429727});
  std::vector<float> extreme = apply(Activation::Softplus, {100, -100});
  EXPECT_EQ(extreme[0], 100.0f);
  EXPECT_NEAR(extreme[1], std::exp(-100.0), 1e-45);
}

TEST(ActivationsTest, SoftmaxOverLastAxis) {
  Tensor t{{2, 3}, {1, 2, 3, 1000, 1000, 1000}};
  applyActivation(Activation::Softmax, 0, t);
  expectTensor(t, {2, 3},
               {0.09003057, 0.24472847, 0.66524096, 1.0 / 3, 1.0 / 3, 1.0 / 3});
  for (int row = 0; row < 2; ++row)
    EXPECT_NEAR(t.data[3 * row] + t.data[3 * row + 1] + t.data[3 * row + 2],
                1.0, 1e-6);
}

TEST(ActivationsTest, Keras3Activations) {
  // Values from Keras 3's formulas (keras/src/backend/tensorflow/nn.py).
  expectValues(Activation::Relu6, {-1, 3, 7}, {0, 3, 6});
  expectValues(Activation::HardSilu, {-4, -1, 0, 2, 4},
               {0, -1.0 / 3, 0, 2 * 5.0 / 6, 4});
  expectValues(Activation::Mish, {-3, -1, 0, 1},
               {-0.14564745, -0.30340144, 0, 0.86509836});
  expectValues(Activation::Celu, {-1, 0, 2}, {-0.6321205588285577, 0, 2}, 1.0f);
  expectValues(Activation::Celu, {-1}, {0.5 * std::expm1(-2.0)}, 0.5f);
  expectValues(Activation::HardTanh, {-3, -0.5, 2}, {-1, -0.5, 1});
  expectValues(Activation::LogSigmoid, {-1, 0, 2},
               {-1.3132616875182228, -0.6931471805599453, -0.12692801104297263});
  expectValues(Activation::SparsePlus, {-2, -1, 0, 0.5, 1, 3},
               {0, 0, 0.25, 0.5625, 1, 3});
  expectValues(Activation::Squareplus, {-2, 0, 3},
               {(-2 + std::sqrt(8.0)) / 2, 1, (3 + std::sqrt(13.0)) / 2});
  expectValues(Activation::TanhShrink, {-1, 0, 2},
               {-1 + 0.7615941559557649, 0, 2 - 0.9640275800758169});
  expectValues(Activation::SoftShrink, {-2, -0.3, 0.5, 1}, {-1.5, 0, 0, 0.5});
  expectValues(Activation::HardShrink, {-2, -0.3, 0.5, 1}, {-2, 0, 0, 1});
  expectValues(Activation::SparseSigmoid, {-2, -1, 0, 0.5, 1, 3},
               {0, 0, 0.5, 0.75, 1, 1});
  expectValues(Activation::ThresholdedRelu, {-1, 0.3, 0.5, 2}, {0, 0, 0.5, 2},
               0.3f);
  // The functions of operations on tensors.
  expectValues(Activation::Sqrt, {0, 2, 9}, {0, std::sqrt(2.0f), 3});
  expectValues(Activation::Rsqrt, {0.25, 2}, {2, 1 / std::sqrt(2.0f)});
  expectValues(Activation::Log, {1, 2, 0.5}, {0, std::log(2.0f), std::log(0.5f)});
  expectValues(Activation::Abs, {-2, 0, 3}, {2, 0, 3});
  expectValues(Activation::Reciprocal, {-2, 4}, {-0.5, 0.25}, 1.0f);
  expectValues(Activation::Reciprocal, {-2, 4}, {-1.5, 0.75}, 3.0f);
}

TEST(ActivationsTest, LogSigmoidAndMishAreStable) {
  std::vector<float> ls = apply(Activation::LogSigmoid, {-100, 100});
  EXPECT_EQ(ls[0], -100.0f);
  EXPECT_NEAR(ls[1], -std::exp(-100.0), 1e-45);
  std::vector<float> mish = apply(Activation::Mish, {100, -100});
  EXPECT_EQ(mish[0], 100.0f);
  EXPECT_NEAR(mish[1], -100 * std::exp(-100.0), 1e-40);
}

TEST(ActivationsTest, LogSoftmaxIsExactForLargeLogits) {
  // exp(x - max) / sum underflows to 0 for the small entries; x - max -
  // log(sum) does not.
  Tensor t{{1, 3}, {0, 200, 1000}};
  applyActivation(Activation::LogSoftmax, 0, t);
  expectTensor(t, {1, 3}, {-1000, -800, 0});
}

TEST(ActivationsTest, SoftmaxOverAMiddleAxis) {
  // (1, 2, 2): softmax over axis 1 normalises each column.
  Tensor t{{1, 2, 2}, {0, 1, std::log(3.0f), 1}};
  applyRowActivation(Activation::Softmax, 1, t);
  expectTensor(t, {1, 2, 2}, {0.25, 0.5, 0.75, 0.5});
}

TEST(ActivationsTest, ReluLayerOptions) {
  // Keras' ReLU layer: threshold, then clip to max_value, minus the slope
  // below the threshold.
  Tensor t{{1, 5}, {-1, 0.1, 0.3, 1, 3}};
  reluLayer(0.1f, 0.2f, 1.5f, t);
  expectTensor(t, {1, 5}, {-0.12f, -0.01f, 0.3f, 1, 1.5f});
  Tensor u{{1, 3}, {-1, 2, 9}};
  reluLayer(0, 0, 6.0f, u);
  expectTensor(u, {1, 3}, {0, 2, 6});
}

TEST(ActivationsTest, ClipKeepsNaN) {
  // tf.clip_by_value: the bounds themselves, what lies between unchanged, a
  // NaN stays NaN (TensorFlow's minimum and maximum propagate it).
  Tensor t{{1, 6}, {-3, -0.5f, 0.1f, 0.25f, 7, NAN}};
  clip(-0.5f, 0.25f, t);
  expectTensor(Tensor{{1, 5}, std::vector<float>(t.data.begin(), t.data.begin() + 5)}, {1, 5},
               {-0.5f, -0.5f, 0.1f, 0.25f, 0.25f});
  EXPECT_TRUE(std::isnan(t.data[5]));
}

TEST(ActivationsTest, PReluBroadcastsSharedAxes) {
  Tensor x{{1, 2, 2}, {-1, -2, 3, -4}};
  Tensor alpha{{1, 2}, {0.5, 0.25}}; // shared over axis 1
  expectTensor(prelu(x, alpha), {1, 2, 2}, {-0.5, -0.5, 3, -1});
}

TEST(ActivationsTest, TruncateRoundsTowardZero) {
  // seq.truncate: Keras' cast of an input to an integer dtype.
  expectTensor(truncate(Tensor{{1, 5}, {-1.5f, -0.5f, 0.7f, 2.0f, 2.99f}}), {1, 5},
               {-1, 0, 0, 2, 2});
}

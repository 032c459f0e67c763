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

static void expectValues(Activation act, std::vector<float> xs,
                         std::vector<float> expected, float alpha = 0) {
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

#include "TestUtil.h"
#include "seq/Runtime/ReferenceKernels.h"

#include <cmath>

using namespace seq::rt;

TEST(AttentionTest, MatmulWithAndWithoutTranspose) {
  Tensor a{{1, 2, 2}, {1, 2, 3, 4}};
  Tensor b{{1, 2, 2}, {5, 6, 7, 8}};
  // [[1, 2], [3, 4]] @ [[5, 6], [7, 8]] and @ its transpose.
  expectTensor(matmul(a, b, false), {1, 2, 2}, {19, 22, 43, 50});
  expectTensor(matmul(a, b, true), {1, 2, 2}, {17, 23, 39, 53});
}

TEST(AttentionTest, CausalRowsSeeTheirPast) {
  // Equal scores: row 0 sees value 0 only, row 1 the mean of both.
  Tensor q{{1, 2, 1, 1}, {0, 0}};
  Tensor v{{1, 2, 1, 2}, {1, 10, 3, 20}};
  AttentionOptions options;
  options.causal = true;
  expectTensor(attention(q, q, v, options), {1, 2, 1, 2}, {1, 10, 2, 15});
}

TEST(AttentionTest, DotScoresAreScaled) {
  // One query step against keys 1 and 0, scale 2: weights softmax([2, 0]).
  Tensor q{{1, 1, 1, 1}, {1}};
  Tensor k{{1, 2, 1, 1}, {1, 0}};
  Tensor v{{1, 2, 1, 1}, {1, 0}};
  AttentionOptions options;
  options.scale = 2.0f;
  float w = std::exp(2.0f) / (std::exp(2.0f) + 1.0f);
  expectTensor(attention(q, k, v, options), {1, 1, 1, 1}, {w});
}

TEST(AttentionTest, ARowThatSeesNothingAveragesTheValues) {
  // Window 1 over 3 query and 2 key steps: step 2 sees no key step.
  Tensor q{{1, 3, 1, 1}, {0, 0, 0}};
  Tensor k{{1, 2, 1, 1}, {0, 0}};
  Tensor v{{1, 2, 1, 1}, {4, 8}};
  AttentionOptions options;
  options.window = 1;
  expectTensor(attention(q, k, v, options), {1, 3, 1, 1}, {4, 8, 6});
}

TEST(AttentionTest, GroupedHeadsShareKeysAndValues) {
  // Two query heads read the one key/value head; head 1's query prefers key 1.
  Tensor q{{1, 1, 2, 1}, {0, 100}};
  Tensor k{{1, 2, 1, 1}, {0, 1}};
  Tensor v{{1, 2, 1, 1}, {3, 7}};
  expectTensor(attention(q, k, v, AttentionOptions()), {1, 1, 2, 1}, {5, 7});
}

TEST(AttentionTest, AdditiveScores) {
  // score_j = 3 * (0.5 * tanh(2 * (q + k_j))), q = 0.25, keys 0.25 and -0.25.
  Tensor q{{1, 1, 1, 1}, {0.25f}};
  Tensor k{{1, 2, 1, 1}, {0.25f, -0.25f}};
  Tensor v{{1, 2, 1, 1}, {1, 0}};
  Tensor featureScale{{1}, {0.5f}};
  AttentionOptions options;
  options.additive = true;
  options.scale = 2.0f;
  options.scoreWeight = 3.0f;
  options.featureScale = &featureScale;
  double s0 = 3 * 0.5 * std::tanh(1.0), s1 = 0;
  double w = std::exp(s0) / (std::exp(s0) + std::exp(s1));
  expectTensor(attention(q, k, v, options), {1, 1, 1, 1}, {static_cast<float>(w)});
}

TEST(AttentionDeathTest, MismatchedHeadsAbort) {
  Tensor q{{1, 1, 3, 1}, {0, 0, 0}};
  Tensor k{{1, 1, 2, 1}, {0, 0}};
  EXPECT_DEATH(attention(q, k, k, AttentionOptions()), "do not fit");
}

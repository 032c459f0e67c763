#include "TestUtil.h"
#include "seq/Runtime/ReferenceKernels.h"

using namespace seq::rt;

TEST(BatchNormTest, InferenceFormula) {
  Tensor x{{2, 2}, {5, 0, -3, 2}};
  Tensor mean{{2}, {1, 0}}, variance{{2}, {3, 8}};
  Tensor gamma{{2}, {3, 1}}, beta{{2}, {1, -1}};
  // sqrt(var + 1) = [2, 3]: (5 - 1) / 2 * 3 + 1 = 7, 0 / 3 - 1 = -1, ...
  expectTensor(batchNorm(x, &gamma, &beta, mean, variance, 1.0f), {2, 2},
               {7, -1, -5, -1.0 / 3});
  expectTensor(batchNorm(x, nullptr, nullptr, mean, variance, 1.0f), {2, 2},
               {2, 0, -2, 2.0 / 3});
}

TEST(LayerNormTest, BiasedVarianceOverLastAxis) {
  // Mean 2.5, biased variance 1.25; 1.25 + 2.75 = 4, so the scale is 1/2.
  Tensor x{{2, 4}, {1, 2, 3, 4, 4, 3, 2, 1}};
  Tensor gamma{{4}, {1, 2, 1, 2}}, beta{{4}, {0, 0, 1, 1}};
  expectTensor(layerNorm(x, &gamma, &beta, 2.75f), {2, 4},
               {-0.75, -0.5, 1.25, 2.5, 0.75, 0.5, 0.75, -0.5});
  expectTensor(layerNorm(x, nullptr, nullptr, 2.75f), {2, 4},
               {-0.75, -0.25, 0.25, 0.75, 0.75, 0.25, -0.25, -0.75});
}

#include "TestUtil.h"
#include "seq/Runtime/ReferenceKernels.h"

using namespace seq::rt;

static const Tensor kKernel{{3, 2}, {1, -1, 2, 0, 0.5, 3}};
static const Tensor kBias{{2}, {0.5, -20}};

TEST(DenseTest, MatmulBiasActivation) {
  // Row 0: [1 + 2*2 + 4*0.5, -1 + 4*3] = [7, 11]; row 1: [1 - 2, -1] = [-1,
  // -1].
  Tensor x{{2, 3}, {1, 2, 4, 1, -1, 0}};
  expectTensor(dense(x, kKernel, nullptr, Activation::Linear, 0), {2, 2},
               {7, 11, -1, -1});
  expectTensor(dense(x, kKernel, &kBias, Activation::Relu, 0), {2, 2},
               {7.5, 0, 0, 0});
}

TEST(DenseTest, AppliesToTheLastAxisOfAnyRank) {
  Tensor x{{1, 2, 3}, {1, 2, 4, 1, -1, 0}};
  expectTensor(dense(x, kKernel, &kBias, Activation::Linear, 0), {1, 2, 2},
               {7.5, -9, -0.5, -21});
}

TEST(DenseDeathTest, MismatchedKernelAborts) {
  Tensor x{{1, 2}, {1, 2}};
  EXPECT_DEATH(dense(x, kKernel, nullptr, Activation::Linear, 0),
               "does not match kernel");
}

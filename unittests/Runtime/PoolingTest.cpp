#include "TestUtil.h"
#include "seq/Runtime/ReferenceKernels.h"

using namespace seq::rt;

static const Tensor kX{{1, 5, 1}, {1, 2, 3, 4, 5}};

TEST(PoolingTest, MaxValidAndSame) {
  expectTensor(maxPool1d(kX, 2, 2, Padding::Valid), {1, 2, 1}, {2, 4});
  expectTensor(maxPool1d(kX, 2, 2, Padding::Same), {1, 3, 1}, {2, 4, 5});
}

TEST(PoolingTest, MaxSameNeverPicksThePadding) {
  Tensor x{{1, 3, 1}, {-1, -2, -3}};
  expectTensor(maxPool1d(x, 2, 2, Padding::Same), {1, 2, 1}, {-1, -3});
}

TEST(PoolingTest, AvgSameDividesByTheUnpaddedCount) {
  expectTensor(avgPool1d(kX, 2, 2, Padding::Valid), {1, 2, 1}, {1.5, 3.5});
  // The last window holds only x4 (and one pad), so it averages to 5, not 2.5.
  expectTensor(avgPool1d(kX, 2, 2, Padding::Same), {1, 3, 1}, {1.5, 3.5, 5});
  // Pool 3 stride 1: one pad on each side.
  expectTensor(avgPool1d(kX, 3, 1, Padding::Same), {1, 5, 1},
               {1.5, 2, 3, 4, 4.5});
}

TEST(PoolingTest, MultipleChannels) {
  Tensor x{{1, 2, 2}, {1, -5, 3, -7}};
  expectTensor(maxPool1d(x, 2, 1, Padding::Valid), {1, 1, 2}, {3, -5});
  expectTensor(avgPool1d(x, 2, 1, Padding::Valid), {1, 1, 2}, {2, -6});
}

TEST(PoolingTest, Global) {
  Tensor x{{2, 3, 2}, {1, -1, 5, -2, 3, -3, 0, 0, 0, 6, 0, 0}};
  expectTensor(globalMaxPool1d(x), {2, 2}, {5, -1, 0, 6});
  expectTensor(globalAvgPool1d(x), {2, 2}, {3, -2, 0, 2});
}

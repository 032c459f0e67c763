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

TEST(PoolingTest, AdaptiveWindowsOverlapAndRepeat) {
  // 5 -> 3: windows [0, 2), [1, 4), [3, 5) (floor(i*5/3) to ceil((i+1)*5/3)).
  expectTensor(adaptivePooling(kX, {3}, /*isMax=*/false), {1, 3, 1}, {1.5, 3, 4.5});
  expectTensor(adaptivePooling(kX, {3}, /*isMax=*/true), {1, 3, 1}, {2, 4, 5});
  // 5 -> 7: every window of one or two inputs, some repeated.
  expectTensor(adaptivePooling(kX, {7}, /*isMax=*/false), {1, 7, 1},
               {1, 1.5, 2.5, 3, 3.5, 4.5, 5});
  // Pooled to 1 and from 1 (where Keras' TensorFlow max pooling crashes):
  // the global pool, and a copy.
  expectTensor(adaptivePooling(kX, {1}, /*isMax=*/true), {1, 1, 1}, {5});
  expectTensor(adaptivePooling(Tensor{{1, 1, 2}, {3, -4}}, {3}, /*isMax=*/true),
               {1, 3, 2}, {3, -4, 3, -4, 3, -4});
}

TEST(PoolingTest, AdaptiveTwoAxesAndChannels) {
  // (1, 2, 3, 2): rows 2 -> 1, columns 3 -> 2 (windows [0, 2), [1, 3)).
  Tensor x{{1, 2, 3, 2}, {1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6}};
  expectTensor(adaptivePooling(x, {1, 2}, /*isMax=*/false), {1, 1, 2, 2},
               {3, -3, 4, -4});
  expectTensor(adaptivePooling(x, {1, 2}, /*isMax=*/true), {1, 1, 2, 2},
               {5, -1, 6, -2});
}

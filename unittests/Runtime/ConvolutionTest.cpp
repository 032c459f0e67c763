#include "TestUtil.h"
#include "seq/Runtime/ReferenceKernels.h"

using namespace seq::rt;

// x = [1, 2, 3, 4, 5] and a two-tap kernel [1, 10]: each output is
// x[p] + 10 * x[p + dilation] over the padded input.
static const Tensor kX{{1, 5, 1}, {1, 2, 3, 4, 5}};
static const Tensor kKernel{{2, 1, 1}, {1, 10}};

static Tensor conv(int64_t stride, int64_t dilation, Padding padding) {
  return conv1d(kX, kKernel, nullptr, stride, dilation, padding,
                Activation::Linear, 0);
}

TEST(Conv1dTest, Valid) {
  expectTensor(conv(1, 1, Padding::Valid), {1, 4, 1}, {21, 32, 43, 54});
  // Extent 3, floor((5 - 3) / 2) + 1 = 2 outputs at p = 0, 2.
  expectTensor(conv(2, 2, Padding::Valid), {1, 2, 1}, {31, 53});
}

TEST(Conv1dTest, SamePutsTheOddPadOnTheRight) {
  // Total pad 1: left 0, right 1.
  expectTensor(conv(1, 1, Padding::Same), {1, 5, 1}, {21, 32, 43, 54, 5});
  // ceil(5 / 2) = 3 outputs, total pad (3-1)*2 + 3 - 5 = 2: [0 1 2 3 4 5 0].
  expectTensor(conv(2, 2, Padding::Same), {1, 3, 1}, {20, 42, 4});
}

TEST(Conv1dTest, Causal) {
  // Left pad dilation * (k - 1) = 2: [0 0 1 2 3 4 5].
  expectTensor(conv(1, 2, Padding::Causal), {1, 5, 1}, {10, 20, 31, 42, 53});
  expectTensor(conv(2, 2, Padding::Causal), {1, 3, 1}, {10, 31, 53});
}

TEST(Conv1dTest, ChannelsFiltersBiasActivation) {
  Tensor x{{2, 2, 2}, {1, 2, 3, 4, 0, 0, -1, 1}};
  Tensor kernel{{1, 2, 2}, {1, -1, 0.5, 2}}; // kernel[0][c][f]
  Tensor bias{{2}, {-3, 0}};
  // Batch 0: t0 [1 + 1, -1 + 4] = [2, 3]; t1 [3 + 2, -3 + 8] = [5, 5].
  // Batch 1: t0 [0, 0]; t1 [-1 + 0.5, 1 + 2] = [-0.5, 3].
  expectTensor(
      conv1d(x, kernel, &bias, 1, 1, Padding::Valid, Activation::Relu, 0),
      {2, 2, 2}, {0, 3, 2, 5, 0, 0, 0, 3});
}

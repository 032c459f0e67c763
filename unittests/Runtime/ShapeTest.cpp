#include "TestUtil.h"
#include "seq/Runtime/ReferenceKernels.h"

using namespace seq::rt;

static Tensor iota(std::vector<int64_t> shape) {
  Tensor t = Tensor::zeros(std::move(shape));
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = float(i);
  return t;
}

TEST(ShapeTest, Flatten) {
  Tensor x = iota({2, 2, 3});
  expectTensor(flatten(x), {2, 6}, x.data);
  expectTensor(flatten(iota({3})), {3, 1}, {0, 1, 2});
}

TEST(ShapeTest, Reshape) {
  Tensor x = iota({2, 6});
  llvm::Expected<Tensor> y = reshape(x, {3, -1});
  ASSERT_TRUE(bool(y)) << llvm::toString(y.takeError());
  expectTensor(*y, {2, 3, 2}, x.data);
  llvm::Expected<Tensor> z = reshape(x, {2, 3});
  ASSERT_TRUE(bool(z)) << llvm::toString(z.takeError());
  EXPECT_EQ(z->shape, (std::vector<int64_t>{2, 2, 3}));
}

static std::string reshapeError(const Tensor &x, std::vector<int64_t> target) {
  llvm::Expected<Tensor> y = reshape(x, target);
  return y ? "no error" : llvm::toString(y.takeError());
}

TEST(ShapeTest, ReshapeErrors) {
  Tensor x = iota({2, 6});
  EXPECT_EQ(reshapeError(x, {5}), "cannot reshape (2, 6) to (batch, ...) = "
                                  "(5,): 6 elements per batch row, target has "
                                  "5");
  EXPECT_EQ(reshapeError(x, {4, -1}),
            "cannot reshape (2, 6) to (batch, ...) = (4, -1): 6 elements per "
            "batch row do not divide into the known dimensions");
  EXPECT_EQ(reshapeError(x, {-1, -1}),
            "cannot reshape (2, 6) to (batch, ...) = (-1, -1): more than one "
            "-1");
}

TEST(ShapeTest, RepeatVector) {
  expectTensor(repeatVector(iota({2, 3}), 2), {2, 2, 3},
               {0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
}

TEST(ShapeTest, SliceAndSetTime) {
  Tensor x = iota({2, 3, 2});
  Tensor step = sliceTime(x, 1);
  expectTensor(step, {2, 2}, {2, 3, 8, 9});
  Tensor y = Tensor::zeros({2, 3, 2});
  setTime(y, 2, step);
  expectTensor(y, {2, 3, 2}, {0, 0, 0, 0, 2, 3, 0, 0, 0, 0, 8, 9});
}

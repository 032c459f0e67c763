#include "seq/Runtime/Tensor.h"

#include "gtest/gtest.h"

using namespace seq::rt;

TEST(TensorTest, ZerosAndSizes) {
  Tensor t = Tensor::zeros({2, 5, 3});
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.numElements(), 30);
  EXPECT_EQ(t.data, std::vector<float>(30, 0.0f));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{15, 3, 1}));
  EXPECT_EQ(Tensor::zeros({}).numElements(), 1);
}

TEST(TensorTest, Indexing) {
  Tensor t = Tensor::zeros({2, 5, 3});
  t.at({1, 2, 0}) = 7.0f;
  EXPECT_EQ(t.offset({1, 2, 0}), 21);
  EXPECT_EQ(t.data[21], 7.0f);
  const Tensor &c = t;
  EXPECT_EQ(c.at({1, 2, 0}), 7.0f);
}

TEST(TensorTest, ShapeStringLikePython) {
  EXPECT_EQ(Tensor::zeros({2, 5, 3}).shapeString(), "(2, 5, 3)");
  EXPECT_EQ(Tensor::zeros({4}).shapeString(), "(4,)");
  EXPECT_EQ(Tensor::zeros({}).shapeString(), "()");
}

TEST(TensorTest, ViewsReadTheOwnersBuffer) {
  Tensor t = Tensor::zeros({4, 3});
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = float(i);
  TensorView all(t);
  EXPECT_EQ(all.data, t.data.data());
  EXPECT_EQ(all.size, 12);
  EXPECT_EQ(all.shapeString(), "(4, 3)");
  TensorView rows = all.rows(1, 2);
  EXPECT_EQ(rows.data, t.data.data() + 3);
  EXPECT_EQ(rows.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(rows.size, 6);
  EXPECT_EQ(rows.numElements(), 6);
  Tensor copied = rows.copy();
  EXPECT_EQ(copied.data, (std::vector<float>{3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(t.rows(1, 2).data, copied.data);
}

TEST(TensorDeathTest, OutOfBoundsIndexAborts) {
  Tensor t = Tensor::zeros({2, 3});
  EXPECT_DEATH(t.offset({0, 3}), "index 3 out of bounds for axis 1");
  EXPECT_DEATH(t.offset({0}), "index of rank 1");
}

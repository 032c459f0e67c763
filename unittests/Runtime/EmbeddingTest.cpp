#include "TestUtil.h"
#include "seq/Runtime/ReferenceKernels.h"

using namespace seq::rt;

static const Tensor kTable{{3, 2}, {0, 1, 10, 11, 20, 21}};

TEST(EmbeddingTest, LooksUpRows) {
  Tensor ids{{2, 2}, {0, 2, 1, 0}};
  llvm::Expected<Tensor> y = embedding(ids, kTable);
  ASSERT_TRUE(bool(y)) << llvm::toString(y.takeError());
  expectTensor(*y, {2, 2, 2}, {0, 1, 20, 21, 10, 11, 0, 1});
}

static std::string embeddingError(float id, const Tensor &table) {
  llvm::Expected<Tensor> y = embedding(Tensor{{1}, {id}}, table);
  return y ? "no error" : llvm::toString(y.takeError());
}

TEST(EmbeddingTest, RejectsBadIds) {
  Tensor table = Tensor::zeros({10, 2});
  EXPECT_EQ(embeddingError(12, table), "embedding id 12 out of range [0, 10)");
  EXPECT_EQ(embeddingError(10, table), "embedding id 10 out of range [0, 10)");
  EXPECT_EQ(embeddingError(-1, table), "embedding id -1 out of range [0, 10)");
  EXPECT_EQ(embeddingError(1.5, table), "embedding id 1.5 is not an integer");
}

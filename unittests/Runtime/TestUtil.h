//===- TestUtil.h - Helpers for the Runtime unit tests ----------*- C++ -*-===//

#ifndef SEQ_UNITTESTS_RUNTIME_TESTUTIL_H
#define SEQ_UNITTESTS_RUNTIME_TESTUTIL_H

#include "seq/Runtime/Tensor.h"

#include "gtest/gtest.h"

namespace seq::rt {

/// Expects `actual` to have `shape` and elements within `tolerance` of
/// `expected`.
inline void expectTensor(const Tensor &actual, std::vector<int64_t> shape,
                         std::vector<float> expected, double tolerance = 1e-6) {
  ASSERT_EQ(actual.shape, shape) << "got " << actual.shapeString();
  ASSERT_EQ(actual.data.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual.data[i], expected[i], tolerance)
        << "at flat index " << i;
}

} // namespace seq::rt

#endif // SEQ_UNITTESTS_RUNTIME_TESTUTIL_H

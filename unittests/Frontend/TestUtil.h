//===- TestUtil.h - Helpers shared by the frontend unit tests ---*- C++ -*-===//

#ifndef SEQ_UNITTESTS_FRONTEND_TESTUTIL_H
#define SEQ_UNITTESTS_FRONTEND_TESTUTIL_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>

namespace seq::test {

/// Success, or a failure carrying the error's message (which is consumed).
template <typename T>
::testing::AssertionResult succeeded(llvm::Expected<T> &result) {
  if (result)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << llvm::toString(result.takeError());
}

/// Whether `result` is an error whose message contains `fragment`.
template <typename T>
::testing::AssertionResult failsWith(llvm::Expected<T> result,
                                     llvm::StringRef fragment) {
  if (result)
    return ::testing::AssertionFailure()
           << "succeeded; expected an error containing \"" << fragment.str()
           << "\"";
  std::string message = llvm::toString(result.takeError());
  if (llvm::StringRef(message).contains(fragment))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "error \"" << message << "\" lacks \"" << fragment.str() << "\"";
}

/// A fresh directory per test, removed with everything in it afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("seq-frontend", root));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(root); }

  std::string pathOf(llvm::StringRef name) const {
    llvm::SmallString<256> path(root);
    llvm::sys::path::append(path, name);
    return path.str().str();
  }

  /// Writes `bytes` to `name` (parent directories created) and returns its
  /// path.
  std::string writeFile(llvm::StringRef name, llvm::StringRef bytes) const {
    std::string path = pathOf(name);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    EXPECT_FALSE(ec) << path << ": " << ec.message();
    out << bytes;
    return path;
  }

  std::string makeDirectory(llvm::StringRef name) const {
    std::string path = pathOf(name);
    EXPECT_FALSE(llvm::sys::fs::create_directories(path));
    return path;
  }

  llvm::SmallString<256> root;
};

} // namespace seq::test

#endif // SEQ_UNITTESTS_FRONTEND_TESTUTIL_H

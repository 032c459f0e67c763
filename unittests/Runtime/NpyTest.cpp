#include "seq/Runtime/Npy.h"
#include "TestUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace seq::rt;

static std::string input(llvm::StringRef name) {
  return (llvm::Twine(SEQ_RUNTIME_TEST_INPUTS) + "/" + name).str();
}

static std::string readError(const std::string &path) {
  llvm::Expected<Tensor> t = readNpy(path);
  return t ? "no error" : llvm::toString(t.takeError());
}

//===----------------------------------------------------------------------===//
// Files written by numpy
//===----------------------------------------------------------------------===//

TEST(NpyReadTest, Float32) {
  llvm::Expected<Tensor> t = readNpy(input("f32.npy"));
  ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
  expectTensor(*t, {2, 3}, {1.5, -2.0, 3.25, 0.0, 1e-3f, -7.0}, 0);
}

TEST(NpyReadTest, Float64IsRoundedToFloat32) {
  llvm::Expected<Tensor> t = readNpy(input("f64.npy"));
  ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
  ASSERT_EQ(t->shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(t->data[0], 0.1f);
  EXPECT_EQ(t->data[1], -2.5f);
  EXPECT_TRUE(std::isinf(t->data[2]));
}

TEST(NpyReadTest, IntegersForEmbeddingIds) {
  llvm::Expected<Tensor> i64 = readNpy(input("i64.npy"));
  ASSERT_TRUE(bool(i64)) << llvm::toString(i64.takeError());
  expectTensor(*i64, {2, 2}, {0, 3, 9, 65535}, 0);
  llvm::Expected<Tensor> u8 = readNpy(input("u8.npy"));
  ASSERT_TRUE(bool(u8)) << llvm::toString(u8.takeError());
  expectTensor(*u8, {3}, {0, 7, 255}, 0);
}

TEST(NpyReadTest, ScalarAndVersion2Header) {
  llvm::Expected<Tensor> scalar = readNpy(input("scalar.npy"));
  ASSERT_TRUE(bool(scalar)) << llvm::toString(scalar.takeError());
  expectTensor(*scalar, {}, {4.5}, 0);
  llvm::Expected<Tensor> v2 = readNpy(input("v2.npy"));
  ASSERT_TRUE(bool(v2)) << llvm::toString(v2.takeError());
  expectTensor(*v2, {3, 2}, {0, 1, 2, 3, 4, 5}, 0);
}

TEST(NpyReadTest, UnsupportedLayoutsAndDtypes) {
  std::string path = input("fortran.npy");
  EXPECT_EQ(readError(path), "'" + path +
                                 "': fortran_order arrays are not supported "
                                 "(save in C order)");
  path = input("big_endian.npy");
  EXPECT_EQ(readError(path),
            "'" + path +
                "': big-endian dtype '>f4' is not supported (expected '<f4')");
  path = input("complex.npy");
  EXPECT_EQ(readError(path),
            "'" + path + "': unsupported dtype '<c8' (expected float32)");
  path = input("big_int.npy");
  EXPECT_EQ(readError(path), "'" + path +
                                 "': integer 16777217 at flat index 0 is not "
                                 "exactly representable as float32");
}

//===----------------------------------------------------------------------===//
// Writing, and damaged files
//===----------------------------------------------------------------------===//

class NpyFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("seq-npy-test", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string path(llvm::StringRef name) const {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return p.str().str();
  }

  /// Names of the files in the test directory.
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec))
      names.push_back(llvm::sys::path::filename(it->path()).str());
    std::sort(names.begin(), names.end());
    return names;
  }

  void writeBytes(llvm::StringRef name, llvm::StringRef bytes) const {
    std::error_code ec;
    llvm::raw_fd_ostream os(path(name), ec);
    ASSERT_FALSE(ec);
    os << bytes;
  }

  llvm::SmallString<128> dir;
};

TEST_F(NpyFileTest, RoundTrip) {
  Tensor t{{2, 3}, {1.5f, -0.0f, INFINITY, 1e-30f, -7.25f, 3.0f}};
  ASSERT_FALSE(bool(writeNpy(path("a.npy"), t)));
  EXPECT_EQ(listing(), std::vector<std::string>{"a.npy"});
  llvm::Expected<Tensor> back = readNpy(path("a.npy"));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->shape, t.shape);
  EXPECT_EQ(back->data, t.data);
  EXPECT_TRUE(std::signbit(back->data[1]));
}

TEST_F(NpyFileTest, WritesTheBytesNumpyWrites) {
  Tensor t{{2, 3}, {1.5, -2.0, 3.25, 0.0, 1e-3f, -7.0}};
  ASSERT_FALSE(bool(writeNpy(path("a.npy"), t)));
  auto ours = llvm::MemoryBuffer::getFile(path("a.npy"));
  auto numpys = llvm::MemoryBuffer::getFile(input("f32.npy"));
  ASSERT_TRUE(ours && numpys);
  EXPECT_EQ((*ours)->getBuffer(), (*numpys)->getBuffer());
}

TEST_F(NpyFileTest, ScalarRoundTrip) {
  ASSERT_FALSE(bool(writeNpy(path("s.npy"), Tensor{{}, {2.5}})));
  llvm::Expected<Tensor> back = readNpy(path("s.npy"));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  expectTensor(*back, {}, {2.5}, 0);
}

TEST_F(NpyFileTest, WriteFailureLeavesNothing) {
  llvm::Error err = writeNpy(path("missing/a.npy"), Tensor{{1}, {1}});
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("cannot create a temporary file beside it"),
            std::string::npos);
  EXPECT_TRUE(listing().empty());
}

TEST_F(NpyFileTest, WriterCommitsBatches) {
  {
    llvm::Expected<NpyWriter> w = NpyWriter::create(path("out.npy"), {3, 2});
    ASSERT_TRUE(bool(w)) << llvm::toString(w.takeError());
    ASSERT_FALSE(bool(w->append(Tensor{{2, 2}, {1, 2, 3, 4}})));
    EXPECT_EQ(listing().size(), 1u);
    EXPECT_FALSE(llvm::sys::fs::exists(path("out.npy")));
    ASSERT_FALSE(bool(w->append(Tensor{{1, 2}, {5, 6}})));
    ASSERT_FALSE(bool(w->commit()));
  }
  EXPECT_EQ(listing(), std::vector<std::string>{"out.npy"});
  llvm::Expected<Tensor> back = readNpy(path("out.npy"));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  expectTensor(*back, {3, 2}, {1, 2, 3, 4, 5, 6}, 0);
}

TEST_F(NpyFileTest, WriterWithoutCommitRemovesItsTemporaryFile) {
  {
    llvm::Expected<NpyWriter> w = NpyWriter::create(path("out.npy"), {2, 2});
    ASSERT_TRUE(bool(w)) << llvm::toString(w.takeError());
    ASSERT_FALSE(bool(w->append(Tensor{{2, 2}, {1, 2, 3, 4}})));
    EXPECT_EQ(listing().size(), 1u);
  }
  EXPECT_TRUE(listing().empty());
}

TEST_F(NpyFileTest, WriterRejectsWrongBatches) {
  llvm::Expected<NpyWriter> w = NpyWriter::create(path("out.npy"), {2, 2});
  ASSERT_TRUE(bool(w)) << llvm::toString(w.takeError());
  std::string prefix = "'" + path("out.npy") + "': ";
  EXPECT_EQ(llvm::toString(w->append(Tensor{{1, 3}, {1, 2, 3}})),
            prefix + "cannot append a batch of shape (1, 3) to an array of "
                     "shape (2, 2)");
  EXPECT_EQ(llvm::toString(w->append(Tensor{{3, 2}, {1, 2, 3, 4, 5, 6}})),
            prefix + "appending 3 rows after 0 overflows the array of shape "
                     "(2, 2)");
  ASSERT_FALSE(bool(w->append(Tensor{{1, 2}, {1, 2}})));
  EXPECT_EQ(llvm::toString(w->commit()),
            prefix + "only 1 of 2 rows were appended");
  EXPECT_TRUE(listing().empty());
}

TEST_F(NpyFileTest, DamagedFiles) {
  std::string missing = path("missing.npy");
  EXPECT_EQ(readError(missing).rfind("'" + missing + "': cannot read: ", 0),
            0u);

  writeBytes("magic.npy", "PK\x03\x04 not numpy");
  EXPECT_EQ(readError(path("magic.npy")),
            "'" + path("magic.npy") + "': not a .npy file (bad magic)");

  ASSERT_FALSE(
      bool(writeNpy(path("full.npy"), Tensor{{2, 3}, {1, 2, 3, 4, 5, 6}})));
  auto full = llvm::MemoryBuffer::getFile(path("full.npy"));
  ASSERT_TRUE(bool(full));
  writeBytes("short.npy", (*full)->getBuffer().drop_back(4));
  EXPECT_EQ(readError(path("short.npy")),
            "'" + path("short.npy") +
                "': truncated data (shape (2, 3) of '<f4' needs 24 bytes, "
                "file has 20)");
  writeBytes("header.npy", (*full)->getBuffer().take_front(30));
  EXPECT_EQ(readError(path("header.npy")),
            "'" + path("header.npy") + "': truncated header");
  writeBytes("long.npy", (*full)->getBuffer().str() + "xx");
  EXPECT_EQ(readError(path("long.npy")),
            "'" + path("long.npy") +
                "': 2 unexpected bytes after the data of shape (2, 3)");

  std::string version = (*full)->getBuffer().str();
  version[6] = 4;
  writeBytes("version.npy", version);
  EXPECT_EQ(readError(path("version.npy")),
            "'" + path("version.npy") +
                "': unsupported .npy format version 4.0");
}

TEST_F(NpyFileTest, ObjectAndStringDtypes) {
  for (llvm::StringRef descr : {"|O", "<U5", "|S3"}) {
    std::string header = "{'descr': '" + descr.str() +
                         "', 'fortran_order': False, 'shape': (1,), }";
    header += std::string(128 - 10 - header.size() - 1, ' ') + "\n";
    std::string bytes("\x93NUMPY\x01\x00", 8);
    bytes += char(header.size());
    bytes += '\0';
    writeBytes("obj.npy", bytes + header + "12345678");
    EXPECT_EQ(readError(path("obj.npy")),
              "'" + path("obj.npy") + "': unsupported dtype '" + descr.str() +
                  "' (expected float32)");
  }
}

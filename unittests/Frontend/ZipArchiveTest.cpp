//===- ZipArchiveTest.cpp - Tests for seq::keras::ZipArchive --------------===//

#include "seq/Frontend/Keras/ZipArchive.h"

#include "TestUtil.h"
#include "ZipBuilder.h"

using namespace seq::keras;
using namespace seq::test;

namespace {

class ZipArchiveTest : public TempDirTest {
protected:
  std::string contentOf(const ZipArchive &archive, llvm::StringRef name) {
    auto bytes = archive.read(name);
    EXPECT_TRUE(succeeded(bytes));
    return bytes ? std::string(bytes->begin(), bytes->end()) : "";
  }
};

const std::string config = R"({"class_name": "Sequential", "config": {}})";

TEST_F(ZipArchiveTest, ReadsStoredAndDeflatedMembers) {
  std::string weights(100000, '\0');
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = static_cast<char>(i % 251);
  ZipBuilder builder;
  builder.add("metadata.json", "{}");
  builder.add("config.json", config, zipDeflated);
  builder.add("model.weights.h5", weights, zipDeflated);
  builder.add("assets/", "");
  builder.add("empty.txt", "", zipDeflated);
  std::string path = writeFile("m.keras", builder.finish("a comment"));

  auto archive = ZipArchive::open(path);
  ASSERT_TRUE(succeeded(archive));
  EXPECT_EQ(archive->path(), path);
  EXPECT_EQ(archive->names(), (std::vector<std::string>{
                                  "metadata.json", "config.json",
                                  "model.weights.h5", "assets/", "empty.txt"}));
  EXPECT_TRUE(archive->contains("config.json"));
  EXPECT_FALSE(archive->contains("config"));
  EXPECT_EQ(contentOf(*archive, "metadata.json"), "{}");
  EXPECT_EQ(contentOf(*archive, "config.json"), config);
  EXPECT_EQ(contentOf(*archive, "model.weights.h5"), weights);
  EXPECT_EQ(contentOf(*archive, "assets/"), "");
  EXPECT_EQ(contentOf(*archive, "empty.txt"), "");
}

TEST_F(ZipArchiveTest, ReadsZip64Records) {
  ZipBuilder builder(/*zip64=*/true);
  builder.add("metadata.json", "{}");
  builder.add("config.json", config, zipDeflated);
  auto archive = ZipArchive::open(writeFile("m.keras", builder.finish()));
  ASSERT_TRUE(succeeded(archive));
  EXPECT_EQ(archive->names().size(), 2u);
  EXPECT_EQ(contentOf(*archive, "metadata.json"), "{}");
  EXPECT_EQ(contentOf(*archive, "config.json"), config);

  std::string corrupt = builder.finish();
  corrupt[corrupt.find("PK\x06\x06")] = 'X';
  EXPECT_TRUE(failsWith(ZipArchive::open(writeFile("bad64.keras", corrupt)),
                        "corrupt ZIP64 end of central directory"));
}

TEST_F(ZipArchiveTest, ReadsEmptyArchive) {
  auto archive = ZipArchive::open(writeFile("e.zip", ZipBuilder().finish()));
  ASSERT_TRUE(succeeded(archive));
  EXPECT_TRUE(archive->names().empty());
}

TEST_F(ZipArchiveTest, MissingMember) {
  ZipBuilder builder;
  builder.add("metadata.json", "{}");
  std::string path = writeFile("m.keras", builder.finish());
  auto archive = ZipArchive::open(path);
  ASSERT_TRUE(succeeded(archive));
  EXPECT_TRUE(failsWith(archive->read("config.json"),
                        "'" + path + "': zip member 'config.json' not found"));
}

TEST_F(ZipArchiveTest, BadCrc) {
  ZipBuilder builder;
  builder.add("config.json", config);
  std::string bytes = builder.finish();
  bytes[bytes.find("Sequential")] = 's';
  auto archive = ZipArchive::open(writeFile("m.keras", bytes));
  ASSERT_TRUE(succeeded(archive));
  EXPECT_TRUE(failsWith(archive->read("config.json"),
                        "zip member 'config.json' fails its CRC-32 check"));
}

TEST_F(ZipArchiveTest, CorruptDeflateData) {
  ZipBuilder builder;
  builder.add("config.json", config, zipDeflated);
  std::string bytes = builder.finish();
  // The first byte after the 30-byte local header and the name starts the
  // deflate stream; 0xff is a reserved block type.
  bytes[30 + std::string("config.json").size()] = '\xff';
  auto archive = ZipArchive::open(writeFile("m.keras", bytes));
  ASSERT_TRUE(succeeded(archive));
  EXPECT_TRUE(failsWith(archive->read("config.json"), "corrupt deflate data"));
}

TEST_F(ZipArchiveTest, TruncatedArchive) {
  ZipBuilder builder;
  builder.add("config.json", config, zipDeflated);
  std::string bytes = builder.finish();
  for (size_t keep : {bytes.size() - 1, bytes.size() / 2, size_t(10)}) {
    std::string path = writeFile("t.keras", bytes.substr(0, keep));
    EXPECT_TRUE(failsWith(ZipArchive::open(path),
                          "'" + path + "': truncated zip archive"))
        << "kept " << keep << " bytes";
  }
}

TEST_F(ZipArchiveTest, MemberDataPastEndOfFile) {
  // Cut the member data out but keep a central directory that points at it.
  ZipBuilder whole;
  whole.add("a", std::string(1000, 'x'));
  std::string bytes = whole.finish();
  std::string cut = bytes.substr(0, 30 + 1 + 10) + bytes.substr(30 + 1 + 1000);
  // The end record's directory offset must follow the cut.
  uint32_t offset = 30 + 1 + 10;
  for (int i = 0; i < 4; ++i)
    cut[cut.size() - 6 + i] = static_cast<char>(offset >> (8 * i));
  auto archive = ZipArchive::open(writeFile("c.zip", cut));
  ASSERT_TRUE(succeeded(archive));
  EXPECT_TRUE(failsWith(archive->read("a"), "zip member 'a' is truncated"));
}

TEST_F(ZipArchiveTest, UnsupportedMethodAndEncryption) {
  ZipBuilder builder;
  builder.add("bzip2.bin", "data", /*method=*/12);
  builder.add("secret.bin", "data", zipStored, /*flags=*/1);
  auto archive = ZipArchive::open(writeFile("u.zip", builder.finish()));
  ASSERT_TRUE(succeeded(archive));
  EXPECT_TRUE(failsWith(archive->read("bzip2.bin"),
                        "zip member 'bzip2.bin' uses compression method 12"));
  EXPECT_TRUE(failsWith(archive->read("secret.bin"),
                        "zip member 'secret.bin' is encrypted"));
}

TEST_F(ZipArchiveTest, NotAZipArchive) {
  std::string path = writeFile("n.zip", "just some text, long enough to scan");
  EXPECT_TRUE(
      failsWith(ZipArchive::open(path), "'" + path + "': not a zip archive"));
  EXPECT_TRUE(failsWith(ZipArchive::open(writeFile("empty.zip", "")),
                        "not a zip archive"));
  EXPECT_TRUE(failsWith(ZipArchive::open(pathOf("missing.zip")),
                        "'" + pathOf("missing.zip") + "': no such file"));
  EXPECT_TRUE(failsWith(ZipArchive::open(root), "is a directory"));
}

TEST_F(ZipArchiveTest, RefusesDuplicateMembers) {
  ZipBuilder builder;
  builder.add("config.json", config);
  builder.add("model.weights.h5", "w");
  builder.add("config.json", "{}");
  EXPECT_TRUE(failsWith(ZipArchive::open(writeFile("m.keras", builder.finish())),
                        "zip member 'config.json' appears twice"));
}

TEST_F(ZipArchiveTest, CapsDeclaredSizesBeforeInflating) {
  ZipBuilder builder;
  builder.add("metadata.json", std::string(1 << 20, ' '), zipDeflated);
  auto archive = ZipArchive::open(writeFile("m.keras", builder.finish()));
  ASSERT_TRUE(succeeded(archive));
  EXPECT_TRUE(failsWith(archive->read("metadata.json", 1000),
                        "zip member 'metadata.json' declares 1048576 bytes "
                        "uncompressed, more than the 1000 seqc accepts"));
  EXPECT_LT(archive->storedSize("metadata.json"), 1u << 20);
  auto exact = archive->read("metadata.json", 1 << 20);
  EXPECT_TRUE(succeeded(exact));
}

TEST_F(ZipArchiveTest, OpensABufferInMemory) {
  ZipBuilder builder;
  builder.add("config.json", config, zipDeflated);
  auto archive = ZipArchive::openBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(builder.finish()), "memory.keras");
  ASSERT_TRUE(succeeded(archive));
  EXPECT_EQ(archive->path(), "memory.keras");
  EXPECT_EQ(contentOf(*archive, "config.json"), config);
}

} // namespace

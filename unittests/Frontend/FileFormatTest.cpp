//===- FileFormatTest.cpp - Tests for seq::keras::detectFormat ------------===//

#include "seq/Frontend/Keras/FileFormat.h"

#include "TestUtil.h"
#include "ZipBuilder.h"

#include <hdf5.h>

using namespace seq::keras;
using namespace seq::test;

namespace {

class FileFormatTest : public TempDirTest {
protected:
  /// An empty HDF5 file, optionally after a user block of `userBlock` bytes.
  std::string makeHDF5(llvm::StringRef name, hsize_t userBlock = 0) {
    std::string path = pathOf(name);
    hid_t properties = H5Pcreate(H5P_FILE_CREATE);
    if (userBlock)
      H5Pset_userblock(properties, userBlock);
    hid_t file =
        H5Fcreate(path.c_str(), H5F_ACC_TRUNC, properties, H5P_DEFAULT);
    EXPECT_GE(file, 0);
    H5Fclose(file);
    H5Pclose(properties);
    return path;
  }

  FileFormat formatOf(llvm::StringRef path) {
    return detectFormat(path).format;
  }
};

TEST_F(FileFormatTest, HDF5ByContent) {
  EXPECT_EQ(formatOf(makeHDF5("model.h5")), FileFormat::HDF5);
  EXPECT_EQ(formatOf(makeHDF5("model.keras")), FileFormat::HDF5);
  EXPECT_EQ(formatOf(makeHDF5("userblock.h5", 512)), FileFormat::HDF5);
  EXPECT_EQ(formatOf(makeHDF5("bigger_userblock.h5", 4096)), FileFormat::HDF5);
  EXPECT_EQ(detectFormat(makeHDF5("m.h5")).description, "an HDF5 file");
}

TEST_F(FileFormatTest, ZipByContent) {
  ZipBuilder builder;
  builder.add("config.json", "{}");
  EXPECT_EQ(formatOf(writeFile("model.keras", builder.finish())),
            FileFormat::Zip);
  EXPECT_EQ(formatOf(writeFile("model.h5", builder.finish())), FileFormat::Zip);
  EXPECT_EQ(formatOf(writeFile("empty.zip", ZipBuilder().finish())),
            FileFormat::Zip);
}

TEST_F(FileFormatTest, ZipWhoseMemberStartsAtAUserBlockOffset) {
  // A stored HDF5 member whose data begins at byte 512 of the archive: the
  // bytes at offset 0 say zip, which decides.
  std::string hdf5 = "\x89HDF\r\n\x1a\n" + std::string(100, '\0');
  for (size_t pad = 0; pad < 600; ++pad) {
    ZipBuilder builder;
    builder.add("config.json", std::string(pad, ' '));
    builder.add("model.weights.h5", hdf5);
    std::string bytes = builder.finish();
    if (bytes.find("\x89HDF") != 512)
      continue;
    EXPECT_EQ(formatOf(writeFile("aligned.keras", bytes)), FileFormat::Zip);
    return;
  }
  FAIL() << "no padding put the member at offset 512";
}

TEST_F(FileFormatTest, KerasDirectory) {
  // Keras 3's model.save(DIR, zipped=False); config.json alone is not one.
  writeFile("unzipped/config.json", "{}");
  EXPECT_EQ(formatOf(pathOf("unzipped")), FileFormat::Directory);
  writeFile("unzipped/model.weights.h5", "\x89HDF\r\n\x1a\n");
  FormatInfo info = detectFormat(pathOf("unzipped"));
  EXPECT_EQ(info.format, FileFormat::KerasDir);
  EXPECT_EQ(info.description, "a Keras 3 model directory (model.save(..., zipped=False))");
}

TEST_F(FileFormatTest, SavedModel) {
  writeFile("saved/saved_model.pb", "\x08\x01");
  makeDirectory("saved/variables");
  FormatInfo info = detectFormat(pathOf("saved"));
  EXPECT_EQ(info.format, FileFormat::SavedModelDir);
  EXPECT_EQ(info.description, "a TensorFlow SavedModel directory");
  EXPECT_EQ(formatOf(pathOf("saved/saved_model.pb")),
            FileFormat::SavedModelDir);
}

TEST_F(FileFormatTest, Checkpoints) {
  // The last 8 bytes of an index file are the LevelDB table magic number.
  std::string index =
      std::string(40, '\0') + "\x57\xfb\x80\x8b\x24\x75\x47\xdb";
  writeFile("ckpt.index", index);
  writeFile("ckpt.data-00000-of-00001", "raw tensor bytes");

  FormatInfo prefix = detectFormat(pathOf("ckpt"));
  EXPECT_EQ(prefix.format, FileFormat::TFCheckpoint);
  EXPECT_EQ(prefix.description,
            "a TensorFlow checkpoint (ckpt.index + data shards)");
  EXPECT_EQ(formatOf(pathOf("ckpt.index")), FileFormat::TFCheckpoint);
  EXPECT_EQ(formatOf(writeFile("renamed", index)), FileFormat::TFCheckpoint);
  EXPECT_EQ(formatOf(pathOf("ckpt.data-00000-of-00001")),
            FileFormat::TFCheckpoint);
  EXPECT_EQ(formatOf(root), FileFormat::TFCheckpoint);

  writeFile("training/checkpoint", "model_checkpoint_path: \"ckpt-1\"\n");
  EXPECT_EQ(formatOf(pathOf("training")), FileFormat::TFCheckpoint);
}

TEST_F(FileFormatTest, Json) {
  EXPECT_EQ(formatOf(writeFile("config.json", "{\"class_name\": 1}")),
            FileFormat::Json);
  EXPECT_EQ(formatOf(writeFile("model.h5", " \n\t{}")), FileFormat::Json);
}

TEST_F(FileFormatTest, DirectoryMissingUnknown) {
  EXPECT_EQ(formatOf(makeDirectory("plain")), FileFormat::Directory);
  EXPECT_EQ(formatOf(pathOf("missing.h5")), FileFormat::Missing);
  EXPECT_EQ(formatOf(writeFile("notes.txt", "hello")), FileFormat::Unknown);
  FormatInfo empty = detectFormat(writeFile("empty.h5", ""));
  EXPECT_EQ(empty.format, FileFormat::Unknown);
  EXPECT_EQ(empty.description, "an empty file");
  // Only a JSON object can be a model config.
  EXPECT_EQ(formatOf(writeFile("list.json", "[1]")), FileFormat::Unknown);
}

TEST_F(FileFormatTest, Names) {
  EXPECT_STREQ(formatName(FileFormat::HDF5), "HDF5");
  EXPECT_STREQ(formatName(FileFormat::Zip), "zip");
  EXPECT_STREQ(formatName(FileFormat::SavedModelDir), "SavedModel");
  EXPECT_STREQ(formatName(FileFormat::TFCheckpoint), "TF checkpoint");
  EXPECT_STREQ(formatName(FileFormat::Json), "JSON");
  EXPECT_STREQ(formatName(FileFormat::Directory), "directory");
  EXPECT_STREQ(formatName(FileFormat::Missing), "missing");
  EXPECT_STREQ(formatName(FileFormat::Unknown), "unknown");
}

} // namespace

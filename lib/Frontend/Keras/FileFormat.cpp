//===- FileFormat.cpp - Recognize model file formats by content -----------===//

#include "seq/Frontend/Keras/FileFormat.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

using namespace seq::keras;
namespace fs = llvm::sys::fs;

namespace {

constexpr llvm::StringLiteral hdf5Signature("\x89HDF\r\n\x1a\n");
constexpr llvm::StringLiteral zipLocalHeader("PK\x03\x04");
constexpr llvm::StringLiteral zipEmptyArchive("PK\x05\x06");
/// A TensorFlow checkpoint .index file is a LevelDB-style table; its footer
/// ends with this magic number (0xdb4775248b80fb57, little-endian).
constexpr llvm::StringLiteral tableMagic("\x57\xfb\x80\x8b\x24\x75\x47\xdb");

/// An open file read at arbitrary offsets; short reads return fewer bytes.
class FileReader {
public:
  explicit FileReader(llvm::StringRef path) {
    if (auto file = fs::openNativeFileForRead(path)) {
      handle = *file;
      isOpen = true;
    } else {
      llvm::consumeError(file.takeError());
    }
    fs::file_status status;
    if (isOpen && !fs::status(handle, status))
      fileSize = status.getSize();
  }
  ~FileReader() {
    if (isOpen)
      fs::closeFile(handle);
  }
  FileReader(const FileReader &) = delete;
  FileReader &operator=(const FileReader &) = delete;

  uint64_t size() const { return fileSize; }

  std::string read(uint64_t offset, size_t count) const {
    std::string bytes(count, '\0');
    size_t got = 0;
    if (isOpen) {
      auto result = fs::readNativeFileSlice(
          handle, llvm::MutableArrayRef<char>(bytes.data(), count), offset);
      if (result)
        got = *result;
      else
        llvm::consumeError(result.takeError());
    }
    bytes.resize(got);
    return bytes;
  }

private:
  fs::file_t handle{};
  bool isOpen = false;
  uint64_t fileSize = 0;
};

bool hasHDF5Signature(const FileReader &file) {
  // HDF5 allows a user block of 512 * 2^n bytes before the superblock.
  for (uint64_t offset = 0; offset + hdf5Signature.size() <= file.size();
       offset = offset ? offset * 2 : 512)
    if (file.read(offset, hdf5Signature.size()) == hdf5Signature)
      return true;
  return false;
}

bool isCheckpointDataShard(llvm::StringRef path) {
  static const llvm::Regex shard("\\.data-[0-9]+-of-[0-9]+$");
  return shard.match(llvm::sys::path::filename(path));
}

FormatInfo detectDirectory(llvm::StringRef path) {
  llvm::SmallString<256> savedModel(path);
  llvm::sys::path::append(savedModel, "saved_model.pb");
  if (fs::exists(savedModel))
    return {FileFormat::SavedModelDir, "a TensorFlow SavedModel directory"};

  llvm::SmallString<256> config(path), weights(path);
  llvm::sys::path::append(config, "config.json");
  llvm::sys::path::append(weights, "model.weights.h5");
  if (fs::exists(config) && fs::exists(weights))
    return {FileFormat::KerasDir,
            "a Keras 3 model directory (model.save(..., zipped=False))"};

  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (name == "checkpoint" || name.ends_with(".index"))
      return {FileFormat::TFCheckpoint,
              "a directory of TensorFlow checkpoints"};
  }
  return {FileFormat::Directory,
          "a directory that is neither a SavedModel nor a checkpoint"};
}

FormatInfo detectFile(llvm::StringRef path) {
  FileReader file(path);
  if (file.size() == 0)
    return {FileFormat::Unknown, "an empty file"};

  // The bytes at offset 0 decide first: a .keras zip may hold its HDF5
  // member at an offset where an HDF5 user block would end.
  std::string headBytes = file.read(0, 512);
  llvm::StringRef head(headBytes);
  if (head.starts_with(zipLocalHeader) || head.starts_with(zipEmptyArchive))
    return {FileFormat::Zip, "a zip archive"};
  if (hasHDF5Signature(file))
    return {FileFormat::HDF5, "an HDF5 file"};
  if (file.size() >= tableMagic.size() &&
      file.read(file.size() - tableMagic.size(), tableMagic.size()) ==
          tableMagic)
    return {FileFormat::TFCheckpoint,
            "a TensorFlow checkpoint index file"};
  if (isCheckpointDataShard(path))
    return {FileFormat::TFCheckpoint,
            "a TensorFlow checkpoint data shard"};
  // saved_model.pb is a bare protobuf message, which has no signature.
  if (llvm::sys::path::filename(path) == "saved_model.pb")
    return {FileFormat::SavedModelDir,
            "the saved_model.pb of a TensorFlow SavedModel directory"};
  if (head.ltrim().starts_with("{"))
    return {FileFormat::Json, "a JSON file"};
  // What seq-compile --emit and seq-opt write: an optional location alias
  // or comment, then the module.
  llvm::StringRef text = head.ltrim();
  if (head.starts_with(llvm::StringRef("ML\xefR", 4)) ||
      text.starts_with("module") || text.starts_with("#loc") ||
      text.starts_with("//") || text.starts_with("func.func"))
    return {FileFormat::MLIR, "an MLIR file"};
  return {FileFormat::Unknown, "a file of unknown format"};
}

} // namespace

FormatInfo seq::keras::detectFormat(llvm::StringRef path) {
  if (fs::is_directory(path))
    return detectDirectory(path);
  if (fs::exists(path))
    return detectFile(path);
  // A checkpoint is named by its prefix: "ckpt" means ckpt.index + shards.
  if (fs::exists(path + ".index"))
    return {FileFormat::TFCheckpoint,
            ("a TensorFlow checkpoint (" + llvm::sys::path::filename(path) +
             ".index + data shards)")
                .str()};
  return {FileFormat::Missing, "a path that does not exist"};
}

const char *seq::keras::formatName(FileFormat format) {
  switch (format) {
  case FileFormat::HDF5:
    return "HDF5";
  case FileFormat::Zip:
    return "zip";
  case FileFormat::KerasDir:
    return "Keras directory";
  case FileFormat::SavedModelDir:
    return "SavedModel";
  case FileFormat::TFCheckpoint:
    return "TF checkpoint";
  case FileFormat::Json:
    return "JSON";
  case FileFormat::MLIR:
    return "MLIR";
  case FileFormat::Directory:
    return "directory";
  case FileFormat::Missing:
    return "missing";
  case FileFormat::Unknown:
    return "unknown";
  }
  return "unknown";
}

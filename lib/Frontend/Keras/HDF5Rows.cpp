//===- HDF5Rows.cpp - Stream an HDF5 dataset's rows -----------------------===//

#include "seq/Frontend/Keras/HDF5Rows.h"

#include "HDF5Snapshot.h"

#include "seq/Frontend/Keras/Sandbox.h"

#include "llvm/Support/MemoryBuffer.h"

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace seq::keras {
namespace {

class HDF5Rows final : public rt::RowSource {
public:
  HDF5Rows(std::string name, std::vector<int64_t> shape,
           std::unique_ptr<llvm::MemoryBuffer> file,
           std::unique_ptr<SandboxStream> stream, unsigned seconds)
      : RowSource(std::move(name), std::move(shape)), file(std::move(file)),
        stream(std::move(stream)), seconds(seconds) {
    rowElements = 1;
    for (size_t i = 1; i < arrayShape.size(); ++i)
      rowElements *= arrayShape[i];
  }

  Expected<rt::Tensor> next(int64_t count) override {
    count = std::min(count, rowsLeft());
    while (pendingRows < count)
      if (Error e = receiveChunk())
        return std::move(e);
    rt::Tensor t;
    t.shape = arrayShape;
    t.shape[0] = count;
    t.data.assign(pending.begin() + used,
                  pending.begin() + used + count * rowElements);
    used += count * rowElements;
    pendingRows -= count;
    if (used == pending.size()) {
      pending.clear();
      used = 0;
    }
    rowsRead += count;
    return t;
  }

private:
  /// Appends the next chunk of rows the reader sends.
  Error receiveChunk() {
    char tag = 0;
    uint64_t rows = 0, floats = 0;
    if (stream->read(&tag, 1) && tag == 'C' && read64(rows) &&
        read64(floats) && floats == rows * rowElements &&
        floats <= (uint64_t(1) << 32)) {
      size_t at = pending.size();
      pending.resize(at + floats);
      if (stream->read(pending.data() + at, floats * sizeof(float))) {
        pendingRows += rows;
        return Error::success();
      }
    } else if (tag == hdf5::record::Refusal) {
      uint64_t length = 0;
      std::string message;
      if (read64(length) && length < (1u << 20)) {
        message.resize(length);
        if (stream->read(message.data(), length))
          return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                         message);
      }
    }
    return failure(*stream, seconds, sourceName);
  }

  bool read64(uint64_t &value) {
    unsigned char b[8];
    if (!stream->read(b, 8))
      return false;
    value = 0;
    for (int i = 0; i < 8; ++i)
      value |= uint64_t(b[i]) << (8 * i);
    return true;
  }

public:
  /// Why the stream stopped early: a crash, a hang, or malformed records.
  static Error failure(SandboxStream &stream, unsigned seconds,
                       StringRef name) {
    std::string detail;
    SandboxResult::Status status = stream.finish(detail);
    std::string what =
        status == SandboxResult::TimedOut
            ? "the HDF5 library sent nothing for " + std::to_string(seconds) +
                  " s"
        : status == SandboxResult::Crashed ? "the HDF5 library failed"
                                           : "the HDF5 reader sent malformed "
                                             "data";
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "'" + name + "': " + what +
            " while reading the dataset (the file is corrupt or hostile)");
  }

private:
  std::unique_ptr<llvm::MemoryBuffer> file; ///< Mapped; the reader reads it.
  std::unique_ptr<SandboxStream> stream;
  unsigned seconds;
  int64_t rowElements;
  std::vector<float> pending;
  size_t used = 0;
  int64_t pendingRows = 0;
};

} // namespace

Expected<std::unique_ptr<rt::RowSource>> openHDF5Rows(StringRef path,
                                                      StringRef dataset) {
  std::string name = (path + ":" + dataset).str();
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + name + "': " + message);
  };
  // Mapped, not read: the reader touches only the pages it needs.
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return fail("cannot read: " + file.getError().message());
  StringRef bytes = (*file)->getBuffer();
  if (bytes.empty())
    return fail("cannot open as an HDF5 file: the file is empty");
  SandboxLimits limits = readerLimits(0);
  limits.purpose = "dataset";
  // Converting a large dataset takes CPU time in proportion to its size.
  limits.cpuSeconds = limits.seconds + bytes.size() / (uint64_t(16) << 20);
  std::string error;
  std::unique_ptr<SandboxStream> stream = SandboxStream::start(
      [&](SandboxWriter &out) {
        hdf5::writeDatasetRows(
            {bytes.data(), bytes.size()},
            (*file)->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap,
            path, dataset, out);
      },
      limits, error);
  if (!stream)
    return fail("cannot start the HDF5 reader: " + error);

  char tag = 0;
  unsigned char b[8];
  auto read64 = [&](uint64_t &v) {
    if (!stream->read(b, 8))
      return false;
    v = 0;
    for (int i = 0; i < 8; ++i)
      v |= uint64_t(b[i]) << (8 * i);
    return true;
  };
  uint64_t rank = 0;
  if (stream->read(&tag, 1) && tag == hdf5::record::Refusal) {
    uint64_t length = 0;
    std::string message;
    if (read64(length) && length < (1u << 20)) {
      message.resize(length);
      if (stream->read(message.data(), length))
        return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
    }
  } else if (tag == 'H' && read64(rank) && rank >= 1 && rank <= 32) {
    std::vector<int64_t> shape;
    uint64_t d = 0;
    for (uint64_t i = 0; i < rank && read64(d); ++i)
      shape.push_back(static_cast<int64_t>(d));
    if (shape.size() == rank && shape[0] >= 0)
      return std::unique_ptr<rt::RowSource>(
          new HDF5Rows(name, std::move(shape), std::move(*file),
                       std::move(stream), limits.seconds));
  }
  return HDF5Rows::failure(*stream, limits.seconds, name);
}

} // namespace seq::keras

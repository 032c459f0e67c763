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

/// Reads the reader's records (HDF5Snapshot.h, writeDatasetRows) off the
/// stream; any short read means the stream broke.
class Records {
public:
  explicit Records(SandboxStream &stream) : stream(stream) {}
  bool tag(char &t) { return stream.read(&t, 1); }
  bool u64(uint64_t &value) {
    unsigned char b[8];
    if (!stream.read(b, 8))
      return false;
    value = 0;
    for (int i = 0; i < 8; ++i)
      value |= uint64_t(b[i]) << (8 * i);
    return true;
  }
  /// The message of a Refusal record (its tag already read).
  std::optional<std::string> refusal() {
    uint64_t length = 0;
    std::string message;
    if (!u64(length) || length > (1u << 20))
      return std::nullopt;
    message.resize(length);
    if (!stream.read(message.data(), length))
      return std::nullopt;
    return message;
  }
  bool floats(float *data, uint64_t count) {
    return stream.read(data, count * sizeof(float));
  }

private:
  SandboxStream &stream;
};

Error message(const llvm::Twine &text) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
}

/// Why the stream stopped early: a crash, a hang, or malformed records.
Error streamFailure(SandboxStream &stream, unsigned seconds, StringRef name) {
  std::string detail;
  SandboxResult::Status status = stream.finish(detail);
  std::string what =
      status == SandboxResult::TimedOut
          ? "the HDF5 library sent nothing for " + std::to_string(seconds) +
                " s"
      : status == SandboxResult::Crashed ? "the HDF5 library failed"
                                         : "the HDF5 reader sent malformed data";
  return message("'" + name + "': " + what +
                 " while reading the dataset (the file is corrupt or hostile)");
}

class HDF5Rows final : public rt::RowSource {
public:
  HDF5Rows(std::string name, std::vector<int64_t> shape,
           std::unique_ptr<llvm::MemoryBuffer> file,
           std::unique_ptr<SandboxStream> stream, unsigned seconds)
      : RowSource(std::move(name), std::move(shape)), file(std::move(file)),
        stream(std::move(stream)), records(*this->stream), seconds(seconds) {}

  Expected<rt::Tensor> next(int64_t count) override {
    count = std::min(count, rowsLeft());
    while (pendingRows < count)
      if (Error e = receiveChunk())
        return std::move(e);
    rt::Tensor t = rowsTensor(count);
    std::copy(pending.begin() + used, pending.begin() + used + t.data.size(),
              t.data.begin());
    used += t.data.size();
    pendingRows -= count;
    if (used == pending.size()) {
      pending.clear();
      used = 0;
    }
    rowsRead += count;
    return t;
  }

private:
  /// Appends the next chunk of rows the reader sends: 'C', rows, floats.
  Error receiveChunk() {
    char tag = 0;
    uint64_t rows = 0, floats = 0;
    if (records.tag(tag) && tag == 'C' && records.u64(rows) &&
        records.u64(floats) && floats == rows * rowElements &&
        floats <= (uint64_t(1) << 32)) {
      size_t at = pending.size();
      pending.resize(at + floats);
      if (records.floats(pending.data() + at, floats)) {
        pendingRows += rows;
        return Error::success();
      }
    } else if (tag == hdf5::record::Refusal) {
      if (std::optional<std::string> text = records.refusal())
        return message(*text);
    }
    return streamFailure(*stream, seconds, sourceName);
  }

  std::unique_ptr<llvm::MemoryBuffer> file; ///< Mapped; the reader reads it.
  std::unique_ptr<SandboxStream> stream;
  Records records;
  unsigned seconds;
  std::vector<float> pending;
  size_t used = 0;
  int64_t pendingRows = 0;
};

} // namespace

Expected<std::unique_ptr<rt::RowSource>> openHDF5Rows(StringRef path,
                                                      StringRef dataset) {
  std::string name = (path + ":" + dataset).str();
  // Mapped, not read: the reader touches only the pages it needs.
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return message("'" + name + "': cannot read: " + file.getError().message());
  StringRef bytes = (*file)->getBuffer();
  if (bytes.empty())
    return message("'" + name +
                   "': cannot open as an HDF5 file: the file is empty");
  SandboxLimits limits = readerLimits(0);
  limits.purpose = "dataset";
  // Converting a large dataset takes CPU time in proportion to its size.
  limits.cpuSeconds = limits.seconds + bytes.size() / (uint64_t(16) << 20);
  bool mapped = (*file)->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap;
  std::string error;
  std::unique_ptr<SandboxStream> stream = SandboxStream::start(
      [&](SandboxWriter &out) {
        hdf5::writeDatasetRows({bytes.data(), bytes.size()}, mapped, path,
                               dataset, out);
      },
      limits, error);
  if (!stream)
    return message("'" + name + "': cannot start the HDF5 reader: " + error);

  // The header: 'H', rank, dims; or a refusal.
  Records records(*stream);
  char tag = 0;
  uint64_t rank = 0;
  if (records.tag(tag) && tag == hdf5::record::Refusal) {
    if (std::optional<std::string> text = records.refusal())
      return message(*text);
  } else if (tag == 'H' && records.u64(rank) && rank >= 1 && rank <= 32) {
    std::vector<int64_t> shape;
    uint64_t d = 0;
    for (uint64_t i = 0; i < rank && records.u64(d); ++i)
      shape.push_back(static_cast<int64_t>(d));
    if (shape.size() == rank && shape[0] >= 0)
      return std::unique_ptr<rt::RowSource>(
          new HDF5Rows(name, std::move(shape), std::move(*file),
                       std::move(stream), limits.seconds));
  }
  return streamFailure(*stream, limits.seconds, name);
}

} // namespace seq::keras

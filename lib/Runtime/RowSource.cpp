#include "seq/Runtime/RowSource.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <fstream>

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace seq::rt {

RowSource::RowSource(std::string name, std::vector<int64_t> shape)
    : sourceName(std::move(name)), arrayShape(std::move(shape)) {
  for (size_t i = 1; i < arrayShape.size(); ++i)
    rowElements *= arrayShape[i];
}

Tensor RowSource::rowsTensor(int64_t count) const {
  Tensor t;
  t.shape = arrayShape;
  t.shape[0] = count;
  t.data.resize(count * rowElements);
  return t;
}

namespace {

Error sourceError(StringRef name, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + name + "': " + message);
}

/// Numbers, one row per line; read line by line as next() asks.
class CsvRows final : public RowSource {
public:
  static Expected<std::unique_ptr<RowSource>>
  open(StringRef path, std::vector<int64_t> rowShape, char delimiter) {
    for (int64_t d : rowShape)
      if (d < 1)
        return sourceError(path, "a CSV row needs a fixed input shape: pass "
                                 "--input-shape (e.g. 10,12)");
    // Rows are counted first (a cheap pass), so that the output's shape is
    // known before the first batch.
    std::ifstream in(path.str());
    if (!in)
      return sourceError(path, "cannot read");
    std::string line;
    int64_t rows = 0;
    bool header = false;
    for (int64_t lineNumber = 1; std::getline(in, line); ++lineNumber) {
      StringRef text = StringRef(line).trim();
      if (text.empty())
        continue;
      if (rows == 0 && !header && !looksNumeric(text, delimiter)) {
        header = true;
        continue;
      }
      ++rows;
    }
    std::vector<int64_t> shape{rows};
    shape.insert(shape.end(), rowShape.begin(), rowShape.end());
    auto source = std::unique_ptr<CsvRows>(
        new CsvRows(path.str(), std::move(shape), delimiter, header));
    source->in.open(path.str());
    return std::unique_ptr<RowSource>(std::move(source));
  }

  Expected<Tensor> next(int64_t count) override {
    count = std::min(count, rowsLeft());
    Tensor t = rowsTensor(count);
    int64_t filled = 0;
    std::string line;
    while (filled < count * rowElements && std::getline(in, line)) {
      ++lineNumber;
      StringRef text = StringRef(line).trim();
      if (text.empty())
        continue;
      if (skipHeader) {
        skipHeader = false;
        continue;
      }
      llvm::SmallVector<StringRef> fields;
      text.split(fields, delimiter);
      if (static_cast<int64_t>(fields.size()) != rowElements)
        return sourceError(sourceName,
                           "line " + llvm::Twine(lineNumber) + " has " +
                               llvm::Twine(fields.size()) +
                               " columns, but the input shape needs " +
                               llvm::Twine(rowElements));
      for (StringRef field : fields) {
        double value;
        if (field.trim().getAsDouble(value))
          return sourceError(sourceName, "line " + llvm::Twine(lineNumber) +
                                             ": '" + field.trim() +
                                             "' is not a number");
        t.data[filled++] = static_cast<float>(value);
      }
    }
    if (filled != count * rowElements)
      return sourceError(sourceName, "the file became shorter while read");
    rowsRead += count;
    return t;
  }

private:
  CsvRows(std::string path, std::vector<int64_t> shape, char delimiter,
          bool header)
      : RowSource(std::move(path), std::move(shape)), delimiter(delimiter),
        skipHeader(header) {}

  static bool looksNumeric(StringRef line, char delimiter) {
    llvm::SmallVector<StringRef> fields;
    line.split(fields, delimiter);
    double value;
    for (StringRef field : fields)
      if (field.trim().getAsDouble(value))
        return false;
    return true;
  }

  std::ifstream in;
  char delimiter;
  bool skipHeader;
  int64_t lineNumber = 0;
};

} // namespace

Expected<std::unique_ptr<RowSource>>
openCsvRows(StringRef path, std::vector<int64_t> rowShape, char delimiter) {
  return CsvRows::open(path, std::move(rowShape), delimiter);
}

Expected<Tensor> readAllRows(RowSource &source) {
  return source.next(source.rowsLeft());
}

} // namespace seq::rt

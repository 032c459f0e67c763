//===- Npy.cpp - NumPy .npy reading and writing ---------------------------===//
//
// Format reference: numpy/lib/format.py. A file is the magic "\x93NUMPY", a
// major and minor version byte, the header length (uint16 in 1.0, uint32 in
// 2.0/3.0), a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a newline, and then the raw array data.
//
//===----------------------------------------------------------------------===//

#include "seq/Runtime/Npy.h"
#include "seq/Runtime/OutputFile.h"
#include "seq/Runtime/RowSource.h"
#include "Detail.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

using namespace seq::rt;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

static constexpr StringRef kMagic("\x93NUMPY", 6);

static Error fileError(StringRef path, const llvm::Twine &message) {
  return llvm::createStringError("'" + path + "': " + message);
}

//===----------------------------------------------------------------------===//
// Header parsing
//===----------------------------------------------------------------------===//

namespace {

/// The subset of Python literals that .npy headers use.
struct PyValue {
  enum class Kind { String, Bool, None, Int, Sequence } kind;
  std::string string;
  bool boolean = false;
  int64_t integer = 0;
  std::vector<PyValue> items;
};

class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : rest(text) {}

  /// Parses the whole header as a dict of string keys.
  std::optional<std::vector<std::pair<std::string, PyValue>>> parseDict() {
    std::vector<std::pair<std::string, PyValue>> entries;
    if (!consume('{'))
      return std::nullopt;
    while (!consume('}')) {
      std::optional<PyValue> key = parseValue();
      if (!key || key->kind != PyValue::Kind::String || !consume(':'))
        return std::nullopt;
      std::optional<PyValue> value = parseValue();
      if (!value)
        return std::nullopt;
      entries.emplace_back(key->string, std::move(*value));
      if (!consume(',') && !peek('}'))
        return std::nullopt;
    }
    if (!rest.trim().empty())
      return std::nullopt;
    return entries;
  }

private:
  /// Nesting deeper than any dtype or shape numpy writes is refused, so that
  /// a hostile header cannot exhaust the stack.
  static constexpr int kMaxDepth = 32;
  StringRef rest;

  bool peek(char c) {
    rest = rest.ltrim();
    return rest.starts_with(StringRef(&c, 1));
  }
  bool consume(char c) {
    if (!peek(c))
      return false;
    rest = rest.drop_front();
    return true;
  }

  std::optional<PyValue> parseValue(int depth = 0) {
    rest = rest.ltrim();
    PyValue v;
    if (peek('\'') || peek('"')) {
      char quote = rest.front();
      size_t end = rest.find(quote, 1);
      if (end == StringRef::npos)
        return std::nullopt;
      v.kind = PyValue::Kind::String;
      v.string = rest.slice(1, end).str();
      rest = rest.drop_front(end + 1);
      return v;
    }
    if (peek('(') || peek('[')) {
      if (depth >= kMaxDepth)
        return std::nullopt;
      char close = rest.front() == '(' ? ')' : ']';
      rest = rest.drop_front();
      v.kind = PyValue::Kind::Sequence;
      while (!consume(close)) {
        std::optional<PyValue> item = parseValue(depth + 1);
        if (!item)
          return std::nullopt;
        v.items.push_back(std::move(*item));
        if (!consume(',') && !peek(close))
          return std::nullopt;
      }
      return v;
    }
    for (auto [word, kind, value] :
         {std::tuple{"True", PyValue::Kind::Bool, true},
          std::tuple{"False", PyValue::Kind::Bool, false},
          std::tuple{"None", PyValue::Kind::None, false}}) {
      if (rest.consume_front(word)) {
        v.kind = kind;
        v.boolean = value;
        return v;
      }
    }
    size_t digits = rest.find_first_not_of("0123456789");
    if (digits == 0 || rest.take_front(digits).getAsInteger(10, v.integer))
      return std::nullopt;
    rest = rest.drop_front(digits);
    rest.consume_front("L"); // Python 2 longs, in files numpy wrote long ago.
    v.kind = PyValue::Kind::Int;
    return v;
  }
};

/// A dtype descr such as '<f4' split into its parts.
struct DType {
  char byteOrder; // '<', '>', '|' or '='
  char kind;      // 'f', 'i', 'u', 'b', ...
  int64_t size;   // bytes per element
};

} // namespace

static std::optional<DType> parseDType(StringRef descr) {
  DType d;
  if (descr.size() < 3 || !StringRef("<>|=").contains(descr[0]) ||
      descr.drop_front(2).getAsInteger(10, d.size))
    return std::nullopt;
  d.byteOrder = descr[0];
  d.kind = descr[1];
  return d;
}

static bool isSupported(const DType &d) {
  switch (d.kind) {
  case 'f':
    return d.size == 4 || d.size == 8;
  case 'i':
  case 'u':
    return d.size == 1 || d.size == 2 || d.size == 4 || d.size == 8;
  case 'b':
    return d.size == 1;
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// `value` as a float if the conversion is exact.
template <typename Int> static std::optional<float> exactFloat(Int value) {
  float f = static_cast<float>(value);
  // Rounding can carry f to 2^digits, which no longer converts back to Int.
  if (f >= std::ldexp(1.0f, std::numeric_limits<Int>::digits) ||
      static_cast<Int>(f) != value)
    return std::nullopt;
  return f;
}

template <typename Int>
static Error convertIntegers(StringRef path, const char *bytes,
                             std::vector<float> &out) {
  for (size_t i = 0; i < out.size(); ++i) {
    auto value = llvm::support::endian::read<Int, llvm::endianness::little>(
        bytes + i * sizeof(Int));
    std::optional<float> f = exactFloat(value);
    if (!f)
      return fileError(path, "integer " + std::to_string(value) +
                                 " at flat index " + llvm::Twine(i) +
                                 " is not exactly representable as float32");
    out[i] = *f;
  }
  return Error::success();
}

static Error convertData(StringRef path, const DType &d, const char *bytes,
                         std::vector<float> &out) {
  using namespace llvm::support::endian;
  switch (d.kind) {
  case 'f':
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = d.size == 4 ? llvm::bit_cast<float>(read32le(bytes + 4 * i))
                           : static_cast<float>(llvm::bit_cast<double>(
                                 read64le(bytes + 8 * i)));
    return Error::success();
  case 'b':
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = bytes[i] ? 1.0f : 0.0f;
    return Error::success();
  case 'i':
    switch (d.size) {
    case 1:
      return convertIntegers<int8_t>(path, bytes, out);
    case 2:
      return convertIntegers<int16_t>(path, bytes, out);
    case 4:
      return convertIntegers<int32_t>(path, bytes, out);
    default:
      return convertIntegers<int64_t>(path, bytes, out);
    }
  default: // 'u'
    switch (d.size) {
    case 1:
      return convertIntegers<uint8_t>(path, bytes, out);
    case 2:
      return convertIntegers<uint16_t>(path, bytes, out);
    case 4:
      return convertIntegers<uint32_t>(path, bytes, out);
    default:
      return convertIntegers<uint64_t>(path, bytes, out);
    }
  }
}

Expected<Tensor> seq::rt::readNpy(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read: " + buffer.getError().message());
  return readNpyBuffer((*buffer)->getBuffer(), path);
}

namespace {

/// Where a .npy file's data is and what it holds.
struct NpyLayout {
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t dataStart = 0;
  uint64_t dataBytes = 0; ///< What the shape needs.
};

/// Parses the header at the start of `file` (which need hold only the
/// header); `fileSize` is the whole file's.
Expected<NpyLayout> parseNpyHeader(StringRef file, uint64_t fileSize,
                                   StringRef path) {
  if (!file.starts_with(kMagic) || file.size() < 8)
    return fileError(path, "not a .npy file (bad magic)");
  unsigned major = static_cast<uint8_t>(file[6]);
  unsigned minor = static_cast<uint8_t>(file[7]);
  if (major < 1 || major > 3 || minor != 0)
    return fileError(path, "unsupported .npy format version " +
                               llvm::Twine(major) + "." + llvm::Twine(minor));
  size_t lengthBytes = major == 1 ? 2 : 4;
  if (file.size() < 8 + lengthBytes)
    return fileError(path, "truncated header");
  size_t headerLength = major == 1
                            ? llvm::support::endian::read16le(file.data() + 8)
                            : llvm::support::endian::read32le(file.data() + 8);
  uint64_t dataStart = 8 + lengthBytes + uint64_t(headerLength);
  if (file.size() < dataStart)
    return fileError(path, "truncated header");
  StringRef header = file.slice(8 + lengthBytes, dataStart);

  auto entries = HeaderParser(header).parseDict();
  if (!entries)
    return fileError(path, "malformed header " + header.rtrim());
  const PyValue *descr = nullptr, *fortranOrder = nullptr, *shape = nullptr;
  for (const auto &[key, value] : *entries) {
    if (key == "descr")
      descr = &value;
    else if (key == "fortran_order")
      fortranOrder = &value;
    else if (key == "shape")
      shape = &value;
  }
  if (!descr || !fortranOrder || !shape)
    return fileError(path, "header lacks 'descr', 'fortran_order' or 'shape'");

  if (descr->kind != PyValue::Kind::String)
    return fileError(path, "unsupported structured dtype (expected float32)");
  std::optional<DType> dtype = parseDType(descr->string);
  if (!dtype || !isSupported(*dtype))
    return fileError(path, "unsupported dtype '" + descr->string +
                               "' (expected float32)");
  if (dtype->byteOrder == '>' && dtype->size > 1)
    return fileError(path, "big-endian dtype '" + descr->string +
                               "' is not supported (expected '<f4')");
  if (dtype->byteOrder == '=' && dtype->size > 1)
    return fileError(path, "native byte order dtype '" + descr->string +
                               "' is ambiguous (expected '<f4')");
  if (fortranOrder->kind != PyValue::Kind::Bool)
    return fileError(path, "malformed header " + header.rtrim());
  if (fortranOrder->boolean)
    return fileError(path, "fortran_order arrays are not supported (save "
                           "in C order)");

  NpyLayout layout;
  layout.dtype = *dtype;
  layout.dataStart = dataStart;
  if (shape->kind != PyValue::Kind::Sequence)
    return fileError(path, "malformed header " + header.rtrim());
  int64_t numBytes = dtype->size;
  for (const PyValue &dim : shape->items) {
    if (dim.kind != PyValue::Kind::Int || dim.integer < 0 ||
        llvm::MulOverflow(numBytes, dim.integer, numBytes))
      return fileError(path, "malformed header " + header.rtrim());
    layout.shape.push_back(dim.integer);
  }
  layout.dataBytes = static_cast<uint64_t>(numBytes);

  Tensor shapeOnly;
  shapeOnly.shape = layout.shape;
  uint64_t dataBytes = fileSize - dataStart;
  if (dataBytes < layout.dataBytes)
    return fileError(path, "truncated data (shape " + shapeOnly.shapeString() +
                               " of '" + descr->string + "' needs " +
                               llvm::Twine(layout.dataBytes) +
                               " bytes, file has " + llvm::Twine(dataBytes) +
                               ")");
  if (dataBytes > layout.dataBytes)
    return fileError(path, llvm::Twine(dataBytes - layout.dataBytes) +
                               " unexpected bytes after the data of shape " +
                               shapeOnly.shapeString());
  return layout;
}

/// A .npy file read row by row with pread.
class NpyRows final : public RowSource {
public:
  NpyRows(std::string path, NpyLayout layout, llvm::sys::fs::file_t file)
      : RowSource(path, layout.shape), layout(std::move(layout)), file(file) {}
  ~NpyRows() override { llvm::sys::fs::closeFile(file); }

  Expected<Tensor> next(int64_t count) override {
    count = std::min(count, rowsLeft());
    Tensor t = rowsTensor(count);
    uint64_t rowBytes = rowElements * layout.dtype.size;
    bytes.resize(count * rowBytes);
    uint64_t offset = layout.dataStart + rowsRead * rowBytes;
    for (uint64_t done = 0; done < bytes.size();) {
      Expected<size_t> got = llvm::sys::fs::readNativeFileSlice(
          file, llvm::MutableArrayRef<char>(bytes.data() + done,
                                             bytes.size() - done),
          offset + done);
      if (!got)
        return fileError(sourceName, "cannot read: " +
                                         llvm::toString(got.takeError()));
      if (*got == 0)
        return fileError(sourceName, "the file became shorter while read");
      done += *got;
    }
    if (Error err = convertData(sourceName, layout.dtype, bytes.data(), t.data))
      return std::move(err);
    rowsRead += count;
    return t;
  }

private:
  NpyLayout layout;
  llvm::sys::fs::file_t file;
  std::vector<char> bytes;
};

} // namespace

Expected<Tensor> seq::rt::readNpyBuffer(StringRef file, StringRef path) {
  Expected<NpyLayout> layout = parseNpyHeader(file, file.size(), path);
  if (!layout)
    return layout.takeError();
  Tensor t;
  t.shape = layout->shape;
  t.data.resize(t.numElements());
  if (Error err = convertData(path, layout->dtype,
                              file.data() + layout->dataStart, t.data))
    return std::move(err);
  return t;
}

Expected<std::unique_ptr<RowSource>> seq::rt::openNpyRows(StringRef path) {
  Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file)
    return fileError(path, "cannot read: " + llvm::toString(file.takeError()));
  auto fail = [&](Error e) -> Expected<std::unique_ptr<RowSource>> {
    llvm::sys::fs::closeFile(*file);
    return std::move(e);
  };
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(*file, status))
    return fail(fileError(path, "cannot read: " + ec.message()));
  // The header is at most 12 bytes plus its declared length; read up to
  // 1 MiB, more than any real header.
  std::string head(std::min<uint64_t>(status.getSize(), 1 << 20), '\0');
  Expected<size_t> got = llvm::sys::fs::readNativeFileSlice(
      *file, llvm::MutableArrayRef<char>(head.data(), head.size()), 0);
  if (!got)
    return fail(fileError(path, "cannot read: " +
                                    llvm::toString(got.takeError())));
  head.resize(*got);
  Expected<NpyLayout> layout = parseNpyHeader(head, status.getSize(), path);
  if (!layout)
    return fail(layout.takeError());
  if (layout->shape.empty())
    return fail(fileError(path, "holds a scalar: --run needs an array with "
                                "one row per sample along axis 0"));
  return std::unique_ptr<RowSource>(
      new NpyRows(path.str(), std::move(*layout), *file));
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// An open temporary file receiving '<f4' data for `path`.
class seq::rt::detail::NpyFile {
public:
  std::string path;
  std::vector<int64_t> shape;
  int64_t rowsWritten = 0;

  /// Creates the temporary file next to `path` and writes the v1.0 header.
  static Expected<std::unique_ptr<NpyFile>> open(StringRef path,
                                                 std::vector<int64_t> shape) {
    Expected<OutputFile> file = OutputFile::create(path);
    if (!file)
      return file.takeError();
    std::unique_ptr<NpyFile> npy(
        new NpyFile(path, std::move(shape), std::move(*file)));

    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " +
                         npy->shapeString() + ", }";
    // As numpy does: pad with spaces and a newline so that the data starts at
    // a multiple of 64 bytes.
    size_t preamble = kMagic.size() + 2 + 2;
    header += std::string(64 - (preamble + header.size() + 1) % 64, ' ') + "\n";
    if (header.size() > std::numeric_limits<uint16_t>::max()) {
      llvm::consumeError(npy->finish(/*keep=*/false));
      return fileError(path, "shape " + npy->shapeString() +
                                 " is too long for a version 1.0 header");
    }
    char length[2];
    llvm::support::endian::write16le(length, header.size());
    npy->file.os() << kMagic << '\x01' << '\x00' << StringRef(length, 2) << header;
    return std::move(npy);
  }

  std::string shapeString() const {
    Tensor shapeOnly;
    shapeOnly.shape = shape;
    return shapeOnly.shapeString();
  }

  void writeFloats(const Tensor &t) {
    detail::require(static_cast<int64_t>(t.data.size()) == t.numElements(),
                    "writing a tensor whose data does not match its shape " +
                        t.shapeString());
    std::vector<char> bytes(t.data.size() * 4);
    for (size_t i = 0; i < t.data.size(); ++i)
      llvm::support::endian::write32le(bytes.data() + 4 * i,
                                       llvm::bit_cast<uint32_t>(t.data[i]));
    file.os().write(bytes.data(), bytes.size());
  }

  /// Puts the file in place if `keep`, else removes the temporary.
  Error finish(bool keep) {
    if (keep)
      return file.commit();
    file.discard();
    return Error::success();
  }

private:
  OutputFile file;

  NpyFile(StringRef path, std::vector<int64_t> shape, OutputFile file)
      : path(path.str()), shape(std::move(shape)), file(std::move(file)) {}
};

Error seq::rt::writeNpy(StringRef path, const Tensor &tensor) {
  auto npy = detail::NpyFile::open(path, tensor.shape);
  if (!npy)
    return npy.takeError();
  (*npy)->writeFloats(tensor);
  return (*npy)->finish(/*keep=*/true);
}

NpyWriter::NpyWriter(std::unique_ptr<detail::NpyFile> file)
    : file(std::move(file)) {}
NpyWriter::NpyWriter(NpyWriter &&) noexcept = default;
NpyWriter &NpyWriter::operator=(NpyWriter &&) noexcept = default;

NpyWriter::~NpyWriter() {
  if (file)
    llvm::consumeError(file->finish(/*keep=*/false));
}

Expected<NpyWriter> NpyWriter::create(StringRef path,
                                      std::vector<int64_t> shape) {
  if (shape.empty())
    return fileError(path, "NpyWriter needs a shape of rank >= 1");
  auto npy = detail::NpyFile::open(path, std::move(shape));
  if (!npy)
    return npy.takeError();
  return NpyWriter(std::move(*npy));
}

Error NpyWriter::append(const Tensor &batch) {
  detail::require(file != nullptr, "NpyWriter::append after commit");
  bool rowShapeMatches = batch.shape.size() == file->shape.size() &&
                         std::equal(batch.shape.begin() + 1, batch.shape.end(),
                                    file->shape.begin() + 1);
  if (!rowShapeMatches)
    return fileError(file->path,
                     "cannot append a batch of shape " + batch.shapeString() +
                         " to an array of shape " + file->shapeString());
  if (file->rowsWritten + batch.shape[0] > file->shape[0])
    return fileError(
        file->path, "appending " + llvm::Twine(batch.shape[0]) +
                        " rows after " + llvm::Twine(file->rowsWritten) +
                        " overflows the array of shape " + file->shapeString());
  file->writeFloats(batch);
  file->rowsWritten += batch.shape[0];
  return Error::success();
}

Error NpyWriter::commit() {
  detail::require(file != nullptr, "NpyWriter::commit called twice");
  std::unique_ptr<detail::NpyFile> done = std::move(file);
  if (done->rowsWritten != done->shape[0]) {
    llvm::consumeError(done->finish(/*keep=*/false));
    return fileError(done->path, "only " + llvm::Twine(done->rowsWritten) +
                                     " of " + llvm::Twine(done->shape[0]) +
                                     " rows were appended");
  }
  return done->finish(/*keep=*/true);
}

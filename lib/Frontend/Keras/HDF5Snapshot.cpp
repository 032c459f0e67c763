//===- HDF5Snapshot.cpp - Read an HDF5 image in the sandboxed reader ------===//
//
// The parent side: start the reader, decode its records. The records come
// from a process that parsed hostile bytes, so they are decoded as
// untrusted too: every length and id is checked.
//
//===----------------------------------------------------------------------===//

#include "HDF5Snapshot.h"

#include "llvm/ADT/StringRef.h"

#include <cstring>

using llvm::Expected;
using llvm::StringRef;

namespace seq::keras::hdf5 {
namespace {

llvm::Error fail(StringRef file, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + file + "': " + message);
}

class Decoder {
public:
  explicit Decoder(const std::vector<char> &bytes) : bytes(bytes) {}

  bool done() const { return at == bytes.size(); }
  bool ok() const { return good; }

  char tag() {
    if (!need(1))
      return 0;
    return bytes[at++];
  }
  uint64_t u64() {
    if (!need(8))
      return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= uint64_t(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
    at += 8;
    return v;
  }
  std::string str() {
    uint64_t n = u64();
    if (!need(n))
      return {};
    std::string s(bytes.data() + at, n);
    at += n;
    return s;
  }
  std::vector<float> floats() {
    uint64_t n = u64();
    if (n > (bytes.size() - at) / sizeof(float) || !need(n * sizeof(float)))
      return fail(), std::vector<float>();
    std::vector<float> v(n);
    if (n) // memcpy's pointers must not be null, even for no bytes.
      std::memcpy(v.data(), bytes.data() + at, n * sizeof(float));
    at += n * sizeof(float);
    return v;
  }
  /// A count of items that each take at least `minBytes` more bytes.
  uint64_t count(uint64_t minBytes) {
    uint64_t n = u64();
    if (n > (bytes.size() - at) / minBytes)
      return fail(), 0;
    return n;
  }
  void fail() { good = false; }

private:
  bool need(uint64_t n) {
    if (good && n <= bytes.size() - at)
      return true;
    good = false;
    return false;
  }
  const std::vector<char> &bytes;
  size_t at = 0;
  bool good = true;
};

} // namespace

Expected<Snapshot> readSnapshot(llvm::ArrayRef<char> image,
                                StringRef displayName) {
  uint64_t budget = readerByteBudget(image.size());
  SandboxLimits limits = readerLimits(image.size());
  SandboxResult result = runSandboxed(
      [&](SandboxWriter &out) { writeSnapshot(image, budget, out); }, limits);
  if (result.status == SandboxResult::NotStarted)
    return fail(displayName, "cannot start the HDF5 reader: " + result.detail);

  Snapshot snapshot;
  std::string reading = "the file";
  bool ended = false;
  Decoder in(result.output);
  auto object = [&](uint64_t id) -> Object * {
    if (id >= snapshot.objects.size()) {
      in.fail();
      return nullptr;
    }
    return &snapshot.objects[id];
  };
  while (in.ok() && !in.done() && !ended) {
    switch (in.tag()) {
    case record::Progress:
      reading = in.str();
      break;
    case record::Refusal:
      return fail(displayName, in.str());
    case record::End:
      ended = true;
      break;
    case record::Object: {
      uint64_t id = in.u64();
      uint64_t kind = in.u64();
      if (id != snapshot.objects.size() || kind > Object::Other) {
        in.fail();
        break;
      }
      snapshot.objects.emplace_back().kind = static_cast<Object::Kind>(kind);
      break;
    }
    case record::Attribute: {
      Object *o = object(in.u64());
      Attribute a;
      a.name = in.str();
      a.dtype = in.str();
      a.isString = in.u64() != 0;
      a.rank = static_cast<int>(in.u64() & 0xff);
      a.count = in.u64();
      uint64_t strings = in.count(8);
      for (uint64_t i = 0; i < strings && in.ok(); ++i)
        a.strings.push_back(in.str());
      bool hasBytes = in.u64() != 0;
      std::string bytes = in.str();
      if (hasBytes)
        a.bytes = std::move(bytes);
      a.readError = in.str();
      if (o && in.ok())
        o->attributes.push_back(std::move(a));
      break;
    }
    case record::Links: {
      Object *o = object(in.u64());
      uint64_t n = in.count(16);
      for (uint64_t i = 0; i < n && in.ok(); ++i) {
        std::string name = in.str();
        int64_t child = static_cast<int64_t>(in.u64());
        if (o)
          o->children.emplace_back(std::move(name), child);
      }
      break;
    }
    case record::Dataset: {
      Object *o = object(in.u64());
      if (!o)
        break;
      o->dtype = in.str();
      o->numeric = in.u64() != 0;
      o->null = in.u64() != 0;
      uint64_t rank = in.count(8);
      for (uint64_t i = 0; i < rank && in.ok(); ++i)
        o->shape.push_back(static_cast<int64_t>(in.u64()));
      o->data = in.floats();
      o->readError = in.str();
      uint64_t elements = 1;
      for (int64_t dim : o->shape)
        if (dim < 0 || __builtin_mul_overflow(elements, uint64_t(dim), &elements))
          in.fail();
      if (o->readError.empty() && o->numeric && !o->null &&
          elements != o->data.size())
        in.fail();
      break;
    }
    default:
      in.fail();
    }
  }
  // Links must name objects that exist, and a root must.
  for (const Object &o : snapshot.objects)
    for (const auto &link : o.children)
      if (link.second < -1 ||
          link.second >= static_cast<int64_t>(snapshot.objects.size()))
        in.fail();
  if (ended && in.ok() && !snapshot.objects.empty() &&
      snapshot.objects[0].kind == Object::Group)
    return std::move(snapshot);

  switch (result.status) {
  case SandboxResult::TimedOut:
    return fail(displayName,
                "the HDF5 library did not finish reading " + reading +
                    " within " + llvm::Twine(limits.seconds) +
                    " s (the file is corrupt or hostile)");
  case SandboxResult::TooMuchOutput:
    return fail(displayName, "the HDF5 reader produced more data than a file "
                             "of this size can hold (the file is corrupt or "
                             "hostile)");
  case SandboxResult::Crashed:
    return fail(displayName, "the HDF5 library failed while reading " +
                                 reading + " (the file is corrupt or hostile)");
  default:
    return fail(displayName, "the HDF5 reader sent malformed data while "
                             "reading " +
                                 reading + " (the file is corrupt or hostile)");
  }
}

} // namespace seq::keras::hdf5

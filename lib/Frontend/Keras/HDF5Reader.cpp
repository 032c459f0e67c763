//===- HDF5Reader.cpp - Walk an HDF5 file image with libhdf5 --------------===//
//
// Runs inside the sandboxed reader (see Sandbox.h): libhdf5 is only ever
// called here. Every object reachable from the root is visited once (object
// addresses are remembered, so hard-link cycles end), and its records are
// streamed to the parent as soon as they are read.
//
//===----------------------------------------------------------------------===//

#include "HDF5Snapshot.h"

#include "seq/Frontend/Keras/HDF5Handle.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <hdf5.h>

#include <optional>

#include <hdf5_hl.h>
#include <sys/mman.h>
#include <unistd.h>

using llvm::StringRef;

namespace seq::keras::hdf5 {
namespace {

constexpr int kMaxDepth = 64;
constexpr uint64_t kMaxObjects = 200000;
constexpr int kMaxRank = 32;

class Encoder {
public:
  explicit Encoder(SandboxWriter &out) : out(out) {}
  void tag(char t) { out.write(&t, 1); }
  void u64(uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; ++i)
      b[i] = static_cast<unsigned char>(v >> (8 * i));
    out.write(b, 8);
  }
  void str(StringRef s) {
    u64(s.size());
    out.write(s.data(), s.size());
  }
  void floats(const std::vector<float> &v) {
    u64(v.size());
    out.write(v.data(), v.size() * sizeof(float));
  }
  void flush() { out.flush(); }

private:
  SandboxWriter &out;
};

std::string takeError() {
  std::string message;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned depth, const H5E_error2_t *entry, void *data) -> herr_t {
        if (depth == 0 && entry->desc)
          *static_cast<std::string *>(data) = entry->desc;
        return 0;
      },
      &message);
  H5Eclear2(H5E_DEFAULT);
  return message.empty() ? "unknown HDF5 error" : message;
}

/// A numpy-style name for an HDF5 type: "float32", "uint8", "string", ...
std::string dtypeName(hid_t type) {
  std::string bits = std::to_string(H5Tget_size(type) * 8);
  switch (H5Tget_class(type)) {
  case H5T_FLOAT:
    return "float" + bits;
  case H5T_INTEGER:
    return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + bits;
  case H5T_STRING:
    return "string";
  case H5T_COMPOUND:
    return "compound";
  case H5T_ENUM:
    return "enum"; // h5py stores numpy bool this way.
  case H5T_ARRAY:
    return "array";
  case H5T_VLEN:
    return "vlen";
  case H5T_OPAQUE:
    return "opaque";
  case H5T_REFERENCE:
    return "reference";
  case H5T_BITFIELD:
    return "bitfield";
  default:
    return "unknown";
  }
}

std::string trimPadding(StringRef text, H5T_str_t pad) {
  switch (pad) {
  case H5T_STR_NULLTERM:
    return text.take_until([](char c) { return c == '\0'; }).str();
  case H5T_STR_SPACEPAD:
    return text.rtrim(StringRef(" \0", 2)).str();
  default:
    return text.rtrim('\0').str();
  }
}

herr_t collectName(hid_t, const char *name, const void *, void *names) {
  static_cast<std::vector<std::string> *>(names)->push_back(name);
  return 0;
}

HDF5Handle creationProperties(hid_t object) {
  switch (H5Iget_type(object)) {
  case H5I_GROUP:
    return HDF5Handle(H5Gget_create_plist(object));
  case H5I_DATASET:
    return HDF5Handle(H5Dget_create_plist(object));
  case H5I_DATATYPE:
    return HDF5Handle(H5Tget_create_plist(object));
  default:
    return HDF5Handle();
  }
}

/// Names in creation order where `object` tracks it (per `getOrder`), else
/// in name order: asking an untracked object for creation order can
/// silently give storage order instead, so the property list decides.
template <typename Iterate>
std::optional<std::vector<std::string>>
namesInOrder(hid_t object, herr_t (*getOrder)(hid_t, unsigned *),
             Iterate iterate) {
  HDF5Handle properties = creationProperties(object);
  unsigned flags = 0;
  bool tracked = properties.valid() &&
                 getOrder(properties.get(), &flags) >= 0 &&
                 (flags & H5P_CRT_ORDER_TRACKED);
  std::vector<std::string> names;
  if (tracked && iterate(H5_INDEX_CRT_ORDER, names) >= 0)
    return names;
  H5Eclear2(H5E_DEFAULT);
  names.clear();
  if (iterate(H5_INDEX_NAME, names) >= 0)
    return names;
  return std::nullopt;
}

std::string childPath(const std::string &parent, StringRef name) {
  return (parent == "/" ? "/" : parent + "/") + name.str();
}

class Walker {
public:
  Walker(SandboxWriter &out, uint64_t budget) : enc(out), budget(budget) {}

  /// Walks the file; false once a refusal was sent.
  bool walk(hid_t file) {
    HDF5Handle root(H5Oopen(file, "/", H5P_DEFAULT));
    if (!root.valid())
      return refuse("cannot open the root group: " + takeError());
    return visit(root.get(), "/", 0).has_value();
  }

  bool refuse(const std::string &message) {
    enc.tag(record::Refusal);
    enc.str(message);
    return false;
  }

private:
  void progress(const std::string &what) {
    enc.tag(record::Progress);
    enc.str(what);
    // The parent must see this before a crash in what follows.
    enc.flush();
  }

  /// Takes `bytes` from the budget; false (with a refusal sent) when over.
  bool spend(uint64_t bytes, const std::string &what) {
    if (bytes <= budget) {
      budget -= bytes;
      return true;
    }
    refuse(what + " declares " + std::to_string(bytes) +
           " bytes of data, more than a file of this size can hold (the "
           "file is corrupt or hostile)");
    return false;
  }

  /// The object's id, visiting it first if it is new; nullopt after a
  /// refusal.
  std::optional<int64_t> visit(hid_t object, const std::string &path,
                               int depth) {
    H5O_info_t info;
    if (H5Oget_info2(object, &info, H5O_INFO_BASIC) < 0) {
      refuse("cannot read HDF5 object '" + path + "': " + takeError());
      return std::nullopt;
    }
    // HDF5 1.10's object address (1.12 replaced it with a token).
    uint64_t address = info.addr;
    auto known = ids.find(address);
    if (known != ids.end())
      return known->second;
    if (depth > kMaxDepth || nextId >= kMaxObjects) {
      refuse("HDF5 object '" + path + "' lies deeper than " +
             std::to_string(kMaxDepth) + " groups or past " +
             std::to_string(kMaxObjects) + " objects");
      return std::nullopt;
    }
    int64_t id = nextId++;
    ids[address] = id;
    H5I_type_t type = H5Iget_type(object);
    Object::Kind kind = type == H5I_GROUP     ? Object::Group
                        : type == H5I_DATASET ? Object::Dataset
                                              : Object::Other;
    enc.tag(record::Object);
    enc.u64(id);
    enc.u64(kind);
    if (!attributes(object, id, path))
      return std::nullopt;
    if (kind == Object::Group && !links(object, id, path, depth))
      return std::nullopt;
    if (kind == Object::Dataset && !dataset(object, id, path))
      return std::nullopt;
    return id;
  }

  bool links(hid_t group, int64_t id, const std::string &path, int depth) {
    progress("the links of group '" + path + "'");
    auto names = namesInOrder(
        group, H5Pget_link_creation_order,
        [&](H5_index_t index, std::vector<std::string> &names) {
          return H5Literate(
              group, index, H5_ITER_INC, nullptr,
              [](hid_t g, const char *n, const H5L_info_t *i, void *d) {
                return collectName(g, n, i, d);
              },
              &names);
        });
    if (!names)
      return refuse("cannot list HDF5 group '" + path + "': " + takeError());
    std::vector<std::pair<std::string, int64_t>> children;
    for (const std::string &name : *names) {
      std::string child = childPath(path, name);
      H5L_info_t link;
      if (H5Lget_info(group, name.c_str(), &link, H5P_DEFAULT) < 0)
        return refuse("cannot read HDF5 link '" + child + "': " + takeError());
      if (link.type != H5L_TYPE_HARD && link.type != H5L_TYPE_SOFT)
        return refuse("HDF5 link '" + child + "' is " +
                      (link.type == H5L_TYPE_EXTERNAL
                           ? std::string("an external link to another file")
                           : std::string("a user-defined link")) +
                      ": seqc reads only objects inside the model file");
      progress("HDF5 object '" + child + "'");
      HDF5Handle object(H5Oopen(group, name.c_str(), H5P_DEFAULT));
      if (!object.valid()) {
        H5Eclear2(H5E_DEFAULT); // a dangling soft link: listed, not there
        children.emplace_back(name, -1);
        continue;
      }
      std::optional<int64_t> childId = visit(object.get(), child, depth + 1);
      if (!childId)
        return false;
      children.emplace_back(name, *childId);
    }
    enc.tag(record::Links);
    enc.u64(id);
    enc.u64(children.size());
    for (auto &[name, childId] : children) {
      enc.str(name);
      enc.u64(static_cast<uint64_t>(childId));
    }
    return true;
  }

  bool attributes(hid_t object, int64_t id, const std::string &path) {
    progress("the attributes of '" + path + "'");
    auto names = namesInOrder(
        object, H5Pget_attr_creation_order,
        [&](H5_index_t index, std::vector<std::string> &names) {
          return H5Aiterate2(
              object, index, H5_ITER_INC, nullptr,
              [](hid_t o, const char *n, const H5A_info_t *i, void *d) {
                return collectName(o, n, i, d);
              },
              &names);
        });
    if (!names)
      return refuse("cannot list the attributes of HDF5 object '" + path +
                    "': " + takeError());
    for (const std::string &name : *names)
      if (!attribute(object, id, path, name))
        return false;
    return true;
  }

  bool attribute(hid_t object, int64_t id, const std::string &path,
                 const std::string &name) {
    std::string label = "HDF5 attribute '" + name + "' of '" + path + "'";
    progress(label);
    Attribute a;
    a.name = name;
    HDF5Handle attr(H5Aopen(object, name.c_str(), H5P_DEFAULT));
    if (!attr.valid())
      return refuse("cannot open " + label + ": " + takeError());
    HDF5Handle type(H5Aget_type(attr.get()));
    HDF5Handle space(H5Aget_space(attr.get()));
    hssize_t count = H5Sget_simple_extent_npoints(space.get());
    int rank = H5Sget_simple_extent_ndims(space.get());
    if (!type.valid() || !space.valid() || count < 0 || rank < 0 ||
        rank > kMaxRank)
      return refuse("cannot read " + label + ": " + takeError());
    a.dtype = dtypeName(type.get());
    a.rank = rank;
    a.count = static_cast<uint64_t>(count);
    H5T_class_t cls = H5Tget_class(type.get());
    size_t size = H5Tget_size(type.get());
    a.isString = cls == H5T_STRING;
    if (a.isString) {
      bool variable = H5Tis_variable_str(type.get()) > 0;
      // Variable-length strings are counted again as they are decoded.
      if (!spend(a.count * (variable ? sizeof(char *) : size) , label))
        return false;
      readStrings(attr.get(), type.get(), variable, a);
    } else if (cls == H5T_INTEGER && size == 1 && rank <= 1) {
      if (!spend(a.count, label))
        return false;
      std::string bytes(a.count, '\0');
      if (a.count > 0 && H5Aread(attr.get(), type.get(), bytes.data()) < 0)
        a.readError = takeError();
      else
        a.bytes = std::move(bytes);
    }
    enc.tag(record::Attribute);
    enc.u64(id);
    enc.str(a.name);
    enc.str(a.dtype);
    enc.u64(a.isString);
    enc.u64(a.rank);
    enc.u64(a.count);
    enc.u64(a.strings.size());
    for (const std::string &s : a.strings)
      enc.str(s);
    enc.u64(a.bytes.has_value());
    enc.str(a.bytes.value_or(""));
    enc.str(a.readError);
    return true;
  }

  void readStrings(hid_t attr, hid_t type, bool variable, Attribute &a) {
    if (a.count == 0)
      return;
    if (variable) {
      HDF5Handle memType(H5Tcopy(H5T_C_S1));
      H5Tset_size(memType.get(), H5T_VARIABLE);
      H5Tset_cset(memType.get(), H5Tget_cset(type));
      std::vector<char *> pointers(a.count, nullptr);
      if (H5Aread(attr, memType.get(), pointers.data()) < 0) {
        a.readError = takeError();
        return;
      }
      for (char *pointer : pointers) {
        a.strings.emplace_back(pointer ? pointer : "");
        H5free_memory(pointer);
      }
      return;
    }
    size_t size = H5Tget_size(type);
    std::vector<char> buffer(size * a.count);
    if (H5Aread(attr, type, buffer.data()) < 0) {
      a.readError = takeError();
      return;
    }
    H5T_str_t pad = H5Tget_strpad(type);
    for (uint64_t i = 0; i < a.count; ++i)
      a.strings.push_back(
          trimPadding(StringRef(buffer.data() + i * size, size), pad));
  }

  bool dataset(hid_t dataset, int64_t id, const std::string &path) {
    std::string label = "HDF5 dataset '" + path + "'";
    HDF5Handle properties(H5Dget_create_plist(dataset));
    if (!properties.valid())
      return refuse("cannot read " + label + ": " + takeError());
    if (H5Pget_layout(properties.get()) == H5D_VIRTUAL)
      return refuse(label + " is a virtual dataset mapped from other files: "
                            "seqc reads only data inside the model file");
    int external = H5Pget_external_count(properties.get());
    if (external != 0) {
      char name[256] = "?";
      off_t offset;
      hsize_t size;
      if (external > 0)
        H5Pget_external(properties.get(), 0, sizeof name, name, &offset,
                        &size);
      name[sizeof name - 1] = 0;
      return refuse(label + " keeps its data in an external file ('" +
                    std::string(name) +
                    "'): seqc reads only data inside the model file");
    }
    HDF5Handle type(H5Dget_type(dataset));
    HDF5Handle space(H5Dget_space(dataset));
    if (!type.valid() || !space.valid())
      return refuse("cannot read " + label + ": " + takeError());
    Object d;
    d.dtype = dtypeName(type.get());
    H5T_class_t cls = H5Tget_class(type.get());
    d.numeric = cls == H5T_FLOAT || cls == H5T_INTEGER;
    d.null = H5Sget_simple_extent_type(space.get()) == H5S_NULL;
    int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0 || rank > kMaxRank)
      return refuse(label + " has an invalid rank");
    std::vector<hsize_t> dims(rank);
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    uint64_t count = 1;
    for (hsize_t dim : dims) {
      if (dim > (uint64_t(1) << 62) ||
          __builtin_mul_overflow(count, static_cast<uint64_t>(dim), &count))
        return refuse(label + " declares an impossible shape");
      d.shape.push_back(static_cast<int64_t>(dim));
    }
    // Training state (optimizer slots) is never needed: not loaded.
    bool skipped = StringRef(path).starts_with("/optimizer_weights/") ||
                   StringRef(path).starts_with("/optimizer/");
    if (skipped)
      d.readError = "optimizer state is not loaded";
    else if (d.numeric && !d.null && count > 0) {
      if (count > (uint64_t(1) << 61) || !spend(count * sizeof(float), label))
        return count > (uint64_t(1) << 61)
                   ? refuse(label + " declares an impossible shape")
                   : false;
      progress(label);
      d.data.resize(count);
      if (H5Dread(dataset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                  d.data.data()) < 0) {
        d.readError = takeError();
        d.data.clear();
      }
    }
    enc.tag(record::Dataset);
    enc.u64(id);
    enc.str(d.dtype);
    enc.u64(d.numeric);
    enc.u64(d.null);
    enc.u64(d.shape.size());
    for (int64_t dim : d.shape)
      enc.u64(dim);
    enc.floats(d.data);
    enc.str(d.readError);
    return true;
  }

  Encoder enc;
  uint64_t budget;
  llvm::DenseMap<uint64_t, int64_t> ids;
  uint64_t nextId = 0;
};

} // namespace

void writeSnapshot(llvm::ArrayRef<char> image, uint64_t budget,
                   SandboxWriter &out) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Walker walker(out, budget);
  // The core driver reads the image from memory (a copy: the image stays
  // read-only), so no file is opened here at all.
  HDF5Handle access(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_fapl_core(access.get(), 1 << 16, /*backing_store=*/0);
  H5Pset_file_image(access.get(), const_cast<char *>(image.data()),
                    image.size());
  HDF5Handle file(H5Fopen("model-file-image", H5F_ACC_RDONLY, access.get()));
  if (!file.valid()) {
    walker.refuse("cannot open as an HDF5 file: " + takeError() +
                  " (the file may be truncated or corrupt)");
    return;
  }
  if (!walker.walk(file.get()))
    return;
  Encoder(out).tag(record::End);
}


void writeDatasetRows(llvm::ArrayRef<char> image, bool imageIsFileMapping,
                      llvm::StringRef fileName, llvm::StringRef datasetPath,
                      SandboxWriter &out) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Encoder enc(out);
  std::string file = "'" + fileName.str() + "'";
  std::string label = "'" + fileName.str() + ":" + datasetPath.str() + "'";
  auto refuse = [&](const std::string &message) {
    enc.tag(record::Refusal);
    enc.str(message);
  };
  // Not copied: the pages of the file mapping are read as needed and given
  // back after each chunk, so memory stays bounded however large the file.
  HDF5Handle image5(H5LTopen_file_image(
      const_cast<char *>(image.data()), image.size(),
      H5LT_FILE_IMAGE_DONT_COPY | H5LT_FILE_IMAGE_DONT_RELEASE));
  if (!image5.valid())
    return refuse(file + ": cannot open as an HDF5 file: " + takeError() +
                  " (the file may be truncated or corrupt)");
  hid_t h5 = image5.get();
  std::string path = datasetPath.str();
  // H5Lexists fails on a missing intermediate group: check each prefix.
  llvm::SmallVector<StringRef> parts;
  datasetPath.split(parts, '/', -1, false);
  std::string prefix;
  for (StringRef part : parts) {
    prefix += "/" + part.str();
    if (H5Lexists(h5, prefix.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return refuse(file + " has no dataset '" + path + "'");
    }
  }
  H5L_info_t link;
  if (H5Lget_info(h5, path.c_str(), &link, H5P_DEFAULT) < 0 ||
      (link.type != H5L_TYPE_HARD && link.type != H5L_TYPE_SOFT))
    return refuse(label + " is a link outside the file: seqc reads only "
                          "data inside it");
  HDF5Handle dataset(H5Dopen2(h5, path.c_str(), H5P_DEFAULT));
  if (!dataset.valid())
    return refuse(file + " has no dataset '" + path + "' (it is a group)");
  HDF5Handle properties(H5Dget_create_plist(dataset.get()));
  if (H5Pget_layout(properties.get()) == H5D_VIRTUAL ||
      H5Pget_external_count(properties.get()) != 0)
    return refuse(label + " keeps its data outside the file: seqc reads only "
                          "data inside it");
  HDF5Handle type(H5Dget_type(dataset.get()));
  HDF5Handle space(H5Dget_space(dataset.get()));
  std::string dtype = dtypeName(type.get());
  if (dtype != "float32")
    return refuse("dataset '" + path + "' in " + file + " is " + dtype +
                  ", not float32: convert it first (e.g. numpy's "
                  "astype('float32'))");
  int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1 || rank > kMaxRank)
    return refuse(label + " has rank " + std::to_string(rank) +
                  ": --run needs one row per sample along axis 0");
  std::vector<hsize_t> dims(rank);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  uint64_t rowElements = 1;
  for (int i = 1; i < rank; ++i)
    if (__builtin_mul_overflow(rowElements, uint64_t(dims[i]), &rowElements) ||
        rowElements > (uint64_t(1) << 40))
      return refuse(label + " declares an impossible shape");
  enc.tag('H');
  enc.u64(rank);
  for (hsize_t d : dims)
    enc.u64(d);

  // Chunks of about 4 MiB, read by hyperslab.
  uint64_t chunkRows = std::max<uint64_t>(1, (uint64_t(1) << 20) /
                                                 std::max<uint64_t>(rowElements, 1));
  // Whole pages of a file mapping only: on heap memory MADV_DONTNEED would
  // zero live data.
  uintptr_t page = sysconf(_SC_PAGESIZE);
  uintptr_t begin = (reinterpret_cast<uintptr_t>(image.data()) + page - 1) & ~(page - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(image.data()) + image.size()) & ~(page - 1);
  std::vector<float> rows;
  for (uint64_t first = 0; first < dims[0]; first += chunkRows) {
    uint64_t count = std::min<uint64_t>(chunkRows, dims[0] - first);
    std::vector<hsize_t> start(rank, 0), extent(dims);
    start[0] = first;
    extent[0] = count;
    HDF5Handle fileSpace(H5Scopy(space.get()));
    HDF5Handle memory(H5Screate_simple(rank, extent.data(), nullptr));
    rows.resize(count * rowElements);
    if (H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, start.data(),
                            nullptr, extent.data(), nullptr) < 0 ||
        (!rows.empty() &&
         H5Dread(dataset.get(), H5T_NATIVE_FLOAT, memory.get(), fileSpace.get(),
                 H5P_DEFAULT, rows.data()) < 0))
      return refuse("cannot read rows " + std::to_string(first) + " to " +
                    std::to_string(first + count - 1) + " of " + label +
                    ": " + takeError());
    enc.tag('C');
    enc.u64(count);
    enc.floats(rows);
    if (imageIsFileMapping && end > begin)
      madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
  }
  enc.tag(record::End);
}

} // namespace seq::keras::hdf5

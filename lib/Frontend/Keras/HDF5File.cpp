//===- HDF5File.cpp - Read-only access to HDF5 files ----------------------===//

#include "seq/Frontend/Keras/HDF5File.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"

#include <hdf5.h>
#include <hdf5_hl.h>

#include <optional>
#include <utility>

using namespace seq::keras;
using llvm::Expected;
using llvm::StringRef;

HDF5Handle::HDF5Handle(HDF5Handle &&other) noexcept
    : id(std::exchange(other.id, H5I_INVALID_HID)) {}

HDF5Handle &HDF5Handle::operator=(HDF5Handle &&other) noexcept {
  std::swap(id, other.id);
  return *this;
}

HDF5Handle::~HDF5Handle() {
  // H5Idec_ref closes an identifier of any kind when its count reaches zero.
  if (id >= 0)
    H5Idec_ref(id);
}

namespace {

llvm::Error fileError(StringRef file, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + file + "': " + message);
}

/// Keeps HDF5 from printing its error stack; failures become llvm::Errors.
void silenceHDF5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

/// The most specific message on HDF5's error stack (e.g. "truncated file:
/// eof = ..."), clearing the stack.
std::string takeHDF5Error() {
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

/// "/a/b" for "a/b", "/a/b/" or "//a//b"; "/" for the root group.
std::string canonicalPath(StringRef objectPath) {
  llvm::SmallVector<StringRef> parts;
  objectPath.split(parts, '/', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  if (parts.empty())
    return "/";
  std::string path;
  for (StringRef part : parts)
    path += ("/" + part).str();
  return path;
}

std::string describeAttribute(StringRef objectPath, StringRef name) {
  std::string object = canonicalPath(objectPath);
  std::string label = ("HDF5 attribute '" + name + "'").str();
  if (object != "/")
    label += " of '" + object + "'";
  return label;
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

/// Reads the `count` elements of a string attribute; nullopt if HDF5 fails.
std::optional<std::vector<std::string>> readStrings(hid_t attr, hid_t type,
                                                    size_t count) {
  std::vector<std::string> strings;
  if (H5Tis_variable_str(type) > 0) {
    HDF5Handle memType(H5Tcopy(H5T_C_S1));
    H5Tset_size(memType.get(), H5T_VARIABLE);
    H5Tset_cset(memType.get(), H5Tget_cset(type));
    std::vector<char *> pointers(count, nullptr);
    if (H5Aread(attr, memType.get(), pointers.data()) < 0)
      return std::nullopt;
    for (char *pointer : pointers) {
      strings.emplace_back(pointer ? pointer : "");
      H5free_memory(pointer);
    }
    return strings;
  }
  size_t size = H5Tget_size(type);
  std::vector<char> buffer(size * count);
  if (count > 0 && H5Aread(attr, type, buffer.data()) < 0)
    return std::nullopt;
  H5T_str_t pad = H5Tget_strpad(type);
  for (size_t i = 0; i < count; ++i)
    strings.push_back(
        trimPadding(StringRef(buffer.data() + i * size, size), pad));
  return strings;
}

herr_t collectLinkName(hid_t, const char *name, const H5L_info_t *,
                       void *names) {
  static_cast<std::vector<std::string> *>(names)->push_back(name);
  return 0;
}

herr_t collectAttributeName(hid_t, const char *name, const H5A_info_t *,
                            void *names) {
  static_cast<std::vector<std::string> *>(names)->push_back(name);
  return 0;
}

/// The creation property list of an open group, dataset or named datatype.
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

/// Collects names in creation order if `object` tracks it (per `getOrder`,
/// e.g. H5Pget_link_creation_order), else in name order. Asking for creation
/// order on an untracked object can succeed with storage order instead, so
/// the property list decides.
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
  // Dense storage without a creation-order index cannot iterate by it.
  if (tracked && iterate(H5_INDEX_CRT_ORDER, names) >= 0)
    return names;
  H5Eclear2(H5E_DEFAULT);
  names.clear();
  if (iterate(H5_INDEX_NAME, names) >= 0)
    return names;
  return std::nullopt;
}

/// H5I_GROUP, H5I_DATASET, ... for an existing object; opening it avoids
/// H5Oget_info_by_name, whose signature differs between HDF5 1.10 and 1.12.
H5I_type_t objectType(hid_t file, StringRef path) {
  HDF5Handle object(H5Oopen(file, canonicalPath(path).c_str(), H5P_DEFAULT));
  if (!object.valid()) {
    H5Eclear2(H5E_DEFAULT);
    return H5I_BADID;
  }
  return H5Iget_type(object.get());
}

} // namespace

Expected<HDF5File> HDF5File::open(StringRef path) {
  silenceHDF5();
  if (llvm::sys::fs::is_directory(path))
    return fileError(path, "is a directory, not an HDF5 file");
  if (!llvm::sys::fs::exists(path))
    return fileError(path, "no such file");
  HDF5Handle access(H5Pcreate(H5P_FILE_ACCESS));
  // Reading needs no lock, and locking fails on some network file systems.
  H5Pset_file_locking(access.get(), false, true);
  std::string pathString = path.str();
  HDF5Handle file(H5Fopen(pathString.c_str(), H5F_ACC_RDONLY, access.get()));
  if (!file.valid())
    return fileError(path, "cannot open as an HDF5 file: " + takeHDF5Error());
  return HDF5File(std::move(file), pathString);
}

Expected<HDF5File> HDF5File::openImage(llvm::ArrayRef<char> bytes,
                                       StringRef displayName) {
  silenceHDF5();
  if (bytes.empty())
    return fileError(displayName, "is empty, not an HDF5 file");
  // Without H5LT_FILE_IMAGE_DONT_COPY HDF5 copies the image and never writes
  // to `bytes`.
  HDF5Handle file(
      H5LTopen_file_image(const_cast<char *>(bytes.data()), bytes.size(), 0));
  if (!file.valid())
    return fileError(displayName,
                     "cannot open as an HDF5 file: " + takeHDF5Error());
  return HDF5File(std::move(file), displayName.str());
}

llvm::Error HDF5File::error(const llvm::Twine &message) const {
  return fileError(displayName, message);
}

bool HDF5File::exists(StringRef objectPath) const {
  // H5Lexists fails instead of answering false when an intermediate group is
  // missing, so check every prefix; H5Oexists_by_name catches dangling links.
  llvm::SmallVector<StringRef> parts;
  objectPath.split(parts, '/', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::string prefix;
  for (StringRef part : parts) {
    prefix += ("/" + part).str();
    if (H5Lexists(file.get(), prefix.c_str(), H5P_DEFAULT) <= 0 ||
        H5Oexists_by_name(file.get(), prefix.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
  }
  return true;
}

bool HDF5File::isGroup(StringRef objectPath) const {
  return exists(objectPath) && objectType(file.get(), objectPath) == H5I_GROUP;
}

bool HDF5File::isDataset(StringRef objectPath) const {
  return exists(objectPath) &&
         objectType(file.get(), objectPath) == H5I_DATASET;
}

Expected<HDF5Handle> HDF5File::openObject(StringRef objectPath) const {
  std::string path = canonicalPath(objectPath);
  if (!exists(objectPath))
    return error("no HDF5 object '" + path + "'");
  HDF5Handle object(H5Oopen(file.get(), path.c_str(), H5P_DEFAULT));
  if (!object.valid())
    return error("cannot open HDF5 object '" + path + "': " + takeHDF5Error());
  return std::move(object);
}

Expected<std::vector<std::string>>
HDF5File::children(StringRef groupPath) const {
  auto group = openObject(groupPath);
  if (!group)
    return group.takeError();
  if (H5Iget_type(group->get()) != H5I_GROUP)
    return error("HDF5 object '" + canonicalPath(groupPath) +
                 "' is not a group");
  auto names =
      namesInOrder(group->get(), H5Pget_link_creation_order,
                   [&](H5_index_t index, auto &names) {
                     return H5Literate(group->get(), index, H5_ITER_INC,
                                       nullptr, collectLinkName, &names);
                   });
  if (!names)
    return error("cannot list HDF5 group '" + canonicalPath(groupPath) +
                 "': " + takeHDF5Error());
  return std::move(*names);
}

bool HDF5File::hasAttribute(StringRef objectPath, StringRef name) const {
  if (!exists(objectPath))
    return false;
  std::string nameString = name.str();
  if (H5Aexists_by_name(file.get(), canonicalPath(objectPath).c_str(),
                        nameString.c_str(), H5P_DEFAULT) > 0)
    return true;
  H5Eclear2(H5E_DEFAULT);
  return false;
}

Expected<std::vector<std::string>>
HDF5File::attributeNames(StringRef objectPath) const {
  auto object = openObject(objectPath);
  if (!object)
    return object.takeError();
  auto names =
      namesInOrder(object->get(), H5Pget_attr_creation_order,
                   [&](H5_index_t index, auto &names) {
                     return H5Aiterate2(object->get(), index, H5_ITER_INC,
                                        nullptr, collectAttributeName, &names);
                   });
  if (!names)
    return error("cannot list the attributes of HDF5 object '" +
                 canonicalPath(objectPath) + "': " + takeHDF5Error());
  return std::move(*names);
}

Expected<HDF5Handle> HDF5File::openAttribute(StringRef objectPath,
                                             StringRef name) const {
  std::string path = canonicalPath(objectPath);
  if (!exists(objectPath))
    return error("no HDF5 object '" + path + "'");
  if (!hasAttribute(objectPath, name))
    return error("HDF5 object '" + path + "' has no attribute '" + name + "'");
  std::string nameString = name.str();
  HDF5Handle attr(H5Aopen_by_name(file.get(), path.c_str(), nameString.c_str(),
                                  H5P_DEFAULT, H5P_DEFAULT));
  if (!attr.valid())
    return error("cannot open " + describeAttribute(objectPath, name) + ": " +
                 takeHDF5Error());
  return std::move(attr);
}

Expected<std::string> HDF5File::readStringAttribute(StringRef objectPath,
                                                    StringRef name) const {
  auto attr = openAttribute(objectPath, name);
  if (!attr)
    return attr.takeError();
  HDF5Handle type(H5Aget_type(attr->get()));
  HDF5Handle space(H5Aget_space(attr->get()));
  hssize_t count = H5Sget_simple_extent_npoints(space.get());
  std::string label = describeAttribute(objectPath, name);

  H5T_class_t typeClass = H5Tget_class(type.get());
  if (typeClass == H5T_STRING) {
    if (count != 1)
      return error(label + " holds " + std::to_string(count) +
                   " strings, not one");
    auto strings = readStrings(attr->get(), type.get(), 1);
    if (!strings)
      return error("cannot read " + label + ": " + takeHDF5Error());
    return std::move(strings->front());
  }
  // Bytes written as a numpy uint8/int8 array; read as stored, unconverted.
  if (typeClass == H5T_INTEGER && H5Tget_size(type.get()) == 1 &&
      H5Sget_simple_extent_ndims(space.get()) <= 1) {
    std::string bytes(count, '\0');
    if (count > 0 && H5Aread(attr->get(), type.get(), bytes.data()) < 0)
      return error("cannot read " + label + ": " + takeHDF5Error());
    return StringRef(bytes).rtrim('\0').str();
  }
  return error(label + " is not a string (it is " + dtypeName(type.get()) +
               ")");
}

Expected<std::vector<std::string>>
HDF5File::readOneStringList(StringRef objectPath, StringRef name) const {
  auto attr = openAttribute(objectPath, name);
  if (!attr)
    return attr.takeError();
  HDF5Handle type(H5Aget_type(attr->get()));
  HDF5Handle space(H5Aget_space(attr->get()));
  hssize_t count = H5Sget_simple_extent_npoints(space.get());
  int rank = H5Sget_simple_extent_ndims(space.get());
  std::string label = describeAttribute(objectPath, name);

  if (count == 0)
    return std::vector<std::string>();
  if (H5Tget_class(type.get()) != H5T_STRING)
    return error(label + " is not a list of strings (it is " +
                 dtypeName(type.get()) + ")");
  if (rank > 1)
    return error(label + " is a " + std::to_string(rank) +
                 "-D array, not a list of strings");
  auto strings = readStrings(attr->get(), type.get(), count);
  if (!strings)
    return error("cannot read " + label + ": " + takeHDF5Error());
  return std::move(*strings);
}

Expected<std::vector<std::string>>
HDF5File::readStringListAttribute(StringRef objectPath, StringRef name) const {
  if (hasAttribute(objectPath, name) ||
      !hasAttribute(objectPath, (name + "0").str()))
    return readOneStringList(objectPath, name);
  std::vector<std::string> all;
  for (int chunk = 0;; ++chunk) {
    std::string chunkName = name.str() + std::to_string(chunk);
    if (!hasAttribute(objectPath, chunkName))
      break;
    auto part = readOneStringList(objectPath, chunkName);
    if (!part)
      return part.takeError();
    all.insert(all.end(), part->begin(), part->end());
  }
  return all;
}

Expected<HDF5File::Dataset>
HDF5File::readFloatDataset(StringRef datasetPath) const {
  std::string path = canonicalPath(datasetPath);
  if (!exists(datasetPath))
    return error("no HDF5 dataset '" + path + "'");
  auto dataset = openObject(datasetPath);
  if (!dataset)
    return dataset.takeError();
  if (H5Iget_type(dataset->get()) != H5I_DATASET)
    return error("HDF5 object '" + path + "' is not a dataset");
  HDF5Handle type(H5Dget_type(dataset->get()));
  HDF5Handle space(H5Dget_space(dataset->get()));

  Dataset result;
  result.dtype = dtypeName(type.get());
  H5T_class_t typeClass = H5Tget_class(type.get());
  if (typeClass != H5T_FLOAT && typeClass != H5T_INTEGER)
    return error("HDF5 dataset '" + path + "' has dtype " + result.dtype +
                 ", not a number");
  if (H5Sget_simple_extent_type(space.get()) == H5S_NULL)
    return error("HDF5 dataset '" + path + "' has no data (null dataspace)");

  int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(rank > 0 ? rank : 0);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  result.shape.assign(dims.begin(), dims.end());
  result.data.resize(H5Sget_simple_extent_npoints(space.get()));
  if (!result.data.empty() &&
      H5Dread(dataset->get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
              result.data.data()) < 0)
    return error("cannot read HDF5 dataset '" + path + "' (" + result.dtype +
                 "): " + takeHDF5Error());
  return std::move(result);
}

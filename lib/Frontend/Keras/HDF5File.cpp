//===- HDF5File.cpp - Read-only access to HDF5 files ----------------------===//
//
// Queries answered from the snapshot the sandboxed reader made (see
// HDF5Snapshot.h); no libhdf5 call happens in this process.
//
//===----------------------------------------------------------------------===//

#include "seq/Frontend/Keras/HDF5File.h"

#include "HDF5Snapshot.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <utility>

using namespace seq::keras;
using llvm::Expected;
using llvm::StringRef;

namespace {

llvm::Error fileError(StringRef file, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + file + "': " + message);
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

Expected<std::shared_ptr<const hdf5::Snapshot>>
snapshotOf(llvm::ArrayRef<char> image, StringRef displayName) {
  Expected<hdf5::Snapshot> snapshot = hdf5::readSnapshot(image, displayName);
  if (!snapshot)
    return snapshot.takeError();
  return std::make_shared<const hdf5::Snapshot>(std::move(*snapshot));
}

} // namespace

Expected<HDF5File> HDF5File::open(StringRef path) {
  if (llvm::sys::fs::is_directory(path))
    return fileError(path, "is a directory, not an HDF5 file");
  if (!llvm::sys::fs::exists(path))
    return fileError(path, "no such file");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read: " + buffer.getError().message());
  if ((*buffer)->getBufferSize() == 0)
    return fileError(path, "cannot open as an HDF5 file: the file is empty");
  StringRef bytes = (*buffer)->getBuffer();
  auto snapshot = snapshotOf({bytes.data(), bytes.size()}, path);
  if (!snapshot)
    return snapshot.takeError();
  return HDF5File(std::move(*snapshot), path.str());
}

Expected<HDF5File> HDF5File::openImage(llvm::ArrayRef<char> bytes,
                                       StringRef displayName) {
  if (bytes.empty())
    return fileError(displayName, "is empty, not an HDF5 file");
  auto snapshot = snapshotOf(bytes, displayName);
  if (!snapshot)
    return snapshot.takeError();
  return HDF5File(std::move(*snapshot), displayName.str());
}

llvm::Error HDF5File::error(const llvm::Twine &message) const {
  return fileError(displayName, message);
}

const hdf5::Object *HDF5File::find(StringRef objectPath) const {
  llvm::SmallVector<StringRef> parts;
  objectPath.split(parts, '/', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  const hdf5::Object *object = &snapshot->objects[0];
  for (StringRef part : parts) {
    const hdf5::Object *next = nullptr;
    for (const auto &[name, id] : object->children)
      if (name == part) {
        next = id >= 0 ? &snapshot->objects[id] : nullptr;
        break;
      }
    if (!next)
      return nullptr;
    object = next;
  }
  return object;
}

bool HDF5File::exists(StringRef objectPath) const {
  return find(objectPath) != nullptr;
}

bool HDF5File::isGroup(StringRef objectPath) const {
  const hdf5::Object *object = find(objectPath);
  return object && object->kind == hdf5::Object::Group;
}

bool HDF5File::isDataset(StringRef objectPath) const {
  const hdf5::Object *object = find(objectPath);
  return object && object->kind == hdf5::Object::Dataset;
}

Expected<std::vector<std::string>>
HDF5File::children(StringRef groupPath) const {
  const hdf5::Object *group = find(groupPath);
  if (!group)
    return error("no HDF5 object '" + canonicalPath(groupPath) + "'");
  if (group->kind != hdf5::Object::Group)
    return error("HDF5 object '" + canonicalPath(groupPath) +
                 "' is not a group");
  std::vector<std::string> names;
  for (const auto &link : group->children)
    names.push_back(link.first);
  return names;
}

bool HDF5File::hasAttribute(StringRef objectPath, StringRef name) const {
  const hdf5::Object *object = find(objectPath);
  if (!object)
    return false;
  for (const hdf5::Attribute &a : object->attributes)
    if (a.name == name)
      return true;
  return false;
}

Expected<std::vector<std::string>>
HDF5File::attributeNames(StringRef objectPath) const {
  const hdf5::Object *object = find(objectPath);
  if (!object)
    return error("no HDF5 object '" + canonicalPath(objectPath) + "'");
  std::vector<std::string> names;
  for (const hdf5::Attribute &a : object->attributes)
    names.push_back(a.name);
  return names;
}

Expected<const hdf5::Attribute *>
HDF5File::findAttribute(StringRef objectPath, StringRef name) const {
  std::string path = canonicalPath(objectPath);
  const hdf5::Object *object = find(objectPath);
  if (!object)
    return error("no HDF5 object '" + path + "'");
  for (const hdf5::Attribute &a : object->attributes)
    if (a.name == name) {
      if (!a.readError.empty())
        return error("cannot read " + describeAttribute(objectPath, name) +
                     ": " + a.readError);
      return &a;
    }
  return error("HDF5 object '" + path + "' has no attribute '" + name + "'");
}

Expected<std::string> HDF5File::readStringAttribute(StringRef objectPath,
                                                    StringRef name) const {
  Expected<const hdf5::Attribute *> attr = findAttribute(objectPath, name);
  if (!attr)
    return attr.takeError();
  const hdf5::Attribute &a = **attr;
  std::string label = describeAttribute(objectPath, name);
  if (a.isString) {
    if (a.count != 1)
      return error(label + " holds " + std::to_string(a.count) +
                   " strings, not one");
    return a.strings.front();
  }
  // Bytes written as a numpy uint8/int8 array, unconverted.
  if (a.bytes)
    return StringRef(*a.bytes).rtrim('\0').str();
  return error(label + " is not a string (it is " + a.dtype + ")");
}

Expected<std::vector<std::string>>
HDF5File::readOneStringList(StringRef objectPath, StringRef name) const {
  Expected<const hdf5::Attribute *> attr = findAttribute(objectPath, name);
  if (!attr)
    return attr.takeError();
  const hdf5::Attribute &a = **attr;
  std::string label = describeAttribute(objectPath, name);
  if (a.count == 0)
    return std::vector<std::string>();
  if (!a.isString)
    return error(label + " is not a list of strings (it is " + a.dtype + ")");
  if (a.rank > 1)
    return error(label + " is a " + std::to_string(a.rank) +
                 "-D array, not a list of strings");
  return a.strings;
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
  const hdf5::Object *dataset = find(datasetPath);
  if (!dataset)
    return error("no HDF5 dataset '" + path + "'");
  if (dataset->kind != hdf5::Object::Dataset)
    return error("HDF5 object '" + path + "' is not a dataset");
  if (!dataset->numeric)
    return error("HDF5 dataset '" + path + "' has dtype " + dataset->dtype +
                 ", not a number");
  if (dataset->null)
    return error("HDF5 dataset '" + path + "' has no data (null dataspace)");
  if (!dataset->readError.empty())
    return error("cannot read HDF5 dataset '" + path + "' (" + dataset->dtype +
                 "): " + dataset->readError);
  return Dataset{dataset->shape, dataset->data, dataset->dtype};
}

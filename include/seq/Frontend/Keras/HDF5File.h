//===- HDF5File.h - Read-only access to HDF5 files --------------*- C++ -*-===//
//
// The slice of HDF5 that Keras .h5 files and .weights.h5 members need: walk
// groups, read string attributes in every encoding h5py produces, and read
// numeric datasets as float. Object paths are absolute or relative to the root
// group ("model_weights/dense/dense/kernel:0"); "" and "/" name the root.
// Every failure is an llvm::Error naming the file and the object.
//
// The file is read once, whole, by a sandboxed child process (Sandbox.h):
// libhdf5 never runs in the caller's process, so a corrupt or hostile file
// that crashes or hangs it costs one error, not the process. Objects outside
// the file (external links, external storage, virtual datasets) and data
// larger than the file's size allows are refused when the file is opened.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FRONTEND_KERAS_HDF5FILE_H
#define SEQ_FRONTEND_KERAS_HDF5FILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace seq::keras {

namespace hdf5 {
struct Attribute;
struct Object;
struct Snapshot;
} // namespace hdf5

class HDF5File {
public:
  static llvm::Expected<HDF5File> open(llvm::StringRef path);
  /// Reads an in-memory file image (e.g. a member of a zip archive);
  /// `displayName` stands for the file in messages.
  static llvm::Expected<HDF5File> openImage(llvm::ArrayRef<char> bytes,
                                            llvm::StringRef displayName);

  /// The path or display name the file was opened with.
  llvm::StringRef path() const { return displayName; }

  /// Whether `objectPath` names a group or dataset; false for any missing
  /// component and for dangling links.
  bool exists(llvm::StringRef objectPath) const;
  bool isGroup(llvm::StringRef objectPath) const;
  bool isDataset(llvm::StringRef objectPath) const;

  /// Names of the links in a group, in creation order where the file tracks
  /// it and in name order otherwise.
  llvm::Expected<std::vector<std::string>>
  children(llvm::StringRef groupPath) const;

  bool hasAttribute(llvm::StringRef objectPath, llvm::StringRef name) const;
  /// Attribute names, ordered as children() orders links.
  llvm::Expected<std::vector<std::string>>
  attributeNames(llvm::StringRef objectPath) const;

  /// One string: a fixed-length (trailing padding removed) or variable-length
  /// string, scalar or a 1-element array, or an array of 8-bit integers taken
  /// as bytes (trailing NULs removed).
  llvm::Expected<std::string> readStringAttribute(llvm::StringRef objectPath,
                                                  llvm::StringRef name) const;

  /// A 1-D array of fixed- or variable-length strings. When `name` is absent
  /// but `name0`, `name1`, ... exist (Keras splits attributes over 64 KiB this
  /// way) their lists are concatenated. An attribute without elements, of any
  /// type, is an empty list (Keras writes float64 (0,) for no weights).
  llvm::Expected<std::vector<std::string>>
  readStringListAttribute(llvm::StringRef objectPath,
                          llvm::StringRef name) const;

  struct Dataset {
    std::vector<int64_t> shape; ///< Empty for a scalar.
    std::vector<float> data;    ///< Row-major, converted from the stored type.
    std::string dtype; ///< Stored type: "float32", "float16", "int64"...
  };

  /// Reads a float or integer dataset converted to float; `dtype` tells the
  /// caller what was stored so that it can refuse conversions it does not
  /// want. Other types (strings, compounds, ...) are an error.
  llvm::Expected<Dataset> readFloatDataset(llvm::StringRef datasetPath) const;

private:
  HDF5File(std::shared_ptr<const hdf5::Snapshot> snapshot,
           std::string displayName)
      : snapshot(std::move(snapshot)), displayName(std::move(displayName)) {}

  llvm::Error error(const llvm::Twine &message) const;
  /// The object at `objectPath`, or null.
  const hdf5::Object *find(llvm::StringRef objectPath) const;
  llvm::Expected<const hdf5::Attribute *>
  findAttribute(llvm::StringRef objectPath, llvm::StringRef name) const;
  llvm::Expected<std::vector<std::string>>
  readOneStringList(llvm::StringRef objectPath, llvm::StringRef name) const;

  std::shared_ptr<const hdf5::Snapshot> snapshot;
  std::string displayName;
};

} // namespace seq::keras

#endif // SEQ_FRONTEND_KERAS_HDF5FILE_H

// Everything seqc needs from an HDF5 file, read once in the sandboxed reader
// and handed to the parent as plain data: groups with their links in order,
// attributes (strings decoded), and numeric datasets converted to float32.
// The reader refuses anything that is not inside the file itself (external
// links, external storage, virtual datasets) and anything larger than the
// byte budget the file's size allows.
#ifndef SEQ_LIB_FRONTEND_KERAS_HDF5SNAPSHOT_H
#define SEQ_LIB_FRONTEND_KERAS_HDF5SNAPSHOT_H

#include "seq/Frontend/Keras/Sandbox.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace seq::keras::hdf5 {

struct Attribute {
  std::string name;
  std::string dtype; ///< numpy-style: "float32", "string", "uint8", ...
  bool isString = false;
  int rank = 0;
  uint64_t count = 0;
  std::vector<std::string> strings; ///< isString: every element, unpadded.
  std::optional<std::string> bytes; ///< 1-byte integers of rank <= 1.
  std::string readError;            ///< Set when HDF5 could not read them.
};

struct Object {
  enum Kind : uint8_t { Group = 0, Dataset = 1, Other = 2 };
  Kind kind = Other;
  std::vector<Attribute> attributes; ///< In creation (else name) order.
  /// Group links in creation (else name) order; -1 for a dangling link.
  std::vector<std::pair<std::string, int64_t>> children;
  // Datasets:
  std::string dtype;
  bool numeric = false;
  bool null = false; ///< A null dataspace: no data at all.
  std::vector<int64_t> shape;
  std::vector<float> data;
  std::string readError; ///< Set when the data was not read, and why.
};

struct Snapshot {
  std::vector<Object> objects; ///< objects[0] is the root group.
};

/// The records the reader streams to the parent. Integers are 64-bit
/// little-endian, strings are a length and bytes. Objects are numbered in
/// the order they are first met; a group's links come after its children.
namespace record {
enum : char {
  Progress = 'P', ///< string: what is being read (names a crash).
  Object = 'O',   ///< id, kind.
  Attribute = 'A', ///< id, name, dtype, isString, rank, count, strings...,
                   ///< hasBytes, bytes, readError.
  Links = 'C',    ///< id, count, (name, child id)...
  Dataset = 'D',  ///< id, dtype, numeric, null, rank, dims..., count,
                  ///< floats, readError.
  Refusal = 'E',  ///< string: the file is refused; the whole message.
  End = 'Z',
};
} // namespace record

/// Reads a whole HDF5 file image inside the current (sandboxed) process and
/// writes its records to `out`. `budget` bounds decoded bytes.
void writeSnapshot(llvm::ArrayRef<char> image, uint64_t budget,
                   SandboxWriter &out);

/// Streams one dataset's rows (float32, by hyperslab) to `out`: an 'H'
/// record (rank, dims), then 'C' records (row count, floats), then End; or
/// a Refusal holding the whole message (`fileName` names the file in it).
/// `imageIsFileMapping`: the pages it has read may be given back after each
/// chunk (they are re-read from the file if needed again).
void writeDatasetRows(llvm::ArrayRef<char> image, bool imageIsFileMapping,
                      llvm::StringRef fileName, llvm::StringRef datasetPath,
                      SandboxWriter &out);

/// The parent side: reads `image` in a sandboxed child. Errors are phrased
/// as "'displayName': ...".
llvm::Expected<Snapshot> readSnapshot(llvm::ArrayRef<char> image,
                                      llvm::StringRef displayName);

} // namespace seq::keras::hdf5

#endif

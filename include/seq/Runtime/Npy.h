//===- Npy.h - NumPy .npy file reading and writing --------------*- C++ -*-===//
//
// Reads .npy format versions 1.0, 2.0 and 3.0 in C order: little-endian
// float32 as is, and float64 / integer / bool dtypes converted to float32
// (integers must be exactly representable, e.g. Embedding ids). Writes '<f4'
// version 1.0 files that numpy.load reads. Every write goes to a temporary file
// in the destination directory and is renamed into place, so a failed or
// abandoned write leaves nothing behind.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_RUNTIME_NPY_H
#define SEQ_RUNTIME_NPY_H

#include "seq/Runtime/Tensor.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace seq::rt {
namespace detail {
class NpyFile;
} // namespace detail

llvm::Expected<Tensor> readNpy(llvm::StringRef path);
/// The same from bytes already in memory; `path` names them in messages.
llvm::Expected<Tensor> readNpyBuffer(llvm::StringRef bytes,
                                     llvm::StringRef path);

llvm::Error writeNpy(llvm::StringRef path, const Tensor &tensor);

/// Writes one array of a known total shape batch by batch along axis 0:
///
///   auto writer = NpyWriter::create("out.npy", {1000, 10});
///   for (...) if (auto err = writer->append(batch)) ...
///   if (auto err = writer->commit()) ...
///
/// Destroying a writer that was not committed removes its temporary file.
class NpyWriter {
public:
  /// `shape` must have rank >= 1.
  static llvm::Expected<NpyWriter> create(llvm::StringRef path,
                                          std::vector<int64_t> shape);

  NpyWriter(NpyWriter &&) noexcept;
  NpyWriter &operator=(NpyWriter &&) noexcept;
  ~NpyWriter();

  /// Appends `batch.shape[0]` rows; the other dimensions must match the total
  /// shape and the rows must not overflow it.
  llvm::Error append(const Tensor &batch);

  /// Renames the file into place; an error if not all rows were appended (the
  /// temporary file is removed then). The writer is unusable afterwards.
  llvm::Error commit();

private:
  explicit NpyWriter(std::unique_ptr<detail::NpyFile> file);
  std::unique_ptr<detail::NpyFile> file;
};

} // namespace seq::rt

#endif // SEQ_RUNTIME_NPY_H

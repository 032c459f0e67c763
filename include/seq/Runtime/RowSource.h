// Input arrays read row by row (axis 0), so that --run streams datasets of
// any size through a model with memory bounded by one batch: .npy files
// (read with pread, never whole), CSV/TSV text, and HDF5 datasets (the
// Keras frontend's sandboxed reader, by hyperslab: seq/Frontend/Keras/HDF5Rows.h).
#ifndef SEQ_RUNTIME_ROWSOURCE_H
#define SEQ_RUNTIME_ROWSOURCE_H

#include "seq/Runtime/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace seq::rt {

class RowSource {
public:
  virtual ~RowSource() = default;
  /// The whole array's shape; shape()[0] is the number of rows.
  const std::vector<int64_t> &shape() const { return arrayShape; }
  /// What the rows come from, for messages ("x.npy", "data.h5:/x").
  const std::string &name() const { return sourceName; }
  int64_t rowsLeft() const { return arrayShape[0] - rowsRead; }
  /// The next min(count, rowsLeft()) rows as float32.
  virtual llvm::Expected<Tensor> next(int64_t count) = 0;

protected:
  RowSource(std::string name, std::vector<int64_t> shape);
  /// A tensor for `count` rows (data zeroed, to be filled).
  Tensor rowsTensor(int64_t count) const;

  std::string sourceName;
  std::vector<int64_t> arrayShape;
  int64_t rowElements = 1; ///< Elements per row (the product of shape[1:]).
  int64_t rowsRead = 0;
};

/// A .npy file, streamed: the header is checked first, then rows are read
/// (and converted to float32) only as next() asks for them.
llvm::Expected<std::unique_ptr<RowSource>> openNpyRows(llvm::StringRef path);

/// Numeric CSV (or TSV with `delimiter` '\t'): one row per line, an optional
/// header line (a first line that is not all numbers), each line reshaped to
/// `rowShape` (its element count must match the number of columns).
llvm::Expected<std::unique_ptr<RowSource>>
openCsvRows(llvm::StringRef path, std::vector<int64_t> rowShape,
            char delimiter);

/// Reads every row left into one tensor.
llvm::Expected<Tensor> readAllRows(RowSource &source);

} // namespace seq::rt

#endif

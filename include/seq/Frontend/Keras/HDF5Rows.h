//===- HDF5Rows.h - Stream an HDF5 dataset's rows ----------------*- C++ -*-===//
//
// --run's input from `data.h5:/x`: the dataset is read by hyperslab in the
// sandboxed reader (Sandbox.h), one chunk of rows at a time, and handed over
// as the caller asks for rows; memory stays bounded by a chunk whatever the
// dataset's size.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FRONTEND_KERAS_HDF5ROWS_H
#define SEQ_FRONTEND_KERAS_HDF5ROWS_H

#include "seq/Runtime/RowSource.h"

namespace seq::keras {

llvm::Expected<std::unique_ptr<rt::RowSource>>
openHDF5Rows(llvm::StringRef file, llvm::StringRef dataset);

} // namespace seq::keras

#endif

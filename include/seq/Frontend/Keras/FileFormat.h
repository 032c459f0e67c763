//===- FileFormat.h - Recognize model file formats by content ---*- C++ -*-===//
//
// Tells what a path holds by looking at its bytes (signatures, magic numbers)
// and, for directories, at the files inside, so that a wrong input gets an
// error that names what it actually is instead of a parse failure.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FRONTEND_KERAS_FILEFORMAT_H
#define SEQ_FRONTEND_KERAS_FILEFORMAT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace seq::keras {

enum class FileFormat {
  HDF5,          ///< HDF5 signature at offset 0 or after a user block.
  Zip,           ///< A zip archive (e.g. a Keras 3 .keras file).
  KerasDir,      ///< Keras 3's model.save(path, zipped=False): a directory.
  SavedModelDir, ///< A TensorFlow SavedModel directory or its saved_model.pb.
  TFCheckpoint,  ///< A TensorFlow checkpoint: prefix, .index, data shard, dir.
  Json,          ///< A file whose first non-space byte is '{'.
  MLIR,          ///< MLIR text (a module, as --emit writes it) or bytecode.
  Directory,     ///< Any other directory.
  Missing,       ///< Nothing exists at the path.
  Unknown,       ///< A file of no recognized format.
};

struct FormatInfo {
  FileFormat format;
  /// A noun phrase for error messages, e.g. "a TensorFlow SavedModel
  /// directory" or "an HDF5 file".
  std::string description;
};

FormatInfo detectFormat(llvm::StringRef path);

/// A short name such as "HDF5" or "zip".
const char *formatName(FileFormat format);

} // namespace seq::keras

#endif // SEQ_FRONTEND_KERAS_FILEFORMAT_H

//===- TensorBundle.h - Read TensorFlow checkpoints --------------*- C++ -*-===//
//
// A TensorFlow checkpoint (what tf.train.Checkpoint, tf_keras'
// save_weights(save_format="tf") and a SavedModel's variables/ hold) is a
// "tensor bundle": <prefix>.index, a LevelDB-format table from tensor names
// to BundleEntryProto (dtype, shape, shard, offset, size, CRC-32C), and the
// tensors' bytes in <prefix>.data-00000-of-00001 and further shards. The
// index is read whole and checked block by block against its CRC-32C; a
// tensor's bytes are checked against theirs when read. Compressed tables,
// big-endian bundles and partitioned (sliced) variables are refused.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FRONTEND_KERAS_TENSORBUNDLE_H
#define SEQ_FRONTEND_KERAS_TENSORBUNDLE_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace seq::keras {

class TensorBundle {
public:
  /// tensorflow.DataType values a Keras checkpoint holds.
  enum DataType {
    Float = 1,
    Double = 2,
    Int32 = 3,
    String = 7,
    Int64 = 9,
    BFloat16 = 14,
    Half = 19,
  };

  struct Entry {
    int dtype = 0;
    std::vector<int64_t> shape;
    uint32_t shard = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    uint32_t maskedCrc = 0;
    bool sliced = false;
  };

  /// Opens <prefix>.index and the data shards its header counts.
  static llvm::Expected<TensorBundle> open(llvm::StringRef prefix);
  /// A bundle already in memory (tests, fuzzing); `displayName` stands for
  /// it in messages.
  static llvm::Expected<TensorBundle>
  openBuffers(std::unique_ptr<llvm::MemoryBuffer> index,
              std::vector<std::unique_ptr<llvm::MemoryBuffer>> shards,
              llvm::StringRef displayName);

  /// The checkpoint as messages name it (its prefix).
  llvm::StringRef path() const { return displayPath; }
  /// Entry names in the index's (sorted) order.
  const std::vector<std::string> &names() const { return keys; }
  const Entry *find(llvm::StringRef name) const;

  /// The tensor's bytes, checked against its size and CRC-32C.
  llvm::Expected<llvm::StringRef> readBytes(llvm::StringRef name) const;
  /// A scalar string tensor (the checkpoint's object graph).
  llvm::Expected<std::string> readScalarString(llvm::StringRef name) const;

  /// "float32", "bfloat16", ... or "dtype N" for the rest.
  static std::string dtypeName(int dtype);
  /// Bytes per element of a fixed-size dtype; 0 for strings and unknowns.
  static unsigned dtypeSize(int dtype);

private:
  TensorBundle(std::string displayPath) : displayPath(std::move(displayPath)) {}
  llvm::Error error(const llvm::Twine &message) const;
  llvm::Error readIndex(llvm::StringRef index);
  llvm::Error addEntry(llvm::StringRef key, llvm::StringRef value);

  std::string displayPath;
  std::vector<std::string> keys;
  llvm::StringMap<Entry> entries;
  uint32_t numShards = 1;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> shards;
};

/// The masked CRC-32C (Castagnoli) LevelDB and TensorFlow store.
uint32_t maskedCrc32c(llvm::StringRef data);

} // namespace seq::keras

#endif // SEQ_FRONTEND_KERAS_TENSORBUNDLE_H

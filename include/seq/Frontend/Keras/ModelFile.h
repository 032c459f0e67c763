//===- ModelFile.h - Read one file of a model, within bounds ----*- C++ -*-===//
//
// The files seqc finds inside what the user named (a SavedModel's
// keras_metadata.pb and checkpoint, a checkpoint's shards) are as untrusted
// as their bytes: a symbolic link could name any file on the machine, and a
// device (/dev/zero) never ends. They are read only as regular files, not
// links, of at most a given size, and mapped rather than copied.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FRONTEND_KERAS_MODELFILE_H
#define SEQ_FRONTEND_KERAS_MODELFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>

namespace seq::keras {

/// The bytes of `path`; errors name `path` and what was wrong.
/// `linkAllowed`: the user named this path itself.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readModelFile(llvm::StringRef path, uint64_t maxBytes, bool linkAllowed = false);

} // namespace seq::keras

#endif // SEQ_FRONTEND_KERAS_MODELFILE_H

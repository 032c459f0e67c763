//===- ModelFile.cpp - Read one file of a model, within bounds ------------===//

#include "seq/Frontend/Keras/ModelFile.h"

#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace seq::keras {

Expected<std::unique_ptr<MemoryBuffer>> readModelFile(StringRef path, uint64_t maxBytes,
                                                      bool linkAllowed) {
  auto fail = [&](const Twine &message) {
    return createStringError(inconvertibleErrorCode(), "'" + path + "': " + message);
  };
  sys::fs::file_status status;
  if (std::error_code ec = sys::fs::status(path, status, /*Follow=*/false))
    return fail("cannot read: " + ec.message());
  if (status.type() == sys::fs::file_type::symlink_file && !linkAllowed)
    return fail("a symbolic link inside the model, which seqc does not follow (it could "
                "name any file): copy the file it names in its place");
  if (std::error_code ec = sys::fs::status(path, status, /*Follow=*/true))
    return fail("cannot read: " + ec.message());
  if (status.type() != sys::fs::file_type::regular_file)
    return fail("not a regular file");
  if (status.getSize() > maxBytes)
    return fail("a file of " + Twine(status.getSize()) + " bytes, more than the " +
                Twine(maxBytes) + " seqc reads");
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false,
                            /*IsVolatile=*/false);
  if (!buffer)
    return fail("cannot read: " + buffer.getError().message());
  return std::move(*buffer);
}

} // namespace seq::keras

// Checks the compiled model makes on its input at run time: a failed one
// calls seqc_report_error(site, count), and the call ends with the site's
// message (the module's seqc.error_sites) once the model has run; the code
// after a check keeps to safe sizes and indices, whatever the input.
#ifndef SEQ_LIB_CONVERSION_SEQTOLINALG_RUNTIMECHECKS_H
#define SEQ_LIB_CONVERSION_SEQTOLINALG_RUNTIMECHECKS_H

#include "LinalgBuilder.h"

#include <string>

namespace seq::lowering {

/// The Keras layer an op comes from (its NameLoc), else the op's name.
std::string layerName(mlir::Operation *op);

/// Reports `message` with `count` (an i64: how many values failed) where
/// `failed` (an i1) holds.
void reportIf(LinalgBuilder &lb, mlir::Operation *op, Value failed, Value count,
              llvm::StringRef message);

/// Reports `message`, one value per batch row of `input`, where `failed`
/// holds.
void reportRowsIf(LinalgBuilder &lb, mlir::Operation *op, Value input, Value failed,
                  llvm::StringRef message);

/// Reports `message`, one value per batch row of `input`, where `length`
/// (dynamic: a static one is the verifier's to check) is below `minimum`.
void reportShort(LinalgBuilder &lb, mlir::Operation *op, Value input,
                 OpFoldResult length, int64_t minimum, llvm::StringRef message);

/// A window's padded length along spatial axis `axis` of op's input (batch
/// first), at least `span`: a dynamic length below it (a sequence shorter
/// than the window, no output step) is reported and raised to `span`.
OpFoldResult fitWindow(LinalgBuilder &lb, mlir::Operation *op, Value input,
                       OpFoldResult paddedLength, int64_t span, int64_t axis);

/// `rows` (batch, a dynamic width) as (batch, `width`), for a reshape into
/// sizes that are all known: rows of another width are reported (Keras
/// fails there), and the rows are copied into zeros of `width` columns, so
/// that nothing reads past a shorter one.
Value fitRowWidth(LinalgBuilder &lb, mlir::Operation *op, Value rows, int64_t width);

} // namespace seq::lowering

#endif

//===- Detail.h - Helpers shared by the runtime kernels ---------*- C++ -*-===//

#ifndef SEQ_LIB_RUNTIME_DETAIL_H
#define SEQ_LIB_RUNTIME_DETAIL_H

#include "seq/Runtime/ReferenceKernels.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"

namespace seq::rt::detail {

/// Aborts with `message` unless `ok`; for operand shapes the caller should have
/// verified.
void require(bool ok, const llvm::Twine &message);

/// Aborts unless `t` has rank `rank`, naming the kernel and operand.
void requireRank(const Tensor &t, int64_t rank, const llvm::Twine &what);

/// Number of last-axis rows: the product of all dimensions but the last.
int64_t numRows(const Tensor &t);

/// Output length and left padding of a 1-D sliding window as TF computes them;
/// `window` is the effective extent, dilation * (k - 1) + 1.
struct Window1d {
  int64_t outLength;
  int64_t padLeft;
};
Window1d window1d(int64_t length, int64_t window, int64_t stride,
                  Padding padding);

/// The row-major multi-index of element `flat` of an array of `sizes`.
void unflatten(int64_t flat, llvm::ArrayRef<int64_t> sizes,
               llvm::MutableArrayRef<int64_t> index);

/// Product of `sizes` (1 when empty).
int64_t product(llvm::ArrayRef<int64_t> sizes);

/// Applies `act` to one last-axis row (Softmax normalizes over the row).
void activateRow(Activation act, float alpha, llvm::MutableArrayRef<float> row);

} // namespace seq::rt::detail

#endif // SEQ_LIB_RUNTIME_DETAIL_H

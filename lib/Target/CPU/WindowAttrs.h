// The window attributes of a linalg named convolution or pooling op, which
// the CPU kernels (GemmKernel.cpp, PoolingKernel.cpp) read.
#ifndef SEQ_LIB_TARGET_CPU_WINDOWATTRS_H
#define SEQ_LIB_TARGET_CPU_WINDOWATTRS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/STLExtras.h"

namespace seq::cpu {

/// The op's `strides` or `dilations`, one per spatial axis.
inline llvm::SmallVector<int64_t> windowAttr(mlir::Operation *op, llvm::StringRef name) {
  auto attr = op->getAttrOfType<mlir::DenseIntElementsAttr>(name);
  return llvm::to_vector(llvm::map_range(
      attr.getValues<llvm::APInt>(), [](const llvm::APInt &v) { return v.getSExtValue(); }));
}

} // namespace seq::cpu

#endif

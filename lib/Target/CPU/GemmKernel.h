// The f32 GEMM of the CPU backend: linalg.matmul on row-major buffers and
// the named convolutions (as implicit GEMMs) as register-blocked loops of
// vector FMAs, shaped for one target's vector registers
// (seq::cpu::VectorTarget), reading a weight operand from a copy packed
// into column panels at compile time.
#ifndef SEQ_LIB_TARGET_CPU_GEMMKERNEL_H
#define SEQ_LIB_TARGET_CPU_GEMMKERNEL_H

#include "seq/Target/CPU/Pipeline.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/DenseMap.h"

namespace seq::cpu {

/// Columns of one panel of a packed weight: a multiple of every target's
/// vector width, so that every x86 and AArch64 target packs a weight alike.
constexpr int64_t kPanelColumns = 32;

/// Packed copies of constant weights, made once per module: the global
/// `name` of a (K, N) weight becomes a 1-D global of ceil(N / 32) panels,
/// each K rows of 32 columns (the last one of N mod 32 columns rounded up
/// to 16), zero-padded.
class PackedWeights {
public:
  explicit PackedWeights(mlir::ModuleOp module) : module(module) {}
  /// The packed global of `weight` (a memref.get_global of a constant f32
  /// global of rank >= 2 with a known value, its rows all but the last axis,
  /// or a collapse_shape of one to rank 2), created on first use; null when
  /// `weight` is not such a global.
  mlir::memref::GlobalOp packedOf(mlir::Value weight);

private:
  mlir::ModuleOp module;
  llvm::DenseMap<mlir::Attribute, mlir::memref::GlobalOp> packed;
};

/// Replaces `op` (f32, row-major buffers with unit inner strides, static N)
/// by vector loops for `target`; returns false (and leaves `op`) when it
/// does not qualify.
bool emitGemm(mlir::linalg::MatmulOp op, const VectorTarget &target,
              PackedWeights &weights);

/// The same for a named convolution (linalg.conv_1d_nwc_wcf,
/// conv_2d_nhwc_hwcf, conv_3d_ndhwc_dhwcf) as an implicit GEMM: C's rows
/// are the output positions, each one's row of A the receptive field read
/// in place from the input (no gathered copy), B the kernel viewed as
/// (taps * channels, filters). Returns false for other ops.
bool emitConvolutionGemm(mlir::linalg::LinalgOp op, const VectorTarget &target,
                         PackedWeights &weights);

} // namespace seq::cpu

#endif

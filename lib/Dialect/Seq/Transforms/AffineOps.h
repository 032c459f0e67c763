// The ops that compute activation(input @ weight + bias) along the last
// axis: seq.dense, seq.linear and seq.conv1d/2d/3d (whose kernel's last axis
// is also the output channel), and seq.conv_transpose1d/2d/3d (whose
// kernel's output channel is the second to last axis). The folds treat them
// alike.
#ifndef SEQ_LIB_DIALECT_SEQ_TRANSFORMS_AFFINEOPS_H
#define SEQ_LIB_DIALECT_SEQ_TRANSFORMS_AFFINEOPS_H

#include "seq/Dialect/Seq/IR/SeqOps.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace seq {

struct AffineView {
  mlir::Operation *op;
  mlir::Value input, weight, bias; ///< bias may be null.
  Activation activation;
  mlir::FloatAttr alpha; ///< may be null.
  /// Weight elements between two consecutive output channels' (1 where the
  /// output channel is the weight's last axis).
  int64_t outputChannelStride = 1;

  /// dense / linear / conv / conv_transpose, else std::nullopt.
  static std::optional<AffineView> match(mlir::Operation *op);

  /// Builds an op of the same kind (same convolution attributes) with the given
  /// parts, result type and location.
  mlir::Value rebuild(mlir::RewriterBase &rewriter, mlir::Location loc,
                      mlir::Type resultType, mlir::Value newWeight,
                      mlir::Value newBias, Activation newActivation,
                      mlir::FloatAttr newAlpha) const;
};

/// One location naming both layers, so the fused op still says where it
/// came from.
mlir::Location fuseLocations(mlir::Location first, mlir::Location second);

} // namespace seq

#endif

// Reading and creating the float32 weight constants that seq ops take as
// operands, so passes can fold weights at compile time.
#ifndef SEQ_DIALECT_SEQ_TRANSFORMS_WEIGHTCONSTANTS_H
#define SEQ_DIALECT_SEQ_TRANSFORMS_WEIGHTCONSTANTS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace seq {

/// The values (row-major) of `value` when it is an `arith.constant` holding
/// float32 data: a loaded `dense_resource` blob or a DenseElementsAttr
/// (splat or not). std::nullopt for anything else, e.g. an elided blob or
/// a function argument; callers then leave the op alone.
std::optional<std::vector<float>> readWeights(mlir::Value value);

/// The values of a float32 elements attribute (a loaded `dense_resource`
/// blob or a DenseElementsAttr), or std::nullopt: what readWeights reads of
/// a constant, and the CPU backend of a constant global.
std::optional<std::vector<float>> readFloats(mlir::Attribute attr);

/// An `arith.constant` of type tensor<shape x f32> holding `values` as a
/// `dense_resource` blob called `name` (the resource manager makes the
/// name unique), so the printed module re-parses with every weight.
mlir::Value createWeights(mlir::OpBuilder &builder, mlir::Location loc,
                          llvm::ArrayRef<int64_t> shape,
                          llvm::ArrayRef<float> values, llvm::StringRef name);

/// Success when every dense_resource weight of `module` holds its data; else
/// one line naming the first missing one and its layer (a module written
/// with --elide-weights cannot be compiled or run).
llvm::Error requireWeights(mlir::ModuleOp module);

/// The Keras layer name(s) of a location: "lstm" for loc("lstm"),
/// "dense+activation" for a fused location of two layers, "" if none.
std::string layerName(mlir::Location loc);

/// A resource blob name for a new weight of the layer at `loc`:
/// "dense.kernel_folded" for role "kernel_folded"; characters that are not
/// valid in a bare resource key become '_'.
std::string blobName(mlir::Location loc, llvm::StringRef role);

} // namespace seq

#endif

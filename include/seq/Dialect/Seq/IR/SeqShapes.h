// Shape rules of the seq ops, shared by the verifiers and by whoever builds
// ops (the importer computes result types with the same functions).
#ifndef SEQ_DIALECT_SEQ_IR_SEQSHAPES_H
#define SEQ_DIALECT_SEQ_IR_SEQSHAPES_H

#include "seq/Dialect/Seq/IR/SeqOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace seq::shapes {

inline constexpr int64_t kDynamic = mlir::ShapedType::kDynamic;

/// True when both sizes are static and differ.
inline bool conflict(int64_t a, int64_t b) {
  return a != kDynamic && b != kDynamic && a != b;
}

/// True when the shapes have one rank and no axis where they conflict.
inline bool agree(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (conflict(a[i], b[i]))
      return false;
  return true;
}

/// The size two axes broadcast to, NumPy's way: equal sizes (a static one
/// where the other is dynamic), or one of them static 1, repeated to the
/// other's; std::nullopt where both are static and differ, neither 1.
inline std::optional<int64_t> broadcast(int64_t a, int64_t b) {
  if (b == 1)
    return a;
  if (a == 1)
    return b;
  if (conflict(a, b))
    return std::nullopt;
  return a == kDynamic ? b : a;
}

/// "(?, 10, 12)".
std::string format(llvm::ArrayRef<int64_t> shape);

/// Output length of a Conv1D along time; dynamic stays dynamic.
int64_t conv1dLength(int64_t length, int64_t width, int64_t stride,
                     int64_t dilation, Padding padding);

/// Output length of a 1-D pooling window along time.
int64_t pool1dLength(int64_t length, int64_t poolSize, int64_t stride,
                     Padding padding);

/// Channels-last convolution of spatial rank window.size(): (batch,
/// spatial..., channels) to (batch, out..., filters), each spatial size by
/// conv1dLength (0 where the window does not fit; dynamic stays dynamic).
llvm::SmallVector<int64_t> convolution(llvm::ArrayRef<int64_t> input,
                                       llvm::ArrayRef<int64_t> window,
                                       llvm::ArrayRef<int64_t> strides,
                                       llvm::ArrayRef<int64_t> dilations,
                                       Padding padding, int64_t filters);

/// seq.conv_lstm: (batch, time, spatial..., channels) to the state shape
/// (batch, out..., filters) of the input convolution, with the time axis
/// kept after the batch axis when `returnSequences`.
llvm::SmallVector<int64_t> convLstm(llvm::ArrayRef<int64_t> input,
                                    llvm::ArrayRef<int64_t> window,
                                    llvm::ArrayRef<int64_t> strides,
                                    llvm::ArrayRef<int64_t> dilations,
                                    Padding padding, int64_t filters,
                                    bool returnSequences);

/// One spatial axis of a transposed convolution (Keras Conv*Transpose with
/// TensorFlow's conv_transpose): the output length and the padding before
/// the first output. `outputPadding` < 0 means none.
struct TransposedAxis {
  int64_t length, padBefore;
};
TransposedAxis transposedAxis(int64_t length, int64_t width, int64_t stride,
                              int64_t dilation, Padding padding,
                              int64_t outputPadding);

/// Whether TensorFlow can run an output padding: the forward convolution of
/// the output must give back the input (valid: p < stride; same:
/// 1 <= span % 2 + p <= stride). Always true without output padding.
bool transposedPaddingFits(int64_t width, int64_t stride, int64_t dilation,
                           Padding padding, int64_t outputPadding);

/// Channels-last transposed convolution: (batch, spatial..., channels) to
/// (batch, out..., filters); `outputPadding` empty or one per spatial axis.
llvm::SmallVector<int64_t>
transposedConvolution(llvm::ArrayRef<int64_t> input,
                      llvm::ArrayRef<int64_t> window,
                      llvm::ArrayRef<int64_t> strides,
                      llvm::ArrayRef<int64_t> dilations, Padding padding,
                      llvm::ArrayRef<int64_t> outputPadding, int64_t filters);

/// Channels-last pooling: convolution() keeping the channels.
llvm::SmallVector<int64_t> pooling(llvm::ArrayRef<int64_t> input,
                                   llvm::ArrayRef<int64_t> window,
                                   llvm::ArrayRef<int64_t> strides,
                                   Padding padding);

/// Global pooling of every axis between batch and channels: (batch,
/// channels), or with keepdims the input's rank with 1 on those axes.
llvm::SmallVector<int64_t> globalPooling(llvm::ArrayRef<int64_t> input,
                                         bool keepdims);

/// Every axis after the batch axis grown by `low` + `high` (ZeroPadding),
/// or shrunk by them with `sign` -1 (Cropping).
llvm::SmallVector<int64_t> padded(llvm::ArrayRef<int64_t> input,
                                  llvm::ArrayRef<int64_t> low,
                                  llvm::ArrayRef<int64_t> high, int sign = 1);

/// Every axis after the batch axis times its `size`.
llvm::SmallVector<int64_t> upsampled(llvm::ArrayRef<int64_t> input,
                                     llvm::ArrayRef<int64_t> size);

/// seq.category_encoding of a (batch, k) input: (batch, n), or (batch, k, n)
/// for one_hot with k other than 1.
llvm::SmallVector<int64_t> categoryEncoded(llvm::ArrayRef<int64_t> input,
                                           int64_t numTokens, CategoryMode mode);

/// seq.resize and seq.adaptive_max_pool / adaptive_avg_pool: the spatial
/// axes (all but the first and the last) take the sizes in `size`.
llvm::SmallVector<int64_t> resized(llvm::ArrayRef<int64_t> input,
                                   llvm::ArrayRef<int64_t> size);

/// Keras Permute: output axis i is input axis dims[i-1] (1-based, batch
/// axis fixed). `dims` must be a permutation of 1..rank-1.
llvm::SmallVector<int64_t> permuted(llvm::ArrayRef<int64_t> input,
                                    llvm::ArrayRef<int64_t> dims);

/// The Permute dims that undo `dims` (a permutation of 1..n).
llvm::SmallVector<int64_t> inversePermutation(llvm::ArrayRef<int64_t> dims);

/// Whether `dims` is a permutation of 1..n.
bool isPermutation(llvm::ArrayRef<int64_t> dims);

/// (batch, d1, ..., dn) -> (batch, d1*...*dn); dynamic if any di is.
llvm::SmallVector<int64_t> flatten(llvm::ArrayRef<int64_t> input);

/// Keras Reshape: `target` excludes the batch axis and may hold one -1.
/// Returns the full result shape, or sets `error` and returns std::nullopt.
std::optional<llvm::SmallVector<int64_t>>
reshape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> target,
        std::string &error);

/// Whether `activation` takes an `alpha` (leaky_relu, elu, celu,
/// thresholded_relu; reciprocal's numerator).
bool takesAlpha(Activation activation);

/// The alpha of an activation given by name, as Keras' function defaults
/// have it (elu, celu 1.0; leaky_relu 0.2; reciprocal 1; 0 for the others). Recurrent cells
/// take their activations by name only, so this is the alpha they use.
float cellAlpha(Activation activation);

/// Softmax and log_softmax: they normalise over the last axis instead of
/// mapping each element on its own.
bool isRowActivation(Activation activation);

} // namespace seq::shapes

#endif

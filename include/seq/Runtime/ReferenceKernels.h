//===- ReferenceKernels.h - Keras layer kernels for the oracle --*- C++ -*-===//
//
// The numerical core of the eager reference interpreter: every compiled path is
// checked against these, so they follow Keras semantics exactly and stay plain
// loops. All tensors are float32 and batch-major, (batch, time, features).
// Dot products and reductions accumulate in double and round to float once.
//
// Shape mismatches between operands are caller bugs and abort with a message;
// errors that depend on data values (embedding ids, reshape sizes) are
// returned as llvm::Error.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_RUNTIME_REFERENCEKERNELS_H
#define SEQ_RUNTIME_REFERENCEKERNELS_H

#include "seq/Runtime/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace seq::rt {

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

enum class Activation {
  Linear,
  Relu,
  Tanh,
  Sigmoid,
  HardSigmoidKeras2, // clip(0.2x + 0.5, 0, 1)
  HardSigmoidKeras3, // relu6(x + 3) / 6
  Softmax,           // over the last axis
  Elu,               // alpha * (exp(x) - 1) for x <= 0
  Selu,
  Gelu,     // exact erf form, Keras' default approximate=False
  GeluTanh, // approximate=True
  Swish,    // x * sigmoid(x), also known as silu
  Softplus,
  Softsign,
  LeakyRelu, // alpha * x for x < 0
  Exponential,
  Relu6,
  HardSilu,   // x * relu6(x + 3) / 6, alias hard_swish (Keras 3)
  Mish,       // x * tanh(softplus(x))
  LogSoftmax, // over the last axis
  Celu,       // max(x, 0) + alpha * expm1(min(x, 0) / alpha)
  HardTanh,   // clip(x, -1, 1)
  LogSigmoid, // -softplus(-x)
  SparsePlus, // 0 | (x + 1)^2 / 4 | x, split at -1 and 1
  Squareplus, // (x + sqrt(x^2 + 4)) / 2
  TanhShrink, // x - tanh(x)
  SoftShrink, // x - 0.5 | 0 | x + 0.5
  HardShrink, // x where |x| > 0.5, else 0
  SparseSigmoid,   // 0 | (x + 1) / 2 | 1, split at -1 and 1
  ThresholdedRelu, // x if x > alpha else 0
  // Operations on tensors, no Keras activation: sqrt, 1 / sqrt, log, |x|,
  // alpha / x.
  Sqrt,
  Rsqrt,
  Log,
  Abs,
  Reciprocal,
};

/// Applies `act` in place. `alpha` is the Elu/Celu alpha, the LeakyRelu
/// negative slope, the ThresholdedRelu theta or the Reciprocal's numerator, and
/// is ignored by the other
/// activations.
void applyActivation(Activation act, float alpha, Tensor &t);

/// Softmax or log_softmax of `t` over `axis` (0 <= axis < rank), in place.
void applyRowActivation(Activation act, int64_t axis, Tensor &t);

/// The Keras ReLU layer, in place: p = x > threshold ? x : 0 (max(x, 0) when
/// threshold is 0), clipped to [0, maxValue] when given, minus
/// negativeSlope * max(threshold - x, 0).
void reluLayer(float negativeSlope, float threshold,
               std::optional<float> maxValue, Tensor &t);

/// tf.clip_by_value, in place: max(min(x, maxValue), minValue); NaN stays.
void clip(float minValue, float maxValue, Tensor &t);

/// Keras PReLU: x >= 0 ? x : alpha * x, alpha (x's shape without the batch
/// axis, 1 on shared axes) broadcast where it has size 1.
Tensor prelu(const Tensor &x, const Tensor &alpha);

//===----------------------------------------------------------------------===//
// Dense
//===----------------------------------------------------------------------===//

/// x (..., in) of rank >= 2, kernel (in, units), bias (units) or null.
Tensor dense(const Tensor &x, const Tensor &kernel, const Tensor *bias,
             Activation act, float alpha);

//===----------------------------------------------------------------------===//
// Recurrent layers: x (B, T, in), zero initial state.
//===----------------------------------------------------------------------===//

struct RnnOptions {
  bool returnSequences = false;
  /// Processes time steps last to first; as in Keras the returned sequence is
  /// in processing order, i.e. reversed relative to the input.
  bool goBackwards = false;
  Activation activation = Activation::Tanh;
  Activation recurrentActivation = Activation::Sigmoid;
  /// The alphas of the two activations (elu, celu, leaky_relu); a Keras cell
  /// names its activations, so these are the defaults of those names.
  float alpha = 0;
  float recurrentAlpha = 0;
  /// Keras' timestep mask (B, T) of 1 and 0, or null: a masked step leaves
  /// the row's state as it was and emits it again, or zeros with
  /// zeroOutputForMask (which also zeroes the final output when the last
  /// processed step is masked).
  const Tensor *mask = nullptr;
  bool zeroOutputForMask = false;
  /// (states, B, u), states 2 for an LSTM (h then c) and 1 otherwise: the
  /// state before the first processed step, or null for zeros.
  const Tensor *initialState = nullptr;
  /// When not null, receives the state after the last processed step, in
  /// the layout of initialState.
  Tensor *finalState = nullptr;
};

/// Returns (B, T, u) if returnSequences, else (B, u) = last processed step.
/// kernel (in, 4u), recurrentKernel (u, 4u), bias (4u) or null; gate blocks
/// i, f, c, o.
Tensor lstm(const Tensor &x, const Tensor &kernel,
            const Tensor &recurrentKernel, const Tensor *bias,
            const RnnOptions &options);

/// kernel (in, 3u), recurrentKernel (u, 3u); gate blocks z, r, h.
/// resetAfter=false: bias (3u), candidate act(x W_h + b_h + (r * h) U_h).
/// resetAfter=true: bias (2, 3u) = [input bias; recurrent bias], candidate
/// act(x W_h + b_in_h + r * (h U_h + b_rec_h)). Bias may be null.
Tensor gru(const Tensor &x, const Tensor &kernel, const Tensor &recurrentKernel,
           const Tensor *bias, bool resetAfter, const RnnOptions &options);

/// kernel (in, u), recurrentKernel (u, u), bias (u) or null.
Tensor simpleRnn(const Tensor &x, const Tensor &kernel,
                 const Tensor &recurrentKernel, const Tensor *bias,
                 const RnnOptions &options);

//===----------------------------------------------------------------------===//
// Recurrences: the time loops of the layers above, over a precomputed input
// projection (B, T, gates*u) = x W + input bias for every step. lstm(), gru()
// and simpleRnn() are dense() followed by these, so there is one cell each.
//===----------------------------------------------------------------------===//

/// inputProjection (B, T, 4u), recurrentKernel (u, 4u); gates i, f, c, o.
Tensor lstmRecurrence(const Tensor &inputProjection,
                      const Tensor &recurrentKernel, const RnnOptions &options);

/// inputProjection (B, T, 3u), recurrentKernel (u, 3u); gates z, r, h.
/// resetAfter=true: candidate act(p_h + r * (h U_h + recurrentBias_h)) with
/// recurrentBias (3u) or null added to h U before the gates. resetAfter=false:
/// candidate act(p_h + (r * h) U_h) and recurrentBias must be null.
Tensor gruRecurrence(const Tensor &inputProjection,
                     const Tensor &recurrentKernel, const Tensor *recurrentBias,
                     bool resetAfter, const RnnOptions &options);

/// inputProjection (B, T, u), recurrentKernel (u, u).
Tensor simpleRnnRecurrence(const Tensor &inputProjection,
                           const Tensor &recurrentKernel,
                           const RnnOptions &options);

/// Keras' elementwise merge layers (Add, Subtract, ...): tensors of one
/// shape combined left to right in float32, as Keras computes them; Average
/// is the sum divided by the count; Divide (an operation's, no layer's)
/// divides left to right.
enum class MergeKind { Add, Subtract, Multiply, Average, Maximum, Minimum, Divide };
Tensor merge(llvm::ArrayRef<const Tensor *> inputs, MergeKind kind);

/// Keras' Concatenate: tensors of one rank joined along `axis`.
Tensor concatenate(llvm::ArrayRef<const Tensor *> inputs, int64_t axis);

/// Batched matrix product: a (B, m, k) @ b (B, k, n), or b (B, n, k) read
/// transposed with `transposeB`; (B, m, n).
Tensor matmul(const Tensor &a, const Tensor &b, bool transposeB);

/// How seq.attention scores a query row against a key row (see its
/// description in SeqOps.td): dot, times `scale`; or additive,
/// scoreWeight * sum_d featureScale[d] * tanh(scale * (q_d + k_d)).
struct AttentionOptions {
  bool additive = false;
  std::optional<float> scale, scoreWeight;
  const Tensor *featureScale = nullptr;
  bool causal = false;
  /// Step i sees key steps j with |i - j| < window (0: all).
  int64_t window = 0;
  /// (B, tq) and (B, tk): a step where the mask is 0 is hidden.
  const Tensor *queryMask = nullptr, *keyMask = nullptr;
  /// (B, tq, tk): where it is 0, query step i does not see key step j.
  const Tensor *attentionMask = nullptr;
  /// Return the softmax weights (B, h, tq, tk) instead of the output.
  bool weights = false;
  /// A hidden score is the score plus this (in float32); when absent,
  /// -0.7 * FLT_MAX (see seq.attention).
  std::optional<float> maskOffset;
  /// A hidden score's weight is 0 after the softmax (seq.attention's
  /// zero_hidden).
  bool zeroHidden = false;
};

/// Keras' attention layers: query (B, tq, h, d), key (B, tk, kvh, d), value
/// (B, tk, kvh, dv), h a multiple of kvh; softmax over the key steps;
/// (B, tq, h, dv), or with options.weights the weights (B, h, tq, tk).
Tensor attention(const Tensor &query, const Tensor &key, const Tensor &value,
                 const AttentionOptions &options);

enum class MergeMode { Concat, Sum, Mul, Ave };

/// Merges the outputs of a Bidirectional wrapper. `backward` came from a
/// goBackwards layer; when `sequences`, it is flipped back along time first.
/// Concat joins along the last axis, forward first (the widths may differ);
/// the other modes need equal shapes.
Tensor bidirectionalMerge(const Tensor &forward, const Tensor &backward,
                          MergeMode mode, bool sequences);

//===----------------------------------------------------------------------===//
// Convolution and pooling: x (B, T, C), lengths and padding exactly as
// Keras/TF.
//===----------------------------------------------------------------------===//

enum class Padding { Valid, Same, Causal };

/// kernel (k, C, F), bias (F) or null.
Tensor conv1d(const Tensor &x, const Tensor &kernel, const Tensor *bias,
              int64_t stride, int64_t dilation, Padding padding, Activation act,
              float alpha);

/// `padding` is Valid or Same; padded positions never win the max.
Tensor maxPool1d(const Tensor &x, int64_t poolSize, int64_t stride,
                 Padding padding);
/// `padding` is Valid or Same; a window divides by its non-padded count.
Tensor avgPool1d(const Tensor &x, int64_t poolSize, int64_t stride,
                 Padding padding);
/// (B, T, C) -> (B, C).
Tensor globalMaxPool1d(const Tensor &x);
/// With a mask (B, T) of 1 and 0, the mean of the unmasked steps (NaN when
/// every step of a row is masked, as in Keras).
Tensor globalAvgPool1d(const Tensor &x, const Tensor *mask = nullptr);

//===----------------------------------------------------------------------===//
// Keras' timestep mask: (B, T) of 1 where a step holds data, 0 where it is
// padding. The recurrent kernels and globalAvgPool1d take it.
//===----------------------------------------------------------------------===//

/// ids (B, T): 1 where the id differs from `maskValue`; x (B, T, F): 1 where
/// any feature does.
Tensor sequenceMask(const Tensor &input, float maskValue);
/// x (B, T, ...) times mask (B, T): Keras Masking's output.
Tensor applyMask(const Tensor &x, const Tensor &mask);

//===----------------------------------------------------------------------===//
// Convolution and pooling in 1 to 3 spatial dimensions, channels last:
// x (B, d1..dn, C).
//===----------------------------------------------------------------------===//

/// kernel (k1..kn, C / groups, F), bias (F) or null; strides and dilations
/// hold n sizes; padding Valid or Same. Filter group g (F / groups filters)
/// reads channel group g. Returns (B, o1..on, F).
Tensor convolution(const Tensor &x, const Tensor &kernel, const Tensor *bias,
                   llvm::ArrayRef<int64_t> strides,
                   llvm::ArrayRef<int64_t> dilations, int64_t groups,
                   Padding padding, Activation act, float alpha);

/// Keras ConvLSTM1D/2D/3D: x (B, T, d1..dn, C), kernel (k1..kn, C, 4f),
/// recurrentKernel (r1..rn, f, 4f), bias (4f) or null; gate blocks i, f, c,
/// o. The input convolution has `strides`, `dilations` and `padding`, the
/// recurrent one stride 1 and Same padding; every position runs lstm()'s
/// cell. Of `options` it uses returnSequences, goBackwards and the
/// activations (no mask or state). Returns (B, T, o1..on, f) or
/// (B, o1..on, f).
Tensor convLstm(const Tensor &x, const Tensor &kernel,
                const Tensor &recurrentKernel, const Tensor *bias,
                llvm::ArrayRef<int64_t> strides,
                llvm::ArrayRef<int64_t> dilations, Padding padding,
                const RnnOptions &options);

/// The transpose of convolution(): kernel (k1..kn, F, C) (Keras'
/// Conv*Transpose layout), bias (F) or null. Output position o along axis i
/// (of outSizes[i]) receives input position t through tap j where
/// t * strides[i] + j * dilations[i] == o + pads[i]. Returns (B, out..., F).
Tensor transposedConvolution(const Tensor &x, const Tensor &kernel,
                             const Tensor *bias, llvm::ArrayRef<int64_t> strides,
                             llvm::ArrayRef<int64_t> dilations,
                             llvm::ArrayRef<int64_t> outSizes,
                             llvm::ArrayRef<int64_t> pads, Activation act,
                             float alpha);

/// Max or average pooling over windows of n sizes; an average divides by the
/// window's count of real (non-padded) elements.
Tensor pooling(const Tensor &x, llvm::ArrayRef<int64_t> window,
               llvm::ArrayRef<int64_t> strides, Padding padding, bool isMax);

/// Max or mean over every axis between batch and channels: (B, C), or with
/// keepdims (B, 1..1, C).
Tensor globalPooling(const Tensor &x, bool isMax, bool keepdims);

/// Every element rounded toward zero (seq.truncate: Keras' cast of a model
/// input to an integer dtype).
Tensor truncate(const Tensor &x);

/// Keras 3's adaptive pooling (seq.adaptive_max_pool / adaptive_avg_pool):
/// the spatial axes take the sizes in `outSizes`, one axis after the other
/// (the first spatial axis first); output i of an axis of length L and
/// output size n is the max or mean of inputs floor(i*L/n) up to
/// ceil((i+1)*L/n), exclusive.
Tensor adaptivePooling(const Tensor &x, llvm::ArrayRef<int64_t> outSizes,
                       bool isMax);

//===----------------------------------------------------------------------===//
// Normalization over the last axis. gamma (scale) and beta (center) may be
// null, as with Keras' scale=False / center=False.
//===----------------------------------------------------------------------===//

/// Inference form: (x - movingMean) / sqrt(movingVariance + epsilon) * gamma
/// + beta.
Tensor batchNorm(const Tensor &x, const Tensor *gamma, const Tensor *beta,
                 const Tensor &movingMean, const Tensor &movingVariance,
                 float epsilon);

/// Normalizes each last-axis row by its mean and biased variance.
Tensor layerNorm(const Tensor &x, const Tensor *gamma, const Tensor *beta,
                 float epsilon);

/// Keras GroupNormalization: the last axis' C channels in `groups` groups;
/// each sample's group (all its positions, the group's channels) normalized
/// by its mean and biased variance, then * gamma + beta per channel.
Tensor groupNorm(const Tensor &x, const Tensor &gamma, const Tensor &beta,
                 int64_t groups, float epsilon);

/// Keras UnitNormalization: each last-axis row over sqrt(max(sum(x^2),
/// epsilon)).
Tensor unitNorm(const Tensor &x, float epsilon);

/// Keras RMSNormalization: each last-axis row over sqrt(mean(x^2) +
/// epsilon), times scale per channel.
Tensor rmsNorm(const Tensor &x, const Tensor &scale, float epsilon);

//===----------------------------------------------------------------------===//
// Embedding and shape operations
//===----------------------------------------------------------------------===//

/// ids: integral float values of any shape; table (vocab, dim). Returns
/// ids.shape + (dim); an id outside [0, vocab) or non-integral is an error.
llvm::Expected<Tensor> embedding(const Tensor &ids, const Tensor &table);

/// (B, ...) -> (B, product of the rest).
Tensor flatten(const Tensor &x);

/// (B, ...) -> (B, target...); `targetWithoutBatch` may hold one -1.
llvm::Expected<Tensor> reshape(const Tensor &x,
                               const std::vector<int64_t> &targetWithoutBatch);

/// (B, F) -> (B, n, F).
Tensor repeatVector(const Tensor &x, int64_t n);

/// ZeroPadding: every axis after the batch axis gets low[i] zeros before and
/// high[i] after it.
Tensor zeroPadding(const Tensor &x, llvm::ArrayRef<int64_t> low,
                   llvm::ArrayRef<int64_t> high);

/// Cropping: every axis after the batch axis loses low[i] elements at its
/// start and high[i] at its end.
Tensor cropping(const Tensor &x, llvm::ArrayRef<int64_t> low,
                llvm::ArrayRef<int64_t> high);

/// UpSampling: every axis after the batch axis grows size[i] times, by
/// repeating elements, or with `bilinear` by linear interpolation along each
/// axis as tf.image.resize computes it (half-pixel centres, borders clamped).
Tensor upsampling(const Tensor &x, llvm::ArrayRef<int64_t> size,
                  bool bilinear);

/// Discretization (seq.discretize): each element becomes the number of
/// boundaries not greater than it (TensorFlow's Bucketize), as float32.
Tensor discretize(const Tensor &x, const Tensor &boundaries);

/// CategoryEncoding (seq.category_encoding) of (batch, k) ids: (batch, n)
/// multi-hot (or with `count` counts), or with `oneHot` and k != 1 one row
/// per id (batch, k, n); ids that are not integers in [0, n) count for none.
Tensor categoryEncoding(const Tensor &x, int64_t numTokens, bool oneHot,
                        bool count);

/// Resizing (seq.resize): the spatial axes (all but the first and last)
/// take the sizes in `size`, nearest or bilinear with half-pixel centres as
/// tf.image.resize computes them, the last spatial axis first.
Tensor resize(const Tensor &x, llvm::ArrayRef<int64_t> size, bool bilinear);

/// Keras Permute: output axis i (1-based, after the batch axis) is input
/// axis dims[i-1].
Tensor permute(const Tensor &x, llvm::ArrayRef<int64_t> dims);

/// tf.reverse along one axis: element i of `axis` is element n - 1 - i.
Tensor reverse(const Tensor &x, int64_t axis);

/// TimeDistributed helpers: (B, T, ...) -> (B, ...) at step t, and its inverse
/// that stores `slice` (B, ...) at step t of y (B, T, ...).
Tensor sliceTime(const Tensor &x, int64_t t);
void setTime(Tensor &y, int64_t t, const Tensor &slice);

} // namespace seq::rt

#endif // SEQ_RUNTIME_REFERENCEKERNELS_H

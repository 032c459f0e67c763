// Folds inference batch norm (a per-channel x * s + t) into the weights of
// the affine op before it or, failing that, after it.
#include "AffineOps.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/Transforms/Passes.h"
#include "seq/Dialect/Seq/Transforms/WeightConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace seq {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"
} // namespace seq

using namespace mlir;
using namespace seq;

namespace {

/// The batch norm as `x * scale + shift` per channel, with TensorFlow's
/// formula: scale = gamma * rsqrt(variance + epsilon).
struct ChannelAffine {
  std::vector<double> scale, shift;
};

std::optional<ChannelAffine> readBatchNorm(BatchNormOp bn) {
  auto gamma = readWeights(bn.getGamma()), beta = readWeights(bn.getBeta()),
       mean = readWeights(bn.getMovingMean()),
       variance = readWeights(bn.getMovingVariance());
  if (!gamma || !beta || !mean || !variance)
    return std::nullopt;
  double epsilon = bn.getEpsilon().convertToDouble();
  ChannelAffine result;
  for (size_t c = 0; c < gamma->size(); ++c) {
    double s = (*gamma)[c] / std::sqrt(double((*variance)[c]) + epsilon);
    result.scale.push_back(s);
    result.shift.push_back((*beta)[c] - (*mean)[c] * s);
  }
  return result;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// What both folds read: the batch norm and the affine op's constants.
struct FoldInputs {
  ChannelAffine norm;
  std::vector<float> weight;
  std::optional<std::vector<float>> bias;
};

std::optional<FoldInputs> readFoldInputs(BatchNormOp bn, const AffineView &affine) {
  std::optional<ChannelAffine> norm = readBatchNorm(bn);
  std::optional<std::vector<float>> weight = readWeights(affine.weight);
  std::optional<std::vector<float>> bias;
  if (!norm || !weight || (affine.bias && !(bias = readWeights(affine.bias))))
    return std::nullopt;
  return FoldInputs{std::move(*norm), std::move(*weight), std::move(bias)};
}

/// affine(x) -> batch_norm: scales the producer's output channels (the
/// weight's last axis, a transposed convolution's second to last) and shifts
/// its bias.
struct FoldIntoProducer : OpRewritePattern<BatchNormOp> {
  FoldIntoProducer(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    Operation *producer = bn.getInput().getDefiningOp();
    std::optional<AffineView> affine =
        producer ? AffineView::match(producer) : std::nullopt;
    if (!affine || affine->activation != Activation::Linear ||
        !producer->hasOneUse())
      return rewriter.notifyMatchFailure(bn, "no linear single-use producer");
    std::optional<FoldInputs> in = readFoldInputs(bn, *affine);
    if (!in)
      return rewriter.notifyMatchFailure(bn, "weights are not constants");
    const ChannelAffine &norm = in->norm;
    const std::vector<float> &weight = in->weight;
    const std::optional<std::vector<float>> &bias = in->bias;

    size_t channels = norm.scale.size();
    std::vector<float> newWeight(weight.size()), newBias(channels);
    for (size_t i = 0; i < weight.size(); ++i)
      newWeight[i] =
          weight[i] * norm.scale[(i / affine->outputChannelStride) % channels];
    for (size_t c = 0; c < channels; ++c)
      newBias[c] = (bias ? (*bias)[c] : 0.0) * norm.scale[c] + norm.shift[c];

    Location loc = fuseLocations(producer->getLoc(), bn.getLoc());
    rewriter.setInsertionPoint(producer);
    Value w = createWeights(rewriter, loc, shapeOf(affine->weight), newWeight,
                            blobName(loc, "kernel"));
    Value b = createWeights(rewriter, loc, {int64_t(channels)}, newBias,
                            blobName(loc, "bias"));
    Value folded = affine->rebuild(rewriter, loc, bn.getType(), w, b,
                                   Activation::Linear, nullptr);
    rewriter.replaceOp(bn, folded);
    rewriter.eraseOp(producer);
    return success();
  }
};

/// batch_norm -> dense/linear (its only user, reading it as input): scales
/// the consumer's kernel rows and adds shift @ kernel to its bias. Any
/// activation of the consumer stays, as it applies after the GEMM.
struct FoldIntoConsumer : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    if (!bn->hasOneUse())
      return failure();
    Operation *consumer = *bn->user_begin();
    std::optional<AffineView> affine = AffineView::match(consumer);
    if (!affine || isa<Conv1DOp, Conv2DOp, Conv3DOp, ConvTranspose1DOp,
                            ConvTranspose2DOp, ConvTranspose3DOp>(consumer) ||
        affine->input != bn.getOutput())
      return rewriter.notifyMatchFailure(bn, "no dense/linear consumer");
    std::optional<FoldInputs> in = readFoldInputs(bn, *affine);
    if (!in)
      return rewriter.notifyMatchFailure(bn, "weights are not constants");
    const ChannelAffine &norm = in->norm;
    const std::vector<float> &weight = in->weight;
    const std::optional<std::vector<float>> &bias = in->bias;

    ArrayRef<int64_t> kernelShape = shapeOf(affine->weight);
    int64_t rows = kernelShape[0], cols = kernelShape[1];
    std::vector<float> newWeight(weight.size());
    std::vector<double> newBias(cols, 0.0);
    for (int64_t n = 0; n < cols; ++n)
      newBias[n] = bias ? (*bias)[n] : 0.0;
    for (int64_t k = 0; k < rows; ++k)
      for (int64_t n = 0; n < cols; ++n) {
        float w = weight[k * cols + n];
        newWeight[k * cols + n] = w * norm.scale[k];
        newBias[n] += norm.shift[k] * w;
      }

    Location loc = fuseLocations(bn.getLoc(), consumer->getLoc());
    rewriter.setInsertionPoint(consumer);
    Value w = createWeights(rewriter, loc, kernelShape, newWeight,
                            blobName(loc, "kernel"));
    Value b = createWeights(rewriter, loc, {cols},
                            std::vector<float>(newBias.begin(), newBias.end()),
                            blobName(loc, "bias"));
    AffineView rebuilt = *affine;
    rebuilt.input = bn.getInput();
    Value folded =
        rebuilt.rebuild(rewriter, loc, consumer->getResult(0).getType(), w, b,
                        affine->activation, affine->alpha);
    rewriter.replaceOp(consumer, folded);
    rewriter.eraseOp(bn);
    return success();
  }
};

struct FoldBatchNormPass : seq::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldIntoProducer, FoldIntoConsumer>(&getContext());
    // Not converging within the iteration limit is not an error: the IR is
    // valid after every single rewrite.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

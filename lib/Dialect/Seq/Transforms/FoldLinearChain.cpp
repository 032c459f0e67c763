// B(A(x)) with A affine without activation -> one affine op with the
// product kernel, computed at compile time.
#include "AffineOps.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/Transforms/Passes.h"
#include "seq/Dialect/Seq/Transforms/WeightConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace seq {
#define GEN_PASS_DEF_FOLDLINEARCHAIN
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"
} // namespace seq

using namespace mlir;
using namespace seq;

namespace {

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Matches the second op of the chain (dense or linear).
template <typename OpTy>
struct FoldIntoSecond : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy second,
                                PatternRewriter &rewriter) const override {
    AffineView outer = *AffineView::match(second);
    Operation *producer = outer.input.getDefiningOp();
    if (!producer || !isa<DenseOp, LinearOp>(producer))
      return rewriter.notifyMatchFailure(second, "input is not dense/linear");
    AffineView inner = *AffineView::match(producer);
    if (inner.activation != Activation::Linear || !producer->hasOneUse())
      return rewriter.notifyMatchFailure(second,
                                         "first op has an activation or users");

    int64_t k = shapeOf(inner.weight)[0], h = shapeOf(inner.weight)[1],
            n = shapeOf(outer.weight)[1];
    if (k * n > k * h + h * n)
      return rewriter.notifyMatchFailure(second, "folded GEMM would be larger");

    std::optional<std::vector<float>> w1 = readWeights(inner.weight),
                                      w2 = readWeights(outer.weight), b1, b2;
    if (!w1 || !w2 || (inner.bias && !(b1 = readWeights(inner.bias))) ||
        (outer.bias && !(b2 = readWeights(outer.bias))))
      return rewriter.notifyMatchFailure(second, "weights are not constants");

    std::vector<float> weight(k * n);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (int64_t m = 0; m < h; ++m)
          sum += double((*w1)[i * h + m]) * (*w2)[m * n + j];
        weight[i * n + j] = sum;
      }

    Location loc = fuseLocations(producer->getLoc(), second.getLoc());
    rewriter.setInsertionPoint(second);
    Value w = createWeights(rewriter, loc, {k, n}, weight,
                            blobName(loc, "kernel"));
    Value b;
    if (b1 || b2) {
      std::vector<float> bias(n);
      for (int64_t j = 0; j < n; ++j) {
        double sum = b2 ? (*b2)[j] : 0.0;
        for (int64_t m = 0; b1 && m < h; ++m)
          sum += double((*b1)[m]) * (*w2)[m * n + j];
        bias[j] = sum;
      }
      b = createWeights(rewriter, loc, {n}, bias, blobName(loc, "bias"));
    }
    AffineView folded = outer;
    folded.input = inner.input;
    Value result = folded.rebuild(rewriter, loc, second.getType(), w, b,
                                  outer.activation, outer.alpha);
    rewriter.replaceOp(second, result);
    rewriter.eraseOp(producer);
    return success();
  }
};

struct FoldLinearChainPass
    : seq::impl::FoldLinearChainBase<FoldLinearChainPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldIntoSecond<DenseOp>, FoldIntoSecond<LinearOp>>(
        &getContext());
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

// B(A(x)) with A affine without activation -> one affine op with the
// product kernel, computed at compile time; an Embedding's table times the
// affine op after it -> one Embedding.
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

/// `a` (rows x inner) @ `b` (inner x n), each element starting at `start[j]`
/// (when given) and accumulated in double, then rounded to float.
std::vector<float> product(ArrayRef<float> a, int64_t rows, ArrayRef<float> b,
                           int64_t n, const std::optional<std::vector<float>> &start) {
  int64_t inner = rows ? int64_t(a.size()) / rows : 0;
  std::vector<float> result(rows * n);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = start ? (*start)[j] : 0.0;
      for (int64_t m = 0; m < inner; ++m)
        sum += double(a[i * inner + m]) * b[m * n + j];
      result[i * n + j] = sum;
    }
  return result;
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

    std::vector<float> weight = product(*w1, k, *w2, n, std::nullopt);

    Location loc = fuseLocations(producer->getLoc(), second.getLoc());
    rewriter.setInsertionPoint(second);
    Value w = createWeights(rewriter, loc, {k, n}, weight,
                            blobName(loc, "kernel"));
    Value b;
    if (b1 || b2) {
      std::vector<float> bias = b1 ? product(*b1, 1, *w2, n, b2) : *b2;
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

/// linear(embedding(ids, E)) -> embedding(ids, E @ W + b): each id's row
/// is projected once at compile time, so a recurrent layer after an
/// Embedding gathers its input projection instead of computing it (a third
/// of an Embedding(1000, 64) -> LSTM(128)'s GEMM work). Only while the
/// projected table stays small (kMaxTableFloats) or no larger than E.
template <typename OpTy>
struct FoldIntoEmbedding : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  static constexpr int64_t kMaxTableFloats = int64_t(1) << 22; // 16 MiB

  LogicalResult matchAndRewrite(OpTy linear,
                                PatternRewriter &rewriter) const override {
    AffineView view = *AffineView::match(linear);
    auto embedding = view.input.template getDefiningOp<EmbeddingOp>();
    if (!embedding || !embedding->hasOneUse())
      return rewriter.notifyMatchFailure(linear, "input is not an embedding's alone");
    if (view.activation != Activation::Linear)
      return rewriter.notifyMatchFailure(linear, "has an activation");
    int64_t vocabulary = shapeOf(embedding.getTable())[0],
            dim = shapeOf(embedding.getTable())[1], n = shapeOf(view.weight)[1];
    if (vocabulary * n > std::max(kMaxTableFloats, vocabulary * dim))
      return rewriter.notifyMatchFailure(linear, "projected table would be large");

    std::optional<std::vector<float>> table = readWeights(embedding.getTable()),
                                      w = readWeights(view.weight), b;
    if (!table || !w || (view.bias && !(b = readWeights(view.bias))))
      return rewriter.notifyMatchFailure(linear, "weights are not constants");
    std::vector<float> projected = product(*table, vocabulary, *w, n, b);

    Location loc = fuseLocations(embedding.getLoc(), linear.getLoc());
    rewriter.setInsertionPoint(linear);
    Value folded = createWeights(rewriter, loc, {vocabulary, n}, projected,
                                 blobName(loc, "embeddings_projected"));
    // The Embedding's own location: an invalid id still names that layer.
    rewriter.replaceOp(linear, EmbeddingOp::create(rewriter, embedding.getLoc(),
                                                   linear.getType(),
                                                   embedding.getIds(), folded));
    rewriter.eraseOp(embedding);
    return success();
  }
};

struct FoldLinearChainPass
    : seq::impl::FoldLinearChainBase<FoldLinearChainPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldIntoSecond<DenseOp>, FoldIntoSecond<LinearOp>,
                 FoldIntoEmbedding<DenseOp>, FoldIntoEmbedding<LinearOp>>(
        &getContext());
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

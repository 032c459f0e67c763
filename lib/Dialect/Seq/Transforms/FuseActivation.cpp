// seq.activation after an affine op without activation becomes that op's
// epilogue.
#include "AffineOps.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace seq {
#define GEN_PASS_DEF_FUSEACTIVATION
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"
} // namespace seq

using namespace mlir;
using namespace seq;

namespace {

struct FuseIntoEpilogue : OpRewritePattern<ActivationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ActivationOp activation,
                                PatternRewriter &rewriter) const override {
    Operation *producer = activation.getInput().getDefiningOp();
    std::optional<AffineView> affine =
        producer ? AffineView::match(producer) : std::nullopt;
    // A softmax over another axis than the last is no GEMM epilogue.
    if (!affine || affine->activation != Activation::Linear ||
        !producer->hasOneUse() || activation.getAxis())
      return rewriter.notifyMatchFailure(activation,
                                         "no linear single-use producer");
    Location loc = fuseLocations(producer->getLoc(), activation.getLoc());
    rewriter.setInsertionPoint(producer);
    Value fused = affine->rebuild(rewriter, loc, activation.getType(),
                                  affine->weight, affine->bias,
                                  activation.getActivation(),
                                  activation.getAlphaAttr());
    rewriter.replaceOp(activation, fused);
    rewriter.eraseOp(producer);
    return success();
  }
};

struct FuseActivationPass : seq::impl::FuseActivationBase<FuseActivationPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseIntoEpilogue>(&getContext());
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

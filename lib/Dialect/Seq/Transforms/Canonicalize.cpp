// Local simplifications of seq IR; see the pass description in Passes.td.
#include "AffineOps.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace seq {
#define GEN_PASS_DEF_CANONICALIZE
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"
} // namespace seq

using namespace mlir;
using namespace seq;

namespace {

struct RemoveLinearActivation : OpRewritePattern<ActivationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ActivationOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getActivation() != Activation::Linear)
      return failure();
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

struct MergeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp outer,
                                PatternRewriter &rewriter) const override {
    auto inner = outer.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(
        outer, outer.getType(), inner.getInput(), outer.getTargetShapeAttr());
    return success();
  }
};

/// time_distributed { dense(step, W, b) } -> dense(input, W, b).
struct UnwrapTimeDistributedAffine : OpRewritePattern<TimeDistributedOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TimeDistributedOp td,
                                PatternRewriter &rewriter) const override {
    Block &body = td.getBody().front();
    Operation *affineOp = nullptr;
    SmallVector<Operation *> constants;
    for (Operation &op : body.without_terminator()) {
      if (isa<arith::ConstantOp>(op)) {
        constants.push_back(&op);
      } else if (isa<DenseOp, LinearOp>(op) && !affineOp) {
        affineOp = &op;
      } else {
        return rewriter.notifyMatchFailure(td, "body is not a single dense");
      }
    }
    auto yield = cast<YieldOp>(body.getTerminator());
    if (!affineOp || yield.getValue() != affineOp->getResult(0))
      return failure();
    AffineView affine = *AffineView::match(affineOp);
    if (affine.input != body.getArgument(0))
      return failure();
    for (Operation *constant : constants)
      rewriter.moveOpBefore(constant, td);
    affine.input = td.getInput();
    rewriter.setInsertionPoint(td);
    Value direct = affine.rebuild(
        rewriter, fuseLocations(td.getLoc(), affineOp->getLoc()), td.getType(),
        affine.weight, affine.bias, affine.activation, affine.alpha);
    rewriter.replaceOp(td, direct);
    return success();
  }
};

struct CanonicalizePass : seq::impl::CanonicalizeBase<CanonicalizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RemoveLinearActivation, MergeReshapes,
                 UnwrapTimeDistributedAffine>(&getContext());
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

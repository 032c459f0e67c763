// seq.dense (layer level) -> seq.linear (kernel level): the same math.
#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace seq {
#define GEN_PASS_DEF_LOWERDENSE
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"
} // namespace seq

using namespace mlir;

namespace {
struct LowerDensePass : seq::impl::LowerDenseBase<LowerDensePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](seq::DenseOp dense) {
      rewriter.setInsertionPoint(dense);
      rewriter.replaceOpWithNewOp<seq::LinearOp>(
          dense, dense.getType(), dense.getInput(), dense.getKernel(),
          dense.getBias(), dense.getActivation(), dense.getAlphaAttr());
    });
  }
};
} // namespace

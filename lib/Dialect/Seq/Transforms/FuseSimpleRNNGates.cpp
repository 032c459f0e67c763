// seq.simple_rnn -> seq.linear (input projection of all timesteps) +
// seq.simple_rnn_recurrence (the time loop).
#include "InputProjection.h"

#include "seq/Dialect/Seq/Transforms/Passes.h"

namespace seq {
#define GEN_PASS_DEF_FUSESIMPLERNNGATES
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"
} // namespace seq

using namespace mlir;

namespace {
struct FuseSimpleRNNGatesPass
    : seq::impl::FuseSimpleRNNGatesBase<FuseSimpleRNNGatesPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](seq::SimpleRNNOp rnn) {
      rewriter.setInsertionPoint(rnn);
      Value projection =
          seq::createInputProjection(rewriter, rnn.getLoc(), rnn.getInput(),
                                     rnn.getKernel(), rnn.getBias());
      rewriter.replaceOpWithNewOp<seq::SimpleRNNRecurrenceOp>(
          rnn, rnn.getOutput().getType(), seq::finalStateType(rnn), projection, rnn.getRecurrentKernel(),
          rnn.getMask(), rnn.getInitialState(), rnn.getActivationAttr(), rnn.getReturnSequencesAttr(),
          rnn.getGoBackwardsAttr(), rnn.getZeroOutputForMaskAttr());
    });
  }
};
} // namespace

// seq.lstm -> seq.linear (input projection of all timesteps) +
// seq.lstm_recurrence (the time loop).
#include "InputProjection.h"

#include "seq/Dialect/Seq/Transforms/Passes.h"

namespace seq {
#define GEN_PASS_DEF_FUSELSTMGATES
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"
} // namespace seq

using namespace mlir;

namespace {
struct FuseLSTMGatesPass : seq::impl::FuseLSTMGatesBase<FuseLSTMGatesPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](seq::LSTMOp lstm) {
      rewriter.setInsertionPoint(lstm);
      Value projection =
          seq::createInputProjection(rewriter, lstm.getLoc(), lstm.getInput(),
                                     lstm.getKernel(), lstm.getBias());
      rewriter.replaceOpWithNewOp<seq::LSTMRecurrenceOp>(
          lstm, lstm.getOutput().getType(), seq::finalStateType(lstm), projection, lstm.getRecurrentKernel(),
          lstm.getMask(), lstm.getInitialState(), lstm.getActivationAttr(),
          lstm.getRecurrentActivationAttr(), lstm.getReturnSequencesAttr(),
          lstm.getGoBackwardsAttr(), lstm.getZeroOutputForMaskAttr());
    });
  }
};
} // namespace

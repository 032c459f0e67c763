// seq.gru -> seq.linear (input projection of all timesteps) +
// seq.gru_recurrence (the time loop). With reset_after the (2, 3u) bias is
// split at compile time: row 0 joins the projection, row 1 stays in the loop.
#include "InputProjection.h"

#include "seq/Dialect/Seq/Transforms/Passes.h"
#include "seq/Dialect/Seq/Transforms/WeightConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace seq {
#define GEN_PASS_DEF_FUSEGRUGATES
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"
} // namespace seq

using namespace mlir;
using namespace seq;

namespace {

struct SplitBias {
  Value input, recurrent; ///< input may be null (no bias at all).
};

/// The input-projection bias and the recurrent bias of a GRU, or
/// std::nullopt when a reset_after bias cannot be read at compile time.
std::optional<SplitBias> splitBias(RewriterBase &rewriter, GRUOp gru) {
  Value bias = gru.getBias();
  if (!gru.getResetAfter())
    return SplitBias{bias, nullptr};
  int64_t gates = cast<RankedTensorType>(gru.getKernel().getType()).getShape()[1];
  Location loc = gru.getLoc();
  if (!bias) {
    auto type = RankedTensorType::get({gates}, rewriter.getF32Type());
    Value zeros = arith::ConstantOp::create(
        rewriter, loc, type, DenseElementsAttr::get(type, 0.0f));
    return SplitBias{nullptr, zeros};
  }
  std::optional<std::vector<float>> values = readWeights(bias);
  if (!values)
    return std::nullopt;
  ArrayRef<float> rows(*values);
  return SplitBias{
      createWeights(rewriter, loc, {gates}, rows.take_front(gates),
                    blobName(loc, "input_bias")),
      createWeights(rewriter, loc, {gates}, rows.drop_front(gates),
                    blobName(loc, "recurrent_bias"))};
}

struct FuseGRUGatesPass : seq::impl::FuseGRUGatesBase<FuseGRUGatesPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](GRUOp gru) {
      rewriter.setInsertionPoint(gru);
      std::optional<SplitBias> bias = splitBias(rewriter, gru);
      if (!bias)
        return;
      Value projection = createInputProjection(
          rewriter, gru.getLoc(), gru.getInput(), gru.getKernel(), bias->input);
      rewriter.replaceOpWithNewOp<GRURecurrenceOp>(
          gru, gru.getOutput().getType(), seq::finalStateType(gru), projection, gru.getRecurrentKernel(),
          bias->recurrent, gru.getMask(), gru.getInitialState(), gru.getActivationAttr(),
          gru.getRecurrentActivationAttr(), gru.getReturnSequencesAttr(),
          gru.getGoBackwardsAttr(), gru.getZeroOutputForMaskAttr(),
          gru.getResetAfterAttr());
    });
  }
};

} // namespace

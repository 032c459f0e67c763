#include "AffineOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace seq {

std::optional<AffineView> AffineView::match(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<AffineView>>(op)
      .Case([](DenseOp d) {
        return AffineView{d, d.getInput(), d.getKernel(), d.getBias(),
                          d.getActivation(), d.getAlphaAttr()};
      })
      .Case([](LinearOp l) {
        return AffineView{l, l.getInput(), l.getWeight(), l.getBias(),
                          l.getActivation(), l.getAlphaAttr()};
      })
      .Case<Conv1DOp, Conv2DOp, Conv3DOp>([](auto c) {
        return AffineView{c, c.getInput(), c.getKernel(), c.getBias(),
                          c.getActivation(), c.getAlphaAttr()};
      })
      .Case<ConvTranspose1DOp, ConvTranspose2DOp, ConvTranspose3DOp>(
          [](auto c) {
            AffineView view{c, c.getInput(), c.getKernel(), c.getBias(),
                            c.getActivation(), c.getAlphaAttr()};
            view.outputChannelStride =
                cast<RankedTensorType>(c.getKernel().getType()).getShape().back();
            return std::optional<AffineView>(view);
          })
      .Default([](Operation *) { return std::nullopt; });
}

Value AffineView::rebuild(RewriterBase &rewriter, Location loc, Type resultType,
                          Value newWeight, Value newBias,
                          Activation newActivation, FloatAttr newAlpha) const {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](DenseOp) {
        return DenseOp::create(rewriter, loc, resultType, input, newWeight,
                               newBias, newActivation, newAlpha)
            .getResult();
      })
      .Case([&](LinearOp) {
        return LinearOp::create(rewriter, loc, resultType, input, newWeight,
                                newBias, newActivation, newAlpha)
            .getResult();
      })
      .Case([&](Conv1DOp c) {
        return Conv1DOp::create(rewriter, loc, resultType, input, newWeight,
                                newBias, c.getStrides(), c.getDilationRate(),
                                c.getPadding(), newActivation, newAlpha)
            .getResult();
      })
      .Case<Conv2DOp, Conv3DOp>([&](auto c) {
        return decltype(c)::create(rewriter, loc, resultType, input, newWeight,
                                   newBias, c.getStridesAttr(),
                                   c.getDilationRateAttr(), c.getGroupsAttr(),
                                   c.getPaddingAttr(),
                                   ActivationAttr::get(rewriter.getContext(),
                                                       newActivation),
                                   newAlpha)
            .getResult();
      })
      .Case<ConvTranspose1DOp, ConvTranspose2DOp, ConvTranspose3DOp>(
          [&](auto c) {
            return decltype(c)::create(
                       rewriter, loc, resultType, input, newWeight, newBias,
                       c.getStridesAttr(), c.getDilationRateAttr(),
                       c.getOutputPaddingAttr(), c.getPaddingAttr(),
                       ActivationAttr::get(rewriter.getContext(), newActivation),
                       newAlpha)
                .getResult();
          })
      .Default([](Operation *) -> Value {
        llvm_unreachable("AffineView only matches dense, linear and conv");
      });
}

Location fuseLocations(Location first, Location second) {
  return FusedLoc::get(first.getContext(), {first, second});
}

} // namespace seq

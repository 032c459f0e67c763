// Recomputes every seq op's result type from its operand types, in program
// order, refining dynamic dimensions; updates the function signature.
#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"
#include "seq/Dialect/Seq/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/TypeSwitch.h"

namespace seq {
#define GEN_PASS_DEF_INFERSHAPES
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"
} // namespace seq

using namespace mlir;
using namespace seq;
using Shape = SmallVector<int64_t>;

namespace {

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// (batch, [time,] units) of a recurrent op.
template <typename OpTy>
Shape recurrentShape(OpTy op) {
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
  Shape shape{in[0]};
  if (op.getReturnSequences())
    shape.push_back(in[1]);
  shape.push_back(shapeOf(op.getRecurrentKernel())[0]);
  return shape;
}

template <typename OpTy>
Shape poolShape(OpTy op) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  return {in[0],
          shapes::pool1dLength(in[1], op.getPoolSize(), op.getStrides(),
                               op.getPadding()),
          in[2]};
}

template <typename OpTy>
Shape globalPoolShape(OpTy op) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  if (op.getKeepdims())
    return {in[0], 1, in[2]};
  return {in[0], in[2]};
}

/// The shape the op's rule gives for its operands: failure after a
/// diagnostic, std::nullopt when the op has no rule here (not a seq op).
FailureOr<std::optional<Shape>> ruleShape(Operation *op) {
  using Result = FailureOr<std::optional<Shape>>;
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case<DenseOp, LinearOp>([](auto affine) -> Result {
        Shape shape(shapeOf(affine.getInput()).drop_back());
        shape.push_back(shapeOf(affine->getOperand(1))[1]);
        return {shape};
      })
      .Case<LSTMOp, GRUOp, SimpleRNNOp, LSTMRecurrenceOp, GRURecurrenceOp,
            SimpleRNNRecurrenceOp>(
          [](auto rnn) -> Result { return {recurrentShape(rnn)}; })
      .Case([](BidirectionalOp bi) -> Result {
        Shape shape(shapeOf(bi.getForward()));
        int64_t backward = shapeOf(bi.getBackward()).back();
        if (bi.getMergeMode() == MergeMode::Concat)
          shape.back() = shape.back() == shapes::kDynamic ||
                                 backward == shapes::kDynamic
                             ? shapes::kDynamic
                             : shape.back() + backward;
        return {shape};
      })
      .Case([](Conv1DOp conv) -> Result {
        ArrayRef<int64_t> in = shapeOf(conv.getInput()),
                          k = shapeOf(conv.getKernel());
        return {Shape{in[0],
                      shapes::conv1dLength(in[1], k[0], conv.getStrides(),
                                           conv.getDilationRate(),
                                           conv.getPadding()),
                      k[2]}};
      })
      .Case<MaxPool1DOp, AvgPool1DOp>(
          [](auto pool) -> Result { return {poolShape(pool)}; })
      .Case<GlobalMaxPool1DOp, GlobalAvgPool1DOp>(
          [](auto pool) -> Result { return {globalPoolShape(pool)}; })
      .Case([](SequenceMaskOp mask) -> Result {
        return {Shape(shapeOf(mask.getInput()).take_front(2))};
      })
      .Case<Conv2DOp, Conv3DOp>([](auto conv) -> Result {
        constexpr int64_t spatial = decltype(conv)::kSpatialRank;
        ArrayRef<int64_t> k = shapeOf(conv.getKernel());
        return {shapes::convolution(shapeOf(conv.getInput()),
                                    k.take_front(spatial), conv.getStrides(),
                                    conv.getDilationRate(), conv.getPadding(),
                                    k.back())};
      })
      .Case<ConvTranspose1DOp, ConvTranspose2DOp, ConvTranspose3DOp>(
          [](auto conv) -> Result {
            constexpr int64_t spatial = decltype(conv)::kSpatialRank;
            ArrayRef<int64_t> k = shapeOf(conv.getKernel());
            ArrayRef<int64_t> outputPadding;
            if (conv.getOutputPadding())
              outputPadding = *conv.getOutputPadding();
            return {shapes::transposedConvolution(
                shapeOf(conv.getInput()), k.take_front(spatial),
                conv.getStrides(), conv.getDilationRate(), conv.getPadding(),
                outputPadding, k[spatial])};
          })
      .Case<MaxPool2DOp, AvgPool2DOp, MaxPool3DOp, AvgPool3DOp>(
          [](auto pool) -> Result {
            return {shapes::pooling(shapeOf(pool.getInput()),
                                    pool.getPoolSize(), pool.getStrides(),
                                    pool.getPadding())};
          })
      .Case<GlobalMaxPool2DOp, GlobalAvgPool2DOp, GlobalMaxPool3DOp,
            GlobalAvgPool3DOp>([](auto pool) -> Result {
        return {shapes::globalPooling(shapeOf(pool.getInput()),
                                      pool.getKeepdims())};
      })
      .Case([](ZeroPaddingOp pad) -> Result {
        return {shapes::padded(shapeOf(pad.getInput()), pad.getLow(),
                               pad.getHigh())};
      })
      .Case([](CroppingOp crop) -> Result {
        return {shapes::padded(shapeOf(crop.getInput()), crop.getLow(),
                               crop.getHigh(), -1)};
      })
      .Case([](SliceOp slice) -> Result {
        Shape shape{shapeOf(slice.getInput())[0]};
        llvm::append_range(shape, slice.getSizes());
        return {shape};
      })
      .Case([](UpSamplingOp up) -> Result {
        return {shapes::upsampled(shapeOf(up.getInput()), up.getSize())};
      })
      .Case([](CategoryEncodingOp op) -> Result {
        return {shapes::categoryEncoded(shapeOf(op.getInput()), op.getNumTokens(),
                                        op.getMode())};
      })
      .Case([](ResizeOp resize) -> Result {
        return {shapes::resized(shapeOf(resize.getInput()), resize.getSize())};
      })
      .Case<AdaptiveMaxPoolOp, AdaptiveAvgPoolOp>([](auto pool) -> Result {
        return {shapes::resized(shapeOf(pool.getInput()), pool.getOutputSize())};
      })
      .Case([](PermuteOp permute) -> Result {
        return {shapes::permuted(shapeOf(permute.getInput()), permute.getDims())};
      })
      .Case<TruncateOp, DiscretizeOp, BatchNormOp, LayerNormOp, GroupNormOp, UnitNormOp, RMSNormOp, DropoutOp, ActivationOp, ReluOp, ClipOp,
            PReluOp, ApplyMaskOp, ReverseOp>(
          [](auto same) -> Result { return {Shape(shapeOf(same.getInput()))}; })
      .Case([](EmbeddingOp embedding) -> Result {
        Shape shape(shapeOf(embedding.getIds()));
        shape.push_back(shapeOf(embedding.getTable())[1]);
        return {shape};
      })
      .Case([](FlattenOp flatten) -> Result {
        return {shapes::flatten(shapeOf(flatten.getInput()))};
      })
      .Case([](ReshapeOp reshape) -> Result {
        std::string error;
        auto shape = shapes::reshape(shapeOf(reshape.getInput()),
                                     reshape.getTargetShape(), error);
        if (!shape)
          return reshape.emitOpError(error);
        return {*shape};
      })
      .Case([](UnstackOp unstack) -> Result {
        return {Shape(shapeOf(unstack.getInput()).drop_front())};
      })
      .Case([](RepeatVectorOp repeat) -> Result {
        ArrayRef<int64_t> in = shapeOf(repeat.getInput());
        return {Shape{in[0], int64_t(repeat.getN()), in[1]}};
      })
      .Case([](TimeDistributedOp td) -> Result {
        ArrayRef<int64_t> in = shapeOf(td.getInput());
        auto yield = cast<YieldOp>(td.getBody().front().getTerminator());
        ArrayRef<int64_t> step = shapeOf(yield.getValue());
        Shape shape{step[0], in[1]};
        shape.append(step.begin() + 1, step.end());
        return {shape};
      })
      .Default([](Operation *) -> Result { return {std::nullopt}; });
}

/// The rule's static sizes win; a size the rule leaves dynamic keeps what
/// the IR says. Two different static sizes are an error.
FailureOr<Shape> refine(Operation *op, ArrayRef<int64_t> current,
                        ArrayRef<int64_t> inferred) {
  if (current.size() != inferred.size())
    return op->emitOpError() << "result has rank " << current.size()
                             << " but its operands give "
                             << shapes::format(inferred);
  Shape shape(current);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (inferred[i] == shapes::kDynamic)
      continue;
    if (shapes::conflict(current[i], inferred[i]))
      return op->emitOpError()
             << "result shape " << shapes::format(current)
             << " contradicts the " << shapes::format(inferred)
             << " its operands give";
    shape[i] = inferred[i];
  }
  return shape;
}

LogicalResult inferBlock(Block &block) {
  for (Operation &op : block) {
    if (auto td = dyn_cast<TimeDistributedOp>(op)) {
      ArrayRef<int64_t> in = shapeOf(td.getInput());
      Shape step{in[0]};
      step.append(in.begin() + 2, in.end());
      BlockArgument arg = td.getBody().getArgument(0);
      arg.setType(RankedTensorType::get(
          step, cast<RankedTensorType>(arg.getType()).getElementType()));
      if (failed(inferBlock(td.getBody().front())))
        return failure();
    }
    if (op.getNumResults() != 1 || !isa<SeqDialect>(op.getDialect()))
      continue;
    FailureOr<std::optional<Shape>> inferred = ruleShape(&op);
    if (failed(inferred))
      return failure();
    if (!*inferred)
      continue;
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    FailureOr<Shape> refined = refine(&op, type.getShape(), **inferred);
    if (failed(refined))
      return failure();
    op.getResult(0).setType(type.clone(*refined));
  }
  return success();
}

struct InferShapesPass : seq::impl::InferShapesBase<InferShapesPass> {
  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      if (failed(inferBlock(func.getBody().front()))) {
        signalPassFailure();
        return;
      }
      Operation *terminator = func.getBody().front().getTerminator();
      func.setFunctionType(FunctionType::get(
          func.getContext(), func.getArgumentTypes(),
          terminator->getOperandTypes()));
    });
  }
};

} // namespace

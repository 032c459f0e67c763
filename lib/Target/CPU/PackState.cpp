// A stateful model's @predict takes and returns one state tensor per
// stateful layer (ModelState.h). Its C interface would then depend on the
// model; packed, it is always (input, state) -> (output, state) with all
// states in one flat vector in slot order, which is what the JIT and the
// AOT library's runtime pass.
#include "PackState.h"

#include "seq/Dialect/Seq/IR/ModelState.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/BitVector.h"

using namespace mlir;

LogicalResult seq::cpu::packModelState(func::FuncOp predict) {
  FailureOr<std::vector<StateSlot>> slots = [&]() -> FailureOr<std::vector<StateSlot>> {
    llvm::Expected<std::vector<StateSlot>> s = stateSlots(predict);
    if (!s) {
      llvm::consumeError(s.takeError());
      return failure();
    }
    return std::move(*s);
  }();
  if (failed(slots))
    return failure();
  if (slots->empty())
    return success();
  unsigned count = predict.getNumArguments(), states = slots->size();
  unsigned inputs = count - states;
  Block &entry = predict.front();
  Location loc = predict.getLoc();
  OpBuilder b(&entry, entry.begin());
  Type f32 = b.getF32Type();
  int64_t total = stateSize(*slots);
  auto flatType = RankedTensorType::get({total}, f32);
  if (failed(predict.insertArgument(count, flatType, {}, loc)))
    return failure();
  Value flat = entry.getArgument(count);

  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  unsigned outputs = ret.getNumOperands() - states;
  Value packed = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{total}, f32);
  OpBuilder atReturn(ret);
  for (auto [j, slot] : llvm::enumerate(*slots)) {
    BlockArgument arg = entry.getArgument(inputs + j);
    auto type = cast<RankedTensorType>(arg.getType());
    auto sliceType = RankedTensorType::get({slot.size}, f32);
    // (states, batch, units) or a ConvLSTM's (2, batch, positions..., filters).
    SmallVector<ReassociationIndices> all{
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))};
    Value slice = tensor::ExtractSliceOp::create(
        b, loc, sliceType, flat, ArrayRef<OpFoldResult>{b.getIndexAttr(slot.offset)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(slot.size)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    arg.replaceAllUsesWith(
        tensor::ExpandShapeOp::create(b, loc, type, slice, all).getResult());
    Value final = tensor::CollapseShapeOp::create(atReturn, loc, sliceType,
                                                  ret.getOperand(outputs + j), all);
    packed = tensor::InsertSliceOp::create(
        atReturn, loc, final, packed,
        ArrayRef<OpFoldResult>{atReturn.getIndexAttr(slot.offset)},
        ArrayRef<OpFoldResult>{atReturn.getIndexAttr(slot.size)},
        ArrayRef<OpFoldResult>{atReturn.getIndexAttr(1)});
  }
  SmallVector<Value> results(ret.getOperands().take_front(outputs));
  results.push_back(packed);
  ret->setOperands(results);
  llvm::BitVector erased(count + 1);
  erased.set(inputs, count);
  if (failed(predict.eraseArguments(erased)))
    return failure();
  predict.setType(FunctionType::get(predict.getContext(), entry.getArgumentTypes(),
                                    ValueRange(results).getTypes()));
  predict.removeResAttrsAttr();
  return success();
}

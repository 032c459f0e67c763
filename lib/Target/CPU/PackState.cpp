// A stateful model's @predict takes and returns one state tensor per
// stateful layer (ModelState.h). Its C interface would then depend on the
// model; packed, it is always (input, state) -> (output, state) with all
// states in one flat vector in slot order, which is what the JIT and the
// AOT library's runtime pass.
#include "PackState.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/BitVector.h"

using namespace mlir;

LogicalResult seq::cpu::packModelState(func::FuncOp predict) {
  unsigned count = predict.getNumArguments();
  if (count < 2)
    return success();
  Block &entry = predict.front();
  Location loc = predict.getLoc();
  OpBuilder b(&entry, entry.begin());
  Type f32 = b.getF32Type();
  int64_t total = 0;
  for (unsigned i = 1; i < count; ++i)
    total += cast<RankedTensorType>(entry.getArgument(i).getType()).getNumElements();
  auto flatType = RankedTensorType::get({total}, f32);
  if (failed(predict.insertArgument(count, flatType, {}, loc)))
    return failure();
  Value flat = entry.getArgument(count);

  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  SmallVector<ReassociationIndices> all{{0, 1, 2}};
  Value packed = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{total}, f32);
  OpBuilder atReturn(ret);
  int64_t offset = 0;
  for (unsigned i = 1; i < count; ++i) {
    BlockArgument arg = entry.getArgument(i);
    auto type = cast<RankedTensorType>(arg.getType());
    int64_t size = type.getNumElements();
    auto sliceType = RankedTensorType::get({size}, f32);
    Value slice = tensor::ExtractSliceOp::create(
        b, loc, sliceType, flat, ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    arg.replaceAllUsesWith(
        tensor::ExpandShapeOp::create(b, loc, type, slice, all).getResult());
    Value final = tensor::CollapseShapeOp::create(atReturn, loc, sliceType,
                                                  ret.getOperand(i), all);
    packed = tensor::InsertSliceOp::create(
        atReturn, loc, final, packed, ArrayRef<OpFoldResult>{atReturn.getIndexAttr(offset)},
        ArrayRef<OpFoldResult>{atReturn.getIndexAttr(size)},
        ArrayRef<OpFoldResult>{atReturn.getIndexAttr(1)});
    offset += size;
  }
  Value output = ret.getOperand(0);
  ret->setOperands(ValueRange{output, packed});
  llvm::BitVector states(count + 1);
  states.set(1, count);
  if (failed(predict.eraseArguments(states)))
    return failure();
  predict.setType(FunctionType::get(predict.getContext(),
                                    {entry.getArgument(0).getType(), flatType},
                                    {output.getType(), flatType}));
  predict.removeResAttrsAttr();
  return success();
}

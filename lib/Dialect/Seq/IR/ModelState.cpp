#include "seq/Dialect/Seq/IR/ModelState.h"

using namespace mlir;

llvm::Expected<std::vector<seq::StateSlot>>
seq::stateSlots(func::FuncOp predict) {
  FunctionType type = predict.getFunctionType();
  unsigned first = type.getNumInputs();
  while (first > 0 && predict.getArgAttr(first - 1, kStateAttrName))
    --first;
  unsigned count = type.getNumInputs() - first;
  for (unsigned i = 0; i < first; ++i)
    if (predict.getArgAttr(i, kStateAttrName))
      return llvm::createStringError(
          "@predict argument " + std::to_string(i) + " is marked " +
          kStateAttrName.str() + " but an input follows it: states come last");
  if (type.getNumResults() < count + 1)
    return llvm::createStringError(
        "@predict has " + std::to_string(count) + " state arguments but " +
        std::to_string(type.getNumResults()) +
        " results: each state argument needs its state result, after the "
        "outputs");
  std::vector<StateSlot> slots;
  int64_t offset = 0;
  for (unsigned j = 0; j < count; ++j) {
    unsigned i = first + j, r = type.getNumResults() - count + j;
    auto name = predict.getArgAttrOfType<StringAttr>(i, kStateAttrName);
    auto tensor = dyn_cast<RankedTensorType>(type.getInput(i));
    std::string which = "@predict argument " + std::to_string(i);
    if (!name)
      return llvm::createStringError(which + " is marked " + kStateAttrName.str() +
                                     " but not with a layer name");
    if (!tensor || !tensor.hasStaticShape() || !tensor.getElementType().isF32())
      return llvm::createStringError(which +
                                     " (a state) must be a static f32 tensor");
    if (type.getResult(r) != tensor)
      return llvm::createStringError(which + " (a state) and result " +
                                     std::to_string(r) + " differ in type");
    StateSlot slot;
    slot.layer = name.str();
    slot.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    slot.offset = offset;
    slot.size = tensor.getNumElements();
    offset += slot.size;
    slots.push_back(std::move(slot));
  }
  return slots;
}

int64_t seq::stateSize(const std::vector<StateSlot> &slots) {
  return slots.empty() ? 0 : slots.back().offset + slots.back().size;
}

std::optional<int64_t> seq::fixedBatch(ModuleOp module) {
  auto predict = module.lookupSymbol<func::FuncOp>("predict");
  if (!predict || predict.getNumArguments() < 1)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(predict.getArgumentTypes()[0]);
  if (!type || type.getRank() < 1 || type.isDynamicDim(0))
    return std::nullopt;
  return type.getDimSize(0);
}

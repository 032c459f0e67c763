#include "seq/Dialect/Seq/IR/ModelState.h"

using namespace mlir;

llvm::Expected<std::vector<seq::StateSlot>>
seq::stateSlots(func::FuncOp predict) {
  FunctionType type = predict.getFunctionType();
  std::vector<StateSlot> slots;
  if (type.getNumInputs() != type.getNumResults())
    return llvm::createStringError(
        "@predict has " + std::to_string(type.getNumInputs()) +
        " arguments and " + std::to_string(type.getNumResults()) +
        " results: a state argument needs its state result");
  int64_t offset = 0;
  for (unsigned i = 1; i < type.getNumInputs(); ++i) {
    auto name = predict.getArgAttrOfType<StringAttr>(i, kStateAttrName);
    auto tensor = dyn_cast<RankedTensorType>(type.getInput(i));
    std::string which = "@predict argument " + std::to_string(i);
    if (!name)
      return llvm::createStringError(which + " is not marked " +
                                     kStateAttrName.str());
    if (!tensor || !tensor.hasStaticShape() || !tensor.getElementType().isF32())
      return llvm::createStringError(which +
                                     " (a state) must be a static f32 tensor");
    if (type.getResult(i) != tensor)
      return llvm::createStringError(which + " (a state) and result " +
                                     std::to_string(i) + " differ in type");
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

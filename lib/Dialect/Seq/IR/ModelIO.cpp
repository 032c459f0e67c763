#include "seq/Dialect/Seq/IR/ModelIO.h"

using namespace mlir;

namespace {

llvm::Expected<seq::ModelPort> port(Type type, StringAttr name,
                                    llvm::StringRef kind, unsigned index,
                                    unsigned count) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isF32() || tensor.getRank() < 1)
    return llvm::createStringError("@predict " + kind.str() + " " +
                                   std::to_string(index) +
                                   " is not a ranked f32 tensor with a batch axis");
  seq::ModelPort p;
  if (name)
    p.name = name.str();
  else
    p.name = count == 1 ? kind.str() : kind.str() + "_" + std::to_string(index);
  for (int64_t d : tensor.getShape())
    p.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return p;
}

} // namespace

llvm::Expected<seq::ModelIO> seq::modelIO(func::FuncOp predict) {
  llvm::Expected<std::vector<StateSlot>> state = stateSlots(predict);
  if (!state)
    return state.takeError();
  FunctionType type = predict.getFunctionType();
  unsigned inputs = type.getNumInputs() - state->size();
  unsigned outputs = type.getNumResults() - state->size();
  if (inputs < 1 || outputs < 1)
    return llvm::createStringError("@predict must take at least one input and "
                                   "return at least one output");
  ModelIO io;
  io.state = std::move(*state);
  for (unsigned i = 0; i < inputs; ++i) {
    llvm::Expected<ModelPort> p =
        port(type.getInput(i), predict.getArgAttrOfType<StringAttr>(i, kInputAttrName),
             "input", i, inputs);
    if (!p)
      return p.takeError();
    io.inputs.push_back(std::move(*p));
  }
  for (unsigned i = 0; i < outputs; ++i) {
    llvm::Expected<ModelPort> p = port(
        type.getResult(i), predict.getResultAttrOfType<StringAttr>(i, kOutputAttrName),
        "output", i, outputs);
    if (!p)
      return p.takeError();
    io.outputs.push_back(std::move(*p));
  }
  return io;
}

std::string seq::shapeText(const std::vector<int64_t> &dims) {
  std::string text = "(";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return text + (dims.size() == 1 ? ",)" : ")");
}

std::string seq::portList(const std::vector<ModelPort> &ports) {
  std::string text;
  for (size_t i = 0; i < ports.size(); ++i) {
    if (i)
      text += i + 1 == ports.size() ? " and " : ", ";
    text += "'" + ports[i].name + "'";
  }
  return text;
}

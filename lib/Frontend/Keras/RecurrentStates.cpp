#include "RecurrentStates.h"

#include "EmitterSupport.h"
#include "LayerFamilies.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace seq::keras {

using emit::layerLoc;
using emit::tensorType;

bool isConvLSTM(StringRef className) {
  return className == "ConvLSTM1D" || className == "ConvLSTM2D" ||
         className == "ConvLSTM3D";
}

bool handsStatesOn(StringRef className) {
  return className == "LSTM" || className == "GRU" || className == "SimpleRNN" ||
         isConvLSTM(className);
}

int64_t stateCountOf(StringRef recurrentClass) {
  return recurrentClass == "LSTM" || recurrentClass == "LSTMCell" || isConvLSTM(recurrentClass)
             ? 2
             : 1;
}

Expected<int64_t> returnedStateCount(const LayerConfig &layer) {
  StringRef cls = layer.getClassName();
  if (handsStatesOn(cls))
    return stateCountOf(cls);
  if (cls == "RNN") {
    Expected<LayerConfig> cell = layer.getInnerLayer("cell");
    if (!cell)
      return cell.takeError();
    StringRef cellClass = cell->getClassName();
    if (cellClass == "LSTMCell" || cellClass == "GRUCell" || cellClass == "SimpleRNNCell")
      return stateCountOf(cellClass);
    return layer.error("the return_state states of an RNN over a '" + cellClass +
                       "' are read: not supported; stack the recurrent layers "
                       "instead");
  }
  if (cls == "Bidirectional") {
    Expected<LayerConfig> inner = layer.getInnerLayer("layer");
    if (!inner)
      return inner.takeError();
    Expected<int64_t> count = returnedStateCount(*inner);
    if (!count)
      return count.takeError();
    return 2 * *count;
  }
  return layer.error("its outputs after the first are read, as return_state "
                     "states: only LSTM, GRU, SimpleRNN, ConvLSTM, RNN and "
                     "Bidirectional layers return states");
}

Expected<Value> stackedState(OpBuilder &builder, const LayerConfig &layer,
                             ArrayRef<Value> states, bool stateful) {
  StringRef cls = layer.getClassName();
  int64_t count = stateCountOf(cls);
  if (stateful)
    return layer.error("keeps its state (stateful=True) and is given an "
                       "initial_state: not supported");
  // A ConvLSTM's states are (batch, positions..., filters), its state's
  // exact shape checked when the layer is emitted.
  bool convolutional = isConvLSTM(cls);
  Expected<int64_t> units = layer.getSize(convolutional ? "filters" : "units");
  if (!units)
    return units.takeError();
  std::string one = convolutional ? "(batch, positions..., filters)"
                                  : "(batch, " + std::to_string(*units) + ")";
  if (static_cast<int64_t>(states.size()) != count)
    return layer.error("reads " + Twine(states.size() + 1) + " inputs: a " + cls +
                       " reads its sequence and, as initial_state, " + Twine(count) +
                       " state(s) of " + one);
  ArrayRef<int64_t> first = cast<RankedTensorType>(states[0].getType()).getShape();
  size_t rank = convolutional ? emit::spatialRankOf(cls) + 2 : 2;
  for (Value state : states) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(state.getType()).getShape();
    if (shape.size() != rank || (!convolutional && shape[1] != *units) ||
        !shapes::agree(shape, first))
      return layer.error("initial_state has shape " + shapes::format(shape) +
                         ", expected " + one);
  }
  SmallVector<int64_t> stacked{count};
  stacked.append(first.begin(), first.end());
  return StackOp::create(builder, layerLoc(builder, layer.getName() + "/initial_state"),
                         tensorType(builder, stacked), ValueRange(states))
      .getResult();
}

Error RecurrentStates::record(const LayerConfig &layer, ArrayRef<Value> directions) {
  Expected<int64_t> count = returnedStateCount(layer);
  if (!count)
    return count.takeError();
  size_t expected = layer.getClassName() == "Bidirectional" ? 2 : 1;
  if (directions.size() != expected)
    return layer.error("its return_state states are read, but seqc kept " +
                       Twine(directions.size()) + " final state(s) of it, not " +
                       Twine(expected));
  Final &final = finals[layer.getCallId()];
  final.directions.assign(directions.begin(), directions.end());
  final.perDirection = *count / static_cast<int64_t>(expected);
  final.className = layer.getClassName();
  final.name = layer.getName();
  return Error::success();
}

Value RecurrentStates::wholeState(
    const LayerConfig &layer,
    ArrayRef<std::pair<std::string, int64_t>> reads) const {
  if (reads.empty() || !handsStatesOn(layer.getClassName()))
    return nullptr;
  auto it = finals.find(reads.front().first);
  if (it == finals.end() || it->second.className != layer.getClassName() ||
      static_cast<int64_t>(reads.size()) != it->second.perDirection)
    return nullptr;
  for (auto [k, read] : llvm::enumerate(reads))
    if (read.first != reads.front().first || read.second != static_cast<int64_t>(k) + 1)
      return nullptr;
  return it->second.directions.front();
}

Expected<Value> RecurrentStates::state(OpBuilder &builder, StringRef from,
                                       int64_t index) {
  std::string name = from.split('\x1f').first.str();
  auto it = finals.find(from);
  if (it == finals.end())
    return llvm::createStringError("output " + Twine(index) + " of '" + name +
                                   "', which is not a state of a return_state=True "
                                   "recurrent layer");
  const Final &final = it->second;
  int64_t count = final.perDirection * static_cast<int64_t>(final.directions.size());
  if (index < 1 || index > count)
    return llvm::createStringError("output " + Twine(index) + " of '" + name +
                                   "', which is not one of its " + Twine(count) +
                                   " state(s)");
  Value &slice = slices[{from.str(), index}];
  if (slice)
    return slice;
  int64_t direction = (index - 1) / final.perDirection;
  int64_t which = (index - 1) % final.perDirection;
  Value stacked = final.directions[direction];
  ArrayRef<int64_t> shape = cast<RankedTensorType>(stacked.getType()).getShape();
  slice = UnstackOp::create(builder, layerLoc(builder, name + "/state_" + Twine(index).str()),
                            tensorType(builder, shape.drop_front()), stacked,
                            static_cast<uint64_t>(which))
              .getResult();
  return slice;
}

} // namespace seq::keras

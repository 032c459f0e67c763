#include "seq/Dialect/Seq/Transforms/ModelGraph.h"
#include "seq/Dialect/Seq/IR/ModelIO.h"
#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"
#include "seq/Dialect/Seq/Transforms/WeightConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace seq {
namespace {

std::string escape(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

std::string shapeText(Value v) {
  return shapes::format(cast<RankedTensorType>(v.getType()).getShape());
}

/// "relu", "tanh/sigmoid, return_sequences", "concat", or "".
std::string details(Operation *op) {
  auto recurrent = [](Activation act, std::optional<Activation> rec,
                      bool sequences, bool backwards, bool resetAfter) {
    std::string text = stringifyActivation(act).str();
    if (rec)
      text += "/" + stringifyActivation(*rec).str();
    if (sequences)
      text += ", return_sequences";
    if (backwards)
      text += ", go_backwards";
    if (resetAfter)
      text += ", reset_after";
    return text;
  };
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case<DenseOp, LinearOp, Conv1DOp, Conv2DOp, Conv3DOp, ConvTranspose1DOp,
            ConvTranspose2DOp, ConvTranspose3DOp, ActivationOp>(
          [](auto o) {
        if (o.getActivation() == Activation::Linear && !isa<ActivationOp>(o))
          return std::string();
        return stringifyActivation(o.getActivation()).str();
      })
      .Case<LSTMOp, LSTMRecurrenceOp, ConvLSTMOp>([&](auto o) {
        return recurrent(o.getActivation(), o.getRecurrentActivation(),
                         o.getReturnSequences(), o.getGoBackwards(), false);
      })
      .Case<GRUOp, GRURecurrenceOp>([&](auto o) {
        return recurrent(o.getActivation(), o.getRecurrentActivation(),
                         o.getReturnSequences(), o.getGoBackwards(),
                         o.getResetAfter());
      })
      .Case<SimpleRNNOp, SimpleRNNRecurrenceOp>([&](auto o) {
        return recurrent(o.getActivation(), std::nullopt,
                         o.getReturnSequences(), o.getGoBackwards(), false);
      })
      .Case([](BidirectionalOp o) {
        return stringifyMergeMode(o.getMergeMode()).str();
      })
      .Default([](Operation *) { return std::string(); });
}

/// Elements of the constant operands of `op` and of the ops in its body.
int64_t parameterCount(Operation *op) {
  int64_t count = 0;
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (operand.getDefiningOp<arith::ConstantOp>())
        count += cast<ShapedType>(operand.getType()).getNumElements();
  });
  return count;
}

void writeFunction(func::FuncOp func, StringRef prefix, raw_ostream &os) {
  DenseMap<Value, std::string> nodes;
  for (BlockArgument arg : func.getArguments()) {
    std::string id = (prefix + "input" + Twine(arg.getArgNumber())).str();
    nodes[arg] = id;
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kInputAttrName);
    os << "  " << id << " [shape=ellipse, fillcolor=\"#f4f4f4\", label=\""
       << escape(name ? name.getValue() : "input") << "\\n" << shapeText(arg) << "\"];\n";
  }
  int counter = 0;
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op)) {
      for (auto [i, value] : llvm::enumerate(op.getOperands())) {
        std::string id = (prefix + "output" + Twine(i)).str();
        auto name = func.getResultAttrOfType<StringAttr>(i, kOutputAttrName);
        os << "  " << id << " [shape=ellipse, fillcolor=\"#f4f4f4\", label=\""
           << escape(name ? name.getValue() : "output") << "\\n" << shapeText(value)
           << "\"];\n";
        if (nodes.count(value))
          os << "  " << nodes[value] << " -> " << id << ";\n";
      }
      continue;
    }
    if (!isa<SeqDialect>(op.getDialect()))
      continue;
    std::string id = (prefix + "op" + Twine(counter++)).str();
    std::string name = layerName(op.getLoc());
    std::string label = escape(name.empty() ? "(unnamed)" : name) + "\\n" +
                        op.getName().getStringRef().str();
    std::string extra = details(&op);
    if (!extra.empty())
      label += " " + escape(extra);
    if (auto td = dyn_cast<TimeDistributedOp>(op))
      for (Operation &inner : td.getBody().front().without_terminator())
        if (isa<SeqDialect>(inner.getDialect())) {
          std::string innerExtra = details(&inner);
          label += "\\n  applies " + inner.getName().getStringRef().str() +
                   (innerExtra.empty() ? "" : " " + escape(innerExtra));
        }
    label += "\\n" + shapeText(op.getResult(0));
    if (int64_t params = parameterCount(&op))
      label += "\\n" + std::to_string(params) + " params";
    os << "  " << id << " [label=\"" << label << "\"];\n";
    for (Value operand : op.getOperands())
      if (nodes.count(operand))
        os << "  " << nodes[operand] << " -> " << id << ";\n";
    nodes[op.getResult(0)] = id;
  }
}

} // namespace

void writeModelGraph(ModuleOp module, raw_ostream &os) {
  std::string title = "model";
  if (auto metadata = module->getAttrOfType<DictionaryAttr>(kMetadataAttrName))
    if (auto name = metadata.getAs<StringAttr>("model_name"))
      title = name.getValue().str();
  os << "digraph \"" << escape(title) << "\" {\n"
     << "  rankdir=TB;\n"
     << "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#e8f0fb\", "
        "fontname=\"Helvetica\", fontsize=11];\n"
     << "  edge [color=\"#555555\"];\n";
  int index = 0;
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    std::string prefix = index++ == 0 ? "" : "f" + std::to_string(index) + "_";
    writeFunction(func, prefix, os);
  });
  os << "}\n";
}

} // namespace seq

#include "seq/Frontend/Keras/Summary.h"

#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "llvm/Support/Format.h"

namespace seq::keras {

namespace {

std::string kerasShape(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += shape[i] == shapes::kDynamic ? "None" : std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// 21825 -> "21,825", as Keras prints counts.
std::string withCommas(int64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(i, ",");
  return digits;
}

void row(llvm::raw_ostream &os, llvm::StringRef a, llvm::StringRef b,
         llvm::StringRef c) {
  os << " " << llvm::left_justify(a, 28) << " " << llvm::left_justify(b, 25)
     << " " << c << "\n";
}

/// A graph's row, with the layers it reads, as Keras' Functional summary.
void graphRow(llvm::raw_ostream &os, llvm::StringRef a, llvm::StringRef b,
              llvm::StringRef c, llvm::StringRef d) {
  os << " " << llvm::left_justify(a, 28) << " " << llvm::left_justify(b, 25)
     << " " << llvm::left_justify(c, 10) << " " << d << "\n";
}

std::string connections(const std::vector<std::string> &layers) {
  std::string text = "[";
  for (size_t i = 0; i < layers.size(); ++i)
    text += (i ? ", '" : "'") + layers[i] + "'";
  return text + "]";
}

} // namespace

void printSummary(const ImportedModel &model, llvm::raw_ostream &os) {
  bool graph = llvm::any_of(model.layers, [](const LayerSummary &layer) {
    return !layer.connectedTo.empty();
  });
  std::string thin(graph ? 98 : 65, '_'), thick(graph ? 98 : 65, '=');
  os << "Model: \"" << model.modelName << "\"\n" << thin << "\n";
  if (graph)
    graphRow(os, "Layer (type)", "Output Shape", "Param #", "Connected to");
  else
    row(os, "Layer (type)", "Output Shape", "Param #");
  os << thick << "\n";
  int64_t total = 0, frozen = 0;
  for (size_t i = 0; i < model.layers.size(); ++i) {
    const LayerSummary &layer = model.layers[i];
    if (i)
      os << "\n";
    std::string name = layer.name + " (" + layer.className + ")";
    if (graph)
      graphRow(os, name, kerasShape(layer.outputShape), std::to_string(layer.params),
               connections(layer.connectedTo));
    else
      row(os, name, kerasShape(layer.outputShape), std::to_string(layer.params));
    total += layer.params;
    frozen += layer.nonTrainableParams;
  }
  os << thick << "\n";
  os << "Total params: " << withCommas(total) << "\n";
  os << "Trainable params: " << withCommas(total - frozen) << "\n";
  os << "Non-trainable params: " << withCommas(frozen) << "\n";
  os << thin << "\n";
}

} // namespace seq::keras

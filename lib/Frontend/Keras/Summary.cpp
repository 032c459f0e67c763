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

} // namespace

void printSummary(const ImportedModel &model, llvm::raw_ostream &os) {
  std::string thin(65, '_'), thick(65, '=');
  os << "Model: \"" << model.modelName << "\"\n" << thin << "\n";
  row(os, "Layer (type)", "Output Shape", "Param #");
  os << thick << "\n";
  int64_t total = 0, frozen = 0;
  for (size_t i = 0; i < model.layers.size(); ++i) {
    const LayerSummary &layer = model.layers[i];
    if (i)
      os << "\n";
    row(os, layer.name + " (" + layer.className + ")",
        kerasShape(layer.outputShape), std::to_string(layer.params));
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

// Text helpers of the CUDA emitter: C literals, names, shapes.
#include "ModelEmitter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;
using llvm::StringRef;

namespace seq::cuda::detail {

std::string kernelEnumName(StringRef type, StringRef name) {
  return ("seqc::" + type + "::" + llvm::convertToCamelFromSnakeCase(name, true)).str();
}

std::string actName(Activation a) {
  return kernelEnumName("Act", stringifyActivation(a));
}

std::string paddingName(Padding p) {
  return kernelEnumName("Padding", stringifyPadding(p));
}

std::string floatLiteral(float v) {
  if (v == 0.0f)
    return "0.0f";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.9g", v);
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text + "f";
}

std::string floatLiteral(std::optional<llvm::APFloat> v) {
  return floatLiteral(v ? v->convertToFloat() : 0.0f);
}

std::string cString(StringRef text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    default:
      if (c < 0x20 || c >= 0x7f) {
        // Octal keeps a following hex digit from joining the escape.
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\%03o", c);
        out += buffer;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

std::string byteList(StringRef text) {
  std::string out = "{";
  for (unsigned char c : text)
    out += std::to_string(c) + ", ";
  return out + "0}";
}

std::string commentSafe(StringRef text) {
  std::string out;
  for (char c : text)
    out += llvm::isAlnum(c) || c == '_' || c == '.' || c == '-' ? c : '_';
  return out;
}

std::string identifier(StringRef name) {
  std::string id;
  for (char c : name)
    id += llvm::isAlnum(c) ? c : '_';
  if (id.empty() || llvm::isDigit(id[0]))
    id = "w_" + id;
  return id;
}

std::string product(llvm::ArrayRef<std::string> dims) {
  if (dims.empty())
    return "1";
  std::string text;
  for (const std::string &d : dims)
    text += (text.empty() ? "" : " * ") + d;
  return text;
}

std::string shapeText(ShapedType type) {
  std::string text = "(";
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    text += (i ? ", " : "") + (ShapedType::isDynamic(d) ? std::string("?")
                                                        : std::to_string(d));
  return text + ")";
}

std::string rowsText(Value value) {
  auto type = cast<ShapedType>(value.getType());
  std::string text;
  for (int64_t d : type.getShape().drop_back())
    text += (text.empty() ? "" : "x") +
            (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return text.empty() ? "1" : text;
}

StringRef cellName(Cell c) {
  switch (c) {
  case Cell::Lstm:
    return "seqc::Cell::Lstm";
  case Cell::GruResetAfter:
    return "seqc::Cell::GruResetAfter";
  case Cell::GruResetBefore:
    return "seqc::Cell::GruResetBefore";
  case Cell::SimpleRnn:
    return "seqc::Cell::SimpleRnn";
  }
  return "";
}

std::string cellTemplateArguments(const RecurrenceSpec &spec) {
  return cellName(spec.cell).str() + ", " + actName(spec.activation) + ", " +
         (spec.cell == Cell::SimpleRnn ? "seqc::Act::Sigmoid" : actName(spec.recurrentActivation));
}

int gatesOf(Cell c) {
  return c == Cell::Lstm ? 4 : c == Cell::SimpleRnn ? 1 : 3;
}

std::string dimsList(ShapedType type) {
  std::string text;
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    text += (i ? ", " : "") + std::to_string(ShapedType::isDynamic(d) ? -1 : d);
  return text;
}

/// "seqc::Sizes3{2, {a, b, 1}}".
std::string sizes3(llvm::ArrayRef<std::string> values) {
  std::string text = "seqc::Sizes3{" + std::to_string(values.size()) + ", {";
  for (size_t i = 0; i < 3; ++i)
    text += (i ? ", " : "") + (i < values.size() ? "(int)" + values[i] : std::string("1"));
  return text + "}}";
}

std::string sizes3(llvm::ArrayRef<int64_t> values) {
  Dims text;
  for (int64_t v : values)
    text.push_back(std::to_string(v));
  return sizes3(text);
}

/// "seqc::Shape5{4, {a, b, c, d, 1}}".
std::string shape5(llvm::ArrayRef<std::string> values) {
  std::string text = "seqc::Shape5{" + std::to_string(values.size()) + ", {";
  for (size_t i = 0; i < 5; ++i)
    text += (i ? ", " : "") + (i < values.size() ? "(int64_t)" + values[i] : std::string("1"));
  return text + "}}";
}

std::string joined(llvm::ArrayRef<int64_t> values, llvm::StringRef separator) {
  std::string text;
  for (auto [i, v] : llvm::enumerate(values))
    text += (i ? separator.str() : "") + std::to_string(v);
  return text;
}

} // namespace seq::cuda::detail

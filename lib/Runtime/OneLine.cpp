#include "seq/Runtime/OneLine.h"

#include <cstdio>

std::string seq::rt::oneLine(llvm::StringRef text) {
  std::string line;
  line.reserve(text.size());
  for (unsigned char c : text) {
    if (c == '\n') {
      line += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      line += escaped;
    } else {
      line += static_cast<char>(c);
    }
  }
  return line;
}

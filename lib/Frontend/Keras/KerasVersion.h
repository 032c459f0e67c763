// The Keras version a model file was saved with, where semantics moved
// between releases (hard_sigmoid in 3.0, masked merges in 3.4, attention
// masks in 3.7 and 3.13).
#ifndef SEQ_LIB_FRONTEND_KERAS_KERASVERSION_H
#define SEQ_LIB_FRONTEND_KERAS_KERASVERSION_H

#include "llvm/ADT/StringRef.h"

#include <limits>
#include <utility>

namespace seq::keras {

struct KerasVersion {
  int major = 3;
  /// The newest where the file names only its major version, or none.
  int minor = std::numeric_limits<int>::max();

  bool atLeast(int wantMajor, int wantMinor) const {
    return std::pair(major, minor) >= std::pair(wantMajor, wantMinor);
  }

  /// From strings such as "2.3.0-tf" or "3.3.3"; where `text` names no
  /// major version, `keras3Layout` (the weights file's layout) decides.
  static KerasVersion parse(llvm::StringRef text, bool keras3Layout) {
    auto number = [](llvm::StringRef s, int &out) {
      return !s.take_while([](char c) { return c >= '0' && c <= '9'; })
                  .getAsInteger(10, out);
    };
    KerasVersion version;
    auto [first, rest] = text.split('.');
    if (!number(first, version.major))
      return {keras3Layout ? 3 : 2, std::numeric_limits<int>::max()};
    int minor = 0;
    if (number(rest, minor))
      version.minor = minor;
    return version;
  }
};

} // namespace seq::keras

#endif

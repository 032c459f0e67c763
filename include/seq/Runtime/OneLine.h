//===- OneLine.h - Error text that stays one inert line ---------*- C++ -*-===//
//
// Names and values quoted from a model or input file may hold newlines or
// terminal escape sequences. Every error that reaches a user (seq-compile's
// "error:" line, seqc.Error in Python) goes through oneLine, so it stays a
// single line and nothing in it acts on the terminal.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_RUNTIME_ONELINE_H
#define SEQ_RUNTIME_ONELINE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace seq::rt {

/// `text` with '\n' written as "\n" and other control characters (and DEL)
/// as "\xNN"; every other byte as it is.
std::string oneLine(llvm::StringRef text);

} // namespace seq::rt

#endif

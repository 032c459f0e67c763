// The Keras-style model summary (`seq-compile --summary`).
#ifndef SEQ_FRONTEND_KERAS_SUMMARY_H
#define SEQ_FRONTEND_KERAS_SUMMARY_H

#include "seq/Frontend/Keras/Importer.h"

#include "llvm/Support/raw_ostream.h"

namespace seq::keras {

/// Prints layer (type), output shape and parameter count per layer, and the
/// totals, laid out like Keras' model.summary().
void printSummary(const ImportedModel &model, llvm::raw_ostream &os);

} // namespace seq::keras

#endif

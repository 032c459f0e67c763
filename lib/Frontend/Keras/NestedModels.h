// Models called as layers (a Sequential "base" under a classifier head, a
// Siamese network's shared encoder) replaced in the config by their layers,
// so that every later stage sees one flat graph. A layer "d1" of a nested
// model "base" becomes the layer "base/d1": each call of "base" is one call
// of it (as a shared layer's), reading what that call of "base" is given;
// a layer that read base's i-th output reads base's i-th output layer. A
// TimeDistributed over a chain model is a TimeDistributed per layer
// ("<wrapper>/<model>/<layer>"); a Sequential model holding a Functional one
// becomes a Functional chain.
#ifndef SEQ_LIB_FRONTEND_KERAS_NESTEDMODELS_H
#define SEQ_LIB_FRONTEND_KERAS_NESTEDMODELS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace seq::keras {

/// How many models deep a model may nest models (a model in a model in the
/// model is 2); a file beyond this is refused before any recursion.
constexpr int kMaxModelNesting = 8;

/// How many layer calls the layers of a model may make once its nested
/// models are inlined (a model called n times in a model called m times is
/// n * m calls of each of its layers).
constexpr int64_t kMaxInlinedCalls = int64_t(1) << 16;

/// The key of an inlined layer entry that names the models it is inside
/// ([[name, class], ...], outermost first); a file's own is dropped.
constexpr llvm::StringLiteral kScopeKey = "seqc_scope";

/// Whether a layer of this class is a model.
bool isModelClass(llvm::StringRef className);

/// A Functional model's config ("layers", "input_layers", "output_layers")
/// with its nested models' layers in their place.
llvm::Expected<llvm::json::Object>
inlineNestedModels(const llvm::json::Object &config, llvm::StringRef where);

/// Whether a Sequential model's layers hold a Functional model (inside
/// nested Sequential models or a TimeDistributed too): then the model is
/// read as the graph it is (inlineSequentialAsGraph).
bool holdsFunctionalModel(llvm::ArrayRef<const llvm::json::Value *> layers,
                          int depth = 0);

/// A Sequential model's layers as the Functional chain they are, with their
/// nested models' layers in their place.
llvm::Expected<llvm::json::Object>
inlineSequentialAsGraph(const llvm::json::Array &layers, llvm::StringRef where);

/// A Sequential model's layer list with nested Sequential models' layers in
/// their place (a nested Functional model is refused: the bare lists of
/// Keras <= 2.2.2 are not read as graphs).
llvm::Expected<llvm::json::Array>
inlineNestedSequentials(llvm::ArrayRef<const llvm::json::Value *> layers,
                        llvm::StringRef where);

} // namespace seq::keras

#endif

//===- LayerClasses.h - Which class names are Keras' own layers -*- C++ -*-===//
//
// A class name in a model config is either one of Keras' built-in layers
// (Keras 2/tf_keras and Keras 3, aliases included), which seqc supports or
// says it does not support yet, or a custom class whose code is not in the
// file and which seqc can never run. The importer checks this before it
// reads any weights, so a custom layer with unusual weights (an int8
// quantizer) is reported as the custom layer it is.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_LIB_FRONTEND_KERAS_LAYERCLASSES_H
#define SEQ_LIB_FRONTEND_KERAS_LAYERCLASSES_H

#include "KerasConfig.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>

namespace seq::keras {

/// Whether `className` is a layer class Keras itself defines.
bool isBuiltinLayerClass(llvm::StringRef className);

/// The layers Keras' applications define outside keras.layers, which seqc
/// imports by what they compute: ConvNeXt's LayerScale (x * gamma) and
/// InceptionResNetV2's CustomScaleLayer (inputs[0] + inputs[1] * scale,
/// tf_keras' "Custom>CustomScaleLayer"). A config entry is one when its
/// module, where the file records one (.keras files do), is that
/// application's and its config has exactly that class's keys; the result
/// is the class's Python path, which the layer keeps as its source class.
/// A user's own class of the same name is still refused as custom.
std::optional<llvm::StringRef> applicationLayerPath(const llvm::json::Object &entry);
/// Whether `layer` was read as one of those (its class name is the
/// application's class, its source class the path).
bool isApplicationLayer(const LayerConfig &layer);

/// The Python class behind a config's class name, which Keras' summary
/// prints and the Keras 3 weight file names groups after: the class name
/// itself except for a layer exported under another name
/// (GroupQueryAttention is GroupedQueryAttention) and an application's layer
/// (keras.applications.convnext.LayerScale is LayerScale).
llvm::StringRef pythonClassName(llvm::StringRef className);

/// LSTM, GRU, SimpleRNN, RNN and Bidirectional: the layers that step through
/// time, skip masked steps, and keep the mask when they return sequences.
bool isRecurrentLayerClass(llvm::StringRef className);

/// The layers that read the timestep mask: the recurrent ones and
/// GlobalAveragePooling1D.
bool usesTimestepMask(llvm::StringRef className);

/// Whether Keras hands a layer's incoming timestep mask on to the next layer
/// unchanged (Dense, activations, dropouts, normalizations, TimeDistributed):
/// its `supports_masking`, which tf_keras' Rescaling, Normalization, Identity
/// and GroupNormalization lack. Every other layer drops the mask (Keras 3)
/// or cannot be built with one (Keras 2), except the recurrent layers above.
bool passesMaskThrough(llvm::StringRef className, int kerasMajor);

/// The normalizations over a feature axis (config 'axis'): Batch, Layer,
/// Group, Unit and RMS normalization.
bool normalizesOverAxis(llvm::StringRef className);

/// The error for `layer`, whose class seqc does not import: "not supported
/// by seqc yet" for a Keras layer, "a custom layer" otherwise.
llvm::Error unsupportedLayerError(const LayerConfig &layer);

/// The custom-layer error for the first layer (wrapped layers included) whose
/// class is not Keras' own, else success.
llvm::Error checkLayerClasses(llvm::ArrayRef<LayerConfig> layers);

} // namespace seq::keras

#endif

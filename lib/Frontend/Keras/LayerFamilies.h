//===- LayerFamilies.h - Layer families with their own emitters -*- C++ -*-===//
//
// A layer family (the convolutions, the poolings, the spatial shape layers,
// the inference identities, ...) is imported by one function in its own
// file; this table maps each Keras class name (aliases included) to it.
// LayerEmitter::emit asks the table before its own chain, so adding a layer
// family touches its file, the table and its tests.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_LIB_FRONTEND_KERAS_LAYERFAMILIES_H
#define SEQ_LIB_FRONTEND_KERAS_LAYERFAMILIES_H

#include "EmitterSupport.h"
#include "KerasVersion.h"

namespace seq::keras {

/// How a recurrent layer's state starts and where its final state goes,
/// as the layer emitter links them (LayerEmitter.cpp).
struct StatePlan {
  /// Another layer's final state, a stateful layer's state argument of
  /// @predict, or null (zeros).
  mlir::Value initial;
  /// The type of the final state the op returns, or null when nothing
  /// reads it.
  mlir::Type finalType;
  bool stateful = false;
};

/// What a recurrent family emitter (ConvLSTM) asks of the layer emitter.
class RecurrentStateLinks {
public:
  virtual ~RecurrentStateLinks() = default;
  /// The plan for `layer`, whose states together are `shape`, (states,
  /// batch, ...); an error for what cannot be (stateful without a fixed
  /// batch, stateful and linked to other layers). Takes the links set for
  /// this layer.
  virtual llvm::Expected<StatePlan> planState(const LayerConfig &layer, bool stateful,
                                              llvm::ArrayRef<int64_t> shape,
                                              mlir::Location loc) = 0;
  /// After the op: its final state (when plan.finalType is set), kept for
  /// the layers that read it or as the stateful layer `name`'s next state.
  virtual void keepState(const StatePlan &plan, llvm::StringRef name,
                         mlir::Value finalState) = 0;
};

/// What a family emitter gets: the layer, its input and its weights, with
/// the builder at the insertion point and the layer's location.
struct EmitContext {
  mlir::OpBuilder &builder;
  const LayerConfig &layer;
  mlir::Value input;
  emit::WeightList &weights;
  /// Picks version-dependent semantics (hard_sigmoid, UnitNormalization's
  /// epsilon).
  KerasVersion version;
  mlir::Location loc;
  /// For recurrent families; null elsewhere.
  RecurrentStateLinks *states = nullptr;
};

using FamilyEmitter = llvm::Expected<mlir::Value> (*)(EmitContext &);

/// The emitter of the family that imports `className`, or null.
FamilyEmitter findLayerFamily(llvm::StringRef className);

/// Every class name in the table (unordered).
std::vector<std::string> layerFamilyClasses();

// The families (one file each).

/// Conv2D, Conv3D (ImageLayers.cpp).
llvm::Expected<mlir::Value> emitConvolution(EmitContext &context);
/// ConvLSTM1D, ConvLSTM2D, ConvLSTM3D (ConvLSTMLayers.cpp).
llvm::Expected<mlir::Value> emitConvLSTM(EmitContext &context);
/// Conv1DTranspose, Conv2DTranspose, Conv3DTranspose (TransposedConvLayers.cpp).
llvm::Expected<mlir::Value> emitTransposedConvolution(EmitContext &context);
/// DepthwiseConv1D/2D and SeparableConv1D/2D (DepthwiseConvLayers.cpp).
llvm::Expected<mlir::Value> emitDepthwiseConvolution(EmitContext &context);
/// GroupNormalization, UnitNormalization, RMSNormalization
/// (NormalizationLayers.cpp).
llvm::Expected<mlir::Value> emitGroupNormalization(EmitContext &context);
llvm::Expected<mlir::Value> emitUnitNormalization(EmitContext &context);
llvm::Expected<mlir::Value> emitRMSNormalization(EmitContext &context);
/// MaxPooling2D/3D, AveragePooling2D/3D (ImageLayers.cpp).
llvm::Expected<mlir::Value> emitPooling(EmitContext &context);
/// GlobalMax/AveragePooling2D/3D (ImageLayers.cpp).
llvm::Expected<mlir::Value> emitGlobalPooling(EmitContext &context);
/// AdaptiveAveragePooling1D/2D/3D, AdaptiveMaxPooling1D/2D/3D (Keras 3;
/// AdaptivePoolingLayers.cpp).
llvm::Expected<mlir::Value> emitAdaptivePooling(EmitContext &context);
/// Conv1D, channels_first and grouped too (Conv1DLayers.cpp).
llvm::Expected<mlir::Value> emitConv1D(EmitContext &context);
/// ZeroPadding1D/2D/3D, Cropping1D/2D/3D (SpatialShapeLayers.cpp).
llvm::Expected<mlir::Value> emitPadOrCrop(EmitContext &context);
/// UpSampling1D/2D/3D (SpatialShapeLayers.cpp).
llvm::Expected<mlir::Value> emitUpSampling(EmitContext &context);
/// EinsumDense (EinsumDenseLayers.cpp).
llvm::Expected<mlir::Value> emitEinsumDense(EmitContext &context);
/// Permute (SpatialShapeLayers.cpp).
llvm::Expected<mlir::Value> emitPermute(EmitContext &context);
/// Flatten of any rank, either data format (SpatialShapeLayers.cpp).
llvm::Expected<mlir::Value> emitFlatten(EmitContext &context);
/// Dropout, the random augmentation layers and the other identities at
/// inference; RandomCrop (InferenceIdentities.cpp).
llvm::Expected<mlir::Value> emitInferenceIdentity(EmitContext &context);
llvm::Expected<mlir::Value> emitRandomCrop(EmitContext &context);
/// Rescaling and Normalization as seq.batch_norm (PreprocessingLayers.cpp).
llvm::Expected<mlir::Value> emitRescaling(EmitContext &context);
llvm::Expected<mlir::Value> emitNormalization(EmitContext &context);
/// Keras' applications' LayerScale, and CustomScaleLayer of two inputs
/// (ApplicationLayers.cpp).
llvm::Expected<mlir::Value> emitLayerScale(EmitContext &context);
llvm::Expected<mlir::Value> emitCustomScale(mlir::OpBuilder &builder, const LayerConfig &layer,
                                            llvm::ArrayRef<mlir::Value> inputs);
/// Discretization and CategoryEncoding (CategoricalLayers.cpp).
llvm::Expected<mlir::Value> emitDiscretization(EmitContext &context);
llvm::Expected<mlir::Value> emitCategoryEncoding(EmitContext &context);
/// Resizing, CenterCrop, and tf_keras' RandomCrop at inference: Keras'
/// smart_resize to (height, width), bilinear (ResizingLayers.cpp).
llvm::Expected<mlir::Value> emitResizing(EmitContext &context);
llvm::Expected<mlir::Value> emitCenterCrop(EmitContext &context);
llvm::Expected<mlir::Value> emitSmartResize(EmitContext &context);

namespace emit {

/// Config 'data_format': false for channels_last (Keras' default), true for
/// channels_first.
Expected<bool> channelsFirst(const LayerConfig &layer);

/// seq.permute of `x` with Keras' 1-based `dims`, located at
/// "<layer>/<part>".
Value permuteAxes(EmitContext &context, Value x, ArrayRef<int64_t> dims,
                  StringRef part);

/// (batch, channels, spatial...) to (batch, spatial..., channels) and back.
Value toChannelsLast(EmitContext &context, Value x);
Value toChannelsFirst(EmitContext &context, Value x);

/// 1 for a class name holding "1D" (Conv1DTranspose, DepthwiseConv1D), 3 for
/// "3D", else 2.
int64_t spatialRankOf(StringRef className);

/// Config `key` as one size per spatial axis: one int for all of them or a
/// list of `n`, each in [minimum, 2^31); `fallback` when absent or null (an
/// error when `fallback` is empty).
Expected<SmallVector<int64_t>> spatialSizes(const LayerConfig &layer,
                                            StringRef key, int64_t n,
                                            ArrayRef<int64_t> fallback = {},
                                            int64_t minimum = 1);

/// A convolution's window: config kernel_size, strides and dilation_rate
/// (one size per spatial axis; strides and dilations 1 when absent) and
/// padding (causal only with `allowCausal`).
struct ConvWindow {
  SmallVector<int64_t> kernel, strides, dilations;
  Padding padding;
};
Expected<ConvWindow> convWindow(const LayerConfig &layer, int64_t spatial,
                                bool allowCausal);

/// A layer error if a window does not fit: output size 0 on some axis.
Error requireWindowsFit(const LayerConfig &layer, ArrayRef<int64_t> input,
                        ArrayRef<int64_t> output, StringRef window);

/// The input (of rank spatial + 2) in channels-last order, and whether to
/// permute back.
Expected<std::pair<Value, bool>> channelsLastInput(EmitContext &c,
                                                   int64_t spatial);

/// seq.reshape of `x` to (batch, target...) at "<layer>/<part>"; one target
/// size may be -1 (the 1-D convolutions' one-column 2-D form and back,
/// EinsumDense's flattened axes). The target must fit `x`.
Value reshapeTo(EmitContext &c, Value x, ArrayRef<int64_t> target,
                StringRef part);

/// A size of a shape as a reshape target: -1 where dynamic.
inline int64_t targetSize(int64_t size) { return size == kDynamic ? -1 : size; }

/// `left` zeros in front of the first axis after the batch axis
/// ("<layer>/causal_padding"): causal padding before a valid convolution.
Value causalPadding(EmitContext &c, Value x, int64_t left);

/// The channel axis' size of channels-last `x`; a layer error when dynamic.
Expected<int64_t> staticChannels(const LayerConfig &layer, Value x);

} // namespace emit

} // namespace seq::keras

#endif

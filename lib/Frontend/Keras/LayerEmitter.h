// Turns one Keras layer (config + weights) into layer-level seq ops.
#ifndef SEQ_LIB_FRONTEND_KERAS_LAYEREMITTER_H
#define SEQ_LIB_FRONTEND_KERAS_LAYEREMITTER_H

#include "KerasConfig.h"
#include "KerasVersion.h"
#include "LayerFamilies.h"
#include "WeightStore.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace seq::keras {

class LayerEmitter : RecurrentStateLinks {
public:
  /// `version` picks version-dependent semantics (hard_sigmoid, masked
  /// merges, attention masks). `unbuiltModel`: the file is a whole model and
  /// holds no weight at all, so a layer that needs weights was saved before
  /// the model was built.
  LayerEmitter(mlir::OpBuilder &builder, KerasVersion version, bool unbuiltModel = false)
      : builder(builder), version(version), unbuiltModel(unbuiltModel) {}

  /// Emits `layer` applied to `input` at the builder's insertion point.
  /// Keras' timestep mask travels along the chain beside the values: the
  /// emitter keeps the current one (from Masking or Embedding with
  /// mask_zero), gives it to the layers that use it, and keeps or drops it
  /// after each layer as Keras does.
  llvm::Expected<mlir::Value> emit(const LayerConfig &layer, mlir::Value input,
                                   llvm::ArrayRef<WeightArray> weights);

  /// The chain's current timestep mask, (batch, time), or null.
  mlir::Value currentMask() const { return mask; }
  /// The mask of the value the next layer reads (in a graph, each value
  /// has its own).
  void setMask(mlir::Value m) { mask = m; }

  /// For the next recurrent layer emitted (a Functional encoder-decoder):
  /// the state it starts from, (states, batch, units) as another layer's
  /// final state, or null; and whether its final state is wanted (its
  /// return_state states are read), then finalStates() after it: one
  /// (states, batch, units) value, or two for a Bidirectional (forward,
  /// backward).
  void setStateLinks(mlir::Value initial, bool keepFinal) {
    linkedInitialState = initial;
    keepFinalState = keepFinal;
    lastFinalStates.clear();
  }
  llvm::ArrayRef<mlir::Value> finalStates() const { return lastFinalStates; }
  /// After an attention layer called with return_attention_scores=True: its
  /// second output, the softmax weights (batch, heads, tq, tk) (Attention,
  /// AdditiveAttention: (batch, tq, tk)); else null.
  mlir::Value attentionScores() const { return lastAttentionScores; }
  /// After an operation of several outputs (tf.split, tf.unstack and
  /// their keras.ops): all of them, the first the one it returned; else
  /// empty.
  llvm::ArrayRef<mlir::Value> operationOutputs() const { return lastOperationOutputs; }

  /// Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate
  /// (MergeLayers.cpp): layers that read several values.
  static bool isMergeLayer(llvm::StringRef className);
  /// The merge layers (Functional graphs) and the classes emitLayer imports
  /// itself, not through a layer family.
  static llvm::ArrayRef<llvm::StringRef> mergeClasses();
  static llvm::ArrayRef<llvm::StringRef> ownClasses();
  /// Whether emitTransformerBlock imports this layer (keras_hub's Transformer
  /// blocks, which may read several inputs).
  static bool isTransformerBlock(const LayerConfig &layer);
  /// The timestep mask of a merge of inputs with `masks` (null where an
  /// input has none) along `axis` (-1: elementwise) of rank-`rank` inputs,
  /// as the file's Keras version computes it; null for none.
  llvm::Expected<mlir::Value> mergedMask(const LayerConfig &layer,
                                         llvm::ArrayRef<mlir::Value> masks,
                                         int64_t axis, size_t rank);
  /// An operation a Functional graph records (keras.ops, tf_keras'
  /// TFOpLambda): OperationLayers.cpp. Its inputs' masks do not matter.
  llvm::Expected<mlir::Value> emitOperation(const LayerConfig &layer,
                                            llvm::ArrayRef<mlir::Value> inputs);
  /// Emits merge layer `layer` over `inputs`, whose masks are `masks`;
  /// the call computes with `callMasks` (see LayerConfig::callMaskEntries).
  llvm::Expected<mlir::Value> emitMerge(const LayerConfig &layer,
                                        llvm::ArrayRef<mlir::Value> inputs,
                                        llvm::ArrayRef<mlir::Value> masks,
                                        llvm::ArrayRef<mlir::Value> callMasks);

  /// TransformerEncoder(input), TransformerDecoder(decoder_sequence[,
  /// encoder_sequence]); `masks`: each input's mask, or null.
  llvm::Expected<mlir::Value> emitTransformerBlock(const LayerConfig &layer,
                                                   llvm::ArrayRef<mlir::Value> inputs,
                                                   llvm::ArrayRef<mlir::Value> masks,
                                                   llvm::ArrayRef<WeightArray> weights);
  /// Attention, AdditiveAttention, MultiHeadAttention,
  /// GroupedQueryAttention and Dot (AttentionLayers.cpp): layers that read
  /// several values and may have weights.
  static bool isAttentionLayer(llvm::StringRef className);
  static llvm::ArrayRef<llvm::StringRef> attentionClasses();
  /// Like emitMerge, `masks` are the inputs' and `callMasks` the call's.
  llvm::Expected<mlir::Value> emitAttention(const LayerConfig &layer,
                                            llvm::ArrayRef<mlir::Value> inputs,
                                            llvm::ArrayRef<mlir::Value> masks,
                                            llvm::ArrayRef<mlir::Value> callMasks,
                                            llvm::ArrayRef<WeightArray> weights);

  /// A stateful recurrent layer's state: `initial` is a new argument of the
  /// block given to setStateBlock, `final` the state the layer leaves.
  struct LayerState {
    std::string layer;
    mlir::BlockArgument initial;
    mlir::Value final;
  };
  /// Where stateful layers add their state arguments (@predict's entry);
  /// without it a stateful layer is refused.
  void setStateBlock(mlir::Block *block) { stateBlock = block; }
  const std::vector<LayerState> &layerStates() const { return states; }

  /// Whether a layer of this class keeps its input's shape and has no
  /// weights (the importer looks through such layers for the input size).
  static bool isShapePreserving(llvm::StringRef className);

  /// Number of the layer's parameters Keras counts as non-trainable.
  static int64_t nonTrainableParams(const LayerConfig &layer,
                                    llvm::ArrayRef<WeightArray> weights);

private:
  llvm::Expected<StatePlan> planState(const LayerConfig &layer, bool stateful,
                                      llvm::ArrayRef<int64_t> shape,
                                      mlir::Location loc) override;
  void keepState(const StatePlan &plan, llvm::StringRef name, mlir::Value finalState) override;

  /// A merge's inputs brought to one rank (new axes of size 1 after the
  /// batch axis, as Keras does), checked to broadcast, and the shape they
  /// broadcast to.
  struct BroadcastInputs {
    llvm::SmallVector<mlir::Value> operands;
    llvm::SmallVector<int64_t> shape;
  };
  llvm::Expected<BroadcastInputs>
  broadcastMergeInputs(const LayerConfig &layer, llvm::ArrayRef<mlir::Value> inputs,
                       llvm::ArrayRef<mlir::Value> masks, llvm::ArrayRef<mlir::Value> callMasks);
  llvm::Expected<mlir::Value> emitConcatenate(const LayerConfig &layer,
                                              llvm::ArrayRef<mlir::Value> inputs,
                                              llvm::ArrayRef<mlir::Value> masks);
  /// keras_hub's layers as the built-in layers they are made of
  /// (KerasHubLayers.cpp).
  llvm::Expected<mlir::Value> emitTokenAndPositionEmbedding(const LayerConfig &layer,
                                                            mlir::Value input,
                                                            llvm::ArrayRef<WeightArray> weights);
  /// `incomingMask`: the mask the layer receives, or null.
  llvm::Expected<mlir::Value> emitLayer(const LayerConfig &layer,
                                        mlir::Value input,
                                        llvm::ArrayRef<WeightArray> weights,
                                        mlir::Value incomingMask);
  /// A normalization over `axes` (ascending, not just the last) as the same
  /// layer over the last axis: the axes moved last and joined into one.
  llvm::Expected<mlir::Value> emitNormalizationOverAxes(const LayerConfig &layer,
                                                        mlir::Value input,
                                                        llvm::ArrayRef<WeightArray> weights,
                                                        mlir::Value incomingMask,
                                                        llvm::ArrayRef<int64_t> axes);
  /// What a wrapper decides for the recurrent layer it wraps.
  struct RecurrentOverrides {
    std::optional<bool> goBackwards, zeroOutputForMask;
  };
  llvm::Expected<mlir::Value> emitRecurrent(const LayerConfig &layer,
                                            mlir::Value input,
                                            llvm::ArrayRef<WeightArray> weights,
                                            mlir::Value mask,
                                            RecurrentOverrides overrides,
                                            llvm::StringRef locName);
  /// `locName` names the ops (default: the layer's name).
  llvm::Expected<mlir::Value> emitGenericRNN(const LayerConfig &layer,
                                             mlir::Value input,
                                             llvm::ArrayRef<WeightArray> weights,
                                             mlir::Value mask,
                                             RecurrentOverrides overrides = {},
                                             llvm::StringRef locName = "");
  llvm::Expected<mlir::Value> emitBidirectional(const LayerConfig &layer,
                                                mlir::Value input,
                                                llvm::ArrayRef<WeightArray> weights,
                                                mlir::Value mask);
  llvm::Expected<mlir::Value> emitDot(const LayerConfig &layer,
                                      llvm::ArrayRef<mlir::Value> inputs);
  llvm::Expected<mlir::Value> emitTimeDistributed(const LayerConfig &layer,
                                                  mlir::Value input,
                                                  llvm::ArrayRef<WeightArray> weights);
  llvm::Expected<mlir::Value>
  emitSpectralNormalization(const LayerConfig &layer, mlir::Value input,
                            llvm::ArrayRef<WeightArray> weights);

  mlir::OpBuilder &builder;
  /// Whether a layer called on a list of tensors (a merge, Attention,
  /// AdditiveAttention) passes a mask on: Keras before 3.4 asked the list
  /// itself for one, and it has none.
  bool listCallsPassMasks() const { return version.major < 3 || version.atLeast(3, 4); }

  KerasVersion version;
  bool unbuiltModel;
  mlir::Value mask;
  mlir::Block *stateBlock = nullptr;
  std::vector<LayerState> states;
  mlir::Value linkedInitialState;
  llvm::SmallVector<mlir::Value, 2> lastFinalStates;
  bool keepFinalState = false;
  mlir::Value lastAttentionScores;
  llvm::SmallVector<mlir::Value> lastOperationOutputs;
};

} // namespace seq::keras

#endif

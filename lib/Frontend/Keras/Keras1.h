// Keras 1 models: keras_version 1.x, or a config without a version that uses
// Keras 1 argument names. Current Keras cannot read them, so seqc translates
// them itself, here and only here, into the Keras 2 form the rest of the
// importer reads:
// - the config: argument names (output_dim -> units, inner_activation ->
//   recurrent_activation, nb_filter -> filters, border_mode -> padding, p ->
//   rate, ...) and classes (Convolution1D -> Conv1D, TimeDistributedDense ->
//   TimeDistributed(Dense));
// - the weights: per-gate recurrent arrays (LSTM W_i U_i b_i W_c ... in gate
//   order i, c, f, o; GRU W_z ... W_h) fused into kernel, recurrent_kernel
//   and bias in Keras 2's gate order, Convolution1D kernels reshaped.
// A Keras 1 feature with no Keras 2 equivalent seqc supports is one error
// line naming the layer, its Keras 1 class and the option.
#ifndef SEQ_LIB_FRONTEND_KERAS_KERAS1_H
#define SEQ_LIB_FRONTEND_KERAS_KERAS1_H

#include "KerasConfig.h"
#include "WeightStore.h"

namespace seq::keras {

/// Whether a model with this version string (empty when the file has none)
/// and this config (the whole model JSON) is a Keras 1 model.
bool isKeras1Model(llvm::StringRef kerasVersion, const llvm::json::Value &root);

/// Rewrites a Keras 1 model config in place into its Keras 2 form. `where`
/// names the file in messages; `kerasVersion` is the file's (empty if none).
llvm::Error translateKeras1Config(llvm::json::Value &root, llvm::StringRef where,
                                  llvm::StringRef kerasVersion);

/// Rewrites the weights of one layer of a translated Keras 1 config into the
/// Keras 2 layout. `backend` is the file's ("theano" kernels are flipped).
llvm::Error translateKeras1Weights(const LayerConfig &layer,
                                   std::vector<WeightArray> &weights,
                                   llvm::StringRef backend);

} // namespace seq::keras

#endif

// Keras 2's CuDNNLSTM and CuDNNGRU (keras.layers in Keras 2.0-2.3,
// tf.compat.v1.keras.layers since): layers that run only on an NVIDIA GPU,
// which many models trained on one were saved with. Keras' own loader reads
// their weights into an LSTM or a GRU(reset_after=True) on any device
// (hdf5_format.preprocess_weights_for_loading); seqc does the same, here
// and only here:
// - the config: the class becomes LSTM or GRU with cuDNN's fixed
//   arithmetic (tanh, sigmoid, biases, GRU's reset gate after the product);
//   the original class stays the layer's source class (messages, summary);
// - the weights: each gate's input kernel is stored in cuDNN's layout (its
//   (input, units) block read as a row-major (units, input) matrix), each
//   recurrent kernel transposed, and the bias is two sets (input and
//   recurrent): the LSTM's are summed, the GRU's are its (2, 3 * units) bias.
#ifndef SEQ_LIB_FRONTEND_KERAS_CUDNNLAYERS_H
#define SEQ_LIB_FRONTEND_KERAS_CUDNNLAYERS_H

#include "KerasConfig.h"
#include "WeightStore.h"

namespace seq::keras {

/// Rewrites every CuDNNLSTM and CuDNNGRU entry of a model config (wrapped
/// and nested ones included) in place into its LSTM or GRU form.
void translateCuDNNConfig(llvm::json::Value &root);

/// Rewrites the weights of a layer read from a CuDNNLSTM or CuDNNGRU (or a
/// Bidirectional of them) into the LSTM or GRU layout; others are left as
/// they are.
llvm::Error translateCuDNNWeights(const LayerConfig &layer, std::vector<WeightArray> &weights);

} // namespace seq::keras

#endif

//===- ConvLSTMLayers.cpp - ConvLSTM1D/2D/3D ------------------------------===//
//
// One seq.conv_lstm, channels last. A channels_first layer reads (batch,
// time, channels, spatial...): a seq.permute moves the channels last and
// another moves them back after the op. Its states (return_state,
// initial_state, a stateful layer's) are in Keras' layout too, (batch,
// filters, spatial...), and move the same way.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

namespace seq::keras {

using namespace emit;

Expected<Value> emitConvLSTM(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  const int64_t n = spatialRankOf(layer.getClassName());
  Expected<int64_t> filters = layer.getSize("filters");
  Expected<ConvWindow> window = convWindow(layer, n, /*allowCausal=*/false);
  Expected<bool> useBias = layer.getBoolOr("use_bias", true);
  Expected<bool> sequences = layer.getBoolOr("return_sequences", false);
  Expected<bool> backwards = layer.getBoolOr("go_backwards", false);
  Expected<bool> returnState = layer.getBoolOr("return_state", false);
  Expected<bool> stateful = layer.getBoolOr("stateful", false);
  Expected<bool> first = channelsFirst(layer);
  Expected<ActivationSpec> act =
      parseActivation(c.builder, layer, "activation", "tanh", c.version.major);
  // tf_keras' ConvLSTM default is hard_sigmoid, Keras 3's sigmoid.
  Expected<ActivationSpec> rec =
      parseActivation(c.builder, layer, "recurrent_activation",
                      c.version.major >= 3 ? "sigmoid" : "hard_sigmoid", c.version.major);
  if (Error e = firstError(filters, window, useBias, sequences, backwards,
                           returnState, stateful, first, act, rec))
    return std::move(e);
  auto &[kernel, strides, dilations, padding] = *window;
  if (*returnState && !layer.inFunctional())
    return layer.error("return_state=True is not supported in a Sequential model");
  for (const ActivationSpec *a : {&*act, &*rec})
    if (a->kind == Activation::Softmax || a->kind == Activation::LogSoftmax)
      return layer.error("activation '" + stringifyActivation(a->kind) +
                         "' in a ConvLSTM cell is not supported by seqc yet");
  if (Error e = requireRank(layer, c.input, n + 3))
    return std::move(e);

  Value x = c.input;
  if (*first) { // (batch, time, channels, spatial...) -> channels last
    SmallVector<int64_t> dims{1};
    for (int64_t i = 0; i < n; ++i)
      dims.push_back(i + 3);
    dims.push_back(2);
    x = permuteAxes(c, x, dims, "channels_last");
  }
  ArrayRef<int64_t> xs = shapeOf(x);
  int64_t channels = xs.back();
  if (channels == kDynamic)
    return layer.error("the input's channel axis has no fixed size: give the "
                       "model a fixed input shape (--input-shape)");
  SmallVector<int64_t> frame{xs[0]};
  frame.append(xs.begin() + 2, xs.end());
  SmallVector<int64_t> state = shapes::convolution(frame, kernel, strides,
                                                   dilations, padding, *filters);
  if (Error e = requireWindowsFit(layer, frame, state, "kernel span"))
    return std::move(e);
  SmallVector<int64_t> out = shapes::convLstm(xs, kernel, strides, dilations,
                                              padding, *filters, *sequences);
  // The states together, (2, batch, spatial..., filters) (h then c), in
  // Keras' layout where they leave or enter the layer: (2, batch, filters,
  // spatial...) for channels_first. seq.permute keeps axis 0, here the
  // states' axis.
  SmallVector<int64_t> states{2};
  states.append(state);
  SmallVector<int64_t> toFirst{1, n + 2}, toLast{1};
  for (int64_t i = 0; i < n; ++i) {
    toFirst.push_back(i + 2);
    toLast.push_back(i + 3);
  }
  toLast.push_back(2);
  SmallVector<int64_t> kerasStates = *first ? shapes::permuted(states, toFirst) : states;
  Expected<StatePlan> plan = c.states->planState(layer, *stateful, kerasStates, c.loc);
  if (!plan)
    return plan.takeError();
  Value initial = plan->initial;
  if (initial) {
    ArrayRef<int64_t> given = shapeOf(initial);
    if (!shapes::agree(given, kerasStates))
      return layer.error("initial_state has shape " + shapes::format(given.drop_front()) +
                         " per state, where the layer's state (its output without "
                         "return_sequences) is " +
                         shapes::format(ArrayRef(kerasStates).drop_front()) +
                         ": give it states of that shape");
    if (*first)
      initial = permuteAxes(c, initial, toLast, "initial_state");
  }
  SmallVector<int64_t> kernelShape(kernel), recurrentShape(kernel);
  kernelShape.append({channels, 4 * *filters});
  recurrentShape.append({*filters, 4 * *filters});
  std::vector<StringRef> roles = {"kernel", "recurrent_kernel"};
  if (*useBias)
    roles.push_back("bias");
  if (Error e = c.weights.expect(roles))
    return std::move(e);
  Expected<Value> k = c.weights.next("kernel", kernelShape);
  if (!k)
    return k.takeError();
  Expected<Value> rk = c.weights.next("recurrent_kernel", recurrentShape);
  if (!rk)
    return rk.takeError();
  Value bias;
  if (*useBias) {
    Expected<Value> b = c.weights.next("bias", {4 * *filters});
    if (!b)
      return b.takeError();
    bias = *b;
  }

  Type stateType = plan->finalType ? tensorType(c.builder, states) : Type();
  auto op = ConvLSTMOp::create(
      c.builder, c.loc, tensorType(c.builder, out), stateType, x, *k, *rk, bias, initial,
      c.builder.getDenseI64ArrayAttr(strides),
      c.builder.getDenseI64ArrayAttr(dilations), padding, act->kind,
      rec->kind, *sequences, *backwards);
  Value y = op.getOutput(), final = op.getFinalState();
  if (final && *first)
    final = permuteAxes(c, final, toFirst, "final_state");
  c.states->keepState(*plan, layer.getName(), final);
  if (!*first)
    return y;
  if (!*sequences)
    return toChannelsFirst(c, y);
  // (batch, time, spatial..., filters) -> (batch, time, filters, spatial...)
  return permuteAxes(c, y, toFirst, "channels_first");
}

} // namespace seq::keras

"""Keras models written as ONNX graphs (opset 17) with onnx.helper, for the
peer benchmarks' ONNX Runtime and OpenVINO: `OnnxGraph` to write one by
hand, and `chain_to_onnx` for a model that is a chain of the layers the
recurrent workloads use (Embedding, Conv1D, MaxPooling1D, LSTM, GRU with
reset_after, Bidirectional LSTM, Dense), each on the previous one's output.
No converter from PyPI (tf2onnx) is needed, and the graphs hold exactly the
ops a peer would be given."""


class OnnxGraph:
    """An ONNX graph being written: initializers and nodes."""

    def __init__(self):
        self.inits, self.nodes, self.count = [], [], 0

    def const(self, name, array):
        import numpy as np
        from onnx import numpy_helper
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def fresh(self, stem):
        """A name not used before."""
        self.count += 1
        return "%s%d" % (stem, self.count)

    def node(self, op, inputs, output, **attrs):
        from onnx import helper
        self.nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output

    def model(self, name, input_shape, output, output_shape):
        import onnx
        from onnx import TensorProto, helper
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"] + list(input_shape))],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["N"] + list(output_shape))],
            self.inits)
        proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        proto.ir_version = 8
        onnx.checker.check_model(proto)
        return proto.SerializeToString()


ACTIVATIONS = {"linear": None, "relu": "Relu", "tanh": "Tanh", "sigmoid": "Sigmoid"}


def chain_to_onnx(model):
    """The ONNX graph of a Keras model whose layers form a chain from input
    "x" (batch, steps, features) to one 2-D output. The value between layers
    carries its axis order: "ntc" (Keras'), "nct" (ONNX Conv's) or "tnc"
    (ONNX recurrences'); 2-D values are "nc"."""
    g = OnnxGraph()
    value, axes = "x", "ntc"
    for layer in model.layers:
        kind = type(layer).__name__
        if kind != "InputLayer":
            value, axes = LAYERS[kind](g, layer, value, axes)
    if axes != "nc":
        raise ValueError("the chain's output must be 2-D")
    return g.model(model.name, model.input_shape[1:], value, model.output_shape[1:])


def _order(g, value, axes, want):
    if axes == want:
        return value
    return g.node("Transpose", [value], g.fresh("t"), perm=[axes.index(a) for a in want])


def _activate(g, layer, value):
    op = ACTIVATIONS[layer.activation.__name__]
    return g.node(op, [value], g.fresh("act")) if op else value


def _embedding(g, layer, value, axes):
    ids = g.node("Cast", [value], g.fresh("ids"), to=7)  # int64
    table = g.const(g.fresh("E"), layer.get_weights()[0])
    return g.node("Gather", [table, ids], g.fresh("emb")), "ntc"


def _conv1d(g, layer, value, axes):
    if layer.padding != "valid" or layer.strides != (1,) or layer.dilation_rate != (1,):
        raise ValueError("chain_to_onnx: only valid, unit-stride Conv1D")
    kernel, bias = layer.get_weights()  # (k, in, out)
    value = g.node("Conv", [_order(g, value, axes, "nct"),
                            g.const(g.fresh("Wc"), kernel.transpose(2, 1, 0).copy()),
                            g.const(g.fresh("Bc"), bias)], g.fresh("conv"),
                   kernel_shape=[kernel.shape[0]])
    return _activate(g, layer, value), "nct"


def _max_pooling1d(g, layer, value, axes):
    size, stride = layer.pool_size[0], layer.strides[0]
    if layer.padding != "valid":
        raise ValueError("chain_to_onnx: only valid MaxPooling1D")
    return g.node("MaxPool", [_order(g, value, axes, "nct")], g.fresh("pool"),
                  kernel_shape=[size], strides=[stride]), "nct"


def _recurrence(g, layer, value, axes, op, weights, directions, **attrs):
    """An ONNX LSTM or GRU of `directions` (W, R, B) triples; its sequence
    (T, N, U) as "tnc" for return_sequences, else its last states (N, D*U)."""
    import numpy as np
    from onnx import helper
    cell = layer.forward_layer if directions == 2 else layer
    units = cell.units
    if cell.activation.__name__ != "tanh" or cell.recurrent_activation.__name__ != "sigmoid" \
            or cell.go_backwards or cell.stateful or not cell.use_bias:
        raise ValueError("chain_to_onnx: %s is not ONNX' default %s" % (layer.name, op))
    w, r, b = (g.const(g.fresh(n), np.concatenate([d[i] for d in weights]))
               for i, n in enumerate("WRB"))
    outputs = [g.fresh("seq"), g.fresh("last")]
    g.nodes.append(helper.make_node(
        op, [_order(g, value, axes, "tnc"), w, r, b], outputs, hidden_size=units,
        direction="bidirectional" if directions == 2 else "forward", **attrs))
    if layer.return_sequences:
        if directions != 1:
            raise ValueError("chain_to_onnx: a Bidirectional sequence is not supported")
        return g.node("Squeeze", [outputs[0], g.const(g.fresh("axis"), np.array([1]))],
                      g.fresh("h")), "tnc"
    last = g.node("Transpose", [outputs[1]], g.fresh("t"), perm=[1, 0, 2])  # (N, D, U)
    return g.node("Reshape", [last, g.const(g.fresh("shape"), np.array([-1, directions * units]))],
                  g.fresh("h")), "nc"


def _lstm(g, layer, value, axes):
    from interleave import onnx_lstm_arrays
    return _recurrence(g, layer, value, axes, "LSTM", [onnx_lstm_arrays(*layer.get_weights())], 1)


def _gru(g, layer, value, axes):
    """Keras' reset_after GRU is ONNX' GRU with linear_before_reset; both
    order the gates z, r, h; B is Keras' input bias then recurrent bias."""
    if not layer.reset_after:
        raise ValueError("chain_to_onnx: GRU %s needs reset_after=True" % layer.name)
    kernel, recurrent, bias = layer.get_weights()
    arrays = [kernel.T[None], recurrent.T[None], bias.reshape(1, -1)]
    return _recurrence(g, layer, value, axes, "GRU", [arrays], 1, linear_before_reset=1)


def _bidirectional(g, layer, value, axes):
    """ONNX' bidirectional LSTM: the forward then the backward direction,
    Keras' concatenation of their last states."""
    from interleave import onnx_lstm_arrays
    if type(layer.forward_layer).__name__ != "LSTM" or layer.merge_mode != "concat":
        raise ValueError("chain_to_onnx: only Bidirectional(LSTM) with concat")
    weights = [onnx_lstm_arrays(*layer.forward_layer.get_weights()),
               onnx_lstm_arrays(*layer.backward_layer.get_weights())]
    return _recurrence(g, layer, value, axes, "LSTM", weights, 2)


def _dense(g, layer, value, axes):
    if axes != "nc":
        raise ValueError("chain_to_onnx: Dense %s on a sequence" % layer.name)
    kernel, bias = layer.get_weights()
    value = g.node("MatMul", [value, g.const(g.fresh("Wd"), kernel)], g.fresh("mm"))
    value = g.node("Add", [value, g.const(g.fresh("Bd"), bias)], g.fresh("dense"))
    return _activate(g, layer, value), "nc"


LAYERS = {"Embedding": _embedding, "Conv1D": _conv1d, "MaxPooling1D": _max_pooling1d,
          "LSTM": _lstm, "GRU": _gru, "Bidirectional": _bidirectional, "Dense": _dense}

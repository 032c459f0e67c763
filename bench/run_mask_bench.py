#!/usr/bin/env python3
"""Masked recurrent inference: seqc against ONNX Runtime and OpenVINO on one
core, on the same padded batch of sequences of different true lengths.

  python bench/run_mask_bench.py [--build build] [--rounds 15] [--out mask-bench.json]

The model is Keras' Masking(0.0) -> LSTM(256) -> Dense(1) on (100, 128)
inputs, random weights, written with tf_keras. The batch is zero-padded at
the end to true lengths drawn uniformly from [25, 100] (batch 32), or one
sequence of length 60 (batch 1).

  seqc         the AOT library of `seq-compile model.h5 -o lib.so`, called
               through its C API (ctypes); it computes the mask from the data.
  ONNX Runtime the same weights as an ONNX LSTM with its sequence_lens input
  OpenVINO     that ONNX model compiled for the CPU plugin
The peers get the true lengths as an input (ONNX's native variable-length
path), which is the fastest form either offers; seqc reads the padded
batch as Keras does. All three outputs are checked against Keras' own
prediction first.

Engines run interleaved: every round times a burst of calls of each engine
in turn, so load changes on a shared machine hit all of them alike; the
table reports the median over rounds of each engine's median call time and
of the per-round ratios. Everything runs in one process pinned to one core
with one thread per engine.

Needs tensorflow + tf_keras (to write the model and the reference output),
numpy, onnx, onnxruntime and openvino, e.g. in a separate virtual
environment: pip install tensorflow-cpu tf-keras onnx onnxruntime openvino.
"""
import json
import os
import tempfile

from interleave import (SeqcAot, compile_aot, interleaved, onnx_lstm_dense_initializers,
                        onnx_runtime_session, openvino_model, parse_and_pin, print_table,
                        require_close, summarize)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T, F, U = 100, 128, 256


def make_model(path):
    import numpy as np
    import tf_keras as k
    m = k.Sequential([k.layers.InputLayer(input_shape=(T, F)), k.layers.Masking(0.0),
                      k.layers.LSTM(U), k.layers.Dense(1)])
    rng = np.random.default_rng(0)
    m.set_weights([rng.uniform(-0.1, 0.1, w.shape).astype("float32") for w in m.get_weights()])
    m.save(path)
    return m


def padded_batch(batch, rng):
    import numpy as np
    lengths = [60] if batch == 1 else list(rng.integers(25, T + 1, size=batch))
    x = rng.uniform(-1, 1, (batch, T, F)).astype("float32")
    for b, n in enumerate(lengths):
        x[b, n:, :] = 0.0
    return x, np.array(lengths, dtype="int32")


def onnx_model(keras_model, last_from_sequence=False):
    """ONNX LSTM (gates i, o, f, c) with sequence_lens, then the Dense. The
    last valid state is the LSTM's Y_h output, or with last_from_sequence
    gathered from its Y output at step length - 1 (OpenVINO's Y_h is the
    state after all T steps whatever the lengths)."""
    import numpy as np
    import onnx
    from onnx import helper, TensorProto, numpy_helper
    inits = onnx_lstm_dense_initializers(keras_model)
    inits.append(numpy_helper.from_array(np.array([-1, U], "int64"), "shape"))
    nodes = [helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2])]
    if not last_from_sequence:
        nodes.append(helper.make_node("LSTM", ["xt", "W", "R", "B", "lengths"], ["", "h"],
                                      hidden_size=U))
    else:
        inits.append(numpy_helper.from_array(np.array([1], "int64"), "one"))
        inits.append(numpy_helper.from_array(np.array([1, 2], "int64"), "axes12"))
        nodes += [
            helper.make_node("LSTM", ["xt", "W", "R", "B", "lengths"], ["y_all"], hidden_size=U),
            helper.make_node("Squeeze", ["y_all", "one"], ["y_tbu"]),
            helper.make_node("Transpose", ["y_tbu"], ["y_btu"], perm=[1, 0, 2]),
            helper.make_node("Cast", ["lengths"], ["len64"], to=TensorProto.INT64),
            helper.make_node("Sub", ["len64", "one"], ["last"]),
            helper.make_node("Unsqueeze", ["last", "axes12"], ["last3"]),
            helper.make_node("Shape", ["y_btu"], ["full"]),
            helper.make_node("Slice", ["full", "zero", "one"], ["batch"]),
            helper.make_node("Concat", ["batch", "one", "units"], ["index_shape"], axis=0),
            helper.make_node("Expand", ["last3", "index_shape"], ["index"]),
            helper.make_node("GatherElements", ["y_btu", "index"], ["h"], axis=1),
        ]
        inits.append(numpy_helper.from_array(np.array([0], "int64"), "zero"))
        inits.append(numpy_helper.from_array(np.array([U], "int64"), "units"))
    nodes += [
        helper.make_node("Reshape", ["h", "shape"], ["h2"]),
        helper.make_node("MatMul", ["h2", "Wd"], ["d"]),
        helper.make_node("Add", ["d", "Bd"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "masked_lstm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", T, F]),
         helper.make_tensor_value_info("lengths", TensorProto.INT32, ["N"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


def main():
    args, core = parse_and_pin(__doc__.splitlines()[0], "mask-bench.json", ROOT)
    import numpy as np
    import onnxruntime as ort
    import openvino as ov

    work = tempfile.mkdtemp(prefix="seqc-mask-bench-")
    path = os.path.join(work, "masked_lstm.h5")
    keras_model = make_model(path)
    lib = os.path.join(work, "libmasked.so")
    compile_aot(args.build, path, lib)
    proto = onnx_model(keras_model).SerializeToString()
    session = onnx_runtime_session(proto)
    compiled = openvino_model(onnx_model(keras_model, last_from_sequence=True).SerializeToString())
    request = compiled.create_infer_request()

    rng = np.random.default_rng(7)
    rows = []
    for batch in (1, 32):
        x, lengths = padded_batch(batch, rng)
        want = keras_model.predict(x, verbose=0)
        seqc = SeqcAot(lib, batch, T)
        y = np.empty((batch, 1), "float32")
        engines = {
            "seqc AOT": lambda: seqc(x, y),
            "ONNX Runtime": lambda: session.run(None, {"x": x, "lengths": lengths}),
            "OpenVINO": lambda: request.infer({"x": x, "lengths": lengths}),
        }
        outputs = {"seqc AOT": seqc(x, y).copy(),
                   "ONNX Runtime": session.run(None, {"x": x, "lengths": lengths})[0],
                   "OpenVINO": next(iter(request.infer({"x": x, "lengths": lengths}).values()))}
        require_close(outputs, want, batch)
        times = interleaved(engines, args.rounds, args.burst)
        rows.append(summarize({"batch": batch, "true_lengths": [int(n) for n in lengths]},
                              times, "seqc AOT"))

    print_table(rows, "batch", "seqc AOT", ["ONNX Runtime", "OpenVINO"])
    with open(args.out, "w") as f:
        json.dump({"versions": {"onnxruntime": ort.__version__, "openvino": ov.__version__},
                   "core": core, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Stateful streaming inference: seqc against ONNX Runtime and OpenVINO on one
core, feeding a long sequence chunk by chunk with the recurrent state carried
from one call to the next.

  python bench/run_stateful_bench.py [--build build] [--rounds 15] [--out stateful-bench.json]

The model is Keras' LSTM(128, stateful=True) -> Dense(8) on chunks of 10
steps of 32 features, random weights, written with tf_keras, for batch 1 (one
stream) and batch 16 (16 streams at once). One "call" is one chunk.

  seqc         the AOT library of `seq-compile model.h5 -o lib.so`, called
               through its C API (ctypes); each instance keeps the state.
  ONNX Runtime the same weights as an ONNX LSTM whose initial_h/initial_c
               inputs and Y_h/Y_c outputs the caller feeds back every call
  OpenVINO     that ONNX model compiled for the CPU plugin, fed back alike
Before timing, all three stream 20 chunks and are checked against Keras'
own stateful predictions of the same chunks.

Engines run interleaved (bench/interleave.py: every round times a burst
of calls of each engine in turn); the table reports the median over rounds
of each engine's median call time and of the per-round ratios. One process
pinned to one core, one thread per engine.

Needs tensorflow + tf_keras, numpy, onnx, onnxruntime and openvino.
"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

from interleave import (interleaved, onnx_lstm_dense_initializers, onnx_runtime_session,
                        openvino_model, parse_and_pin, print_table, summarize)

ROOT = os.path.dirname(os.path.abspath(os.path.dirname(__file__)))
T, F, U, OUT = 10, 32, 128, 8


def make_model(path, batch):
    import numpy as np
    import tf_keras as k
    m = k.Sequential([k.layers.LSTM(U, stateful=True, batch_input_shape=(batch, T, F)),
                      k.layers.Dense(OUT)])
    rng = np.random.default_rng(0)
    m.set_weights([rng.uniform(-0.1, 0.1, w.shape).astype("float32") for w in m.get_weights()])
    m.save(path)
    return m


def onnx_model(keras_model, batch):
    """ONNX LSTM (gates i, o, f, c) with initial_h/initial_c in and Y_h/Y_c
    out, then the Dense."""
    import numpy as np
    import onnx
    from onnx import helper, TensorProto, numpy_helper
    inits = onnx_lstm_dense_initializers(keras_model)
    inits.append(numpy_helper.from_array(np.array([batch, U], "int64"), "shape"))
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
        helper.make_node("LSTM", ["xt", "W", "R", "B", "", "h0", "c0"], ["", "h1", "c1"],
                         hidden_size=U),
        helper.make_node("Reshape", ["h1", "shape"], ["h2"]),
        helper.make_node("MatMul", ["h2", "Wd"], ["d"]),
        helper.make_node("Add", ["d", "Bd"], ["y"]),
    ]
    state = [1, batch, U]
    graph = helper.make_graph(
        nodes, "stateful_lstm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, T, F]),
         helper.make_tensor_value_info("h0", TensorProto.FLOAT, state),
         helper.make_tensor_value_info("c0", TensorProto.FLOAT, state)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, OUT]),
         helper.make_tensor_value_info("h1", TensorProto.FLOAT, state),
         helper.make_tensor_value_info("c1", TensorProto.FLOAT, state)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


class SeqcAot:
    def __init__(self, lib_path):
        self.lib = ctypes.CDLL(lib_path)
        self.lib.seqc_model_create.restype = ctypes.c_void_p
        self.lib.seqc_model_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong,
                                            ctypes.c_longlong, ctypes.c_void_p]
        self.lib.seqc_model_reset_state.argtypes = [ctypes.c_void_p]
        self.model = self.lib.seqc_model_create()
        if not self.model:
            raise RuntimeError("seqc_model_create failed")

    def __call__(self, x, y):
        if self.lib.seqc_model_run(self.model, x.ctypes.data, x.shape[0], T, y.ctypes.data):
            raise RuntimeError("seqc_model_run failed")
        return y


class FedBack:
    """A peer whose state the caller carries: run(x, h, c) -> (y, h, c)."""

    def __init__(self, run, batch):
        import numpy as np
        self.run, self.h = run, np.zeros((1, batch, U), "float32")
        self.c = self.h.copy()

    def __call__(self, x):
        y, self.h, self.c = self.run(x, self.h, self.c)
        return y


def main():
    args, core = parse_and_pin(__doc__.splitlines()[0], "stateful-bench.json", ROOT)
    import numpy as np
    import onnxruntime as ort
    import openvino as ov

    work = tempfile.mkdtemp(prefix="seqc-stateful-bench-")
    rng = np.random.default_rng(7)
    rows = []
    for batch in (1, 16):
        path = os.path.join(work, "stateful_%d.h5" % batch)
        keras_model = make_model(path, batch)
        lib = os.path.join(work, "libstateful_%d.so" % batch)
        subprocess.run([os.path.join(args.build, "bin", "seq-compile"), path, "-o", lib],
                       check=True)
        proto = onnx_model(keras_model, batch).SerializeToString()
        session = onnx_runtime_session(proto)
        compiled = openvino_model(proto)
        request = compiled.create_infer_request()

        def ort_run(x, h, c):
            return session.run(None, {"x": x, "h0": h, "c0": c})

        def ov_run(x, h, c):
            out = request.infer({"x": x, "h0": h, "c0": c})
            return [out[o] for o in compiled.outputs]

        seqc = SeqcAot(lib)
        y = np.empty((batch, OUT), "float32")
        peers = {"ONNX Runtime": FedBack(ort_run, batch), "OpenVINO": FedBack(ov_run, batch)}
        # Correctness first: 20 chunks of one stream, every engine against Keras.
        chunks = rng.uniform(-1, 1, (20, batch, T, F)).astype("float32")
        want = keras_model.predict(chunks.reshape(-1, T, F), batch_size=batch, verbose=0)
        got = {"seqc AOT": np.concatenate([seqc(c, y).copy() for c in chunks])}
        for name, peer in peers.items():
            got[name] = np.concatenate([np.asarray(peer(c)) for c in chunks])
        for name, out in got.items():
            err = float(np.max(np.abs(out.reshape(want.shape) - want)))
            if err > 1e-4:
                sys.exit("%s differs from Keras by %g at batch %d" % (name, err, batch))
        x = chunks[0]
        engines = {"seqc AOT": lambda: seqc(x, y),
                   "ONNX Runtime": lambda: peers["ONNX Runtime"](x),
                   "OpenVINO": lambda: peers["OpenVINO"](x)}
        times = interleaved(engines, args.rounds, args.burst)
        rows.append(summarize({"batch": batch, "steps_per_call": T}, times, "seqc AOT"))

    print_table(rows, "batch", "seqc AOT", ["ONNX Runtime", "OpenVINO"], digits=1)
    with open(args.out, "w") as f:
        json.dump({"versions": {"onnxruntime": ort.__version__, "openvino": ov.__version__},
                   "core": core, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()

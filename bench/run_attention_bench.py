#!/usr/bin/env python3
"""A Transformer encoder block: seqc against ONNX Runtime and OpenVINO on
one core.

  python bench/run_attention_bench.py [--build build] [--rounds 15] [--out attention-bench.json]

The model is Keras 3's MultiHeadAttention(4 heads, key_dim 32)(x, x) + x ->
LayerNormalization -> Dense(256, relu) -> Dense(128) + residual ->
LayerNormalization on (64, 128) inputs (sequence 64, width 128), random
weights. Batch 1 and 32.

  seqc         the AOT library of `seq-compile model.keras -o lib.so`,
               called through its C API (ctypes)
  ONNX Runtime the same weights as an ONNX graph of MatMul, Softmax and
               LayerNormalization (opset 17), written with onnx.helper
  OpenVINO     that ONNX model compiled for the CPU plugin
All three outputs are checked against Keras' own prediction first; engines
run interleaved round by round (bench/interleave.py), pinned to one core
with one thread each.

Needs tensorflow + keras 3, numpy, onnx, onnxruntime and openvino, e.g. in a
separate virtual environment: pip install tensorflow-cpu keras onnx
onnxruntime openvino.
"""
import json
import os
import tempfile

from interleave import (SeqcAot, compile_aot, interleaved, onnx_runtime_session,
                        openvino_model, parse_and_pin, print_table, require_close,
                        summarize)
from keras_onnx import OnnxGraph

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T, D, HEADS, KEY_DIM, FFN = 64, 128, 4, 32, 256


def make_model(path):
    import numpy as np
    import keras
    L = keras.layers
    x = keras.Input((T, D), name="x")
    h = L.LayerNormalization(name="norm1")(
        L.Add(name="res1")([x, L.MultiHeadAttention(HEADS, KEY_DIM, name="mha")(x, x)]))
    f = L.Dense(D, name="ffn2")(L.Dense(FFN, activation="relu", name="ffn1")(h))
    model = keras.Model(x, L.LayerNormalization(name="norm2")(L.Add(name="res2")([h, f])))
    rng = np.random.default_rng(0)
    model.set_weights([rng.uniform(-0.1, 0.1, w.shape).astype("float32")
                       if "gamma" not in w.path else np.ones(w.shape, "float32")
                       for w in model.weights])
    model.save(path)
    return model


def onnx_model(model):
    """The block as plain ONNX ops, weights from the Keras model: ONNX bytes."""
    import numpy as np
    w = {v.path: v.numpy() for v in model.weights}
    g = OnnxGraph()
    const, node = g.const, g.node

    def dense(x, kernel, bias, name):
        y = node("MatMul", [x, const(name + "/k", kernel)], name + "/mm")
        return node("Add", [y, const(name + "/b", bias)], name)

    def heads(x, part):
        k = w["mha/%s/kernel" % part].reshape(D, HEADS * KEY_DIM)
        b = w["mha/%s/bias" % part].reshape(HEADS * KEY_DIM)
        y = dense(x, k, b, part)
        y = node("Reshape", [y, const(part + "/shape", np.array([0, T, HEADS, KEY_DIM], "int64"))],
                 part + "/heads")
        return node("Transpose", [y], part + "/bhtd", perm=[0, 2, 1, 3])

    q, k, v = heads("x", "query"), heads("x", "key"), heads("x", "value")
    kt = node("Transpose", [k], "key/bhdt", perm=[0, 1, 3, 2])
    scores = node("MatMul", [q, kt], "scores")
    scores = node("Mul", [scores, const("scale", np.float32(1 / np.sqrt(KEY_DIM)))], "scaled")
    weights = node("Softmax", [scores], "weights", axis=-1)
    att = node("MatMul", [weights, v], "att")
    att = node("Transpose", [att], "att/bthd", perm=[0, 2, 1, 3])
    att = node("Reshape", [att, const("att/shape", np.array([0, T, HEADS * KEY_DIM], "int64"))],
               "att/flat")
    out = dense(att, w["mha/attention_output/kernel"].reshape(HEADS * KEY_DIM, D),
                w["mha/attention_output/bias"], "mha")

    def norm(x, name):
        return node("LayerNormalization", [x, const(name + "/g", w[name + "/gamma"]),
                                           const(name + "/beta", w[name + "/beta"])],
                    name, axis=-1, epsilon=1e-3)

    h = norm(node("Add", ["x", out], "res1"), "norm1")
    f = node("Relu", [dense(h, w["ffn1/kernel"], w["ffn1/bias"], "ffn1")], "ffn1/relu")
    f = dense(f, w["ffn2/kernel"], w["ffn2/bias"], "ffn2")
    y = norm(node("Add", [h, f], "res2"), "norm2")
    return g.model("encoder_block", (T, D), y, (T, D))


def main():
    args, core = parse_and_pin(__doc__.splitlines()[0], "attention-bench.json", ROOT)
    import numpy as np
    import onnxruntime as ort
    import openvino as ov

    work = tempfile.mkdtemp(prefix="seqc-attention-bench-")
    path = os.path.join(work, "encoder_block.keras")
    keras_model = make_model(path)
    lib = os.path.join(work, "libencoder.so")
    compile_aot(args.build, path, lib)
    proto = onnx_model(keras_model)
    session = onnx_runtime_session(proto)
    request = openvino_model(proto).create_infer_request()

    rng = np.random.default_rng(7)
    rows = []
    for batch in (1, 32):
        x = rng.uniform(-1, 1, (batch, T, D)).astype("float32")
        want = keras_model.predict(x, verbose=0)
        seqc = SeqcAot(lib, batch, T)
        y = np.empty((batch, T, D), "float32")
        engines = {
            "seqc AOT": lambda: seqc(x, y),
            "ONNX Runtime": lambda: session.run(None, {"x": x}),
            "OpenVINO": lambda: request.infer({"x": x}),
        }
        outputs = {"seqc AOT": seqc(x, y).copy(),
                   "ONNX Runtime": session.run(None, {"x": x})[0],
                   "OpenVINO": next(iter(request.infer({"x": x}).values()))}
        require_close(outputs, want, batch)
        times = interleaved(engines, args.rounds, args.burst)
        rows.append(summarize({"batch": batch}, times, "seqc AOT"))

    print_table(rows, "batch", "seqc AOT", ["ONNX Runtime", "OpenVINO"])
    with open(args.out, "w") as f:
        json.dump({"versions": {"onnxruntime": ort.__version__, "openvino": ov.__version__},
                   "core": core, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()

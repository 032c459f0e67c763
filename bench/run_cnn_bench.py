#!/usr/bin/env python3
"""Convolutional models: seqc against ONNX Runtime, OpenVINO and TFLite on
one core.

  python bench/run_cnn_bench.py [--build build] [--rounds 15] [--out cnn-bench.json]
                                [--layers]

Two tf_keras models, random weights (BatchNormalization with random moving
statistics), batch 1 and 32:
  CNN       VGG style on (32, 32, 3) images: [Conv2D(3x3, 'same') ->
            BatchNormalization -> ReLU -> MaxPooling2D(2)] with 16, 32 and 64
            filters -> Flatten -> Dense(10)
  CNN+LSTM  on (100, 16) sequences: Conv1D(32, 5, relu) -> MaxPooling1D(2) ->
            LSTM(64) -> Dense(8)

  seqc         the AOT library of `seq-compile model.h5 -o lib.so`, called
               through its C API (ctypes)
  ONNX Runtime the same weights as an ONNX graph written with onnx.helper
               (opset 17): Conv, BatchNormalization, Relu, MaxPool, the
               Flatten in Keras' NHWC order (a Transpose back first), Gemm;
               for CNN+LSTM keras_onnx.chain_to_onnx's Conv, Relu, MaxPool,
               LSTM (gates i, o, f, c), MatMul + Add
  OpenVINO     that ONNX model compiled for the CPU plugin (f32)
  TFLite       the Keras model converted by tf.lite.TFLiteConverter for
               each batch (a fixed batch: see interleave.TFLite), run by
               tf.lite.Interpreter(num_threads=1) with its default XNNPACK
               delegate
All outputs are checked against Keras' own prediction first (1e-4); engines
run interleaved round by round (bench/interleave.py), pinned to one core
with one thread each.

With --layers, it also times seqc on every prefix of each model (the model
cut after each of its layers, each compiled on its own), interleaved, and
prints each prefix's time and its increase over the one before: roughly
what each layer costs (a layer fused with its successor in the whole model
may cost less there). For CNN+LSTM it also times CNN+LSTM's Conv1D alone
against the same convolution written as a Conv2D with a (5, 1) kernel on
(100, 1, 16) (same weights, same arithmetic).

Needs tensorflow + tf_keras, numpy, onnx, onnxruntime and openvino, e.g. in
a separate virtual environment: pip install tensorflow-cpu tf-keras onnx
onnxruntime openvino.
"""
import json
import os
import tempfile

from interleave import (TFLite, SeqcAot, compile_aot, interleaved, onnx_runtime_session,
                        openvino_model, parse_and_pin, print_parts,
                        print_table, require_close, seqc_parts, summarize)
from keras_onnx import OnnxGraph, chain_to_onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMAGE, FILTERS, CLASSES = (32, 32, 3), (16, 32, 64), 10
T, F, CONV, KERNEL, U, OUT = 100, 16, 32, 5, 64, 8


def random_weights(model, seed):
    """Uniform weights of variance 1 / fan-in (activations stay near 1 from
    layer to layer), biases in [-0.1, 0.1]; BatchNormalization: gamma in
    [0.5, 1.5], beta and moving mean in [-0.1, 0.1], moving variance in
    [0.5, 1.5]."""
    import numpy as np
    rng = np.random.default_rng(seed)
    weights = []
    for w in model.weights:
        name = w.name.split("/")[-1]
        if name.startswith(("gamma", "moving_variance")):
            weights.append(rng.uniform(0.5, 1.5, w.shape))
        elif len(w.shape) >= 2:
            fan_in = int(np.prod(w.shape[:-1]))
            bound = np.sqrt(3.0 / fan_in)
            weights.append(rng.uniform(-bound, bound, w.shape))
        else:
            weights.append(rng.uniform(-0.1, 0.1, w.shape))
    model.set_weights([w.astype("float32") for w in weights])


def make_cnn(path):
    import tf_keras as k
    L = k.layers
    x = k.Input(IMAGE, name="x")
    h = x
    for i, filters in enumerate(FILTERS):
        h = L.Conv2D(filters, 3, padding="same", name="conv%d" % i)(h)
        h = L.BatchNormalization(name="bn%d" % i)(h)
        h = L.ReLU(name="relu%d" % i)(h)
        h = L.MaxPooling2D(2, name="pool%d" % i)(h)
    model = k.Model(x, L.Dense(CLASSES, name="dense")(L.Flatten(name="flatten")(h)))
    random_weights(model, 0)
    model.save(path)
    return model


def make_cnn_lstm(path):
    import tf_keras as k
    L = k.layers
    x = k.Input((T, F), name="x")
    h = L.Conv1D(CONV, KERNEL, activation="relu", name="conv")(x)
    h = L.LSTM(U, name="lstm")(L.MaxPooling1D(2, name="pool")(h))
    model = k.Model(x, L.Dense(OUT, name="dense")(h))
    random_weights(model, 1)
    model.save(path)
    return model


def onnx_cnn(model):
    """NHWC -> NCHW; Conv, BatchNormalization, Relu, MaxPool per block; back
    to NHWC before the Flatten (Keras flattens (h, w, c)); Gemm."""
    g = OnnxGraph()
    h = g.node("Transpose", ["x"], "nchw", perm=[0, 3, 1, 2])
    for i in range(len(FILTERS)):
        kernel, bias = model.get_layer("conv%d" % i).get_weights()  # (kh, kw, in, out)
        gamma, beta, mean, var = model.get_layer("bn%d" % i).get_weights()
        h = g.node("Conv", [h, g.const("W%d" % i, kernel.transpose(3, 2, 0, 1).copy()),
                            g.const("B%d" % i, bias)], "conv%d" % i,
                   kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        h = g.node("BatchNormalization", [h, g.const("gamma%d" % i, gamma),
                                          g.const("beta%d" % i, beta),
                                          g.const("mean%d" % i, mean),
                                          g.const("var%d" % i, var)], "bn%d" % i,
                   epsilon=model.get_layer("bn%d" % i).epsilon)
        h = g.node("Relu", [h], "relu%d" % i)
        h = g.node("MaxPool", [h], "pool%d" % i, kernel_shape=[2, 2], strides=[2, 2])
    h = g.node("Transpose", [h], "nhwc", perm=[0, 2, 3, 1])
    h = g.node("Flatten", [h], "flat", axis=1)
    dense_w, dense_b = model.get_layer("dense").get_weights()
    y = g.node("Gemm", [h, g.const("Wd", dense_w), g.const("Bd", dense_b)], "y")
    return g.model("cnn", IMAGE, y, [CLASSES])


def prefixes(model, x):
    """The model cut after each of its layers, for interleave.seqc_parts."""
    import tf_keras as k
    return [(layer.name, k.Model(model.input, layer.output), [x]) for layer in model.layers[1:]]


def conv1d_as_conv2d(model, x):
    """CNN+LSTM's Conv1D alone, and the same convolution as a Conv2D of a
    (KERNEL, 1) kernel on the input with a unit width axis, for
    interleave.seqc_parts."""
    import tf_keras as k
    L = k.layers
    conv = model.get_layer("conv")
    x1 = k.Input((T, F))
    one_d = k.Model(x1, L.Conv1D(CONV, KERNEL, activation="relu")(x1))
    x2 = k.Input((T, 1, F))
    two_d = k.Model(x2, L.Conv2D(CONV, (KERNEL, 1), activation="relu")(x2))
    kernel, bias = conv.get_weights()
    one_d.set_weights([kernel, bias])
    two_d.set_weights([kernel[:, None], bias])
    return [("Conv1D(32, 5)", one_d, [x]),
            ("as Conv2D(32, (5, 1))", two_d, [x.reshape(x.shape[0], T, 1, F)])]


def main():
    args, core = parse_and_pin(
        __doc__.splitlines()[0], "cnn-bench.json", ROOT,
        lambda p: p.add_argument("--layers", action="store_true",
                                 help="also time seqc on each prefix of the models"))
    import warnings
    import numpy as np
    import onnxruntime as ort
    import openvino as ov
    import tensorflow as tf
    warnings.filterwarnings("ignore", module="tensorflow.lite")
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)

    work = tempfile.mkdtemp(prefix="seqc-cnn-bench-")
    rng = np.random.default_rng(7)
    rows = []
    for name, make, to_onnx, shape, out in [
            ("CNN 32x32x3", make_cnn, onnx_cnn, IMAGE, CLASSES),
            ("CNN+LSTM", make_cnn_lstm, chain_to_onnx, (T, F), OUT)]:
        stem = name.split()[0].replace("+", "_").lower()
        path = os.path.join(work, stem + ".h5")
        keras_model = make(path)
        lib = os.path.join(work, "lib%s.so" % stem)
        compile_aot(args.build, path, lib)
        proto = to_onnx(keras_model)
        session = onnx_runtime_session(proto)
        request = openvino_model(proto).create_infer_request()
        for batch in (1, 32):
            x = rng.uniform(-1, 1, (batch,) + shape).astype("float32")
            want = keras_model.predict(x, verbose=0)
            seqc = SeqcAot(lib, batch, shape[0])
            y = np.empty((batch, out), "float32")
            lite = TFLite(keras_model, batch, shape)
            engines = {
                "seqc AOT": lambda: seqc(x, y),
                "ONNX Runtime": lambda: session.run(None, {"x": x}),
                "OpenVINO": lambda: request.infer({"x": x}),
                "TFLite": lambda: lite(x),
            }
            outputs = {"seqc AOT": seqc(x, y).copy(),
                       "ONNX Runtime": session.run(None, {"x": x})[0],
                       "OpenVINO": next(iter(request.infer({"x": x}).values())),
                       "TFLite": lite(x).copy()}
            require_close(outputs, want, batch)
            times = interleaved(engines, args.rounds, args.burst)
            rows.append(summarize({"model": name, "batch": batch}, times, "seqc AOT"))
            if args.layers:
                rows[-1]["seqc prefixes"] = seqc_parts(
                    args.build, tempfile.mkdtemp(dir=work), prefixes(keras_model, x), batch,
                    shape[0], args.rounds, args.burst)
                if make is make_cnn_lstm:
                    rows[-1]["seqc conv1d"] = seqc_parts(
                        args.build, tempfile.mkdtemp(dir=work), conv1d_as_conv2d(keras_model, x),
                        batch, T, args.rounds, args.burst)

    for r in rows:
        if "seqc prefixes" in r:
            print_parts("seqc, %s at batch %d, cut after each layer" % (r["model"], r["batch"]),
                        r["seqc prefixes"])
        if "seqc conv1d" in r:
            print_parts("seqc at batch %d, the Conv1D alone and as a Conv2D" % r["batch"],
                        r["seqc conv1d"])
    print_table(rows, ("model", "batch"), "seqc AOT", ["ONNX Runtime", "OpenVINO", "TFLite"])
    with open(args.out, "w") as f:
        json.dump({"versions": {"onnxruntime": ort.__version__, "openvino": ov.__version__,
                                "tensorflow": tf.__version__},
                   "core": core, "load_average": os.getloadavg(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()

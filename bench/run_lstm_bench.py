#!/usr/bin/env python3
"""LSTM inference on one core: seqc's AOT library (portable and native)
against ONNX Runtime, OpenVINO, TensorFlow XLA and TFLite, with GFLOP/s
against this core's FP32 peak measured in the same run.

  python bench/run_lstm_bench.py [--build build] [--rounds 15] [--out lstm-bench.json]
                                 [--units 64,128,256] [--batches 1,32,64]

Models: Keras LSTM(U) -> Dense(1) on (100, 128) inputs, random weights,
written with tf_keras, for each U of --units.

  seqc portable  `seq-compile model.h5 -o lib.so` (the default: x86-64-v3 and
                 AVX-512 code, picked at load time), through its C API
  seqc native    the same with --cpu=native (one variant for this machine)
  ONNX Runtime   the same weights as an ONNX LSTM + MatMul (opset 17)
  OpenVINO       that ONNX model compiled for its CPU plugin (f32)
  TF XLA         tf.function(model, jit_compile=True) on tf_keras' model
  TFLite         the model converted by tf.lite.TFLiteConverter for each
                 batch (its LSTM fused into UNIDIRECTIONAL_SEQUENCE_LSTM),
                 tf.lite.Interpreter(num_threads=1) with its default XNNPACK
                 delegate

Every output is checked against Keras' prediction first. Engines run
interleaved (interleave.py): each round times a burst of calls of each
engine in turn; a row reports the median over rounds and, for each peer, the
median per-round time / seqc portable's. GFLOP/s counts the GEMM work
(T * (2*F*4U + 2*U*4U) + 2*U per sample); the peak is bench/fma_peak.c's,
compiled and run before and after the rounds (the larger is used), so that
a "% of peak" belongs to the same machine state. At batch 1 an LSTM step
reads its whole recurrent kernel (U x 4U floats) once, so the step's floor
is those bytes over this core's read bandwidth from a buffer of that size
(bench/l2_bandwidth.c, measured alike); the table gives seqc's time per step
over that floor.

Needs tensorflow + tf_keras, numpy, onnx, onnxruntime and openvino, e.g. in
a separate virtual environment: pip install tensorflow-cpu tf-keras onnx
onnxruntime openvino.
"""
import json
import os
import subprocess
import sys
import tempfile

from interleave import (SeqcAot, TFLite, interleaved, onnx_lstm_dense_initializers,
                        onnx_runtime_session, openvino_model, parse_and_pin, require_close,
                        summarize)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T, F = 100, 128
PEERS = ["seqc native", "ONNX Runtime", "OpenVINO", "TF XLA", "TFLite"]


def make_model(path, units):
    import numpy as np
    import tf_keras as k
    m = k.Sequential([k.layers.InputLayer(input_shape=(T, F)), k.layers.LSTM(units),
                      k.layers.Dense(1)])
    rng = np.random.default_rng(units)
    m.set_weights([rng.uniform(-0.1, 0.1, w.shape).astype("float32") for w in m.get_weights()])
    m.save(path)
    return m


def onnx_model(keras_model, units):
    """ONNX LSTM (gates i, o, f, c; Y_h), then the Dense."""
    import numpy as np
    import onnx
    from onnx import helper, TensorProto, numpy_helper
    inits = onnx_lstm_dense_initializers(keras_model)
    inits.append(numpy_helper.from_array(np.array([-1, units], "int64"), "shape"))
    nodes = [helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
             helper.make_node("LSTM", ["xt", "W", "R", "B"], ["", "h"], hidden_size=units),
             helper.make_node("Reshape", ["h", "shape"], ["h2"]),
             helper.make_node("MatMul", ["h2", "Wd"], ["d"]),
             helper.make_node("Add", ["d", "Bd"], ["y"])]
    graph = helper.make_graph(
        nodes, "lstm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", T, F])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model.SerializeToString()


def measure(work, name, *args):
    """bench/NAME.c built once and run: the number it prints."""
    exe = os.path.join(work, name)
    if not os.path.exists(exe):
        subprocess.run(["cc", "-O2", "-mavx512f", "-mfma", os.path.join(ROOT, "bench", name + ".c"),
                        "-o", exe], check=True)
    return float(subprocess.run([exe] + [str(a) for a in args], check=True,
                                capture_output=True, text=True).stdout)


def fma_peak(work):
    return measure(work, "fma_peak")


def read_bandwidth(work, units):
    """GB/s reading a buffer as large as LSTM(units)' recurrent kernel."""
    return measure(work, "l2_bandwidth", units * 4 * units * 4)


def main():
    extra = {"--units": "64,128,256", "--batches": "1,32,64"}
    argv, options = [], dict(extra)
    it = iter(sys.argv[1:])
    for a in it:  # the two options of this script; the rest are interleave's
        key, _, value = a.partition("=")
        if key in extra:
            options[key] = value or next(it)
        else:
            argv.append(a)
    sys.argv[1:] = argv
    args, core = parse_and_pin(__doc__.splitlines()[0], "lstm-bench.json", ROOT)
    units_list = [int(u) for u in options["--units"].split(",")]
    batches = [int(b) for b in options["--batches"].split(",")]

    import numpy as np
    import onnxruntime as ort
    import openvino as ov
    import warnings
    import tensorflow as tf
    warnings.filterwarnings("ignore", module="tensorflow.lite")
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)

    work = tempfile.mkdtemp(prefix="seqc-lstm-bench-")
    peaks = [fma_peak(work)]
    bandwidth = {u: [read_bandwidth(work, u)] for u in units_list}
    seq_compile = os.path.join(args.build, "bin", "seq-compile")
    rows = []
    rng = np.random.default_rng(3)
    for units in units_list:
        path = os.path.join(work, "lstm%d.h5" % units)
        keras_model = make_model(path, units)
        libs = {}
        for name, flags in [("seqc portable", []), ("seqc native", ["--cpu=native"])]:
            libs[name] = os.path.join(work, "lib%d_%s.so" % (units, name.split()[1]))
            subprocess.run([seq_compile, path, "-o", libs[name]] + flags, check=True)
        proto = onnx_model(keras_model, units)
        session = onnx_runtime_session(proto)
        request = openvino_model(proto).create_infer_request()
        xla = tf.function(keras_model, jit_compile=True)
        flop = T * (2 * F * 4 * units + 2 * units * 4 * units) + 2 * units
        for batch in batches:
            x = rng.uniform(-1, 1, (batch, T, F)).astype("float32")
            want = keras_model.predict(x, verbose=0)
            seqc = {name: SeqcAot(lib, batch, T) for name, lib in libs.items()}
            y = {name: np.empty((batch, 1), "float32") for name in libs}
            xt = tf.constant(x)
            lite = TFLite(keras_model, batch, (T, F))
            engines = {
                "seqc portable": lambda: seqc["seqc portable"](x, y["seqc portable"]),
                "seqc native": lambda: seqc["seqc native"](x, y["seqc native"]),
                "ONNX Runtime": lambda: session.run(None, {"x": x}),
                "OpenVINO": lambda: request.infer({"x": x}),
                "TF XLA": lambda: xla(xt).numpy(),
                "TFLite": lambda: lite(x),
            }
            outputs = {name: np.array(call()[0] if name == "ONNX Runtime" else
                                      next(iter(call().values())) if name == "OpenVINO" else call())
                       for name, call in engines.items()}
            require_close(outputs, want, batch)
            times = interleaved(engines, args.rounds, args.burst)
            row = summarize({"model": "LSTM(%d)" % units, "batch": batch}, times, "seqc portable")
            for name in engines:
                row[name + " GFLOP/s"] = flop * batch / (row[name] * 1e3)
            rows.append(row)
    peaks.append(fma_peak(work))
    peak = max(peaks)
    for u in units_list:
        bandwidth[u].append(read_bandwidth(work, u))
    for r in rows:
        if r["batch"] == 1:
            u = int(r["model"][5:-1])
            floor_us = u * 4 * u * 4 / (max(bandwidth[u]) * 1e3)
            r["step over L2 floor"] = r["seqc portable"] / T / floor_us

    print("\nFP32 peak of this core (bench/fma_peak.c, before and after): %s GFLOP/s"
          % ", ".join("%.1f" % p for p in peaks))
    for u in units_list:
        print("read bandwidth from %d KiB (LSTM(%d)'s recurrent kernel; bench/l2_bandwidth.c): %s GB/s"
              % (u * 4 * u * 4 // 1024, u, ", ".join("%.1f" % b for b in bandwidth[u])))
    for r in rows:
        if "step over L2 floor" in r:
            print("%s batch 1: one step takes %.2fx its floor (recurrent kernel bytes / bandwidth)"
                  % (r["model"], r["step over L2 floor"]))
    print("\n| model | batch | seqc portable | %s | seqc GFLOP/s (of peak) | best peer GFLOP/s (of peak) |"
          % " | ".join(PEERS))
    print("|---" * (len(PEERS) + 5) + "|")
    for r in rows:
        cells = ["%.0f us (%.2fx)" % (r[p], r[p + " / seqc portable"]) for p in PEERS]
        best = max(r[p + " GFLOP/s"] for p in PEERS[1:])
        print("| %s | %d | %.0f us | %s | %.1f (%.0f%%) | %.1f (%.0f%%) |" % (
            r["model"], r["batch"], r["seqc portable"], " | ".join(cells),
            r["seqc portable GFLOP/s"], 100 * r["seqc portable GFLOP/s"] / peak,
            best, 100 * best / peak))
    print("\nratios are engine time / seqc portable time per round (above 1: seqc is faster)")
    with open(args.out, "w") as f:
        json.dump({"versions": {"onnxruntime": ort.__version__, "openvino": ov.__version__,
                                "tensorflow": tf.__version__},
                   "core": core, "fma_peak_gflops": peaks,
                   "read_bandwidth_gbps": {str(u): b for u, b in bandwidth.items()},
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()

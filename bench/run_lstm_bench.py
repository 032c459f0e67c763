#!/usr/bin/env python3
"""Recurrent workloads on one core: seqc's AOT library (portable and native)
and JIT engine against ONNX Runtime, OpenVINO, TensorFlow XLA and TFLite,
with GFLOP/s against this core's FP32 peak measured in the same run.

  python bench/run_lstm_bench.py [--build build] [--rounds 15] [--out lstm-bench.json]
                                 [--only REGEX] [--units 64,128,256,512,1024]

Workloads (issue 18; tf_keras models, random weights, 100 steps of 128
features unless said), each at its batches:
  seed            test/fixtures/seed_build.h5: LSTM(64) -> Dense(32, relu) ->
                  Dense(1) on (10, 12); batch 1, 32, 1024
  LSTM(U)         LSTM(U) -> Dense(1) for each U of --units; batch 1, 32, 64
                  up to 256 units, batch 32 above (the peak target's sizes)
  stack 10xLSTM(256)  ten LSTM(256) (sequences between them) -> Dense(1);
                  batch 1
  GRU(128)        GRU(128) (reset_after) -> Dense(1); batch 1, 64
  BiLSTM(128)     Bidirectional(LSTM(128)) -> Dense(1); batch 1, 32
  Conv1D+LSTM     run_cnn_bench.py's CNN+LSTM: Conv1D(32, 5, relu) on
                  (100, 16) -> MaxPooling1D(2) -> LSTM(64) -> Dense(8);
                  batch 1, 32
  Embedding+LSTM  Embedding(1000, 64) on 100 token ids -> LSTM(128) ->
                  Dense(1); batch 1, 32
--only keeps the workloads whose name matches REGEX (re.search).

Engines:
  seqc portable  `seq-compile model.h5 -o lib.so` (the default: x86-64-v3 and
                 AVX-512 code, picked at load time), through its C API
  seqc native    the same with --cpu=native (one variant for this machine)
  seqc JIT       the Python module seqc: seqc.load(model).compile("jit",
                 threads=1), called on the array (skipped when the module is
                 not importable from this Python or the build's venv)
  ONNX Runtime   the same weights as an ONNX graph written by keras_onnx.py
                 (ONNX LSTM / GRU / Conv / Gather nodes, opset 17)
  OpenVINO       that ONNX model compiled for its CPU plugin (f32)
  TF XLA         tf.function(model, jit_compile=True) on tf_keras' model
  TFLite         the model converted by tf.lite.TFLiteConverter for each
                 batch (its LSTMs fused into UNIDIRECTIONAL_SEQUENCE_LSTM),
                 tf.lite.Interpreter(num_threads=1) with its default XNNPACK
                 delegate

Every output is checked against Keras' prediction first. Engines run
interleaved (interleave.py): each round times a burst of calls of each
engine in turn; a row reports the median over rounds and, for each engine,
the median per-round time / seqc portable's, and which peer was fastest.
GFLOP/s counts the GEMM work of the model (gemm_flop); the peak is
bench/fma_peak.c's, compiled and run before and after the rounds (the larger
is used), so that a "% of peak" belongs to the same machine state. At batch
1 an LSTM(U) step reads its whole recurrent kernel (U x 4U floats) once, so
the step's floor is those bytes over this core's read bandwidth from a
buffer of that size (bench/l2_bandwidth.c, measured alike); the output gives
seqc's time per step over that floor twice: the whole model's time over
its steps (which includes the input projection of 128 features, computed
once for all steps before them), and the step alone: the same LSTM(U) on
one input feature (its projection then negligible), timed in the same
rounds.

Needs tensorflow + tf_keras, numpy, onnx, onnxruntime and openvino, e.g. in
a separate virtual environment: pip install tensorflow-cpu tf-keras onnx
onnxruntime openvino.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from probes import fma_peak, read_bandwidth
from interleave import (SeqcAot, TFLite, interleaved, onnx_runtime_session, openvino_model,
                        parse_and_pin, require_close, summarize)
from keras_onnx import chain_to_onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T, F = 100, 128
PEERS = ["ONNX Runtime", "OpenVINO", "TF XLA", "TFLite"]
SEQC = ["seqc native", "seqc JIT"]


def random_weights(model, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    model.set_weights([rng.uniform(-0.1, 0.1, w.shape).astype("float32")
                       for w in model.get_weights()])
    return model


def sequential(layers, input_shape=(T, F), seed=0):
    import tf_keras as k
    return random_weights(k.Sequential([k.layers.InputLayer(input_shape=input_shape)] + layers),
                          seed)


def workloads(units_list):
    """[(name, batches, make() -> tf_keras model, ids)]: `ids` is the
    vocabulary of a model whose input is token ids, else None."""
    import tf_keras as k
    L = k.layers
    import run_cnn_bench
    result = [("seed", [1, 32, 1024],
               lambda: k.models.load_model(os.path.join(ROOT, "test/fixtures/seed_build.h5")),
               None)]
    for u in units_list:
        result.append(("LSTM(%d)" % u, [1, 32, 64] if u <= 256 else [32],
                       lambda u=u: sequential([L.LSTM(u), L.Dense(1)], seed=u), None))
    result += [
        ("stack 10xLSTM(256)", [1],
         lambda: sequential([L.LSTM(256, return_sequences=True) for _ in range(9)]
                            + [L.LSTM(256), L.Dense(1)], seed=10), None),
        ("GRU(128)", [1, 64], lambda: sequential([L.GRU(128), L.Dense(1)], seed=11), None),
        ("BiLSTM(128)", [1, 32],
         lambda: sequential([L.Bidirectional(L.LSTM(128)), L.Dense(1)], seed=12), None),
        ("Conv1D+LSTM", [1, 32],
         lambda: run_cnn_bench.make_cnn_lstm(os.path.join(tempfile.mkdtemp(), "m.h5")), None),
        ("Embedding+LSTM", [1, 32],
         lambda: sequential([L.Embedding(1000, 64), L.LSTM(128), L.Dense(1)], (T,), 13), 1000),
    ]
    return result


def gemm_flop(model):
    """Multiply-adds x 2 of one sample: recurrences' input projections and
    recurrent products, Dense layers, convolutions."""
    import numpy as np
    total = 0
    for layer in model.layers:
        kind = type(layer).__name__
        shape = layer.input_shape
        if kind == "Bidirectional":
            layer, kind, directions = layer.forward_layer, type(layer.forward_layer).__name__, 2
        else:
            directions = 1
        if kind in ("LSTM", "GRU"):
            gates = layer.units * (4 if kind == "LSTM" else 3)
            total += directions * shape[1] * 2 * (shape[2] + layer.units) * gates
        elif kind == "Dense":
            total += 2 * int(np.prod(shape[1:])) * layer.units
        elif kind == "Conv1D":
            total += 2 * layer.output_shape[1] * layer.kernel_size[0] * shape[2] * layer.filters
    return total


def seqc_module(build):
    """The Python module seqc: importable as is, or from the build's venv.
    It must be imported before TensorFlow: the LLVM inside TensorFlow's
    libraries, loaded first, takes the place of seqc's in its JIT (LLVM's
    "Required pass not found")."""
    for path in [None] + glob.glob(os.path.join(build, "venv", "lib", "python3*",
                                                "site-packages")):
        if path:
            sys.path.insert(0, path)
        try:
            import seqc
            return seqc
        except ImportError:
            continue
    return None


STEP_ALONE = "seqc step alone"


def step_alone(keras_model, work, index, seq_compile):
    """A call of seqc portable on the same LSTM on one input feature at
    batch 1 (checked against Keras first), for the step's time without the
    input projection."""
    import numpy as np
    import tf_keras as k
    lstm = keras_model.layers[0]
    model = sequential([k.layers.LSTM(lstm.units), k.layers.Dense(1)], (T, 1), seed=lstm.units)
    path = os.path.join(work, "step%d.h5" % index)
    model.save(path)
    lib = os.path.join(work, "step%d.so" % index)
    subprocess.run([seq_compile, path, "-o", lib], check=True)
    x = np.random.default_rng(4).uniform(-1, 1, (1, T, 1)).astype("float32")
    y = np.empty((1, 1), "float32")
    run = SeqcAot(lib, 1, T)
    run(x, y)
    require_close({STEP_ALONE: y}, model.predict(x, verbose=0), 1)
    return lambda: run(x, y)


def read_bandwidth_for(work, units):
    """GB/s reading a buffer as large as LSTM(units)' recurrent kernel."""
    return read_bandwidth(work, units * 4 * units * 4)


def main():
    def options(p):
        p.add_argument("--only", default="", help="workloads whose name matches this regex")
        p.add_argument("--units", default="64,128,256,512,1024",
                       help="LSTM(U) -> Dense(1) workloads' U")
    args, core = parse_and_pin(__doc__.splitlines()[0], "lstm-bench.json", ROOT, options)
    seqc_python = seqc_module(args.build)  # before TensorFlow: see seqc_module
    units_list = [int(u) for u in args.units.split(",") if u]
    chosen = [w for w in workloads(units_list) if re.search(args.only, w[0])]

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
    lstm_units = [u for u in units_list if any(w[0] == "LSTM(%d)" % u for w in chosen)]
    bandwidth = {u: [read_bandwidth_for(work, u)] for u in lstm_units}
    seq_compile = os.path.join(args.build, "bin", "seq-compile")
    rows = []
    rng = np.random.default_rng(3)
    for index, (name, batches, make, ids) in enumerate(chosen):
        keras_model = make()
        path = os.path.join(work, "model%d.h5" % index)
        keras_model.save(path)
        shape = tuple(keras_model.input_shape[1:])
        steps, out_shape = shape[0], tuple(keras_model.output_shape[1:])
        libs = {}
        for engine, flags in [("seqc portable", []), ("seqc native", ["--cpu=native"])]:
            libs[engine] = os.path.join(work, "lib%d_%s.so" % (index, engine.split()[1]))
            subprocess.run([seq_compile, path, "-o", libs[engine]] + flags, check=True)
        jit = seqc_python.load(path).compile("jit", threads=1) if seqc_python else None
        proto = chain_to_onnx(keras_model)
        session = onnx_runtime_session(proto)
        request = openvino_model(proto).create_infer_request()
        xla = tf.function(keras_model, jit_compile=True)
        flop = gemm_flop(keras_model)
        for batch in batches:
            if ids:
                x = rng.integers(0, ids, (batch,) + shape).astype("float32")
            else:
                x = rng.uniform(-1, 1, (batch,) + shape).astype("float32")
            want = keras_model.predict(x, verbose=0)
            seqc = {engine: SeqcAot(lib, batch, steps) for engine, lib in libs.items()}
            y = {engine: np.empty((batch,) + out_shape, "float32") for engine in libs}
            xt = tf.constant(x)
            lite = TFLite(keras_model, batch, shape)
            engines = {
                "seqc portable": lambda: seqc["seqc portable"](x, y["seqc portable"]),
                "seqc native": lambda: seqc["seqc native"](x, y["seqc native"]),
                "seqc JIT": lambda: jit(x),
                "ONNX Runtime": lambda: session.run(None, {"x": x})[0],
                "OpenVINO": lambda: next(iter(request.infer({"x": x}).values())),
                "TF XLA": lambda: xla(xt).numpy(),
                "TFLite": lambda: lite(x),
            }
            if jit is None:
                del engines["seqc JIT"]
            require_close({engine: np.array(call()) for engine, call in engines.items()},
                          want, batch)
            if re.fullmatch(r"LSTM\(\d+\)", name) and batch == 1:
                engines[STEP_ALONE] = step_alone(keras_model, work, index, seq_compile)
            times = interleaved(engines, args.rounds, args.burst)
            row = summarize({"model": name, "batch": batch}, times, "seqc portable")
            for engine in set(engines) - {STEP_ALONE}:
                row[engine + " GFLOP/s"] = flop * batch / (row[engine] * 1e3)
            row["load"] = os.getloadavg()[0]
            rows.append(row)
    peaks.append(fma_peak(work))
    peak = max(peaks)
    for u in lstm_units:
        bandwidth[u].append(read_bandwidth_for(work, u))
    for r in rows:
        u = re.fullmatch(r"LSTM\((\d+)\)", r["model"])
        if u and r["batch"] == 1:
            u = int(u.group(1))
            floor_us = u * 4 * u * 4 / (max(bandwidth[u]) * 1e3)
            r["step over L2 floor"] = r["seqc portable"] / T / floor_us
            r["step alone over L2 floor"] = r[STEP_ALONE] / T / floor_us

    print("\nFP32 peak of this core (bench/fma_peak.c, before and after): %s GFLOP/s"
          % ", ".join("%.1f" % p for p in peaks))
    for u in lstm_units:
        print("read bandwidth from %d KiB (LSTM(%d)'s recurrent kernel; bench/l2_bandwidth.c): %s GB/s"
              % (u * 4 * u * 4 // 1024, u, ", ".join("%.1f" % b for b in bandwidth[u])))
    for r in rows:
        if "step over L2 floor" in r:
            print("%s batch 1: one step takes %.2fx its floor (recurrent kernel bytes / bandwidth)"
                  " with the input projection, %.2fx alone"
                  % (r["model"], r["step over L2 floor"], r["step alone over L2 floor"]))
    shown = [e for e in SEQC + PEERS if rows and e + " GFLOP/s" in rows[0]]
    print("\n| model | batch | seqc portable | %s | fastest peer | seqc GFLOP/s (of peak) |"
          " fastest peer GFLOP/s (of peak) |" % " | ".join(shown))
    print("|---" * (len(shown) + 6) + "|")
    for r in rows:
        cells = ["%s (%.2fx)" % (duration(r[e]), r[e + " / seqc portable"]) for e in shown]
        best = min(PEERS, key=lambda p: r[p + " / seqc portable"])
        r["fastest peer"] = best
        print("| %s | %d | %s | %s | %s %.2fx | %.1f (%.0f%%) | %.1f (%.0f%%) |" % (
            r["model"], r["batch"], duration(r["seqc portable"]), " | ".join(cells), best,
            r[best + " / seqc portable"], r["seqc portable GFLOP/s"],
            100 * r["seqc portable GFLOP/s"] / peak, r[best + " GFLOP/s"],
            100 * r[best + " GFLOP/s"] / peak))
    print("\nratios are engine time / seqc portable time per round (above 1: seqc is faster);"
          " load average (1 min) after each row: %s"
          % ", ".join("%.1f" % r["load"] for r in rows))
    with open(args.out, "w") as f:
        json.dump({"versions": {"onnxruntime": ort.__version__, "openvino": ov.__version__,
                                "tensorflow": tf.__version__},
                   "core": core, "fma_peak_gflops": peaks,
                   "read_bandwidth_gbps": {str(u): b for u, b in bandwidth.items()},
                   "rows": rows}, f, indent=1)


def duration(us):
    return "%.0f us" % us if us < 10000 else "%.1f ms" % (us / 1000)


if __name__ == "__main__":
    main()

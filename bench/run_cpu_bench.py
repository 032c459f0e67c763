#!/usr/bin/env python3
"""CPU benchmark of seqc against its peers, all in one run on one core.

  python3 bench/run_cpu_bench.py [--build build] [--out bench-results.json]
                                 [--min-time 1.0] [--skip-eager-large]

Workloads: the seed model (test/fixtures/seed_build.h5: LSTM(64) ->
Dense(32, relu) -> Dense(1), T=10, 12 features) at batch 1 and 32, and an
LSTM(256) at T=100 (128 features, Dense(1) head; made here with tf_keras and
random weights) at batch 1 and 32.

Peers, each timed as the median of repeated calls on one input:
  seqc AOT   the shared library from `seq-compile -o lib.so`, called from C
             (bench/aot_timer.c)
  seqc JIT   the "jit" engine through the C++ engine API (bench/seq-cpu-bench)
  seqc eager the reference interpreter (same tool)
  TF         tf_keras model(x), model.predict(x), tf.function(model) and
             tf.function(model, jit_compile=True) (XLA)
  ORT        ONNX Runtime on the tf2onnx conversion of the same model

Everything is restricted to one thread (TF intra/inter-op threads = 1, ORT
intra/inter-op threads = 1; seqc is single-threaded), since the comparison is
of code quality, not of core counts. GFLOP/s counts the GEMM work only
(2*M*N*K of the input projections, recurrent products and dense layers) and
is compared with the FP32 peak measured by bench/fma_peak.c. Results are
printed as a table and written as JSON; ratios are against seqc AOT.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from probes import fma_peak

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sh(args, **kw):
    return subprocess.run(args, check=True, text=True, stdout=subprocess.PIPE, **kw).stdout


def make_lstm256(path):
    import numpy as np
    import tf_keras as k
    m = k.Sequential([k.layers.InputLayer(input_shape=(100, 128)),
                      k.layers.LSTM(256), k.layers.Dense(1)])
    rng = np.random.default_rng(0)
    m.set_weights([rng.uniform(-0.1, 0.1, w.shape).astype("float32") for w in m.get_weights()])
    m.save(path)


def gemm_flops(name, batch):
    def lstm(t, f, u):
        return 2 * t * (f + u) * 4 * u
    if name == "seed":
        per = lstm(10, 12, 64) + 2 * 64 * 32 + 2 * 32 * 1
    else:
        per = lstm(100, 128, 256) + 2 * 256 * 1
    return per * batch


def time_calls(fn, min_time, max_iter=100000):
    fn()
    samples = []
    start = time.perf_counter()
    while len(samples) < max_iter and (time.perf_counter() - start < min_time or len(samples) < 3):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(samples)


def tf_peers(model_path, shape, min_time):
    import numpy as np
    import tensorflow as tf
    import tf_keras as k
    model = k.models.load_model(model_path, compile=False)
    x = np.random.default_rng(1).uniform(-1, 1, shape).astype("float32")
    xt = tf.constant(x)
    results = {}
    results["TF model(x)"] = time_calls(lambda: model(xt, training=False), min_time)
    results["TF predict"] = time_calls(lambda: model.predict(x, verbose=0), min_time, 2000)
    graph = tf.function(lambda v: model(v, training=False))
    results["TF tf.function"] = time_calls(lambda: graph(xt), min_time)
    try:
        xla = tf.function(lambda v: model(v, training=False), jit_compile=True)
        results["TF tf.function(jit_compile)"] = time_calls(lambda: xla(xt), min_time)
    except Exception as e:  # noqa: BLE001 - report, do not abort the run
        results["TF tf.function(jit_compile)"] = "failed: %s" % str(e).splitlines()[0]
    try:
        import onnxruntime as ort
        import tf2onnx
        spec = (tf.TensorSpec((None,) + tuple(shape[1:]), tf.float32, name="x"),)
        proto, _ = tf2onnx.convert.from_keras(model, input_signature=spec, opset=17)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(proto.SerializeToString(), options,
                                       providers=["CPUExecutionProvider"])
        name = session.get_inputs()[0].name
        results["ONNX Runtime"] = time_calls(lambda: session.run(None, {name: x}), min_time)
    except Exception as e:  # noqa: BLE001
        results["ONNX Runtime"] = "failed: %s" % str(e).splitlines()[0]
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--out", default="bench-results.json")
    p.add_argument("--min-time", type=float, default=1.0)
    p.add_argument("--skip-eager-large", action="store_true",
                   help="do not time the eager interpreter on LSTM(256) batch 32")
    args = p.parse_args()
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    bin_dir = os.path.join(args.build, "bin")
    seq_compile = os.path.join(bin_dir, "seq-compile")
    bench_tool = os.path.join(bin_dir, "seq-cpu-bench")
    for tool in (seq_compile, bench_tool):
        if not os.path.exists(tool):
            sys.exit("missing %s: ninja -C %s seq-compile seq-cpu-bench" % (tool, args.build))

    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    work = tempfile.mkdtemp(prefix="seqc-bench-")
    peak = fma_peak(work)
    models = {"seed": os.path.join(ROOT, "test", "fixtures", "seed_build.h5"),
              "lstm256": os.path.join(work, "lstm256.h5")}
    make_lstm256(models["lstm256"])
    shapes = {"seed": (10, 12), "lstm256": (100, 128)}

    rows = []
    for name, path in models.items():
        lib = os.path.join(work, "lib%s.so" % name)
        sh([seq_compile, path, "-o", lib])
        timer = os.path.join(work, "aot_timer_" + name)
        sh(["cc", "-O2", "-I", work, '-DSEQC_MODEL_HEADER="lib%s.h"' % name,
            os.path.join(ROOT, "bench", "aot_timer.c"), lib, "-Wl,-rpath," + work, "-o", timer])
        for batch in (1, 32):
            t, f = shapes[name]
            row = {"model": name, "batch": batch, "flops": gemm_flops(name, batch)}
            aot = json.loads(sh([timer, str(batch), str(t), str(args.min_time)]))
            row["seqc AOT"] = aot["median_us"]
            engines = "jit" if (args.skip_eager_large and name == "lstm256" and batch == 32) else "eager,jit"
            for line in sh([bench_tool, path, "--batch", str(batch), "--engines", engines,
                            "--min-time", str(args.min_time)]).splitlines():
                r = json.loads(line)
                row["seqc %s" % ("JIT" if r["engine"] == "jit" else "eager")] = r["median_us"]
                if r["engine"] == "jit":
                    row["jit compile s"] = r["compile_s"]
            row.update(tf_peers(path, (batch, t, f), args.min_time))
            rows.append(row)
            print(json.dumps(row), flush=True)

    peers = ["seqc AOT", "seqc JIT", "seqc eager", "TF model(x)", "TF predict",
             "TF tf.function", "TF tf.function(jit_compile)", "ONNX Runtime"]
    print("\nFP32 peak of one core (bench/fma_peak.c): %.1f GFLOP/s\n" % peak)
    print("| model | batch | " + " | ".join(peers) + " | seqc AOT GFLOP/s (% of peak) |")
    print("|---|---|" + "---|" * (len(peers) + 1))
    for r in rows:
        cells = []
        for peer in peers:
            v = r.get(peer)
            if isinstance(v, (int, float)):
                ratio = v / r["seqc AOT"]
                cells.append("%.1f us (%s)" % (v, "1x" if peer == "seqc AOT" else "%.1fx" % ratio))
            else:
                cells.append(str(v))
        gflops = r["flops"] / (r["seqc AOT"] * 1e3)
        print("| %s | %d | %s | %.1f (%.0f%%) |" % (r["model"], r["batch"], " | ".join(cells),
                                                    gflops, 100 * gflops / peak))
    with open(args.out, "w") as f:
        json.dump({"peak_gflops": peak, "rows": rows}, f, indent=1)
    print("\nwrote %s (work files in %s)" % (args.out, work))


if __name__ == "__main__":
    main()

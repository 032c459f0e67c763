"""Throughput of one call split across 2 threads versus 1 (issue 18,
"threads"): the seed model (test/fixtures/seed_build.h5: LSTM(64) ->
Dense(32) -> Dense(1) on (64, 10, 12)) and an LSTM(256) -> Dense(1) on
(64, 100, 64) (bench/gpu/make_models.py lstm_256: random weights, no
TensorFlow needed), at batch 64. Engines: seqc's AOT library through its C
API (seqc_model_create_threaded(64, steps, 1 or 2)) and, when the Python
module seqc is importable, the jit engine (Model.compile("jit", threads=1
or 2)). The two counts are timed interleaved round by round (interleave.py)
so that load on a shared machine hits both alike; a row gives the median
call time of each and the median over rounds of time(1 thread) / time(2
threads), the speed-up. Outputs of 1 and 2 threads are checked bitwise
equal first. The machine's load average is printed with the table.

  run_threads_bench.py [--build build] [--rounds 15] [--burst 0.2] [--out FILE.json]
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import interleave  # noqa: E402


def main():
    import argparse
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--burst", type=float, default=0.2, help="seconds per engine per round")
    p.add_argument("--out", default="threads-bench.json")
    args = p.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        sys.exit("this process may use only one core: nothing to measure")
    try:
        import seqc
    except ImportError:
        seqc = None
    batch = 64
    rows = []
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([sys.executable, os.path.join(HERE, "gpu", "make_models.py"), work,
                        "lstm_256"], check=True, stdout=subprocess.DEVNULL)
        models = [("seed (LSTM(64), T=10)", os.path.join(ROOT, "test/fixtures/seed_build.h5"),
                   (10, 12)),
                  ("LSTM(256), T=100", os.path.join(work, "lstm_256.mlir"), (100, 64))]
        for name, path, (steps, features) in models:
            lib = os.path.join(work, "lib%d.so" % len(rows))
            interleave.compile_aot(args.build, path, lib)
            x = np.random.RandomState(0).uniform(-1, 1, (batch, steps, features)).astype(np.float32)
            engines, outputs = {}, {}
            for threads in (1, 2):
                aot = interleave.SeqcAot(lib, batch, steps, threads=threads)
                y = np.zeros((batch, 1), np.float32)
                outputs["aot %d" % threads] = aot(x, y).copy()
                engines["aot %d" % threads] = (lambda a=aot, y=y: a(x, y))
            if seqc is not None:
                model = seqc.load(path)
                for threads in (1, 2):
                    jit = model.compile("jit", threads=threads)
                    outputs["jit %d" % threads] = jit(x)
                    engines["jit %d" % threads] = (lambda j=jit: j(x))
            for kind in ("aot", "jit"):
                if kind + " 1" in outputs and \
                        outputs[kind + " 1"].tobytes() != outputs[kind + " 2"].tobytes():
                    sys.exit("%s: %s with 2 threads differs from 1" % (name, kind))
            times = interleave.interleaved(engines, args.rounds, args.burst)
            row = {"model": name, "batch": batch, "load": os.getloadavg()[0]}
            for kind in ("aot", "jit"):
                if kind + " 1" not in times:
                    continue
                one, two = times[kind + " 1"], times[kind + " 2"]
                row[kind + " 1 thread us"] = float(np.median(one))
                row[kind + " 2 threads us"] = float(np.median(two))
                row[kind + " speed-up"] = float(np.median([a / b for a, b in zip(one, two)]))
            print(json.dumps(row), flush=True)
            rows.append(row)
    with open(args.out, "w") as f:
        json.dump(rows, f, indent=1)
    print("\n| model, batch 64 | engine | 1 thread | 2 threads | speed-up (median over rounds) |")
    print("|---|---|---|---|---|")
    for r in rows:
        for kind in ("aot", "jit"):
            if kind + " speed-up" in r:
                print("| %s | %s | %.0f us | %.0f us | %.2fx |" % (
                    r["model"], kind, r[kind + " 1 thread us"], r[kind + " 2 threads us"],
                    r[kind + " speed-up"]))
    print("\nload average (1 min) at the end of each row: %s; %d cores usable"
          % (", ".join("%.2f" % r["load"] for r in rows), len(os.sched_getaffinity(0))))


if __name__ == "__main__":
    main()

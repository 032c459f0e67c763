#!/usr/bin/env python3
"""Throughput of seqc on Ray with 1 and 2 workers, and the per-batch cost
Ray adds (docs/Scale.md). Runs on a local Ray cluster it starts and stops
(loopback only, no usage reporting), with the seed model whose time axis is
dynamic (test/fixtures/seed_build_dynamic.h5: LSTM(64) -> Dense(32) ->
Dense(1)) on samples of one timestep of 12 features: the cheapest work per
sample, where Ray's own cost shows most.

    build/venv/bin/python bench/ray_scale.py [--rows 2000000] [--cpus 2]

Prints two Markdown tables. Throughput: a run's steady rate is measured from
its first batch of results to its last, so that what a run pays once
(starting actors, compiling the model, connecting) is left out of it and
reported on its own ("start": the time to the first result, less one batch at
the steady rate). Per-batch cost: one batch run in this process against the
same batch through a Ray actor (ray.get(actor.run.remote(x)), alternating),
and Ray Data's time per batch on one actor whose UDF does nothing. Each
measurement is repeated (--repeat) and the fastest kept: the machine is shared.
"""
import argparse
import logging
import re
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import numpy as np  # noqa: E402
import ray  # noqa: E402
import ray.data  # noqa: E402

import seqc  # noqa: E402
import seqc.ray  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODEL = ROOT / "test" / "fixtures" / "seed_build_dynamic.h5"
SEQ_COMPILE = ROOT / "build" / "bin" / "seq-compile"


def samples(n, seed):
    return np.random.default_rng(seed).standard_normal((n, 1, 12), dtype=np.float32)


def one_process(model, x, batch):
    """samples/s of x through one compiled model on one thread, batch by batch."""
    predictor = seqc.ray.Predictor(model, threads=1)
    predictor.run(x[:batch])
    start = time.perf_counter()
    for i in range(0, len(x), batch):
        predictor.run(x[i:i + batch])
    return len(x) / (time.perf_counter() - start)


def steady(first_rows, t_first, total_rows, t_last):
    """(samples/s from the first result to the last, start seconds)."""
    rate = (total_rows - first_rows) / (t_last - t_first)
    return rate, max(0.0, t_first - first_rows / rate)


def ray_data(model, blocks, rows, batch, workers):
    """seqc.ray.predict over `blocks` (already in the object store): the rows
    as they come back to the driver."""
    start = time.perf_counter()
    seen, first = 0, None
    for out in seqc.ray.predict(blocks, model, input="data", workers=workers,
                                batch_size=batch).iter_batches(batch_size=None,
                                                               batch_format="numpy"):
        seen += len(out["y"])
        if first is None:
            first = (seen, time.perf_counter() - start)
    assert seen == rows
    return steady(*first, seen, time.perf_counter() - start)


PROGRESS = re.compile(r"\] (\d+)/(\d+) batches, ([\d.]+) samples/s, (?:done in ([\d.]+) s)?")


def cli(directory, out, rows, batch, workers, address):
    """seq-compile --run --ray on the shards in `directory`, timed by its own
    progress lines (--progress=always writes the first and the last): the
    first says when the first batch was done, the last when all were."""
    proc = subprocess.run(
        [str(SEQ_COMPILE), str(MODEL), "--run", "--input", str(directory), "-o", f"{out}/",
         "--ray", address, "--ray-workers", str(workers), "--batch", str(batch),
         "--progress=always"],
        check=True, env=dict(os.environ, SEQC_PYTHON=sys.executable),
        stderr=subprocess.PIPE, text=True)
    lines = [PROGRESS.search(line) for line in proc.stderr.splitlines()]
    lines = [m for m in lines if m and int(m.group(1)) > 0]
    first, last = lines[0], lines[-1]
    first_rows = int(first.group(1)) * batch
    t_first = first_rows / float(first.group(3))  # rate so far = rows / elapsed
    return steady(first_rows, t_first, rows, float(last.group(4)))


class Identity:
    """A Ray Data UDF that does nothing: what is left is Ray's cost."""

    def __call__(self, batch):
        return batch


def ray_data_per_batch(batch, batches=48):
    """Seconds per batch of Ray Data on 1 actor with a UDF that does nothing:
    the block to the actor, the call, the block back to the driver."""
    x = samples(batch * batches, 9)
    blocks = ray.data.from_numpy([x[i:i + batch] for i in range(0, len(x), batch)]).materialize()
    scored = blocks.map_batches(Identity, batch_size=batch, batch_format="numpy", num_cpus=1,
                                compute=ray.data.ActorPoolStrategy(size=1))
    times = [time.perf_counter() for _ in scored.iter_batches(batch_size=None,
                                                              batch_format="numpy")]
    return (times[-1] - times[0]) / (len(times) - 1)


def best(repeat, run):
    return max((run() for _ in range(repeat)), key=lambda r: r[0])


def round_trip(model, batch, calls=15):
    """Median seconds of one batch run in this process, and through a Ray
    actor (ray.get(actor.run.remote(x)): the arguments to the object store,
    the call, the result back)."""
    @ray.remote(num_cpus=1)
    class Worker:
        def __init__(self, model):
            self.predictor = seqc.ray.Predictor(model, threads=1)

        def run(self, x):
            return self.predictor.run(x)

    x = samples(batch, 7)
    local = seqc.ray.Predictor(model, threads=1)
    actor = Worker.remote(model)
    for _ in range(3):
        local.run(x)
        ray.get(actor.run.remote(x))
    here, there = [], []
    for _ in range(calls):
        t = time.perf_counter()
        local.run(x)
        here.append(time.perf_counter() - t)
        t = time.perf_counter()
        ray.get(actor.run.remote(x))
        there.append(time.perf_counter() - t)
    ray.kill(actor)
    return statistics.median(here), statistics.median(there)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--batch", type=int, default=65536)
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local cluster")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the fastest counts")
    args = parser.parse_args()
    n, batch = args.rows, args.batch
    model = seqc.load(MODEL)
    x = samples(n, 1)

    ray.init(num_cpus=args.cpus, include_dashboard=False, logging_level=logging.ERROR,
             log_to_driver=False)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    address = ray.get_runtime_context().gcs_address
    base = max(one_process(model, x, batch) for _ in range(args.repeat))
    rows = [("one process, no Ray", None, base, None)]
    blocks = ray.data.from_numpy([x[i:i + batch] for i in range(0, n, batch)]).materialize()
    for workers in (1, 2):
        rate, start = best(args.repeat, lambda: ray_data(model, blocks, n, batch, workers))
        rows.append(("Ray Data, `seqc.ray.predict`", workers, rate, start))
    del blocks
    with tempfile.TemporaryDirectory(prefix="seqc-ray-bench-") as tmp:
        tmp = pathlib.Path(tmp)
        for k in range(4):
            np.save(tmp / f"part-{k}.npy", x[k * n // 4:(k + 1) * n // 4])
        for workers in (1, 2):
            rate, start = best(args.repeat, lambda: cli(tmp, tmp / f"out-{workers}", n, batch,
                                                        workers, address))
            rows.append(("`seq-compile --run --ray`", workers, rate, start))
    trips = []
    for b in (1024, 8192, 65536):
        here, there = min((round_trip(model, b) for _ in range(args.repeat)),
                          key=lambda t: t[1] - t[0])
        trips.append((b, here, there, min(ray_data_per_batch(b) for _ in range(args.repeat))))
    ray.shutdown()

    load = os.getloadavg()[0]
    print(f"Seed model, 1 timestep of 12 features per sample; {n:,} rows; "
          f"batches of {batch:,} rows; `ray.init(num_cpus={args.cpus})`; "
          f"Ray {ray.__version__}; {os.cpu_count()} cores, load average {load:.1f} at the end.\n")
    print("| path | workers | samples/s | vs one process | start (s) |")
    print("|---|---|---|---|---|")
    for name, workers, rate, start in rows:
        print(f"| {name} | {workers or '— (1 thread)'} | {rate:,.0f} | {rate / base:.2f}× | "
              f"{'—' if start is None else f'{start:.1f}'} |")
    print("\n| rows per batch | the model, in one process (ms) | the model through a Ray actor "
          "(ms) | Ray's cost per call (ms) | Ray Data's cost per batch (ms) |")
    print("|---|---|---|---|---|")
    for b, here, there, data in trips:
        print(f"| {b:,} | {here * 1e3:.2f} | {there * 1e3:.2f} | {(there - here) * 1e3:.2f} | "
              f"{data * 1e3:.2f} |")

if __name__ == "__main__":
    main()

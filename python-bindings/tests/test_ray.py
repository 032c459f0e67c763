"""seqc on a local Ray cluster (issue 21): `ray.init(num_cpus=2)`, started and
stopped here, on the loopback interface only, without Ray's usage reporting.

* 2 million samples, half from Parquet shards and half from .npy shards, go
  through seqc.ray.predict on 2 workers; every output row equals the
  single-process run's, bit for bit (rows are computed independently, so no
  batching changes a bit).
* A worker killed in the middle of a batch: Ray restarts it and runs the
  batch again; no row is lost or doubled.
* A worker runs a batch on as many threads as the CPUs Ray gave it.
* seq-compile --run --ray ADDRESS on the .npy shards: one output per shard,
  equal to the single-process run, nothing left behind; the same with a
  worker killed while it runs; a bad shard fails with one line naming it.

The model is the seed model with a dynamic time axis (LSTM(64) -> Dense(32)
-> Dense(1), test/fixtures/seed_build_dynamic.h5) and each sample is one
timestep of 12 features, so that 2 million samples take seconds on 2 cores.
"""
import logging
import os
import pathlib
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

# conftest.py keeps the cluster on loopback, without usage reporting.
ray = pytest.importorskip(
    "ray", reason="Ray is not installed in this environment (python-bindings/"
    "run-tests.sh installs requirements-ray.txt; it could not, e.g. without access to PyPI)")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
import ray.data  # noqa: E402

import seqc  # noqa: E402
import seqc.ray  # noqa: E402
from conftest import FIXTURES  # noqa: E402

# Ray Data's own configuration warns about its deprecated settings; one
# pytest worker runs every test that starts a cluster (run-tests.sh's --dist
# loadgroup).
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.xdist_group("ray")]

MODEL = FIXTURES / "seed_build_dynamic.h5"
PARQUET_ROWS = NPY_ROWS = 1_000_000
SHARDS = 4
FEATURES = [f"f{i}" for i in range(12)]
SEQ_COMPILE = pathlib.Path(__file__).resolve().parents[2] / "build" / "bin" / "seq-compile"


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR,
             log_to_driver=False)
    address = ray.get_runtime_context().gcs_address
    assert address.startswith("127.0.0.1:"), address
    yield address
    ray.shutdown()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """x: (2M, 1, 12) float32; rows [0, 1M) as Parquet (id, f0..f11) and
    rows [1M, 2M) as .npy shards, SHARDS of each."""
    root = tmp_path_factory.mktemp("ray-data")
    x = np.random.default_rng(21).standard_normal(
        (PARQUET_ROWS + NPY_ROWS, 1, 12), dtype=np.float32)
    (root / "parquet").mkdir()
    (root / "npy").mkdir()
    step = PARQUET_ROWS // SHARDS
    for k in range(SHARDS):
        rows = slice(k * step, (k + 1) * step)
        columns = {"id": np.arange(PARQUET_ROWS)[rows]}
        columns |= {name: x[rows, 0, i] for i, name in enumerate(FEATURES)}
        pq.write_table(pa.table(columns), root / "parquet" / f"part-{k}.parquet")
    step = NPY_ROWS // SHARDS
    for k in range(SHARDS):
        np.save(root / "npy" / f"part-{k}.npy",
                x[PARQUET_ROWS + k * step:PARQUET_ROWS + (k + 1) * step])
    return root, x


@pytest.fixture(scope="module")
def expected(data):
    """The single-process run: one compiled model, one batch after another."""
    _, x = data
    predict = seqc.load(MODEL).compile()
    return np.concatenate([predict(x[i:i + 65536]) for i in range(0, len(x), 65536)])


def collect(dataset, *columns):
    parts = {c: [] for c in columns}
    for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
        for c in columns:
            parts[c].append(batch[c])
    return [np.concatenate(parts[c]) for c in columns]


def test_two_million_samples_from_parquet_and_npy_shards(cluster, data, expected):
    root, x = data
    model = seqc.load(MODEL)
    context = ray.data.DataContext.get_current()
    preserve_order = context.execution_options.preserve_order
    start = time.monotonic()
    # Read first: 2 workers of 1 CPU each take both CPUs of this cluster,
    # and a read task would wait for one forever (docs/Scale.md). Blocks
    # are what Ray hands to workers: 8, for both to be busy.
    table = ray.data.read_parquet(str(root / "parquet")).repartition(8).materialize()
    ids, y = collect(seqc.ray.predict(table, model, input=FEATURES, output="y", workers=2),
                     "id", "y")
    assert len(ids) == PARQUET_ROWS and len(np.unique(ids)) == PARQUET_ROWS
    np.testing.assert_array_equal(y, expected[ids])

    # .npy shards have no key column: their rows come back in order.
    context.execution_options.preserve_order = True
    try:
        arrays = ray.data.read_numpy(str(root / "npy"), include_paths=True,
                                     override_num_blocks=8).materialize()
        paths, y = collect(seqc.ray.predict(arrays, model, input="data", workers=2),
                           "path", "y")
    finally:
        context.execution_options.preserve_order = preserve_order
    assert len(y) == NPY_ROWS
    step = NPY_ROWS // SHARDS
    for k in range(SHARDS):
        mine = np.char.endswith(paths.astype(str), f"part-{k}.npy")
        assert mine.sum() == step
        begin = PARQUET_ROWS + k * step
        np.testing.assert_array_equal(y[mine], expected[begin:begin + step])
    print(f"\n2M samples through Ray Data: {time.monotonic() - start:.1f} s")


def test_worker_killed_mid_batch_loses_and_doubles_nothing(cluster, data, expected, tmp_path):
    root, _ = data
    marker = tmp_path / "killed"

    class KillOnce(seqc.ray.Predictor):
        """Dies (SIGKILL) in the middle of the first batch any worker of this
        test runs, after computing it and before returning it; the marker
        file says it happened, so that the retry lives."""

        def run(self, x):
            y = super().run(x)
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return y
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)

    # One shard of the four: 250,000 rows in 4 blocks.
    table = ray.data.read_parquet(str(root / "parquet" / "part-1.parquet")).repartition(4)
    scored = table.materialize().map_batches(
        KillOnce, fn_constructor_kwargs={"model": seqc.load(MODEL), "input": FEATURES},
        batch_size=65536, batch_format="numpy", num_cpus=1,
        compute=ray.data.ActorPoolStrategy(size=2))
    ids, y = collect(scored, "id", "y")
    assert marker.exists(), "no worker was killed"
    step = PARQUET_ROWS // SHARDS
    np.testing.assert_array_equal(np.sort(ids), np.arange(step, 2 * step))
    np.testing.assert_array_equal(y, expected[ids])


def test_threads_follow_the_cpus_ray_gives_a_worker(cluster):
    class Threads(seqc.ray.Predictor):
        def __call__(self, batch):
            out = super().__call__(batch)
            out["threads"] = np.full(len(out["y"]), self.threads)
            return out

    rows = ray.data.from_numpy(np.zeros((600, 1, 12), np.float32)).materialize()
    for cpus in (1, 2):
        out = rows.map_batches(Threads, fn_constructor_kwargs={"model": seqc.load(MODEL)},
                               batch_format="numpy", num_cpus=cpus,
                               compute=ray.data.ActorPoolStrategy(size=1)).take_all()
        assert {int(row["threads"]) for row in out} == {cpus}


def seq_compile(*args, env=None):
    env = dict(os.environ, SEQC_PYTHON=sys.executable, **(env or {}))
    return subprocess.Popen([str(SEQ_COMPILE), str(MODEL), "--run", *map(str, args)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def check_outputs(out, expected):
    step = NPY_ROWS // SHARDS
    assert sorted(p.name for p in out.iterdir()) == [f"part-{k}.npy" for k in range(SHARDS)]
    for k in range(SHARDS):
        begin = PARQUET_ROWS + k * step
        np.testing.assert_array_equal(np.load(out / f"part-{k}.npy"),
                                      expected[begin:begin + step])


needs_seq_compile = pytest.mark.skipif(not SEQ_COMPILE.exists(),
                                       reason=f"{SEQ_COMPILE} is not built")


@needs_seq_compile
def test_seq_compile_ray_writes_one_output_per_shard(cluster, data, expected, tmp_path):
    root, _ = data
    proc = seq_compile("--input", root / "npy", "-o", f"{tmp_path}/out/", "--ray", cluster,
                       "--progress=always")
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    lines = err.splitlines()  # the progress bar, and nothing else
    assert lines and all(line.startswith("[") for line in lines), err
    assert lines[-1].startswith("[========================] 16/16 batches") and "done in" in lines[-1], err
    check_outputs(tmp_path / "out", expected)


@needs_seq_compile
def test_seq_compile_ray_survives_a_killed_worker(cluster, data, expected, tmp_path):
    root, _ = data
    # Small batches: 50 of them, so that the run lasts while a worker dies.
    proc = seq_compile("--input", root / "npy", "-o", f"{tmp_path}/out/", "--ray", cluster,
                       "--batch", 20000, "--progress=never")
    # seq-compile execs Python: its host and pid name the run's workers.
    name = f"seqc-run-{socket.gethostname()}-{proc.pid}-0"
    deadline = time.monotonic() + 120
    actor = None
    while actor is None and proc.poll() is None and time.monotonic() < deadline:
        try:
            actor = ray.get_actor(name, namespace="seqc")
        except ValueError:
            time.sleep(0.05)
    assert actor is not None, proc.communicate()[1]
    pid = ray.get(actor.pid.remote())  # answered between two of its batches
    assert proc.poll() is None, "the run ended before a worker could be killed"
    os.kill(pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert out == err == ""  # Ray's notes on the dead worker stay in its logs
    check_outputs(tmp_path / "out", expected)


@needs_seq_compile
def test_seq_compile_ray_bad_shard_fails_naming_it(cluster, data, tmp_path):
    root, x = data
    shards = tmp_path / "in"
    shards.mkdir()
    np.save(shards / "a.npy", x[:1000])
    # Integers float32 cannot hold: found when its rows are read, after the
    # first shard's output is done.
    np.save(shards / "b.npy", np.full((1000, 1, 12), 2**40 + 1, dtype=np.int64))
    out = tmp_path / "out"
    out.mkdir()
    proc = seq_compile("--input", shards, "-o", out, "--ray", cluster, "--batch", 500)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 1
    assert err.count("\n") == 1 and err.startswith("seq-compile: error: "), err
    assert f"'{shards / 'b.npy'}'" in err and "cannot represent exactly" in err, err
    assert list(out.iterdir()) == []  # not even a.npy's output, nor a temporary

    np.save(shards / "b.npy", x[:10, :, :11])  # the wrong shape: found before the run
    proc = seq_compile("--input", shards, "-o", out, "--ray", cluster)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 1
    assert err == (f"seq-compile: error: '{shards / 'b.npy'}': input has shape (10, 1, 11) "
                   "but the model expects (?, ?, 12)\n")


@needs_seq_compile
def test_seq_compile_says_what_is_missing_without_ray(tmp_path):
    fake = tmp_path / "ray"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'ray'\")\n")
    proc = seq_compile("--input", FIXTURES / "seed_build_dynamic.input.npy",
                       "-o", f"{tmp_path}/out/", "--ray", "auto",
                       env={"PYTHONPATH": str(tmp_path)})
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert err.startswith("seq-compile: error: --ray needs the Python package 'ray' "
                          "(No module named 'ray'): "), err
    assert err.endswith("python -m pip install 'ray[data]'\n") and err.count("\n") == 1, err

"""`seq-compile MODEL --run --input 'data/*.npy' -o out/ --ray ADDRESS`: the
job of --run on a Ray cluster. seq-compile checks the flags, the model and
every shard, then hands over to this module (tools/seq-compile/RayAction.cpp)
with the shards expanded:

    python -c BOOTSTRAP --model M [--config C] [--input-shape S]
        [--metadata k=v ...] --engine E [--batch N] --progress auto|always|never
        --ray ADDRESS [--workers N] -o DIR --seqc-version V -- SHARD.npy ...

The driver (this process) loads the model, starts one actor per worker (the
model travels to each as bytes and is compiled there once), reads the shards
row range by row range (memory-mapped) and sends each range to the least busy
actor. Each output shard is assembled here from its ranges, whatever order
they finish in, written to a temporary file beside its final name, and all
are renamed into place when every shard is done: nothing half-written is ever
seen under a final name, and a failure leaves none of this run's outputs.

An actor that dies (its process killed, its node lost) is restarted by Ray
and the range it was running is sent again (max_task_retries): each range's
output is stored once, under its (shard, first row), so none is lost or
doubled. A range whose worker dies three times fails the run, naming it.
Errors are one line, "seq-compile: error: ...", exit code 1.
"""
import argparse
import collections
import logging
import os
import signal
import socket
import sys
import tempfile
import time

import numpy as np

RETRIES = 2  # a range is tried at most 1 + RETRIES times


class Failure(Exception):
    """One line for "seq-compile: error: ", exit code 1."""


def one_line(text):
    text = str(text).strip()
    first = text.splitlines()[0] if text else "unknown error"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in first)


# -- progress ----------------------------------------------------------------

def clock(seconds):
    total = int(seconds + 0.5)
    h, m, s = total // 3600, total // 60 % 60, total % 60
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """seq-compile's progress bar (RunAction.cpp), on stderr."""

    def __init__(self, mode, total_batches, total_rows):
        self.terminal = sys.stderr.isatty()
        self.enabled = mode == "always" or (mode == "auto" and self.terminal)
        self.total_batches, self.total_rows = total_batches, total_rows
        self.start = self.last = time.monotonic()
        self.width = 0
        if self.terminal:
            self.update(0, 0)

    def update(self, batches, rows):
        if not self.enabled:
            return
        now = time.monotonic()
        last = batches == self.total_batches
        if batches > 1 and not last and now - self.last < (0.1 if self.terminal else 1.0):
            return
        self.last = now
        elapsed = now - self.start
        rate = rows / elapsed if elapsed > 0 else 0.0
        filled = 24 * batches // self.total_batches
        bar = "=" * filled + (">" + " " * (24 - filled - 1) if filled < 24 else "")
        line = f"[{bar}] {batches}/{self.total_batches} batches, {rate:.1f} samples/s, "
        if last:
            line += f"done in {elapsed:.2f} s"
        elif rate > 0:
            line += f"ETA {clock((self.total_rows - rows) / rate)}"
        else:
            line += "ETA --:--"
        if self.terminal:
            sys.stderr.write("\r" + line + " " * max(0, self.width - len(line)))
            self.width = len(line)
            if last:
                sys.stderr.write("\n")
                self.width = 0
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def interrupt(self):
        if self.terminal and self.width:
            sys.stderr.write("\n")
            self.width = 0


# -- shards ------------------------------------------------------------------

class Shard:
    def __init__(self, path, row_shape):
        self.path = path
        try:
            self.rows = np.load(path, mmap_mode="r", allow_pickle=False)
        except Exception as e:
            raise Failure(f"'{path}': {one_line(e)}") from None
        if self.rows.dtype.kind not in "fiub" or self.rows.dtype.byteorder == ">":
            raise Failure(f"'{path}': holds {self.rows.dtype}, not little-endian numbers")
        shape = self.rows.shape
        if len(shape) == 0 or shape[0] == 0:
            raise Failure(f"'{path}' has no rows: --run needs at least one row along axis 0")
        if len(shape) - 1 != len(row_shape) or any(
                d != -1 and d != s for d, s in zip(row_shape, shape[1:])):
            want = ", ".join("?" if d == -1 else str(d) for d in row_shape)
            raise Failure(f"'{path}': input has shape {tuple(shape)} but the model "
                          f"expects (?, {want})")
        self.count = shape[0]
        self.pieces = {}   # first row -> output rows
        self.done = 0      # rows whose output is here
        self.temporary = None

    def read(self, begin, end):
        """Rows [begin, end) as float32; integers only where exact, as
        seq-compile --run reads them."""
        try:
            rows = np.asarray(self.rows[begin:end])
        except Exception as e:
            raise Failure(f"'{self.path}': {one_line(e)}") from None
        x = np.ascontiguousarray(rows, dtype=np.float32)
        if rows.dtype.kind in "iu" and not np.array_equal(x.astype(rows.dtype), rows):
            raise Failure(f"'{self.path}': rows {begin} to {end - 1} hold integers that "
                          "float32 cannot represent exactly")
        return x


def output_path(directory, shard_path):
    return os.path.join(directory, os.path.splitext(os.path.basename(shard_path))[0] + ".npy")


# -- the job -----------------------------------------------------------------

def connect(address):
    import ray

    # Ray's own warnings (token authentication, ...) would mix with the
    # progress bar; errors reach the user as one line each. Ray also prints
    # notes from the cluster ("(raylet) A worker died ...") on stdout, which
    # --run does not use otherwise: they stay in Ray's logs
    # (/tmp/ray/session_latest/logs).
    sys.stdout = open(os.devnull, "w")
    options = dict(logging_level=logging.ERROR, log_to_driver=False)
    if address == "local":
        options["include_dashboard"] = False
        address = None
    elif address != "auto" and "://" not in address:
        reachable(address)
    try:
        ray.init(address=address, **options)
    except Exception as e:
        where = "start a local Ray cluster" if address is None else \
            f"connect to the Ray cluster at '{address}'"
        raise Failure(f"--ray: cannot {where}: {one_line(e)}") from None


def reachable(address):
    """Fails at once where Ray would retry for minutes: nothing listens at
    HOST:PORT."""
    host, _, port = address.rpartition(":")
    try:
        port = int(port)
    except ValueError:
        raise Failure(f"--ray '{address}': expected auto, local, HOST:PORT or "
                      "ray://HOST:PORT") from None
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", port), timeout=10).close()
    except OSError as e:
        raise Failure(f"--ray: cannot connect to the Ray cluster at '{address}' "
                      f"({e.strerror or e}): is its head running there "
                      "(ray start --head --port PORT)?") from None


def make_worker_class(ray, seqc_ray):
    class ShardWorker:
        """One per worker: compiles the model once and runs row ranges.

        The model comes with each call as [ref] to the one copy the driver
        put in the object store (and keeps while the run lasts), not as a
        constructor argument: an actor that Ray restarts after its process
        died fetches and compiles it again at its first call."""

        def __init__(self, engine):
            self.engine = engine
            self.predictor = None

        def run(self, model, x):
            if self.predictor is None:
                self.predictor = seqc_ray.Predictor(ray.get(model[0]), engine=self.engine)
            return self.predictor.run(x)

        def pid(self):
            return os.getpid()

    return ray.remote(ShardWorker)


def run(args):
    if args.ray == "local":
        # A cluster of this machine alone: on the loopback interface, and
        # without Ray's usage reporting (Ray reads both when it is imported).
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        import ray
    except ImportError as e:
        raise Failure(f"--ray needs the Python package 'ray' ({one_line(e)}): "
                      f"{sys.executable} -m pip install 'ray[data]'") from None
    import seqc
    import seqc.ray as seqc_ray

    metadata = dict(entry.split("=", 1) for entry in args.metadata)
    try:
        model = seqc.load(args.model, input_shape=args.input_shape, config=args.config,
                          metadata=metadata or None)
        # Compiled here too, so that an engine that cannot take the model
        # fails before the cluster is involved.
        model.compile(args.engine)
    except seqc.Error as e:
        raise Failure(one_line(e)) from None
    row_shape = tuple(-1 if d is None else d for d in model.input_shape[1:])
    shards = [Shard(path, row_shape) for path in args.shards]
    names = {}
    for shard in shards:
        target = output_path(args.output, shard.path)
        if target in names:
            raise Failure(f"'{names[target]}' and '{shard.path}' would both write "
                          f"'{target}': give shards different names")
        names[target] = shard.path

    per_batch = args.batch or seqc_ray.default_batch_size(model)
    work = collections.deque(
        (i, begin, min(begin + per_batch, shard.count))
        for i, shard in enumerate(shards) for begin in range(0, shard.count, per_batch))
    total_batches, total_rows = len(work), sum(s.count for s in shards)
    numbers = {key: n for n, key in enumerate(work, 1)}

    def where(key):
        i, begin, end = key
        return (f"'{shards[i].path}', batch {numbers[key]} of {total_batches} "
                f"(rows {begin} to {end - 1}): ")

    connect(args.ray)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cpus < 1:
            raise Failure(f"--ray: the Ray cluster at '{args.ray}' has no CPUs for workers")
        workers = args.workers or cpus
        Worker = make_worker_class(ray, seqc_ray)
        model_ref = ray.put(model)
        # Named, so that a test (or an operator) can find the workers of a
        # run: seqc-run-<driver's host>-<driver's pid>-<k> in the namespace
        # "seqc".
        prefix = f"seqc-run-{socket.gethostname()}-{os.getpid()}"
        actors = [Worker.options(num_cpus=1, max_restarts=-1, max_task_retries=RETRIES,
                                 name=f"{prefix}-{k}", namespace="seqc")
                  .remote(args.engine) for k in range(workers)]
        busy = {a: 0 for a in range(workers)}
        inflight = {}  # ObjectRef -> (key, actor index)
        progress = Progress(args.progress, total_batches, total_rows)
        batches_done = rows_done = 0
        os.makedirs(args.output, exist_ok=True)
        try:
            while work or inflight:
                while work and len(inflight) < 2 * workers:
                    key = work.popleft()
                    i, begin, end = key
                    actor = min(busy, key=busy.get)
                    ref = actors[actor].run.remote([model_ref], shards[i].read(begin, end))
                    inflight[ref] = (key, actor)
                    busy[actor] += 1
                done, _ = ray.wait(list(inflight), num_returns=1)
                for ref in done:
                    key, actor = inflight.pop(ref)
                    busy[actor] -= 1
                    try:
                        y = ray.get(ref)
                    except ray.exceptions.RayTaskError as e:
                        cause = getattr(e, "cause", None) or e
                        raise Failure(where(key) + one_line(cause)) from None
                    except ray.exceptions.RayActorError as e:
                        raise Failure(where(key) + "the Ray worker running it died "
                                      f"{1 + RETRIES} times ({one_line(e)})") from None
                    i, begin, end = key
                    shard = shards[i]
                    if len(y) != end - begin:
                        raise Failure(where(key) + f"the worker returned {len(y)} rows "
                                      f"for {end - begin}")
                    if begin in shard.pieces:  # cannot happen: one result per ref
                        raise Failure(where(key) + "this batch came back twice")
                    shard.pieces[begin] = y
                    shard.done += end - begin
                    if shard.done == shard.count:
                        write_temporary(shard, args.output)
                    batches_done += 1
                    rows_done += end - begin
                    progress.update(batches_done, rows_done)
            for shard in shards:
                os.replace(shard.temporary, output_path(args.output, shard.path))
                shard.temporary = None
        except BaseException:
            progress.interrupt()
            raise
        finally:
            for shard in shards:
                if shard.temporary:
                    try:
                        os.unlink(shard.temporary)
                    except OSError:
                        pass
    finally:
        ray.shutdown()


def write_temporary(shard, directory):
    """The shard's output, in row order, into a temporary file beside its
    final name (renamed when every shard is done)."""
    target = output_path(directory, shard.path)
    y = np.concatenate([shard.pieces[b] for b in sorted(shard.pieces)])
    shard.pieces = {}
    fd, shard.temporary = tempfile.mkstemp(
        prefix="." + os.path.basename(target) + ".seqc-tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            np.save(out, y)
        os.chmod(shard.temporary, 0o666 & ~_umask())
    except OSError as e:
        raise Failure(f"'{target}': {one_line(e)}") from None


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def parse(argv):
    parser = argparse.ArgumentParser(prog="seq-compile --ray")
    parser.add_argument("--model", required=True)
    parser.add_argument("--config")
    parser.add_argument("--input-shape")
    parser.add_argument("--metadata", action="append", default=[])
    parser.add_argument("--engine", default="jit")
    parser.add_argument("--batch", type=int, default=0)
    parser.add_argument("--progress", choices=["auto", "always", "never"], default="auto")
    parser.add_argument("--ray", required=True)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("-o", dest="output", required=True)
    parser.add_argument("--seqc-version")
    parser.add_argument("shards", nargs="+")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    # SIGTERM ends the run as an interrupt does: temporaries are removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        import seqc
        if args.seqc_version and args.seqc_version != seqc.__version__:
            raise Failure(f"seq-compile {args.seqc_version} hands --ray to Python, whose "
                          f"seqc is {seqc.__version__} ({os.path.dirname(seqc.__file__)}): "
                          "install the bindings of this build (python-bindings/run-tests.sh)")
        run(args)
    except Failure as e:
        sys.stderr.write(f"seq-compile: error: {e}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("seq-compile: error: interrupted\n")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

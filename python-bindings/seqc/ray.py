"""seqc on Ray: batch inference over datasets larger than one machine.

    import ray, seqc, seqc.ray
    model = seqc.load("model.h5")                   # on the driver
    ds = ray.data.read_parquet("s3://bucket/features/")
    scored = seqc.ray.predict(ds, model, input=[f"f{i}" for i in range(12)],
                              output="score", workers=8)
    scored.write_parquet("s3://bucket/scores/")

`Predictor` is the callable class behind it, for Ray Data's own API:

    ds.map_batches(seqc.ray.Predictor,
                   fn_constructor_kwargs={"model": model, "input": "data"},
                   batch_size=65536, num_cpus=1,
                   compute=ray.data.ActorPoolStrategy(size=8))

The model travels as bytes (seqc.Model pickles by value), so the model file
need not exist on the workers; each worker imports and compiles it once, when
Ray constructs its Predictor, and runs every batch it gets through the
compiled engine with the GIL released, on as many threads as the CPUs Ray
gave the worker. `seq-compile --run --ray` runs the same job on .npy shards
(seqc/_raycli.py). See docs/Scale.md.
"""
import concurrent.futures
import os

import numpy as np

from . import _seqc
from ._seqc import Compiled, Error, Model

__all__ = ["Predictor", "predict", "default_batch_size"]

# A batch shorter than this is not split across threads: each piece is
# worth a thread's start-up.
_MIN_ROWS_PER_THREAD = 256


def _assigned_cpus():
    """The CPUs Ray assigned to this worker (actor or task), or None outside
    a Ray worker."""
    try:
        import ray
    except ImportError:
        return None
    if not ray.is_initialized():
        return None
    try:  # a driver has no assigned resources
        return ray.get_runtime_context().get_assigned_resources().get("CPU")
    except Exception:  # an old or unusual Ray: no allocation to follow
        return None


def _row_shape(shape):
    """A model's input or output shape without the batch axis, -1 for
    dynamic sizes."""
    return tuple(-1 if d is None else d for d in shape[1:])


def default_batch_size(model):
    """Rows per batch that hold about 8 MiB of input (a dynamic size counted
    as 1), between 1024 and 65536: large enough that Ray's per-batch cost
    (a few milliseconds) is small next to the model's."""
    if isinstance(model, Compiled):
        model = model.model
    row_bytes = 4
    for d in model.input_shape[1:]:
        row_bytes *= d or 1
    return max(1024, min(65536, (8 << 20) // row_bytes))


class Predictor:
    """A callable class for `ray.data.Dataset.map_batches`: it runs each
    batch through a seqc model compiled once per worker.

    model   a seqc.Model or seqc.Compiled (pickled by value, so that it
            reaches every worker), or the bytes of a model file.
    input   the column(s) that feed the model: one column name (a tensor
            column, a list column, or a scalar column for a 1-feature
            model), or a list of scalar columns taken as the features in
            that order. Each row's values are reshaped to the model's input
            shape without the batch axis (one dynamic size is inferred).
            Default: the batch's only column, else the column "data"
            (what ray.data.read_numpy and from_numpy make).
    output  the column that receives the model's output, one row per input
            row ("y" by default); or a list of names, one scalar column per
            entry of the output's last axis (output=["p_cat", "p_dog"]).
    keep    the input columns copied to the output batch; by default every
            column that is not an input (ids, paths, labels), so that each
            output row carries its own key.
    engine  a seqc engine name (seqc.engines()); default as Model.compile.
    threads threads per batch; by default the CPUs Ray assigned to this
            worker (num_cpus of map_batches), 1 outside Ray. A batch is cut
            into that many row ranges that run at once (engines that are not
            reentrant get one compiled copy per thread; "cuda" and "cudnn"
            always run on one). A Model (or bytes) is compiled with
            threads=1 for this: the row ranges are the threads.

    A call takes a dict of NumPy arrays (batch_format="numpy"), a
    pyarrow.Table (batch_format="pyarrow") or a pandas.DataFrame
    (batch_format="pandas") and returns the same kind. Errors are seqc.Error,
    with the file(s) named when the batch has a "path" column
    (read_*(..., include_paths=True)).
    """

    def __init__(self, model, *, input=None, output="y", keep=None, engine=None,
                 threads=None):
        if isinstance(model, Compiled):
            compiled = (model if engine in (None, model.engine)
                        else model.model.compile(engine, threads=1))
        elif isinstance(model, Model):
            compiled = model.compile(engine, threads=1)
        elif isinstance(model, (bytes, bytearray, memoryview)):
            compiled = _seqc.load_bytes(model).compile(engine, threads=1)
        else:
            raise TypeError("model must be a seqc.Model, a seqc.Compiled or the bytes "
                            f"of a model file, not {type(model).__name__} (for a path, "
                            "use seqc.load(path) on the driver: the model then travels "
                            "as bytes)")
        if isinstance(input, str) or input is None:
            self.input = input
        else:
            self.input = list(input)
            if not self.input or not all(isinstance(c, str) for c in self.input):
                raise TypeError("input must be a column name or a list of column names")
        if isinstance(output, str):
            self.output = output
        else:
            self.output = list(output)
            if not self.output or not all(isinstance(c, str) for c in self.output):
                raise TypeError("output must be a column name or a list of column names")
        self.keep = None if keep is None else list(keep)
        self.model = compiled.model
        self.engine = compiled.engine
        self._in_shape = _row_shape(self.model.input_shape)
        self._out_shape = self.model.output_shape[1:]

        if threads is None:
            cpus = _assigned_cpus()
            threads = max(1, int(cpus)) if cpus else 1
        if threads < 1:
            raise ValueError("threads must be at least 1")
        if compiled.engine in ("cuda", "cudnn"):
            threads = 1
        self.threads = int(threads)
        # One compiled engine runs the calls of all threads when it is
        # reentrant; else every thread gets its own copy.
        self._engines = [compiled]
        if not compiled.reentrant:
            self._engines += [self.model.compile(self.engine, threads=1)
                              for _ in range(self.threads - 1)]
        self._pool = (concurrent.futures.ThreadPoolExecutor(self.threads, "seqc")
                      if self.threads > 1 else None)

    def __repr__(self):
        return (f"<seqc.ray.Predictor '{self.model.name}' engine='{self.engine}' "
                f"threads={self.threads} input={self.input!r} output={self.output!r}>")

    # -- running ----------------------------------------------------------

    def run(self, x):
        """The model's output for `x` (batch-major), the batch cut into
        `threads` row ranges that run at once. Rows are independent, so the
        result is the same, bit for bit, however the batch is cut."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        n = len(x)
        pieces = min(self.threads, n // _MIN_ROWS_PER_THREAD)
        if pieces <= 1:
            return self._engines[0](x)
        bounds = np.linspace(0, n, pieces + 1).astype(np.int64)
        futures = [self._pool.submit(self._engines[i % len(self._engines)], x[b:e])
                   for i, (b, e) in enumerate(zip(bounds[:-1], bounds[1:]))]
        return np.concatenate([f.result() for f in futures])

    def __call__(self, batch):
        kind = _batch_kind(batch)
        columns = _column_names(batch, kind)
        inputs = self._input_columns(columns)
        n = _num_rows(batch, kind)
        try:
            x = self._features(batch, kind, inputs, n)
            y = self.run(x)
        except Error as e:
            raise Error(f"{_where(batch, kind, n)}: {e}") from None
        keep = [c for c in columns if c not in inputs] if self.keep is None else self.keep
        missing = [c for c in keep if c not in columns]
        if missing:
            raise Error(f"keep={self.keep!r}: the batch has no column {missing[0]!r} "
                        f"(it has {', '.join(map(repr, columns))})")
        return _with_outputs(batch, kind, keep, self._outputs(y))

    # -- columns ----------------------------------------------------------

    def _input_columns(self, columns):
        if self.input is None:
            if len(columns) == 1:
                return [columns[0]]
            if "data" in columns:
                return ["data"]
            raise Error("the batch has columns " + ", ".join(map(repr, columns)) +
                        ": say which feed the model, input='column' or "
                        "input=['f0', 'f1', ...]")
        names = [self.input] if isinstance(self.input, str) else self.input
        for name in names:
            if name not in columns:
                raise Error(f"input column {name!r} is not in the batch (it has "
                            + ", ".join(map(repr, columns)) + ")")
        return names

    def _features(self, batch, kind, names, n):
        parts = [_column_values(batch, kind, name, n) for name in names]
        if len(parts) == 1:
            x = parts[0]
        else:
            x = np.concatenate([p.reshape(n, -1) for p in parts], axis=1)
        if x.ndim == len(self._in_shape) + 1:
            return x  # shaped already: the engine checks it
        if n == 0:
            return np.zeros((0,) + tuple(1 if d == -1 else d for d in self._in_shape),
                            np.float32)
        if self._in_shape.count(-1) > 1 and x.ndim != len(self._in_shape) + 1:
            raise Error(f"column(s) {', '.join(map(repr, names))} give rows of shape "
                        f"{x.shape[1:]}, and the model's input {self.model.input_shape} "
                        "has more than one dynamic size to infer: give a tensor column "
                        "of the input's shape")
        try:
            return x.reshape((n,) + self._in_shape)
        except ValueError:
            raise Error(f"column(s) {', '.join(map(repr, names))} give rows of shape "
                        f"{x.shape[1:]} ({int(np.prod(x.shape[1:]))} values), which do not "
                        f"fit the model's input {self.model.input_shape}") from None

    def _outputs(self, y):
        if isinstance(self.output, str):
            return {self.output: y}
        flat = y.reshape(len(y), -1)
        if flat.shape[1] != len(self.output):
            raise Error(f"output={self.output!r} names {len(self.output)} columns, but the "
                        f"model's output {self.model.output_shape} has {flat.shape[1]} "
                        "values per row")
        return {name: flat[:, i].copy() for i, name in enumerate(self.output)}


def predict(dataset, model, *, input=None, output="y", keep=None, engine=None,
            workers=None, cpus_per_worker=1, batch_size=None, batch_format="numpy",
            **map_batches_args):
    """`dataset` (a ray.data.Dataset) scored by `model`: a Dataset with the
    kept columns and the output column(s) (see Predictor for input, output,
    keep, engine).

    model            a seqc.Model or seqc.Compiled (sent as bytes), the bytes
                     of a model file, or a path, loaded here on the driver.
    workers          the number of Ray actors, each compiling the model once;
                     default: an autoscaling pool of 1 up to the cluster's CPUs
                     divided by cpus_per_worker.
    cpus_per_worker  num_cpus of each actor, and the threads it runs a batch on.
    batch_size       rows per batch; default default_batch_size(model).
    Other keyword arguments go to Dataset.map_batches.
    """
    import ray
    import ray.data

    if isinstance(model, (str, os.PathLike)):
        model = _seqc.load(model)
    if isinstance(model, (bytes, bytearray, memoryview)):
        model = _seqc.load_bytes(model)
    if workers is None:
        cpus = ray.cluster_resources().get("CPU", 1) if ray.is_initialized() else os.cpu_count()
        most = max(1, int(cpus // cpus_per_worker))
        compute = ray.data.ActorPoolStrategy(min_size=1, max_size=most)
    else:
        compute = ray.data.ActorPoolStrategy(size=int(workers))
    return dataset.map_batches(
        Predictor,
        fn_constructor_kwargs=dict(model=model, input=input, output=output, keep=keep,
                                   engine=engine),
        batch_size=batch_size or default_batch_size(model),
        batch_format=batch_format, compute=compute, num_cpus=cpus_per_worker,
        **map_batches_args)


# -- batches: dict of NumPy arrays, pyarrow.Table, pandas.DataFrame ---------

def _batch_kind(batch):
    if isinstance(batch, dict):
        return "numpy"
    module = type(batch).__module__.split(".")[0]
    if module == "pyarrow" and hasattr(batch, "column_names"):
        return "pyarrow"
    if module == "pandas" and hasattr(batch, "columns"):
        return "pandas"
    raise TypeError("a batch is a dict of NumPy arrays, a pyarrow.Table or a "
                    f"pandas.DataFrame, not {type(batch).__name__}")


def _column_names(batch, kind):
    if kind == "numpy":
        return list(batch)
    if kind == "pyarrow":
        return list(batch.column_names)
    return [str(c) for c in batch.columns]


def _num_rows(batch, kind):
    if kind == "numpy":
        return len(next(iter(batch.values()))) if batch else 0
    if kind == "pyarrow":
        return batch.num_rows
    return len(batch)


def _stack(values, name):
    """An object array of per-row arrays (a list column) as one array."""
    try:
        return np.stack([np.asarray(v, dtype=np.float32) for v in values])
    except ValueError:
        raise Error(f"column {name!r} holds rows of different lengths") from None


def _column_values(batch, kind, name, n):
    """A column as a float32 array of n rows."""
    if kind == "numpy":
        values = np.asarray(batch[name])
    elif kind == "pandas":
        values = batch[name].to_numpy()
    else:
        values = _arrow_values(batch.column(name), name)
    if values.dtype == object:
        values = _stack(values, name) if n else np.zeros((0,), np.float32)
    if values.dtype.kind not in "fiub":
        raise Error(f"column {name!r} holds {values.dtype}, not numbers")
    return np.ascontiguousarray(values, dtype=np.float32)


def _arrow_values(column, name):
    import pyarrow as pa
    import pyarrow.compute as pc

    if column.null_count:
        raise Error(f"column {name!r} has {column.null_count} null value(s)")
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    kind = column.type
    if isinstance(kind, pa.ExtensionType):  # Ray's tensor columns
        return np.asarray(column.to_numpy(zero_copy_only=False))
    if pa.types.is_fixed_size_list(kind) or pa.types.is_list(kind) or pa.types.is_large_list(kind):
        n = len(column)
        lengths = pc.list_value_length(column).to_numpy(zero_copy_only=False)
        if n and (lengths != lengths[0]).any():
            raise Error(f"column {name!r} holds lists of different lengths")
        values = pc.list_flatten(column)
        if pa.types.is_list(values.type) or pa.types.is_fixed_size_list(values.type):
            inner = _arrow_values(values, name)
            return inner.reshape((n, -1) + inner.shape[1:])
        return values.to_numpy(zero_copy_only=False).reshape(n, -1)
    return column.to_numpy(zero_copy_only=False)


def _with_outputs(batch, kind, keep, outputs):
    if kind == "numpy":
        result = {name: batch[name] for name in keep}
        result.update(outputs)
        return result
    if kind == "pandas":
        import pandas as pd

        result = batch[keep].copy() if keep else pd.DataFrame(index=batch.index)
        for name, y in outputs.items():
            result[name] = _pandas_column(y)
        return result
    import pyarrow as pa

    result = batch.select(keep) if keep else pa.table({})
    for name, y in outputs.items():
        result = result.append_column(name, _arrow_column(y))
    return result


def _arrow_column(y):
    import pyarrow as pa

    if y.ndim == 1:
        return pa.array(y)
    try:  # Ray's tensor column, which Ray Data reads back as (n, ...) arrays
        from ray.data.extensions import ArrowTensorArray
        return ArrowTensorArray.from_numpy(y)
    except ImportError:
        flat = pa.array(y.reshape(-1))
        for size in reversed(y.shape[1:]):
            flat = pa.FixedSizeListArray.from_arrays(flat, size)
        return flat


def _pandas_column(y):
    if y.ndim == 1:
        return y
    try:
        from ray.data.extensions import TensorArray
        return TensorArray(y)
    except ImportError:
        return list(y)


def _where(batch, kind, n):
    """The batch, for a message: its files when it has a "path" column."""
    if "path" in _column_names(batch, kind) and n:
        if kind == "numpy":
            paths = batch["path"]
        elif kind == "pandas":
            paths = batch["path"].to_numpy()
        else:
            paths = batch.column("path").to_pylist()
        unique = sorted(set(str(p) for p in paths))
        return ", ".join(f"'{p}'" for p in unique[:3]) + (", ..." if len(unique) > 3 else "")
    return f"a batch of {n} rows"

"""Pickling seqc.Model and seqc.Compiled (their __reduce__ names these).

A Model pickles by value: the bytes of the model file (and of its config),
the load options (input_shape, metadata) and the path it came from, so that
it unpickles where that file does not exist (another node of a Ray cluster).
A Compiled pickles as its Model plus the engine's name and threads and
compiles again on the other side.

Each process keeps what it unpickled while it is alive: the same bytes and
options give the same Model object, and the same Model and engine the same
Compiled, so that a worker that receives one model a thousand times (a Ray
task per batch) imports and compiles it once.
"""
import hashlib
import threading
import weakref

from . import _seqc

_lock = threading.Lock()
_models = weakref.WeakValueDictionary()    # state digest -> Model
_compiled = weakref.WeakValueDictionary()  # (state digest, engine, threads) -> Compiled


def _digest(state):
    """SHA-256 of a Model's state: (version, path, data, config path,
    config, input_shape, metadata)."""
    h = hashlib.sha256()
    version, path, data, config_path, config, shape, metadata = state
    for part in (repr((version, path, config_path, shape, sorted(metadata.items()))).encode(),
                 data, config or b""):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def restore_model(state):
    key = _digest(state)
    with _lock:
        model = _models.get(key)
    if model is None:
        model = _seqc._load_state(state)
        with _lock:
            model = _models.setdefault(key, model)
    return model


def restore_compiled(model, engine, threads=0):
    key = (_digest(model.__reduce__()[1][0]), engine, threads)
    with _lock:
        compiled = _compiled.get(key)
    if compiled is None:
        compiled = model.compile(engine, threads=threads)
        with _lock:
            compiled = _compiled.setdefault(key, compiled)
    return compiled

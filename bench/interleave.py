"""What the peer benchmarks (run_lstm_bench.py, run_mask_bench.py,
run_stateful_bench.py, run_attention_bench.py, run_seq2seq_bench.py,
run_cnn_bench.py) share: seqc's AOT library through its C API (one or
several inputs), the ONNX peers, engines timed interleaved round by round,
the table of medians, and seqc's time on parts of a model.

Every round times a burst of calls of each engine in turn, so that load
changes on a shared machine hit all of them alike; a row reports the median
over rounds of each engine's median call time, and for each peer the median
of its per-round time / the reference engine's (above 1: the reference is
faster)."""
import argparse
import ctypes
import json
import os
import statistics
import time


def parse_and_pin(description, default_out, root, more_options=None):
    """The benchmarks' command line (--build, --rounds, --burst, --out, and
    what more_options(parser) adds); then this process pinned to one core
    with one thread (and TensorFlow quiet, on the CPU). Returns (args, the
    core)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--build", default=os.path.join(root, "build"))
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--burst", type=float, default=0.2, help="seconds per engine per round")
    p.add_argument("--out", default=default_out)
    if more_options:
        more_options(p)
    args = p.parse_args()
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["OMP_NUM_THREADS"] = "1"
    core = sorted(os.sched_getaffinity(0))[-1]
    os.sched_setaffinity(0, {core})
    return args, core


def onnx_runtime_session(proto):
    """An ONNX Runtime CPU session of ONNX bytes, one thread."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(proto, options, providers=["CPUExecutionProvider"])


def openvino_model(proto):
    """ONNX bytes compiled by OpenVINO for the CPU: one thread, one stream,
    float32 inference."""
    import openvino as ov
    core = ov.Core()
    return core.compile_model(core.read_model(model=proto, weights=b""), "CPU",
                              {"INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1,
                               "INFERENCE_PRECISION_HINT": "f32"})


def onnx_lstm_arrays(kernel, recurrent, bias):
    """The ONNX LSTM's W, R, B (one direction: a leading axis of 1) of a Keras
    LSTM's kernel, recurrent kernel and bias: ONNX' gate blocks are i, o, f,
    c (Keras' i, f, c, o), it has no recurrent bias of Keras' kind (zeros)."""
    import numpy as np

    def iofc(w):
        i, f, c, o = np.split(w, 4, axis=-1)
        return np.concatenate([i, o, f, c], axis=-1)

    return [a.astype("float32") for a in (
        iofc(kernel).T[None], iofc(recurrent).T[None],
        np.concatenate([iofc(bias), np.zeros_like(bias)])[None])]


def onnx_lstm_initializers(kernel, recurrent, bias, suffix=""):
    """onnx_lstm_arrays as the initializers W, R, B (+ suffix)."""
    from onnx import numpy_helper
    return [numpy_helper.from_array(a, n + suffix)
            for a, n in zip(onnx_lstm_arrays(kernel, recurrent, bias), "WRB")]


def onnx_lstm_dense_initializers(keras_model):
    """The ONNX initializers of a Keras LSTM -> Dense model's weights: W, R,
    B of an ONNX LSTM (onnx_lstm_initializers) and the Dense's Wd, Bd."""
    from onnx import numpy_helper
    kernel, recurrent, bias, dense_w, dense_b = keras_model.get_weights()
    return onnx_lstm_initializers(kernel, recurrent, bias) + [
        numpy_helper.from_array(dense_w.astype("float32"), "Wd"),
        numpy_helper.from_array(dense_b.astype("float32"), "Bd")]


class TFLite:
    """tf.lite's interpreter on one thread of the Keras model converted for
    `batch` rows, called as x -> output. The conversion is of the model's
    function at that fixed batch (TFLiteConverter.from_concrete_functions,
    as from_keras_model does with the batch left open): with an open batch
    the converter cannot fuse the LSTM into its UNIDIRECTIONAL_SEQUENCE_LSTM
    op and fails (tf.TensorListReserve)."""

    def __init__(self, model, batch, input_shape):
        import tensorflow as tf
        function = tf.function(model).get_concrete_function(
            tf.TensorSpec([batch] + list(input_shape), tf.float32))
        flatbuffer = tf.lite.TFLiteConverter.from_concrete_functions([function], model).convert()
        self.interpreter = tf.lite.Interpreter(model_content=flatbuffer, num_threads=1)
        self.input = self.interpreter.get_input_details()[0]["index"]
        self.output = self.interpreter.get_output_details()[0]["index"]
        self.interpreter.allocate_tensors()

    def __call__(self, x):
        self.interpreter.set_tensor(self.input, x)
        self.interpreter.invoke()
        return self.interpreter.get_tensor(self.output)


def compile_aot(build, model_path, lib_path):
    """seq-compile MODEL -o LIB.so with the build's seq-compile."""
    import subprocess
    subprocess.run([os.path.join(build, "bin", "seq-compile"), model_path, "-o", lib_path],
                   check=True)


def require_close(outputs, want, batch, tolerance=1e-4):
    """Exits unless every engine's output ({name: array}) is within
    `tolerance` of Keras' prediction `want`."""
    import sys
    import numpy as np
    for name, got in outputs.items():
        err = float(np.max(np.abs(np.asarray(got).reshape(want.shape) - want)))
        if err > tolerance:
            sys.exit("%s differs from Keras by %g at batch %d" % (name, err, batch))


class SeqcAot:
    """A seqc AOT library's model instance for `batch` rows of `steps` steps
    (seqc_model_create_sized, or seqc_model_create_threaded with `threads`),
    called as (x, y) -> y through ctypes: seqc_model_run for one input and
    one output array, seqc_model_run_all for lists of them (a model of
    several inputs or outputs, in Keras' order; every input `steps` long)."""

    def __init__(self, lib_path, batch, steps, threads=None):
        self.steps = steps
        self.lib = ctypes.CDLL(lib_path)
        self.lib.seqc_model_create_sized.restype = ctypes.c_void_p
        self.lib.seqc_model_create_sized.argtypes = [ctypes.c_longlong, ctypes.c_longlong]
        self.lib.seqc_model_create_threaded.restype = ctypes.c_void_p
        self.lib.seqc_model_create_threaded.argtypes = [ctypes.c_longlong, ctypes.c_longlong,
                                                        ctypes.c_int]
        self.lib.seqc_model_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong,
                                            ctypes.c_longlong, ctypes.c_void_p]
        self.lib.seqc_model_run_all.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                                ctypes.c_longlong, ctypes.c_void_p,
                                                ctypes.c_void_p]
        self.lib.seqc_last_error.restype = ctypes.c_char_p
        self.lib.seqc_last_error.argtypes = [ctypes.c_void_p]
        if threads is None:
            self.model = self.lib.seqc_model_create_sized(batch, steps)
        else:
            self.model = self.lib.seqc_model_create_threaded(batch, steps, threads)
        if not self.model:
            raise RuntimeError("seqc_model_create failed")
        self._bound = (None, None, None)

    def input_names(self):
        """The library's inputs by Keras name, in the order run_all takes."""
        self.lib.seqc_model_input_name.restype = ctypes.c_char_p
        self.lib.seqc_model_input_name.argtypes = [ctypes.c_int]
        return [self.lib.seqc_model_input_name(k).decode()
                for k in range(self.lib.seqc_model_input_count())]

    def _lengths(self, count):
        """seq_lens of run_all: `steps` for an input whose time axis (axis 1)
        is dynamic, 0 (its fixed length) for the others."""
        self.lib.seqc_model_input_rank_of.argtypes = [ctypes.c_int]
        self.lib.seqc_model_input_dim_of.restype = ctypes.c_longlong
        self.lib.seqc_model_input_dim_of.argtypes = [ctypes.c_int, ctypes.c_int]
        return [self.steps if self.lib.seqc_model_input_rank_of(k) >= 2
                and self.lib.seqc_model_input_dim_of(k, 1) < 0 else 0 for k in range(count)]

    def _pointers(self, xs, ys):
        """The argument arrays of seqc_model_run_all, kept while the same
        arrays are passed (so that a timed loop does not rebuild them)."""
        key = tuple(a.ctypes.data for a in xs) + (None,) + tuple(a.ctypes.data for a in ys)
        if self._bound[0] != key:
            for a in list(xs) + list(ys):
                if a.dtype != "float32" or not a.flags.c_contiguous:
                    raise ValueError("seqc_model_run_all takes C-contiguous float32 arrays")
            self._bound = (key, (ctypes.c_void_p * len(xs))(*key[:len(xs)]),
                           (ctypes.c_void_p * len(ys))(*key[len(xs) + 1:]),
                           (ctypes.c_longlong * len(xs))(*self._lengths(len(xs))))
        return self._bound[1:]

    def __call__(self, x, y):
        if isinstance(x, (list, tuple)):
            ins, outs, lengths = self._pointers(x, y)
            if self.lib.seqc_model_run_all(self.model, ins, x[0].shape[0], lengths, outs):
                raise RuntimeError("seqc_model_run_all failed: %s"
                                   % self.lib.seqc_last_error(self.model).decode())
            return y
        if self.lib.seqc_model_run(self.model, x.ctypes.data, x.shape[0], self.steps,
                                   y.ctypes.data):
            raise RuntimeError("seqc_model_run failed")
        return y


def seqc_parts(build, work, parts, batch, steps, rounds, burst_seconds):
    """seqc's time on parts of a model, to see where its time goes: `parts`
    is [(name, Keras model, [input arrays])], e.g. the model cut after
    each layer; each is saved, compiled and timed, interleaved. Returns
    [(name, median us, us more than the part before)]."""
    import numpy as np
    result, before = [], 0.0
    engines = {}
    for i, (name, model, inputs) in enumerate(parts):
        path = os.path.join(work, "part%d.h5" % i)
        model.save(path)
        lib = os.path.join(work, "libpart%d.so" % i)
        compile_aot(build, path, lib)
        seqc = SeqcAot(lib, batch, steps)
        outputs = [np.empty((batch,) + tuple(o.shape[1:]), "float32") for o in model.outputs]
        if len(inputs) == 1 and len(outputs) == 1:
            engines[name] = lambda seqc=seqc, x=inputs[0], y=outputs[0]: seqc(x, y)
        else:
            engines[name] = lambda seqc=seqc, x=inputs, y=outputs: seqc(x, y)
    for name, ts in interleaved(engines, rounds, burst_seconds).items():
        t = statistics.median(ts)
        result.append((name, t, t - before))
        before = t
    return result


def print_parts(title, parts):
    print("\n%s:" % title)
    for name, t, more in parts:
        print("  %-24s %10.1f us  (%+.1f)" % (name, t, more))


def interleaved(engines, rounds, burst_seconds):
    """{name: call} -> {name: [median call time in us, one per round]}."""
    per_round = {name: [] for name in engines}
    for _ in range(rounds):
        for name, call in engines.items():
            samples = []
            start = time.perf_counter()
            while time.perf_counter() - start < burst_seconds or len(samples) < 3:
                t0 = time.perf_counter()
                call()
                samples.append((time.perf_counter() - t0) * 1e6)
            per_round[name].append(statistics.median(samples))
    return per_round


def summarize(row, times, reference):
    """Adds each engine's median and each peer's median ratio to `row`."""
    for name, ts in times.items():
        row[name] = statistics.median(ts)
        if name != reference:
            row[name + " / " + reference] = statistics.median(
                t / s for t, s in zip(ts, times[reference]))
    print(json.dumps(row), flush=True)
    return row


def print_table(rows, key, reference, peers, digits=0):
    """A Markdown table: one line per row, `key` (a row's key, or a tuple of
    keys, one column each) first, times in us."""
    keys = key if isinstance(key, tuple) else (key,)
    print("\n| %s | %s | %s |" % (" | ".join(keys), reference, " | ".join(peers)))
    print("|---" * (len(peers) + 1 + len(keys)) + "|")
    for r in rows:
        cells = ["%.*f us (%.2fx)" % (digits, r[p], r[p + " / " + reference]) for p in peers]
        print("| %s | %.*f us | %s |" % (" | ".join(str(r[k]) for k in keys), digits,
                                         r[reference], " | ".join(cells)))
    print("\nratios are peer time / %s time per round (above 1: %s is faster)"
          % (reference, reference))

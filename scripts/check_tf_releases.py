#!/usr/bin/env python3
"""Small models of TensorFlow's own tf.keras, as .h5 and SavedModel, against seqc.

  python scripts/check_tf_releases.py --python PY [--python PY ...] [--build build]
         [--work DIR]

Each PY is a Python with one TensorFlow release installed (its own virtual
environment: tensorflow-cpu==2.4.4 on Python 3.8, tensorflow-cpu==2.15.1 on
3.11, ...). The script runs itself under PY with --make DIR, which builds a
few models (convolutions and BatchNormalization, text with masking and
recurrent layers, a Functional graph with attention, TimeDistributed over
images, image operations), draws their weights, saves each with model.save
as .h5 and as a SavedModel, and saves an input and TensorFlow's prediction;
then it runs `seq-compile FILE --run` on both files and compares with
seq-allclose (1e-5 + 1e-5 |y|). One line per file, then a count; exit 1 when
any differs or is refused. The project's Python needs nothing from
TensorFlow.
"""
import argparse
import os
import subprocess
import sys


def make(out):
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np
    import tensorflow as tf
    K, L = tf.keras, tf.keras.layers
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(3)

    def randomize(m):
        for w in m.weights:
            if w.dtype.is_floating:
                v = rng.uniform(-0.5, 0.5, w.shape)
                if "variance" in w.name:
                    v = np.abs(v) + 0.5
                w.assign(v.astype(w.dtype.as_numpy_dtype))

    def save(name, m, x):
        randomize(m)
        np.save(f"{out}/{name}.x.npy", x.astype(np.float32))
        np.save(f"{out}/{name}.y.npy", np.asarray(m.predict(x), np.float32))
        m.save(f"{out}/{name}.h5")
        m.save(f"{out}/{name}_sm")

    save("cnn", K.Sequential([K.Input((12, 12, 3)), L.Conv2D(4, 3, activation="relu"), L.BatchNormalization(),
                              L.MaxPooling2D(), L.SeparableConv2D(5, 3, padding="same"), L.GlobalAveragePooling2D(),
                              L.Dropout(0.2), L.Dense(3, activation="softmax")]), rng.normal(size=(2, 12, 12, 3)))
    inp = K.Input((7,))
    h = L.Embedding(30, 8, mask_zero=True)(inp)
    h = L.Bidirectional(L.GRU(5, return_sequences=True))(h)
    h = L.LSTM(4)(h)
    save("text", K.Model(inp, L.Dense(2, activation="sigmoid")(h)),
         np.array([[1, 4, 5, 9, 0, 0, 0], [3, 3, 8, 2, 7, 1, 6]]))
    inp = K.Input((10, 4))
    a = L.Conv1D(6, 3, padding="causal", dilation_rate=2, activation="tanh")(inp)
    b = L.Dense(6)(inp)
    h = L.Add()([a, b])
    h = L.LayerNormalization()(h)
    h = L.MultiHeadAttention(2, 3)(h, h)
    h = L.Concatenate()([L.GlobalMaxPooling1D()(h), L.GlobalAveragePooling1D()(h)])
    save("graph", K.Model(inp, L.Dense(1)(h)), rng.normal(size=(2, 10, 4)))
    save("timedist", K.Sequential([K.Input((4, 8, 8, 1)), L.TimeDistributed(L.Conv2D(2, 3)),
                                   L.TimeDistributed(L.Flatten()), L.SimpleRNN(3), L.RepeatVector(2),
                                   L.GRU(2, return_sequences=True, reset_after=False)]),
         rng.normal(size=(2, 4, 8, 8, 1)))
    inp = K.Input((9, 9, 2))
    h = L.experimental.preprocessing.Rescaling(1 / 255.0)(inp)
    h = L.Conv2D(3, 3, strides=2)(h)
    h = L.UpSampling2D()(h)
    h = L.ZeroPadding2D(1)(h)
    h = L.DepthwiseConv2D(3)(h)
    h = L.Flatten()(h)
    save("image_ops", K.Model(inp, L.Dense(2, activation="elu")(h)), rng.uniform(0, 255, size=(2, 9, 9, 2)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", default=[])
    parser.add_argument("--build", default="build")
    parser.add_argument("--work", default="/tmp/seqc-tf-releases")
    parser.add_argument("--make", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make:
        make(args.make)
        return 0
    bin_dir = os.path.join(args.build, "bin")
    results = []
    for python in args.python:
        version = subprocess.run([python, "-c", "import tensorflow as tf; print(tf.__version__)"],
                                 capture_output=True, text=True, check=True).stdout.split()[-1]
        out = os.path.join(args.work, "tf" + version)
        subprocess.run([python, os.path.abspath(__file__), "--make", out], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        names = sorted(f[:-len(".x.npy")] for f in os.listdir(out) if f.endswith(".x.npy"))
        for name in names:
            for model in (name + ".h5", name + "_sm"):
                got = os.path.join(out, "out.npy")
                run = subprocess.run([os.path.join(bin_dir, "seq-compile"), os.path.join(out, model),
                                      "--run", "--input", os.path.join(out, name + ".x.npy"),
                                      "-o", got], capture_output=True, text=True)
                if run.returncode == 0:
                    run = subprocess.run([os.path.join(bin_dir, "seq-allclose"), got,
                                          os.path.join(out, name + ".y.npy")],
                                         capture_output=True, text=True)
                lines = (run.stderr or run.stdout).strip().splitlines()
                results.append(run.returncode == 0)
                print(f"{'ok  ' if results[-1] else 'FAIL'} TensorFlow {version} {model}: "
                      f"{lines[-1] if lines else ''}", flush=True)
    print(f"{sum(results)} of {len(results)} match TensorFlow")
    return 0 if results and all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

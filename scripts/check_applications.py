#!/usr/bin/env python3
"""Every model of keras.applications, seqc against Keras.

  python scripts/check_applications.py [--build build] [--work DIR]
         [--engines jit,aot,eager] [--only REGEX] [--kerases k2,k3]

Needs tensorflow, tf_keras and keras (the benchmark's venv, not the
project's): for each application of tf_keras (saved as .h5) and of Keras 3
(saved as .keras and as legacy .h5), built with random weights (weights=None,
5 classes, the smallest input each accepts; BatchNormalization's moving
statistics drawn away from 0 and 1 so that they matter), it saves the model,
a batch of 2 images with values in [0, 255) and Keras' prediction, runs
`seq-compile MODEL --run --engine=E` for each engine and compares:
|seqc - keras| <= 1e-5 + 1e-5 |keras|, as the tests. One line per model and
engine (the largest difference, or seqc's one-line refusal), then a count;
exit 1 when any differs or is refused.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

# name: (constructor keyword arguments, input size)
APPLICATIONS = {
    "MobileNet": (dict(alpha=0.25), 32),
    "MobileNetV2": (dict(alpha=0.35), 32),
    "MobileNetV3Small": (dict(alpha=0.75), 32),
    "MobileNetV3Large": (dict(alpha=0.75), 32),
    "EfficientNetB0": ({}, 32),
    "EfficientNetV2B0": ({}, 32),
    "ResNet50": ({}, 32),
    "ResNet50V2": ({}, 32),
    "DenseNet121": ({}, 32),
    "Xception": ({}, 71),
    "InceptionV3": ({}, 75),
    "InceptionResNetV2": ({}, 75),
    "NASNetMobile": ({}, 32),
    "ConvNeXtTiny": ({}, 32),
    "RegNetX002": ({}, 32),
    "VGG16": ({}, 32),
}


def make(kind, name, work, rng):
    """Builds, saves and predicts one application; returns the saved files,
    or None where this Keras has no such application."""
    if kind == "k2":
        import tf_keras as keras
    else:
        import keras
    build = getattr(keras.applications, name, None)
    if build is None:
        return None
    kwargs, size = APPLICATIONS[name]
    model = build(input_shape=(size, size, 3), weights=None, classes=5, **kwargs)
    for layer in model.layers:
        if type(layer).__name__ == "BatchNormalization":
            weights = layer.get_weights()
            weights[-2] = weights[-2] + rng.normal(0, 0.1, weights[-2].shape).astype(np.float32)
            weights[-1] = weights[-1] + rng.uniform(0.1, 0.5, weights[-1].shape).astype(np.float32)
            layer.set_weights(weights)
    x = rng.uniform(0, 255, (2, size, size, 3)).astype(np.float32)
    stem = os.path.join(work, f"{kind}_{name}")
    np.save(stem + ".x.npy", x)
    np.save(stem + ".y.npy", np.asarray(model.predict(x, verbose=0), dtype=np.float32))
    files = [stem + ".h5"]
    model.save(files[0])
    if kind == "k3":
        files.append(stem + ".keras")
        model.save(files[1])
    return files


def check(seq_compile, model, engine, work):
    stem = re.sub(r"\.(h5|keras)$", "", model)
    out = os.path.join(work, "out.npy")
    if os.path.exists(out):
        os.remove(out)
    run = subprocess.run([seq_compile, model, "--run", "--engine=" + engine,
                          "--input", stem + ".x.npy", "-o", out],
                         capture_output=True, text=True, timeout=1800)
    if run.returncode != 0:
        lines = (run.stderr or run.stdout).strip().splitlines()
        return False, lines[-1] if lines else f"exit {run.returncode}"
    got, want = np.load(out), np.load(stem + ".y.npy")
    diff = float(np.abs(got - want).max())
    ok = bool(np.all(np.abs(got - want) <= 1e-5 + 1e-5 * np.abs(want)))
    return ok, f"max |seqc - keras| {diff:.3g}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--work", default="/tmp/seqc-applications")
    parser.add_argument("--engines", default="jit")
    parser.add_argument("--only", default="")
    parser.add_argument("--kerases", default="k2,k3")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    seq_compile = os.path.join(args.build, "bin", "seq-compile")
    rng = np.random.default_rng(0)
    results = []
    for kind in args.kerases.split(","):
        for name in APPLICATIONS:
            if not re.search(args.only, name):
                continue
            files = make(kind, name, args.work, rng)
            if files is None:
                print(f"{kind} {name}: not in this Keras", flush=True)
                continue
            for model in files:
                for engine in args.engines.split(","):
                    ok, what = check(seq_compile, model, engine, args.work)
                    results.append(ok)
                    print(f"{'ok  ' if ok else 'FAIL'} {kind} {os.path.basename(model)} "
                          f"{engine}: {what}", flush=True)
    print(f"{sum(results)} of {len(results)} match Keras")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

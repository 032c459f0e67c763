#!/usr/bin/env python3
"""Every tf_keras .h5 fixture, re-saved as a SavedModel and a TF checkpoint.

  python scripts/check_savedmodel.py [--build build] [--work DIR] [--only REGEX]

Needs tensorflow and tf_keras (the benchmark's venv, not the project's): for
each fixture that tf_keras saved as .h5 (test/fixtures/manifest.json), it
loads the model in tf_keras and saves it again as a SavedModel directory
(model.save(DIR, save_format="tf")) and as model.to_json() + a checkpoint
(model.save_weights(PREFIX, save_format="tf")), then runs
`seq-compile FILE --run` on the fixture's input for the .h5, the SavedModel
and the checkpoint: the three outputs must be identical, bit for bit (the
same weights make the same program). One line per fixture, then a count;
exit 1 when any differs or is refused.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "test", "fixtures")


def run(seq_compile, args, x, out):
    if os.path.exists(out):
        os.remove(out)
    done = subprocess.run([seq_compile, *args, "--run", "--input", x, "-o", out],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return None, lines[-1] if lines else f"exit {done.returncode}"
    return np.load(out), ""


def resave(fixture, work):
    """The SavedModel directory and (config, checkpoint prefix) of a fixture."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tf_keras
    from tf_keras.src.applications.convnext import LayerScale
    from tf_keras.src.applications.inception_resnet_v2 import CustomScaleLayer
    # Classes tf_keras saves but does not find by name when loading.
    custom = {"SpectralNormalization": tf_keras.layers.SpectralNormalization,
              "LayerScale": LayerScale, "CustomScaleLayer": CustomScaleLayer}
    model = tf_keras.models.load_model(os.path.join(FIXTURES, fixture["model"]), compile=False,
                                       custom_objects=custom)
    saved = os.path.join(work, fixture["name"] + ".savedmodel")
    model.save(saved, save_format="tf")
    config = os.path.join(work, fixture["name"] + ".json")
    with open(config, "w") as f:
        f.write(model.to_json())
    prefix = os.path.join(work, fixture["name"] + ".ckpt", "weights")
    model.save_weights(prefix, save_format="tf")
    return saved, config, prefix


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--work", default="/tmp/seqc-savedmodel")
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    seq_compile = os.path.join(args.build, "bin", "seq-compile")
    with open(os.path.join(FIXTURES, "manifest.json")) as f:
        fixtures = json.load(f)["fixtures"]
    results = []
    for fixture in fixtures:
        if fixture["format"] != "h5" or not str(fixture.get("keras_version")).startswith("2."):
            continue
        if not re.search(args.only, fixture["name"]):
            continue
        x = os.path.join(FIXTURES, fixture["input"])
        out = os.path.join(args.work, "out.npy")
        want, why = run(seq_compile, [os.path.join(FIXTURES, fixture["model"])], x, out)
        if want is None:
            print(f"skip {fixture['name']}: the .h5 is refused: {why}", flush=True)
            continue
        try:
            saved, config, prefix = resave(fixture, args.work)
        except Exception as e:  # what tf_keras cannot load or save is not seqc's
            print(f"skip {fixture['name']}: tf_keras cannot re-save it: "
                  f"{type(e).__name__}: {str(e).splitlines()[0][:120]}", flush=True)
            continue
        for kind, cmd in (("savedmodel", [saved]), ("checkpoint", [prefix, "--config", config])):
            got, why = run(seq_compile, cmd, x, out)
            ok = got is not None and got.shape == want.shape and np.array_equal(got, want)
            if got is not None and not ok:
                why = (f"differs from the .h5: max {np.abs(got - want).max():.3g}"
                       if got.shape == want.shape else f"shape {got.shape} != {want.shape}")
            results.append(ok)
            print(f"{'ok  ' if ok else 'FAIL'} {fixture['name']} {kind}"
                  + ("" if ok else ": " + why), flush=True)
    print(f"{sum(results)} of {len(results)} identical to the .h5")
    return 0 if results and all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes the seed inputs of the keras_import harness (fuzz/keras_import.cpp)
into fuzz/corpus/keras_import/: for the fewest test fixtures that together
have every layer class of the manifest in each Keras format (.h5 of Keras 1,
2 and 3, .keras), the model's config as the file stores it, its Keras version
and backend, and the shapes of each layer's weights in Keras' order.

Needs h5py, and Keras 3 for .keras files (the benchmark's environment):
  /tmp/benchvenv/bin/python fuzz/import_seeds.py
Run once; campaigns grow the corpus (scripts/fuzz.sh --update-corpus)."""
import json
import os
import sys
import zipfile

import h5py

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
fixtures = os.path.join(root, "test", "fixtures")
out = os.path.join(root, "fuzz", "corpus", "keras_import")


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def from_h5(path):
    """Legacy layout: a group per layer listing its datasets in weight_names."""
    with h5py.File(path, "r") as f:
        weights = {}
        group = f["model_weights"] if "model_weights" in f else f
        for name in group:
            layer = group[name]
            names = layer.attrs.get("weight_names", [])
            weights[name] = [list(layer[text(n)].shape) for n in names]
        return {"config": json.loads(text(f.attrs["model_config"])),
                "keras_version": text(f.attrs.get("keras_version", "")),
                "backend": text(f.attrs.get("backend", "")),
                "keras3": False, "weights": weights}


def from_keras(path):
    """Keras 3 archive: the config as stored, the shapes from the loaded model."""
    import keras
    with zipfile.ZipFile(path) as z:
        config = json.loads(z.read("config.json"))
        metadata = json.loads(z.read("metadata.json"))
    model = keras.saving.load_model(path, compile=False, safe_mode=False)
    weights = {}

    def walk(layer):
        weights.setdefault(layer.name, [list(w.shape) for w in layer.weights])
        for inner in getattr(layer, "layers", []):
            walk(inner)
    for layer in model.layers:
        walk(layer)
    return {"config": config, "keras_version": metadata.get("keras_version", ""),
            "backend": "tensorflow", "keras3": True, "weights": weights}


def main():
    with open(os.path.join(fixtures, "manifest.json")) as f:
        manifest = json.load(f)
    candidates = [fx for fx in manifest["fixtures"] + manifest["multi_io"]
                  if not fx.get("config") and fx["model"].endswith((".h5", ".keras"))]

    def features(fx):
        kind = fx["model"].rsplit(".", 1)[1] + ":" + str(fx.get("keras_version", "?"))[:1]
        return {kind + ":" + layer["class"] for layer in fx.get("layers", [])} | {kind}

    uncovered = set().union(*(features(fx) for fx in candidates))
    chosen = []
    while uncovered:
        best = max(candidates, key=lambda fx: len(features(fx) & uncovered))
        chosen.append(best)
        uncovered -= features(best)
    os.makedirs(out, exist_ok=True)
    for fx in chosen:
        path = os.path.join(fixtures, fx["model"])
        try:
            seed = from_keras(path) if path.endswith(".keras") else from_h5(path)
        except Exception as e:  # a model this Keras cannot load: no seed
            print("skipped %s: %s" % (fx["name"], str(e).splitlines()[0][:200]), file=sys.stderr)
            continue
        with open(os.path.join(out, fx["name"] + ".json"), "w") as f:
            json.dump(seed, f, separators=(",", ":"))
    print("%d seeds in %s" % (len(os.listdir(out)), out))


if __name__ == "__main__":
    main()

"""Writes the layer-class error inputs of test/Frontend/layer-classes.test from
test/fixtures/seed_build.h5 (LSTM -> Dense -> Dense, legacy HDF5) with h5py:

  builtin_unsupported.h5  dense_1 renamed to class LocallyConnected2D: a Keras
                          layer seqc does not support yet
  custom_int8.h5          dense renamed to a custom class QuantDense whose
                          kernel is int8: reported as custom, not as int8
  unbuilt.h5              no weights at all: saved before it was built
  custom_layer_scale.h5   dense_1 renamed to LayerScale, the class of ConvNeXt's
                          layer, with Dense's config: a user's own class
  user_layer_scale.keras  test/fixtures/application_layers_keras3.keras with
                          LayerScale's module __main__: a user's own class
  forged_layer_scale.keras the same, its entry also claiming the source class
                          seqc's translations record (source_class_name)
  application_layers_tf_keras.json  test/fixtures/application_layers_keras2.h5's
                          config as tf_keras' to_json() writes it: the
                          applications' layers with their tf_keras.src module

  python make_classes.py     (needs h5py)"""
import json
import os
import shutil
import zipfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = os.path.join(HERE, "..", "..", "..", "fixtures", "seed_build.h5")


def with_config(name, edit):
    path = os.path.join(HERE, name)
    shutil.copy(SEED, path)
    with h5py.File(path, "r+") as f:
        config = json.loads(f.attrs["model_config"])
        edit(config, f)
        f.attrs["model_config"] = json.dumps(config)
    return path


def rename(layer_name, cls):
    def edit(config, f):
        for layer in config["config"]["layers"]:
            if layer["config"].get("name") == layer_name:
                layer["class_name"] = cls
    return edit


def quantized(config, f):
    rename("dense", "QuantDense")(config, f)
    group = f["model_weights"]["dense"]["dense"]
    kernel = group["kernel:0"][()]
    del group["kernel:0"]
    group["kernel:0"] = np.clip(np.round(kernel * 100), -128, 127).astype(np.int8)


def unbuilt(config, f):
    weights = f["model_weights"]
    for name in list(weights.keys()):
        del weights[name]
    weights.attrs["layer_names"] = np.array([], dtype="S1")


with_config("builtin_unsupported.h5", rename("dense_1", "LocallyConnected2D"))
with_config("custom_int8.h5", quantized)
with_config("unbuilt.h5", unbuilt)
with_config("custom_layer_scale.h5", rename("dense_1", "LayerScale"))


def with_module(name, source, cls, module, extra=None):
    with zipfile.ZipFile(source) as z:
        members = {n: z.read(n) for n in z.namelist()}
    config = json.loads(members["config.json"])
    for layer in config["config"]["layers"]:
        if layer["class_name"] == cls:
            layer["module"] = module
            layer.update(extra or {})
    members["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(os.path.join(HERE, name), "w") as z:
        for n, data in members.items():
            z.writestr(n, data)


with_module("user_layer_scale.keras",
            os.path.join(HERE, "..", "..", "..", "fixtures", "application_layers_keras3.keras"),
            "LayerScale", "__main__")
with_module("forged_layer_scale.keras",
            os.path.join(HERE, "..", "..", "..", "fixtures", "application_layers_keras3.keras"),
            "LayerScale", "__main__",
            {"source_class_name": "keras.applications.convnext.LayerScale"})


# tf_keras' to_json() records each layer's module, which its .h5 leaves out.
with h5py.File(os.path.join(HERE, "..", "..", "..", "fixtures", "application_layers_keras2.h5"),
               "r") as f:
    config = json.loads(f.attrs["model_config"])
modules = {"LayerScale": "convnext", "Custom>CustomScaleLayer": "inception_resnet_v2"}
for entry in config["config"]["layers"]:
    if entry["class_name"] in modules:
        entry["module"] = "tf_keras.src.applications." + modules[entry["class_name"]]
with open(os.path.join(HERE, "application_layers_tf_keras.json"), "w") as f:
    json.dump(config, f)

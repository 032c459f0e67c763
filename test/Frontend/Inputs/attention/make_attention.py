"""Writes the Keras 3 files of attention-errors.test: attention layers
called in ways seqc refuses, and EinsumDense equations it does not import (run with TensorFlow + keras 3; the files are
committed, the test never needs TensorFlow):

    python make_attention.py
"""
import json
import os
import zipfile

os.environ["KERAS_BACKEND"] = "tensorflow"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

L = keras.layers
HERE = os.path.dirname(os.path.abspath(__file__))


def save(model, name):
    model.save(os.path.join(HERE, name + ".keras"))


def edit_config(name, edit):
    """Rewrites the config of a saved .keras file: edit(config) changes it."""
    path = os.path.join(HERE, name + ".keras")
    with zipfile.ZipFile(path) as z:
        files = {n: z.read(n) for n in z.namelist()}
    config = json.loads(files["config.json"])
    edit(config)
    files["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(path, "w") as z:
        for n, data in files.items():
            z.writestr(n, data)


def drop_return_scores(config):
    for layer in config["config"]["layers"]:
        for node in layer.get("inbound_nodes", []):
            node.get("kwargs", {}).pop("return_attention_scores", None)


def axes_to_features(config):
    for layer in config["config"]["layers"]:
        if layer["class_name"] == "MultiHeadAttention":
            layer["config"]["attention_axes"] = [3]


x = keras.Input((5, 4), name="x")
# The scores are read as a model output, but the call does not ask for them
# (a file Keras would not write: the call's return_attention_scores is
# taken out of the config of a model that reads them).
out, scores = L.Attention(name="att")([x, x], return_attention_scores=True)
save(keras.Model(x, [L.Dense(2, name="head")(out), scores]), "scores")
edit_config("scores", drop_return_scores)
# Attention over the axes of an image whose height is unknown; over its
# width with an attention_mask (batch, height, width, width), which would be
# one mask per row; Dot of rank-4 inputs.
xh = keras.Input((None, 5, 4), name="xh")
save(keras.Model(xh, L.MultiHeadAttention(2, 3, name="mha")(xh, xh)), "image_unknown_height")
x4 = keras.Input((3, 5, 4), name="x4")
rows = keras.Input((3, 5, 5), name="rows")
save(keras.Model([x4, rows], L.MultiHeadAttention(2, 3, attention_axes=(2,), name="mha")(
    x4, x4, attention_mask=rows)), "image_rows_mask")
# attention_axes naming the features (a file Keras would not write).
save(keras.Model(x4, L.MultiHeadAttention(2, 3, attention_axes=(2,), name="mha")(x4, x4)),
     "features_axis")
edit_config("features_axis", axes_to_features)
save(keras.Model(x4, L.Dot(axes=3, name="dot")([x4, x4])), "dot_rank4")

# EinsumDense: output axes reordered; a bias over part of the kernel's axes.
save(keras.Model(x, L.EinsumDense("abc,cd->adb", (2, 5), name="einsum")(x)), "einsum_order")
save(keras.Model(x, L.EinsumDense("abc,cde->abde", (5, 2, 3), bias_axes="e",
                                  name="einsum")(x)), "einsum_bias")

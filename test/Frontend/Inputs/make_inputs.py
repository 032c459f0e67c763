"""Makes the small Keras files the frontend error tests need.

Run from this directory with the packages of test/fixtures/requirements.txt:
    python3 make_inputs.py
The outputs are committed; tests never run this script.
"""
import json
import shutil

import h5py
import numpy as np
import tf_keras as keras

np.random.seed(7)


def randomize(model):
    model.set_weights([np.random.uniform(-0.5, 0.5, w.shape).astype(w.dtype)
                       for w in model.get_weights()])


# float64 weights: seqc reads float32 models only.
m = keras.Sequential([keras.layers.Dense(2, dtype="float64", input_shape=(3,), name="wide")])
randomize(m)
m.save("float64_weights.h5")

# bfloat16 weights (dtype policy bfloat16), which h5py stores as a 2-byte
# opaque type: refused, naming bfloat16.
m = keras.Sequential([keras.layers.Dense(2, dtype="bfloat16", input_shape=(3,), name="narrow")])
m.save("bfloat16_weights.h5")

# User metadata stored as root attributes with h5py.
shutil.copy("../../fixtures/dense_3d.h5", "user_metadata.h5")
with h5py.File("user_metadata.h5", "a") as f:
    f.attrs["owner"] = "ml-team"
    f.attrs["release"] = np.bytes_(b"2026.12")
    f.attrs["threshold"] = 0.5  # not a string: ignored

# A config with no input shape whose first layer has no weights.
m = keras.Sequential([keras.layers.Flatten(name="flat"), keras.layers.Dense(2, name="out")])
m.build((None, 3, 2))
randomize(m)
config = json.loads(m.to_json())
config["config"].pop("build_input_shape", None)
for layer in config["config"]["layers"]:
    layer["config"].pop("batch_input_shape", None)
config["config"]["layers"] = [l for l in config["config"]["layers"] if l["class_name"] != "InputLayer"]
with open("no_shape.json", "w") as f:
    json.dump(config, f, indent=1, sort_keys=True)
m.save_weights("no_shape_weights.h5")

# The same architecture with a Dense of another width: weights do not fit.
config["config"]["layers"][1]["config"]["units"] = 5
with open("wrong_units.json", "w") as f:
    json.dump(config, f, indent=1, sort_keys=True)

# A full model whose kernel dataset was deleted after saving.
shutil.copy("../../fixtures/dense_3d.h5", "missing_weight.h5")
with h5py.File("missing_weight.h5", "a") as f:
    del f["model_weights/dense/dense/kernel:0"]

# The seed model's config as some Keras versions write it after
# model.build(input_shape=...): [null, null, null], or no shape at all.
with open("../../fixtures/seed_json.json") as f:
    seed = json.load(f)
for name, shape in (("seed_null_shape.json", [None, None, None]), ("seed_no_shape.json", None)):
    config = json.loads(json.dumps(seed))
    for layer in config["config"]["layers"]:
        layer["config"].pop("batch_input_shape", None)
        layer.pop("build_config", None)
    config["config"]["layers"] = [l for l in config["config"]["layers"] if l["class_name"] != "InputLayer"]
    if shape is None:
        config["config"].pop("build_input_shape", None)
    else:
        config["config"]["build_input_shape"] = shape
        config["config"]["layers"][0]["config"]["batch_input_shape"] = shape
    with open(name, "w") as f:
        json.dump(config, f, indent=1, sort_keys=True)

"""Writes the hostile model files that test/Frontend/hostile.test feeds to
seq-compile. Each is a real seed model (test/fixtures/seed_build.h5 or
seed_keras3.keras) with one thing made hostile, the way an attacker would
edit it with h5py or zipfile. Run from the repository root with a Python
that has h5py and numpy (test/fixtures/requirements.txt):

    python test/Frontend/Inputs/hostile/make_hostile.py
"""
import io
import json
import os
import shutil
import zipfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "..", "fixtures")
SEED_H5 = os.path.join(FIXTURES, "seed_build.h5")
SEED_KERAS = os.path.join(FIXTURES, "seed_keras3.keras")
BIAS = "model_weights/dense/dense/bias:0"
KERNEL = "model_weights/dense/dense/kernel:0"


def seed_copy(name):
    path = os.path.join(HERE, name)
    shutil.copyfile(SEED_H5, path)
    return path


def edit_config(name, edit):
    """A seed copy whose model_config went through `edit(config)`."""
    with h5py.File(seed_copy(name), "r+") as f:
        config = json.loads(f.attrs["model_config"])
        edit(config)
        f.attrs["model_config"] = json.dumps(config)


def layers(config):
    return config["config"]["layers"]


def layer(config, name):
    return next(l for l in layers(config) if l["config"].get("name") == name)


# 1. A weight backed by a file outside the model: the process environment.
with h5py.File(seed_copy("external_storage.h5"), "r+") as f:
    del f[BIAS]
    f.create_dataset(BIAS, shape=(32,), dtype="<f4",
                     external=[("/proc/self/environ", 0, 128)])

# 2. A layer group that is an external link into another file.
with h5py.File(seed_copy("external_link.h5"), "r+") as f:
    del f["model_weights/dense"]
    f["model_weights/dense"] = h5py.ExternalLink("/etc/secret.h5", "/dense")

# 3. A weight that is a virtual dataset mapped from another file.
with h5py.File(seed_copy("virtual_dataset.h5"), "r+") as f:
    del f[BIAS]
    layout = h5py.VirtualLayout(shape=(32,), dtype="<f4")
    layout[:] = h5py.VirtualSource("/etc/other.h5", "/x", shape=(32,))
    f.create_virtual_dataset(BIAS, layout)

# 4. A small file declaring a 10^6 x 10^6 kernel (chunked, never written),
# and one declaring 2^29 floats: refused before anything is allocated.
with h5py.File(seed_copy("huge_declared.h5"), "r+") as f:
    del f[KERNEL]
    f.create_dataset(KERNEL, shape=(10**6, 10**6), dtype="<f4",
                     chunks=(16, 16))
with h5py.File(seed_copy("half_gigafloat.h5"), "r+") as f:
    del f[KERNEL]
    f.create_dataset(KERNEL, shape=(2**15, 2**14), dtype="<f4",
                     chunks=(64, 64))
# A kernel with an axis of length 0: no values, whatever the config says.
with h5py.File(seed_copy("empty_weight.h5"), "r+") as f:
    rows = f[KERNEL].shape[0]
    del f[KERNEL]
    f.create_dataset(KERNEL, shape=(rows, 0), dtype="<f4")

# 5. Root attributes that try to override seqc's own metadata keys, with
# text that would break out of C strings and comments.
with h5py.File(seed_copy("metadata_override.h5"), "r+") as f:
    f.attrs["source"] = "evil.h5 */ int x; /*"
    f.attrs["format"] = "not-h5"
    f.attrs["note"] = 'a ??/ trigraph\n"quote" */'

# 6. Config values of the wrong type or out of range.
edit_config("activation_number.h5",
            lambda c: layer(c, "dense")["config"].update(activation=3))
edit_config("activation_list.h5",
            lambda c: layer(c, "dense")["config"].update(activation=["relu"]))
edit_config("units_negative.h5",
            lambda c: layer(c, "dense")["config"].update(units=-4))
for name, shape in [("input_zero.h5", [None, 0, 12]),
                    ("input_negative.h5", [None, -3, 12]),
                    ("input_absurd.h5", [None, 2**40, 12])]:
    edit_config(name, lambda c, s=shape: layers(c)[0]["config"].update(
        batch_input_shape=s))


def insert_dropout(config, rate, name="drop"):
    layers(config).insert(2, {"class_name": "Dropout",
                              "config": {"name": name, "rate": rate}})


edit_config("dropout_rate.h5", lambda c: insert_dropout(c, 300))
# A layer name with a newline and a terminal escape, in an error message.
edit_config("control_name.h5",
            lambda c: insert_dropout(c, 300, "evil\n\x1b[31mred"))

# 7. JSON nested 100,000 deep in model_config (the recursive parser would
# overflow the stack).
with h5py.File(seed_copy("deep_json.h5"), "r+") as f:
    f.attrs["model_config"] = "[" * 100000 + "]" * 100000

# 8. .keras archives: a duplicate config.json, an inflating metadata.json,
# and a weights member that starts where an HDF5 user block would end.
with zipfile.ZipFile(SEED_KERAS) as z:
    members = {n: z.read(n) for n in z.namelist()}


def write_zip(name, entries, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(os.path.join(HERE, name), "w", compression) as z:
        for member, data in entries:
            # Duplicate names are what an attacker writes; zipfile warns.
            z.writestr(member, data)


bad_config = json.loads(members["config.json"])
bad_config["config"]["layers"][-1]["config"]["activation"] = "relu"
import warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    write_zip("duplicate_config.keras",
              [("metadata.json", members["metadata.json"]),
               ("config.json", members["config.json"]),
               ("model.weights.h5", members["model.weights.h5"]),
               ("config.json", json.dumps(bad_config).encode())])
write_zip("inflating_metadata.keras",
          [("metadata.json", b" " * (64 << 20)),
           ("config.json", members["config.json"]),
           ("model.weights.h5", members["model.weights.h5"])],
          zipfile.ZIP_DEFLATED)


def user_block_aligned(name):
    """The weights member's data begins at offset 1024 of the archive."""
    for pad in range(2000):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
            z.writestr("metadata.json", members["metadata.json"])
            z.writestr("config.json", members["config.json"])
            z.writestr("pad", b"\0" * pad)
            z.writestr("model.weights.h5", members["model.weights.h5"])
        data = buffer.getvalue()
        if data.find(b"\x89HDF\r\n\x1a\n") in (512, 1024, 2048, 4096, 8192):
            break
    else:
        raise SystemExit("no padding puts the weights at 512 * 2^n")
    # The pad member is not part of Keras' layout but harmless to it.
    open(os.path.join(HERE, name), "wb").write(data)


user_block_aligned("weights_at_user_block.keras")

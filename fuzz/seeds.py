#!/usr/bin/env python3
"""Writes the seed inputs of each harness into fuzz/corpus/<harness>/ from
test/fixtures (and a few small hand-made files for formats' corners).
Standard library only. Run once; the committed corpus is the seeds plus what
campaigns added after `libFuzzer -merge=1` minimization (scripts/fuzz.sh)."""
import io, json, os, shutil, struct, subprocess, sys, zipfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
fix = os.path.join(root, "test", "fixtures")
out = os.path.join(root, "fuzz", "corpus")


def put(harness, name, data):
    d = os.path.join(out, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(*path):
    with open(os.path.join(*path), "rb") as f:
        return f.read()


def json_in(data):
    """The model configs stored as HDF5 string attributes in an .h5 file."""
    found, at = [], 0
    while True:
        at = data.find(b'{"class_name"', at)
        if at < 0:
            return found
        depth, i, in_str = 0, at, False
        while i < len(data):
            c = data[i:i + 1]
            if in_str:
                if c == b"\\":
                    i += 1
                elif c == b'"':
                    in_str = False
            elif c == b'"':
                in_str = True
            elif c == b"{":
                depth += 1
            elif c == b"}":
                depth -= 1
                if depth == 0:
                    found.append(data[at:i + 1])
                    break
            i += 1
        at = i + 1


# HDF5: small Keras 2 files of several layer kinds, float64 weights, and the
# weights member of a Keras 3 archive.
for name in ["maxpool_valid_s1.h5", "conv1d_valid_relu.h5", "lstm_no_bias.h5",
             "bidi_gru_sum.h5", "bad_lambda.h5"]:
    put("hdf5_reader", name, read(fix, name))
put("hdf5_reader", "float64_weights.h5",
    read(root, "test", "Frontend", "Inputs", "float64_weights.h5"))
keras3 = zipfile.ZipFile(os.path.join(fix, "gru_reset_before_keras3.keras"))
put("hdf5_reader", "keras3.weights.h5", keras3.read("model.weights.h5"))

# Zip: a real .keras archive, and small archives with the corners the reader
# handles (stored, deflated, comment, ZIP64 records, a directory entry).
put("zip_reader", "gru_reset_before_keras3.keras",
    read(fix, "gru_reset_before_keras3.keras"))
for label, method, zip64, comment in [("stored", zipfile.ZIP_STORED, False, b""),
                                      ("deflated", zipfile.ZIP_DEFLATED, False, b"c"),
                                      ("zip64", zipfile.ZIP_DEFLATED, True, b"")]:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        z.comment = comment
        z.writestr("metadata.json", b'{"keras_version": "3.3.3"}')
        z.writestr("assets/", b"")
        with z.open("config.json", "w", force_zip64=zip64) as f:
            f.write(b'{"class_name": "Sequential", "config": {"layers": []}}' * 3)
    put("zip_reader", label + ".zip", buf.getvalue())

# JSON: configs as every Keras version writes them.
for name in ["seed_json.json", "seed_keras3_json.json", "lstm_json_legacy_weights.json"]:
    put("json_config", name, read(fix, name))
for name in ["wrong_units.json", "no_shape.json"]:
    put("json_config", name, read(root, "test", "Frontend", "Inputs", name))
put("json_config", "keras3_config.json", keras3.read("config.json"))
for name in ["bidi_lstm_concat_seq.h5", "conv1d_causal_dilated.h5", "embedding_mask.h5",
             "functional_chain.h5", "timedistributed_dense.h5", "activations_keras2.h5"]:
    if os.path.exists(os.path.join(fix, name)):
        configs = json_in(read(fix, name))
        if configs:
            put("json_config", name.replace(".h5", ".json"), configs[0])

# .npy: real fixtures, plus the dtypes and versions the reader converts.
for name in ["functional_chain.expected.npy", "seed_keras3_json.expected.npy"]:
    put("npy_reader", name, read(fix, name))


def npy(descr, shape, payload, version=1, fortran=False):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False",
        "(" + "".join("%d, " % d for d in shape).rstrip(" ") + ")" if len(shape) != 1
        else "(%d,)" % shape[0])
    size_len = 2 if version == 1 else 4
    total = 6 + 2 + size_len + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    size = struct.pack("<H" if version == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode("latin1") + payload


put("npy_reader", "f8.npy", npy("<f8", [2, 2], struct.pack("<4d", 1, 2, 3, 4)))
put("npy_reader", "i8.npy", npy("<i8", [3], struct.pack("<3q", 1, -2, 3)))
put("npy_reader", "bool.npy", npy("|b1", [2], b"\x01\x00"))
put("npy_reader", "v2-scalar.npy", npy("<f4", [], struct.pack("<f", 1.5), version=2))
put("npy_reader", "fortran.npy", npy("<f4", [2, 1], struct.pack("<2f", 1, 2), fortran=True))

# TF checkpoints: [4-byte index length][index][data shard], from the
# fixtures' checkpoints and SavedModels; keras_metadata.pb files as they are.
for prefix in ["checkpoint_keras2_checkpoint/weights", "bad_tf_checkpoint/ckpt",
               "savedmodel_keras2_savedmodel/variables/variables"]:
    index = read(fix, prefix + ".index")
    put("tf_checkpoint", prefix.split("/")[0] + ".bundle",
        struct.pack("<I", len(index)) + index + read(fix, prefix + ".data-00000-of-00001"))
put("tf_checkpoint", "keras_metadata.pb",
    read(fix, "savedmodel_sequential_keras2_savedmodel", "keras_metadata.pb"))

# .mlir: seq IR as seq-compile writes it (weights as dense_resource blobs).
compile_tool = os.path.join(root, "build", "bin", "seq-compile")
for name in ["dense_3d.h5", "simplernn_keras3.keras"]:
    if os.path.exists(compile_tool) and os.path.exists(os.path.join(fix, name)):
        text = subprocess.run([compile_tool, os.path.join(fix, name), "--emit=seq", "-o", "-"],
                              capture_output=True, check=True).stdout
        put("mlir_loader", name.split(".")[0] + ".mlir", text)
for path in ["test/Dialect/metadata.mlir", "test/e2e/Inputs/unknown-op.mlir"]:
    put("mlir_loader", os.path.basename(path), read(root, path))

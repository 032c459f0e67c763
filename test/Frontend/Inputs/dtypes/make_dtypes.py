"""Writes the Keras 3 files of test/Frontend/dtype-policies.test (run with
keras 3 and a backend; the files are committed, the test never needs
TensorFlow):

    python make_dtypes.py
"""
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

L = keras.layers
HERE = os.path.dirname(os.path.abspath(__file__))

# model.quantize("int8"): an int8 kernel with its scale, which seqc does not read.
model = keras.Sequential([keras.Input((4,)), L.Dense(3, name="dense"), L.Dense(2, name="head")])
model.quantize("int8")
model.save(os.path.join(HERE, "quantized_int8.keras"))

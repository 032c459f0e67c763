"""Writes masked_merge_broadcast.keras (Keras 3.4+), its inputs and Keras'
outputs, for test/e2e/masked-merge-broadcast.test: Multiply, Minimum and
Maximum of a masked sequence and an unmasked (batch, 1, 2) input that
broadcasts over its steps, where Keras skips the masked steps; then a
GlobalAveragePooling1D and an LSTM of the product (what mask reaches them).
Run with a Python that has keras 3.4 or later, tensorflow and numpy."""
import os
os.environ["KERAS_BACKEND"] = "tensorflow"
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
keras.utils.set_random_seed(5)
L = keras.layers
seq = keras.Input((None, 2), name="seq")
gate = keras.Input((1, 2), name="gate")
masked = L.Masking(0.0, name="masking")(seq)
product = L.Multiply(name="mul")([masked, gate])
outputs = [product,
           L.Minimum(name="min")([gate, masked]),
           L.Maximum(name="max")([masked, gate]),
           L.GlobalAveragePooling1D(name="pool")(product),
           L.LSTM(3, name="lstm")(product)]
model = keras.Model([seq, gate], outputs)
model.save(os.path.join(HERE, "masked_merge_broadcast.keras"))
rng = np.random.default_rng(5)
x = rng.standard_normal((4, 5, 2)).astype(np.float32)
for row, n in enumerate([5, 3, 1, 4]):
    x[row, n:] = 0
x[1, 0] = 0  # a masked step inside a row
g = rng.standard_normal((4, 1, 2)).astype(np.float32)
np.save(os.path.join(HERE, "masked_merge_broadcast.in.seq.npy"), x)
np.save(os.path.join(HERE, "masked_merge_broadcast.in.gate.npy"), g)
for name, y in zip(["mul", "min", "max", "pool", "lstm"], model.predict([x, g], verbose=0)):
    np.save(os.path.join(HERE, "masked_merge_broadcast.out.%s.npy" % name), y)

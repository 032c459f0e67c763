"""Makes the SavedModels of savedmodel-versions.test with TensorFlow's own
tf.keras: 2.15 (the last TensorFlow that bundles Keras 2) and 2.4 (the last
that keeps the Keras metadata in saved_model.pb, before keras_metadata.pb):
    pip install tensorflow-cpu==2.15.1   # Python 3.11, its own environment
    python3 make_savedmodels.py          # tf215_*
    pip install tensorflow-cpu==2.4.4    # Python 3.8, another environment
    python3 make_savedmodels.py          # tf24_*
Each model is saved with model.save(DIR, save_traces=False) (the traced
functions, which seqc does not read, would make it megabytes), with an input
and TensorFlow's prediction. The outputs are committed; tests never run this.
"""
import os
import shutil

import numpy as np
import tensorflow as tf

K, L = tf.keras, tf.keras.layers
rng = np.random.default_rng(7)
release = {"2.15": "tf215", "2.4.": "tf24"}[tf.__version__[:4]]


def randomize(model):
    for w in model.weights:
        if w.dtype.is_floating:
            values = rng.uniform(0.1, 0.6, w.shape) * rng.choice([-1, 1], w.shape)
            if "variance" in w.name:
                values = np.abs(values)
            w.assign(values.astype(w.dtype.as_numpy_dtype))


def save(model, name, x, twin=None):
    """`twin`: a float32 model of the same layers, whose prediction of the
    weights widened is the expected output (seqc computes in float32)."""
    randomize(model)
    shutil.rmtree(name, ignore_errors=True)
    model.save(name, save_traces=False)
    if x is not None:
        if twin is not None:
            twin.set_weights([w.astype(np.float32) for w in model.get_weights()])
        np.save(name + ".x.npy", x.astype(np.float32))
        y = (twin or model).predict(x.astype(np.float32), verbose=0)
        np.save(name + ".y.npy", np.asarray(y, np.float32))


# A Functional model of wrappers, nested models and recurrent cells.
x = K.Input((6, 3))
h = L.Bidirectional(L.LSTM(4, return_sequences=True))(x)
h = L.BatchNormalization()(h)
h = L.TimeDistributed(K.Sequential([L.Dense(3, activation="tanh"), L.Dense(2)], name="inner"))(h)
h = L.Conv1D(3, 2)(h)
h = L.GRU(3)(h)
save(K.Model(x, L.Dense(2, activation="softmax")(h)), release + "_functional",
     rng.normal(size=(3, 6, 3)))
if release == "tf24":
    raise SystemExit(0)

# float16 variables (dtype policy float16), widened exactly.
save(K.Sequential([K.Input((4,)), L.Dense(3, dtype="float16"), L.Dense(2, dtype="float16")]),
     "tf215_float16", rng.normal(size=(2, 4)),
     twin=K.Sequential([K.Input((4,)), L.Dense(3), L.Dense(2)]))

# bfloat16 and float64 variables: refused by name.
save(K.Sequential([K.Input((4,)), L.Dense(2, dtype="bfloat16", name="narrow")]), "tf215_bfloat16", None)
save(K.Sequential([K.Input((4,)), L.Dense(2, dtype="float64", name="wide")]), "tf215_float64", None)

# A training checkpoint (tf.train.Checkpoint(model=..., optimizer=...) under a
# CheckpointManager, as custom training loops write them): the model is the
# checkpoint's child "model", and the "checkpoint" file names the latest of
# two saves (the weights changed between them).
m = K.Sequential([K.Input((5, 3)), L.GRU(4), L.Dense(2)])
optimizer = K.optimizers.Adam()
m.compile(optimizer, "mse")
m.fit(np.zeros((2, 5, 3)), np.zeros((2, 2)), verbose=0)
shutil.rmtree("tf215_training_checkpoint", ignore_errors=True)
manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=m, optimizer=optimizer),
                                     "tf215_training_checkpoint", max_to_keep=2)
randomize(m)
manager.save()
randomize(m)
manager.save()
with open("tf215_training_checkpoint.json", "w") as f:
    f.write(m.to_json())
x = rng.normal(size=(2, 5, 3)).astype(np.float32)
np.save("tf215_training_checkpoint.x.npy", x)
np.save("tf215_training_checkpoint.y.npy", np.asarray(m.predict(x, verbose=0), np.float32))

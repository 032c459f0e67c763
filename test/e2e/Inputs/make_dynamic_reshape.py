"""Writes dynamic_reshape.h5 (tf_keras), an input of 10 steps and Keras'
output for it, for test/e2e/dynamic-reshape.test: a time axis of unknown
length reshaped to known sizes, which only some lengths fit. Run with a
Python that has tf_keras and numpy."""
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tf_keras as keras

HERE = os.path.dirname(os.path.abspath(__file__))
keras.utils.set_random_seed(7)
model = keras.Sequential([
    keras.layers.InputLayer((None, 3)),
    keras.layers.Conv1D(4, 3, strides=2, padding="same", name="conv"),
    keras.layers.Reshape((5, 4), name="reshape"),
    keras.layers.Flatten(name="flat"),
    keras.layers.Dense(2, name="head"),
])
model.save(os.path.join(HERE, "dynamic_reshape.h5"))
x = np.random.default_rng(7).standard_normal((2, 10, 3)).astype(np.float32)
np.save(os.path.join(HERE, "dynamic_reshape.input.npy"), x)
np.save(os.path.join(HERE, "dynamic_reshape.expected.npy"), model.predict(x, verbose=0))

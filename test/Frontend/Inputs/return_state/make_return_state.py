"""Writes the Keras 3 files of return-state.test (run with TensorFlow + keras
3; the files are committed, the test never needs TensorFlow):

    python make_return_state.py

The JSON configs of its refusals are ports_two_outputs_keras2.h5's config
edited by hand (a state that does not exist, a Dense's second output).
"""
import os

os.environ["KERAS_BACKEND"] = "tensorflow"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

L = keras.layers
HERE = os.path.dirname(os.path.abspath(__file__))

inp = keras.Input((5, 3), name="x")
out, h, c = L.LSTM(4, return_state=True, name="encoder")(inp)
# The state feeds the next layer.
keras.Model(inp, L.Dense(2, name="head")(h)).save(os.path.join(HERE, "state_read.keras"))
# The state is a model output.
keras.Model(inp, [out, h]).save(os.path.join(HERE, "state_output.keras"))

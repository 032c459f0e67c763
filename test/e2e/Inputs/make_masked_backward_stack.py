"""Writes masked_backward_stack.keras (Keras 3), two padded inputs of 6 and
9 steps and Keras' outputs for them, for test/e2e/masked-backward-stack.test:
a masked StackedRNNCells running backwards over a time axis of unknown
length. Run with a Python that has keras 3, tensorflow and numpy."""
import os
os.environ["KERAS_BACKEND"] = "tensorflow"
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
keras.utils.set_random_seed(11)
L = keras.layers
model = keras.Sequential([
    keras.Input((None, 3)),
    L.Masking(0.0, name="masking"),
    L.RNN(L.StackedRNNCells([L.LSTMCell(4), L.GRUCell(3)]), go_backwards=True,
          return_sequences=True, zero_output_for_mask=True, name="stack"),
    L.RNN(L.SimpleRNNCell(3), name="forward"),
    L.Dense(2, name="head"),
])
model.save(os.path.join(HERE, "masked_backward_stack.keras"))
rng = np.random.default_rng(11)
for steps, lengths in ((6, [6, 4, 2, 5]), (9, [9, 1, 7, 3])):
    x = rng.standard_normal((4, steps, 3)).astype(np.float32)
    for row, n in enumerate(lengths):
        x[row, n:] = 0
    x[1, 0] = 0  # a masked step inside a row
    np.save(os.path.join(HERE, "masked_backward_stack.t%d.input.npy" % steps), x)
    np.save(os.path.join(HERE, "masked_backward_stack.t%d.expected.npy" % steps),
            model.predict(x, verbose=0))

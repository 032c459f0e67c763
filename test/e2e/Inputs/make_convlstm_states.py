"""Writes the ConvLSTM state models of test/e2e/convlstm-states.test, their
inputs and Keras' outputs:

- convlstm_seq2seq.keras (Keras 3): an encoder ConvLSTM2D(3, 3, valid,
  return_state) whose states [h, c] are the initial_state of a decoder
  ConvLSTM2D(3, 3, valid, return_sequences); outputs: the decoder's
  sequence and the encoder's c (a state read by itself);
- convlstm_seq2seq_cf.keras (Keras 3): the same, channels_first (the states
  are (batch, filters, rows, cols) there), and the encoder's h as an output;
- convlstm1d_states.h5 (tf_keras): ConvLSTM1D(2, 2, same, return_state,
  go_backwards), its h and c joined by Concatenate as an output and given
  to a ConvLSTM1D(2, 3, same) as its initial_state;
- convlstm_bidi_states.keras (Keras 3): Bidirectional(ConvLSTM2D(2, 2, same,
  return_state)), its forward h and backward c joined as an output;
- convlstm_bidi_stateful.keras (Keras 3): Bidirectional(ConvLSTM2D(2, 2,
  same, stateful)) on a batch of 2, fed three chunks one after the other.
(A stateful ConvLSTM alone is the fixture stateful_convlstm_keras3.)

Run with a Python that has keras 3, tf_keras, tensorflow and numpy."""
import os
os.environ["KERAS_BACKEND"] = "tensorflow"
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_USE_LEGACY_KERAS"] = "0"
import keras
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(5)


def save(name, value):
    np.save(os.path.join(HERE, name), value.astype(np.float32))


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def seq2seq(data_format, state_output):
    keras.utils.set_random_seed(3)
    L = keras.layers
    first = data_format == "channels_first"
    enc = keras.Input((4, 2, 5, 5) if first else (4, 5, 5, 2), name="enc")
    dec = keras.Input((3, 2, 5, 5) if first else (3, 5, 5, 2), name="dec")
    _, h, c = L.ConvLSTM2D(3, 3, data_format=data_format, return_state=True,
                           name="encoder")(enc)
    y = L.ConvLSTM2D(3, 3, data_format=data_format, return_sequences=True,
                     name="decoder")(dec, initial_state=[h, c])
    state = {"h": h, "c": c}[state_output]
    state = L.Activation("linear", name="state")(state)
    return keras.Model([enc, dec], [y, state])


for name, data_format, state in (("convlstm_seq2seq", "channels_last", "c"),
                                 ("convlstm_seq2seq_cf", "channels_first", "h")):
    model = seq2seq(data_format, state)
    model.save(os.path.join(HERE, name + ".keras"))
    shape = {"enc": (3, 4, 5, 5, 2), "dec": (3, 3, 5, 5, 2)}
    inputs = {}
    for port, s in shape.items():
        x = normal(*s)
        if data_format == "channels_first":
            x = np.moveaxis(x, -1, 2).copy()
        inputs[port] = x
        save("%s.in.%s.npy" % (name, port), x)
    outputs = model.predict(inputs, verbose=0)
    for port, y in zip(("decoder", "state"), outputs):
        save("%s.out.%s.npy" % (name, port), y)

# The channels_first model's states, checked against the channels_last one
# on the same weights and the same (moved) inputs: Keras' own channels_first
# convolutions on this CPU are the oracle only where they agree with it.
first, last = (keras.models.load_model(os.path.join(HERE, n + ".keras"))
               for n in ("convlstm_seq2seq_cf", "convlstm_seq2seq"))
twin = seq2seq("channels_last", "h")
twin.set_weights(first.get_weights())
x = {p: np.load(os.path.join(HERE, "convlstm_seq2seq_cf.in.%s.npy" % p)) for p in ("enc", "dec")}
y_twin, h_twin = twin.predict({p: np.moveaxis(v, 2, -1) for p, v in x.items()}, verbose=0)
y_first, h_first = first.predict(x, verbose=0)
assert np.allclose(np.moveaxis(y_twin, -1, 2), y_first, atol=1e-6)
assert np.allclose(np.moveaxis(h_twin, -1, 1), h_first, atol=1e-6)

import tf_keras
tf_keras.utils.set_random_seed(4)
L2 = tf_keras.layers
x = L2.Input((5, 6, 3), name="x")
_, h, c = L2.ConvLSTM1D(2, 2, padding="same", return_state=True, go_backwards=True,
                        name="encoder")(x)
joined = L2.Concatenate(name="states")([h, c])
y = L2.ConvLSTM1D(2, 3, padding="same", name="decoder")(x, initial_state=[h, c])
model = tf_keras.Model(x, [y, joined])
model.save(os.path.join(HERE, "convlstm1d_states.h5"))
x = normal(3, 5, 6, 3)
save("convlstm1d_states.in.x.npy", x)
for port, y in zip(("decoder", "states"), model.predict(x, verbose=0)):
    save("convlstm1d_states.out.%s.npy" % port, y)

# Bidirectional ConvLSTMs: the states of both directions (forward h,
# forward c, backward h, backward c), two of them joined as an output; and
# a stateful one, fed three chunks of its batch of 2.
keras.utils.set_random_seed(2)
L = keras.layers
x = keras.Input((3, 4, 4, 2), name="x")
y, fh, fc, bh, bc = L.Bidirectional(L.ConvLSTM2D(2, 2, padding="same", return_state=True),
                                    name="bi")(x)
model = keras.Model(x, [y, L.Concatenate(name="states")([fh, bc])])
model.save(os.path.join(HERE, "convlstm_bidi_states.keras"))
x = normal(2, 3, 4, 4, 2)
save("convlstm_bidi_states.in.x.npy", x)
for port, y in zip(("bi", "states"), model.predict(x, verbose=0)):
    save("convlstm_bidi_states.out.%s.npy" % port, y)

model = keras.Sequential([keras.Input(batch_shape=(2, 3, 4, 4, 2)),
                          L.Bidirectional(L.ConvLSTM2D(2, 2, padding="same", stateful=True),
                                          name="bi"),
                          L.Flatten(), L.Dense(2)])
model.save(os.path.join(HERE, "convlstm_bidi_stateful.keras"))
x = normal(6, 3, 4, 4, 2)
save("convlstm_bidi_stateful.input.npy", x)
save("convlstm_bidi_stateful.expected.npy", model.predict(x, batch_size=2, verbose=0))

"""Writes the Keras 3 (and one tf_keras) files of masking.test (run with
TensorFlow, keras 3 and tf_keras; the files are committed, the test never
needs TensorFlow):

    python make_masking.py
"""
import os

os.environ["KERAS_BACKEND"] = "tensorflow"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

L = keras.layers
HERE = os.path.dirname(os.path.abspath(__file__))


def save(model, name):
    model.save(os.path.join(HERE, name + ".keras"))


# The mask reaches Softmax, which Keras applies it in (a (3, 3) step keeps
# Keras' own shape check quiet).
save(keras.Sequential([keras.Input((3, 3)), L.Masking(), L.Softmax()]), "mask_softmax")

# A mask made by hand (NotEqual(x, 5.0) then Any) for a Masking(0.0) chain.
inp = keras.Input((4, 3), name="x")
hand = keras.ops.any(keras.ops.not_equal(inp, 5.0), axis=-1)
out = L.LSTM(2, name="lstm")(L.Masking(0.0, name="masking")(inp), mask=hand)
save(keras.Model(inp, out), "mask_by_hand")

# GlobalAveragePooling1D(data_format="channels_first") after a Masking:
# Keras applies the steps' mask along the features, which needs as many
# of them as steps (5 and 4 here).
inp = keras.Input((5, 4), name="x")
pooled = L.GlobalAveragePooling1D(data_format="channels_first", name="pool")(
    L.Masking(name="masking")(inp))
save(keras.Model(inp, pooled), "mask_average_channels_first")

# Masked sequences joined along time (tf_keras .h5): the mask would have to
# be joined along time too, which seqc refuses by name.
import tf_keras as k2  # noqa: E402

inp = k2.Input((4, 3), name="x")
masked = k2.layers.Masking(name="masking")(inp)
joined = k2.layers.Concatenate(axis=1, name="join")([masked, masked])
k2.Model(inp, k2.layers.LSTM(2, name="lstm")(joined)).save(
    os.path.join(HERE, "mask_concat_time_keras2.h5"), save_format="h5")

# A masked sequence scaled by an unmasked (batch, 1, features) tensor:
# Keras 3.4+ skips the masked steps of a Multiply, which seqc does for
# inputs of one shape only.
inp = keras.Input((4, 3), name="x")
masked = L.Masking(name="masking")(inp)
scale = L.GlobalAveragePooling1D(keepdims=True, name="mean")(inp)
save(keras.Model(inp, L.LSTM(2, name="lstm")(L.Multiply(name="scale")([masked, scale]))),
     "mask_multiply_broadcast")

# A masked input of one step broadcast over four (tf_keras .h5): its mask
# has one step, not four.
inp = k2.Input((4, 3), name="x")
first = k2.layers.Masking(name="masking")(k2.layers.Cropping1D((0, 3), name="first")(inp))
k2.Model(inp, k2.layers.LSTM(2, name="lstm")(k2.layers.Add(name="add")([inp, first]))).save(
    os.path.join(HERE, "mask_broadcast_keras2.h5"), save_format="h5")

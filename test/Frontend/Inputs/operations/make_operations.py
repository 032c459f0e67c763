"""Writes the files of operations.test: Functional models whose operations
on tensors (tf_keras' TFOpLambda, Keras 3's keras.ops) seqc refuses, and one
it reads on a masked tensor (run
with TensorFlow, tf_keras and keras 3; the files are committed, the test
never needs TensorFlow; huge_slice.json is the config of a model x / s (two inputs) made a slice
of x with a start of 2^62, by hand):

    python make_operations.py
"""
import os

os.environ["KERAS_BACKEND"] = "tensorflow"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# tf_keras: a function seqc does not import; a tensor raised to the power
# of a tensor; an operation on a masked tensor (which computes on every step
# and drops the mask).
x = tf_keras.Input((5, 3), name="x")
s = tf_keras.Input((5, 3), name="s")
tf_keras.Model(x, tf.math.sin(x)).save(os.path.join(HERE, "sin.h5"))
tf_keras.Model([x, s], tf.math.pow(x, s)).save(os.path.join(HERE, "pow_tensors.h5"))
masked = tf_keras.layers.Masking(0.0, name="masking")(x)
tf_keras.Model(x, tf_keras.layers.LSTM(2, name="lstm")(masked * 2.0)).save(
    os.path.join(HERE, "masked.h5"))

# Keras 3: a slice with a step; tensors that do not broadcast the way seqc
# repeats them.
x = keras.Input((5, 3), name="x")
keras.Model(x, x[:, ::2]).save(os.path.join(HERE, "step.keras"))
keras.Model(x, x + keras.layers.Dense(3, name="dense")(x[:, 0])).save(
    os.path.join(HERE, "broadcast.keras"))

# Operations seqc imports only in some forms: a cast to another type, a
# resize by another method, a matmul that broadcasts over heads, a stack along the
# batch axis, a squareplus of another b, a power seqc has no product or
# function for; a slice of steps of unknown length whose size depends on it.
x = tf_keras.Input((5, 3), name="x")
image = tf_keras.Input((4, 4, 3), name="image")
tf_keras.Model(x, tf.cast(tf.cast(x, tf.int32), tf.float32)).save(
    os.path.join(HERE, "cast_int.h5"))
tf_keras.Model(image, tf.image.resize(image, (6, 6), method="bicubic")).save(
    os.path.join(HERE, "resize_bicubic.h5"))
tf_keras.Model(x, tf.stack([x, x], axis=0)).save(os.path.join(HERE, "stack_batch.h5"))
x = keras.Input((2, 5, 3), name="x")
y = keras.Input((1, 3, 5), name="y")
keras.Model([x, y], keras.ops.matmul(x, y)).save(os.path.join(HERE, "matmul_broadcast.keras"))
keras.Model(x, keras.ops.squareplus(x, b=3)).save(os.path.join(HERE, "squareplus.keras"))
keras.Model(x, x ** 1.5).save(os.path.join(HERE, "power.keras"))

# A slice of steps of unknown length from a position counted from their end
# to one counted from their start (its size depends on the length).
steps = keras.Input((None, 3), name="steps")
keras.Model(steps, keras.layers.GRU(2, name="gru")(steps[:, -3:2])).save(
    os.path.join(HERE, "slice_both_ends.keras"))

# Splits seqc refuses: along the batch axis (tf.split's default axis), with
# an empty part, along steps of unknown length.
x = tf_keras.Input((4, 6), name="x")
tf_keras.Model(x, tf.split(x, 2)[0]).save(os.path.join(HERE, "split_batch.h5"))
x = keras.Input((4, 6), name="x")
keras.Model(x, keras.ops.split(x, [0, 2], axis=-1)[1]).save(os.path.join(HERE, "split_empty.keras"))
keras.Model(steps, keras.ops.split(steps, 2, axis=1)[1]).save(
    os.path.join(HERE, "split_steps.keras"))

# Pads and tiles seqc refuses: a reflection, a pad of the batch axis, a tile
# of the batch axis.
x = tf_keras.Input((4, 6), name="x")
tf_keras.Model(x, tf.pad(x, [[0, 0], [1, 1], [0, 0]], mode="REFLECT")).save(
    os.path.join(HERE, "pad_reflect.h5"))
tf_keras.Model(x, tf.tile(x, [2, 1, 1])).save(os.path.join(HERE, "tile_batch.h5"))
x = keras.Input((4, 6), name="x")
keras.Model(x, keras.ops.pad(x, [[1, 0], [0, 0], [0, 0]])).save(
    os.path.join(HERE, "pad_batch.keras"))

# An einsum that is not one matmul (it sums two axes of both tensors);
q = keras.Input((6, 2, 2), name="q")
k = keras.Input((5, 2, 2), name="k")
keras.Model([q, k], keras.ops.einsum("bqde,bkde->bqk", q, k)).save(
    os.path.join(HERE, "einsum_sum.keras"))
# A clip to an empty range.
x = keras.Input((4, 6), name="x")
keras.Model(x, keras.ops.clip(x, 1.0, -1.0)).save(os.path.join(HERE, "clip_empty.keras"))
# tf_keras saves tf.einsum without the tensors after its first argument.
q = tf_keras.Input((6, 4), name="q")
k = tf_keras.Input((5, 4), name="k")
tf_keras.Model([q, k], tf.einsum("bqd,bkd->bqk", q, k)).save(os.path.join(HERE, "einsum_tf.h5"))
# keras.ops.normalize with the L1 norm, and with an epsilon whose square
# float32 cannot hold.
x = keras.Input((4, 6), name="x")
keras.Model(x, keras.ops.normalize(x, order=1)).save(os.path.join(HERE, "normalize_l1.keras"))
keras.Model(x, keras.ops.normalize(x, epsilon=1e-30)).save(
    os.path.join(HERE, "normalize_tiny_epsilon.keras"))
# keras.ops.flip over every axis (its default), the batch axis too, and
# tf.reverse of the batch axis.
x = keras.Input((4, 6), name="x")
keras.Model(x, keras.ops.flip(x)).save(os.path.join(HERE, "flip_all.keras"))
x = tf_keras.Input((4, 6), name="x")
tf_keras.Model(x, tf.reverse(x, [0])).save(os.path.join(HERE, "reverse_batch.h5"))
# tf.math.l2_normalize without an axis: over every value of the batch.
x = tf_keras.Input((4, 6), name="x")
tf_keras.Model(x, tf.math.l2_normalize(x)).save(os.path.join(HERE, "l2_normalize_all.h5"))

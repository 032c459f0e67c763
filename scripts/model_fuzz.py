#!/usr/bin/env python3
"""Differential model fuzzing: random small Keras models, seqc against Keras.

  python scripts/model_fuzz.py --count 200 [--seed 1] [--work DIR]
         [--engines jit,aot,eager] [--build build] [--keep]
  python scripts/model_fuzz.py --recheck --work DIR     (after a fix)

Phase 1 (this Python, which needs tensorflow, tf_keras and keras: a
separate venv, e.g. the benchmark's) draws `count` models from a grammar of
the layers seqc accepts on sequences (B, T, F), images (B, H, W, C) or
videos (B, T, H, W, C), with random configurations (units, activations,
strides, padding, dilations, groups, channels_first, go_backwards, merge
modes, masking, attention, RNN over cells, Bidirectional with its own
backward layer, TimeDistributed(LSTM), ConvLSTM1D/2D/3D (in a Bidirectional
too), Conv3DTranspose,
GroupQueryAttention, MultiHeadAttention over image or video axes or with
its scores as an output, stateful recurrent layers fed in chunks of their
fixed batch, normalizations over several axes, operations on tensors
(tf_keras' TFOpLambda, Keras 3's keras.ops: log-sum-exps, sums over the
steps, einsum products too), ...), moves between ranks (RepeatVector, Reshape, Flatten), time axes known
or not: a Sequential chain, a Functional graph of two branches joined by a
merge layer (one branch's mean over the steps broadcast, sometimes), token ids through an Embedding (mask_zero or not), or a graph
with two inputs and often two outputs (an encoder-decoder whose encoder's
states, a Bidirectional one's joined, are the decoder's initial_state; a
shared layer or a nested model called on both inputs; a sequence beside a
vector; a decoder whose states are inputs; a masked query attending to a
masked value), made with tf_keras and saved as .h5 (or, --savedmodel of
them, as a SavedModel directory) or (--keras3 of them) with Keras 3 as
.keras; random weights and random inputs (with masked
time steps where the model masks) of 1, 2 or 5 rows (--large-batch of them:
70). It saves the model, its inputs, Keras'
outputs and the same in float64 (the float32 ones again where TensorFlow
has no float64 kernel, max pooling in 3-D), listed in NAME.json. A layer
whose configuration Keras refuses for the shape so far is drawn again, and
so is a model that Keras cannot run.

Phase 2 runs `seq-compile MODEL --run --engine=E` for every engine (--engines;
cuda-sim adds the CUDA backend's code in the CPU simulation) (inputs
and outputs by name where there are several) and compares with Keras' outputs computed in float64 (the same model with
float64 weights): |seqc - keras64| <= atol + rtol |keras64| (1e-5 each, like
the tests) + 8 r, where r is the larger of max |keras32 - keras64| and how
far Keras' float32 output moves for inputs moved by half an ulp (NAME.
outmoved.<output>.npy), so that a model whose output float32 rounding alone
moves (exponential activations, large weights, unstable recurrences) is
held to what Keras itself reaches; a model whose output overflows float32 (in
float64) is skipped, and so is a non-finite seqc output where a layer's
output in Keras' float32 run overflowed (what follows an infinity is
arbitrary there: TensorFlow's max pooling turns NaN into 3.4e38), and a
model whose Keras output for a row changes with the batch it comes in is
run but not compared (Keras 3's TensorFlow add adds along axis 1 instead of
the batch where the batch size equals that axis' length: NAME.json's
keras_batch_dependent). A model
seqc refuses must be refused with one line and exit 1;
a crash, a hang (60 s) or a mismatch is a finding. Prints one line per
finding and a summary; exit status 1 if there was any. The models of the
findings stay in WORK (all of them with --keep) with a README of the
command that failed.

Not part of the test suite: it needs TensorFlow and takes minutes.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ACTIVATIONS = ["tanh", "sigmoid", "relu", "linear", "elu", "selu", "softplus",
               "softsign", "swish", "gelu", "hard_sigmoid", "exponential"]
RECURRENT_ACTIVATIONS = ["sigmoid", "hard_sigmoid", "tanh", "relu", "linear"]


def sequence_layer(k, r):
    """A random layer for a (B, T, F) input, or None to stop."""
    L = k.layers
    units = r.choice([1, 2, 3, 5, 8, 16, 17, 33])
    choice = r.choice(["lstm", "gru", "rnn", "bi", "conv", "pool", "dense",
                       "norm", "misc", "misc", "attention", "op"])
    rnn_args = lambda: dict(
        units=units, return_sequences=r.random() < 0.7,
        go_backwards=r.random() < 0.25,
        activation=r.choice(["tanh"] * 4 + ACTIVATIONS[:5]),
        use_bias=r.random() < 0.85,
        dropout=r.choice([0.0, 0.0, 0.2]), recurrent_dropout=r.choice([0.0, 0.0, 0.1]))
    if choice == "attention":  # self-attention: called on (t, t)
        kinds = ["mha", "dot", "additive"]
        if hasattr(L, "GroupQueryAttention"):  # Keras 3.6+
            kinds.append("gqa")
        kind = r.choice(kinds)
        if kind in ("mha", "gqa"):
            if kind == "mha":
                layer = L.MultiHeadAttention(r.choice([1, 2]), r.choice([2, 3]),
                                             use_bias=r.random() < 0.8,
                                             dropout=r.choice([0.0, 0.0, 0.1]))
            else:
                kv_heads = r.choice([1, 2])
                layer = L.GroupQueryAttention(r.choice([2, 3]), kv_heads * r.choice([1, 2]),
                                              kv_heads, use_bias=r.random() < 0.8,
                                              dropout=r.choice([0.0, 0.0, 0.1]))
            causal = r.random() < 0.3
            return lambda t: layer(t, t, use_causal_mask=causal)
        layer = L.Attention(use_scale=r.random() < 0.5) if kind == "dot" else L.AdditiveAttention()
        return lambda t: layer([t, t])
    if choice == "op":
        return operation(k, r)
    if choice == "lstm":
        a = rnn_args()
        return L.LSTM(recurrent_activation=r.choice(["sigmoid"] * 4 + RECURRENT_ACTIVATIONS),
                      unit_forget_bias=r.random() < 0.5, **a)
    if choice == "gru":
        a = rnn_args()
        return L.GRU(recurrent_activation=r.choice(["sigmoid"] * 4 + RECURRENT_ACTIVATIONS),
                     reset_after=r.random() < 0.6, **a)
    if choice == "rnn":
        if r.random() < 0.3:  # the generic RNN layer over a cell, or a stack of cells
            cell = lambda: r.choice([L.LSTMCell, L.GRUCell, L.SimpleRNNCell])(
                r.choice([1, 2, 3, 5]))
            cells = cell() if r.random() < 0.5 else [cell(), cell()]
            return L.RNN(cells, return_sequences=r.random() < 0.7,
                         go_backwards=r.random() < 0.25)
        return L.SimpleRNN(**rnn_args())
    if choice == "bi":
        inner = r.choice([L.LSTM, L.GRU, L.SimpleRNN])
        sequences = r.random() < 0.7
        merge_mode = r.choice(["concat", "sum", "mul", "ave"])
        backward = None
        if r.random() < 0.3:  # its own backward layer: another class, other units
            backward = r.choice([L.LSTM, L.GRU, L.SimpleRNN])(
                units if merge_mode != "concat" else r.choice([1, 2, 3]),
                return_sequences=sequences, go_backwards=True)
        return L.Bidirectional(inner(units, return_sequences=sequences),
                               merge_mode=merge_mode, backward_layer=backward)
    if choice == "conv":
        kind = r.choice(["conv", "conv", "sep", "depth", "transpose"])
        kernel = r.choice([1, 2, 3, 5])
        strides = r.choice([1, 1, 2, 3])
        dilation = r.choice([1, 1, 2]) if strides == 1 else 1
        padding = r.choice(["valid", "same"] + (["causal"] if kind == "conv" else []))
        act = r.choice(ACTIVATIONS)
        if kind == "conv":
            return L.Conv1D(units * r.choice([1, 1, 2]), kernel, strides=strides,
                            padding=padding, dilation_rate=dilation, activation=act,
                            use_bias=r.random() < 0.85, groups=r.choice([1, 1, 1, 2]),
                            data_format=r.choice(["channels_last"] * 4 +
                                                 ["channels_first"]))
        if kind == "sep":
            return L.SeparableConv1D(units, kernel, strides=strides, padding=padding,
                                     dilation_rate=dilation, activation=act,
                                     depth_multiplier=r.choice([1, 2]))
        if kind == "depth":
            return L.DepthwiseConv1D(kernel, strides=strides, padding=padding,
                                     depth_multiplier=r.choice([1, 2]), activation=act)
        return L.Conv1DTranspose(units, kernel, strides=strides,
                                 padding=r.choice(["valid", "same"]), activation=act)
    if choice == "pool":
        kind = r.choice([L.MaxPooling1D, L.AveragePooling1D])
        if r.random() < 0.2:
            return r.choice([L.GlobalMaxPooling1D, L.GlobalAveragePooling1D])(
                keepdims=True, data_format=r.choice(["channels_last", "channels_first"]))
        return kind(pool_size=r.choice([1, 2, 3]), strides=r.choice([None, 1, 2]),
                    padding=r.choice(["valid", "same"]),
                    data_format=r.choice(["channels_last"] * 4 + ["channels_first"]))
    if choice == "dense":
        dense = L.Dense(units, activation=r.choice(ACTIVATIONS), use_bias=r.random() < 0.85)
        # tf_keras builds a SpectralNormalization only with TF_USE_LEGACY_KERAS.
        if k.__name__ != "tf_keras" and r.random() < 0.15:
            return L.SpectralNormalization(dense)
        return dense
    if choice == "norm":
        kind = r.choice(["bn", "ln", "unit"])
        if kind == "bn":
            return L.BatchNormalization(epsilon=r.choice([1e-3, 1e-5]),
                                        center=r.random() < 0.8, scale=r.random() < 0.8)
        if kind == "ln":
            return L.LayerNormalization(epsilon=r.choice([1e-3, 1e-6]),
                                        axis=r.choice([-1, -1, [1, 2], 1]))
        return L.UnitNormalization(axis=r.choice([-1, -1, [1, 2]]))
    kind = r.choice(["act", "zp", "crop", "up", "drop", "td", "leaky", "prelu",
                     "permute", "softmax", "scale", "relu"])
    if kind == "scale":
        return L.Rescaling(r.choice([0.5, 2.0, 1 / 255]), offset=r.choice([0.0, -1.0]))
    if kind == "relu":
        return r.choice([L.ReLU(max_value=r.choice([None, 6.0]),
                                negative_slope=r.choice([0.0, 0.1]),
                                threshold=r.choice([0.0, 0.5])),
                         L.ELU(alpha=r.choice([1.0, 0.5]))])
    if kind == "act":
        return L.Activation(r.choice(ACTIVATIONS))
    if kind == "zp":
        return L.ZeroPadding1D((r.randint(0, 2), r.randint(0, 2)))
    if kind == "crop":
        return L.Cropping1D((r.randint(0, 1), r.randint(0, 1)))
    if kind == "up":
        return L.UpSampling1D(r.choice([1, 2]))
    if kind == "drop":
        return r.choice([L.Dropout(0.3), L.SpatialDropout1D(0.2), L.GaussianNoise(0.1)])
    if kind == "td":
        return L.TimeDistributed(L.Dense(units, activation=r.choice(ACTIVATIONS)))
    if kind == "leaky":
        return L.LeakyReLU(r.choice([0.01, 0.3]))
    if kind == "prelu":
        return L.PReLU()
    if kind == "permute":
        return L.Permute((2, 1))
    return L.Softmax(axis=r.choice([-1, 1]))


def operation(k, r):
    """An operation on a (B, T, F) tensor that a Functional graph records
    (tf_keras: TensorFlow functions, TFOpLambda; Keras 3: keras.ops), as a
    function of the tensor."""
    if k.__name__ == "tf_keras":
        import tensorflow as ops
        mean, maximum, concat = ops.reduce_mean, ops.reduce_max, ops.concat
        softmax, sigmoid, relu = ops.nn.softmax, ops.math.sigmoid, ops.nn.relu
        activations = [ops.nn.relu6, ops.nn.silu, ops.nn.gelu, ops.nn.leaky_relu, ops.nn.elu,
                       ops.nn.selu, ops.math.softplus, ops.nn.softsign, ops.math.log_sigmoid,
                       lambda t: ops.nn.gelu(t, approximate=True),
                       lambda t: ops.math.sqrt(ops.math.abs(t)), ops.math.abs,
                       lambda t: ops.math.log(ops.math.abs(t) + 0.5),
                       lambda t: ops.math.rsqrt(ops.math.abs(t) + 0.5),
                       lambda t: 1.0 / (ops.math.abs(t) + 0.5), lambda t: t ** 3]

        def scores(q, v):
            return ops.matmul(q, v, transpose_b=True)

        def normalize(t, axis):
            return ops.math.l2_normalize(t, axis=axis, epsilon=r.choice([1e-12, 1e-12, 1e-3]))

        def glu(t):
            a, b = ops.split(t, 2, axis=-1)
            return a * sigmoid(b)
        unstack, clip = ops.unstack, ops.clip_by_value

        def flip(t, axes):
            return ops.reverse(t, axes)
        spread = r.choice([ops.math.reduce_std, ops.math.reduce_variance])
        logsumexp, total = ops.math.reduce_logsumexp, ops.reduce_sum

        def scale_steps(t, v):
            return t * v[:, None, :]
    else:
        import keras
        ops = keras.ops
        mean, maximum, concat = ops.mean, ops.max, ops.concatenate
        softmax, sigmoid, relu = ops.softmax, ops.sigmoid, ops.relu
        activations = [ops.relu6, ops.silu, ops.gelu, ops.leaky_relu, ops.elu, ops.selu,
                       ops.softplus, ops.softsign, ops.log_sigmoid, ops.hard_sigmoid,
                       ops.hard_silu, ops.celu, ops.hard_tanh, ops.tanh_shrink,
                       lambda t: ops.gelu(t, approximate=False),
                       lambda t: ops.sqrt(ops.absolute(t)), ops.absolute,
                       lambda t: ops.log(ops.abs(t) + 0.5),
                       lambda t: ops.rsqrt(ops.abs(t) + 0.5),
                       lambda t: ops.reciprocal(ops.abs(t) + 0.5), lambda t: t ** 2]

        def scores(q, v):
            if r.random() < 0.5:
                return ops.einsum("bqd,bkd->bqk", q, v)
            return ops.matmul(q, ops.transpose(v, (0, 2, 1)))

        def normalize(t, axis):
            return ops.normalize(t, axis=axis, epsilon=r.choice([None, None, 0.1]))

        def glu(t):
            a, b = ops.split(t, 2, axis=-1)
            return a * sigmoid(b)
        unstack, clip = ops.unstack, ops.clip

        def flip(t, axes):
            return ops.flip(t, axis=axes)
        spread = r.choice([ops.std, ops.var])
        logsumexp, total = ops.logsumexp, ops.sum

        def scale_steps(t, v):
            return ops.einsum("btd,bd->btd", t, v)
    c = r.choice([0.5, 2.0, -1.5, 3.0])
    act = r.choice(activations)
    L = k.layers
    return r.choice([
        lambda t: act(c * t),
        lambda t: t / (relu(t) + 1.0),  # a tensor divided by a tensor
        lambda t: ops.matmul(softmax(scores(t, t), axis=-1), t),  # self-attention by hand
        lambda t: normalize(t, r.choice([1, -1])),
        lambda t: ops.reshape(ops.stack([t, -t], axis=r.choice([2, 3, -1])),
                              (-1, t.shape[1], 2 * t.shape[2]))
        if None not in t.shape[1:] else t,
        lambda t: t * c, lambda t: t + c, lambda t: c - t, lambda t: t / c,
        lambda t: relu(t), lambda t: sigmoid(t) * t, lambda t: softmax(t, axis=1),
        lambda t: t * softmax(L.Dense(1)(t), axis=1),  # attention weights per step
        lambda t: mean(t, axis=1, keepdims=True) + t,
        lambda t: maximum(t, axis=-1, keepdims=True) - t,
        lambda t: (t - mean(t, axis=1, keepdims=True)) / (spread(t, axis=1, keepdims=True) + 1.0),
        lambda t: t[:, 1:], lambda t: t[:, :-1, :1], lambda t: t[:, :, None][:, :, 0],
        lambda t: concat([t, t * t], axis=-1),
        lambda t: logsumexp(t, axis=r.choice([1, -1]), keepdims=True) - t,
        lambda t: total(t * softmax(L.Dense(1)(t), axis=1), axis=1, keepdims=True) + t,
        lambda t: scale_steps(t, L.Dense(t.shape[-1])(mean(t, axis=1))),
        lambda t: L.Dense(t.shape[-1])(t[:, -1])[:, None, :] + t,
        # windows of fixed size counted from one end (seq.slice where the
        # steps' length is unknown)
        lambda t: t[:, -2:], lambda t: t[:, :1], lambda t: t - t[:, -1][:, None, :],
        lambda t: ops.pad(t, [[0, 0], [r.choice([0, 1, 2]), r.choice([0, 1])], [0, 1]]),
        lambda t: ops.tile(t, [1, 1, r.choice([2, 3])]),
        lambda t: clip(t, -abs(c), abs(c) / 2),
        lambda t: flip(t, r.choice([[1], [-1], [1, 2]])),
        # operations of several outputs
        lambda t: glu(L.Dense(2 * t.shape[-1])(t)),
        lambda t: ops.stack(unstack(t, axis=-1)[::-1], axis=-1)
        if t.shape[-1] is not None and t.shape[-1] <= 8 else t,
    ])


def maybe_bidirectional(k, r, layer):
    """A ConvLSTM as it is, or inside a Bidirectional of any merge mode."""
    if r.random() < 0.25:
        return k.layers.Bidirectional(layer, merge_mode=r.choice(["concat", "sum", "mul", "ave"]))
    return layer


def image_layer(k, r):
    """A random layer for a (B, H, W, C) input."""
    L = k.layers
    filters = r.choice([1, 2, 3, 4, 8, 16])
    kind = r.choice(["conv", "conv", "sep", "depth", "transpose", "pool", "bn", "ln",
                     "zp", "crop", "up", "act", "convlstm1d", "td_rnn", "mha", "resize"])
    kernel = r.choice([1, 2, 3, (1, 3), (3, 2)])
    strides = r.choice([1, 1, 2, (1, 2)])
    dilation = r.choice([1, 2]) if strides == 1 else 1
    padding = r.choice(["valid", "same"])
    act = r.choice(ACTIVATIONS)
    if kind == "conv":
        return L.Conv2D(filters, kernel, strides=strides, padding=padding,
                        dilation_rate=dilation, activation=act, use_bias=r.random() < 0.85,
                        groups=r.choice([1, 1, 1, 2]),
                        data_format=r.choice(["channels_last"] * 4 + ["channels_first"]))
    if kind == "sep":
        return L.SeparableConv2D(filters, kernel, strides=strides, padding=padding,
                                 depth_multiplier=r.choice([1, 2]), activation=act)
    if kind == "depth":
        return L.DepthwiseConv2D(kernel, strides=strides, padding=padding,
                                 depth_multiplier=r.choice([1, 2]), activation=act)
    if kind == "transpose":
        return L.Conv2DTranspose(filters, kernel, strides=strides, padding=padding,
                                 activation=act)
    if kind == "convlstm1d":  # H is the time axis
        return maybe_bidirectional(k, r, L.ConvLSTM1D(
            filters, r.choice([1, 2, 3]), padding=padding, strides=r.choice([1, 1, 2]),
            dilation_rate=r.choice([1, 1, 2]), return_sequences=r.random() < 0.6,
            go_backwards=r.random() < 0.2))
    if kind == "mha":  # attention over H and W (Keras' default for images), or one of them
        layer = L.MultiHeadAttention(r.choice([1, 2]), r.choice([2, 3]),
                                     attention_axes=r.choice([None, (1, 2), (2,), (1,), (2, 1)]))
        return lambda t: layer(t, t)
    if kind == "resize":  # an operation on tensors (fixed height and width only)
        size = (r.randint(1, 7), r.randint(1, 7))
        method = r.choice(["bilinear", "nearest"])
        if k.__name__ == "tf_keras":
            import tensorflow as tf
            return lambda t: tf.image.resize(t, size, method=method)
        import keras
        return lambda t: keras.ops.image.resize(t, size, interpolation=method)
    if kind == "td_rnn":  # a recurrent layer over W for each H
        return L.TimeDistributed(r.choice([L.LSTM, L.GRU, L.SimpleRNN])(
            filters, return_sequences=r.random() < 0.5, go_backwards=r.random() < 0.2))
    if kind == "pool":
        return r.choice([L.MaxPooling2D, L.AveragePooling2D])(
            pool_size=r.choice([1, 2, (2, 1), 3]), strides=r.choice([None, 1, 2]),
            padding=padding)
    if kind == "bn":  # several axes: tf_keras only
        return L.BatchNormalization(axis=r.choice([-1, -1, 1, [1, 2]]))
    if kind == "ln":  # over several axes, in any order
        return r.choice([L.LayerNormalization, L.UnitNormalization])(
            axis=r.choice([-1, [1, 2, 3], [1, 2], [3, 1], [-1, -2]]))
    if kind == "zp":
        return L.ZeroPadding2D(((r.randint(0, 1), r.randint(0, 2)), (r.randint(0, 2), 0)))
    if kind == "crop":
        return L.Cropping2D(((r.randint(0, 1), 0), (0, r.randint(0, 1))))
    if kind == "up":
        return L.UpSampling2D(r.choice([1, 2, (1, 2)]),
                              interpolation=r.choice(["nearest", "bilinear"]))
    return L.Activation(act)


def video_layer(k, r):
    """A random layer for a (B, T, H, W, C) input."""
    L = k.layers
    filters = r.choice([1, 2, 4])
    kind = r.choice(["convlstm", "convlstm", "conv3d", "conv3d_t", "pool3d", "td", "pad3d",
                     "mha"])
    if kind == "mha":  # frame by frame over (H, W), over everything, or over time per pixel
        layer = L.MultiHeadAttention(r.choice([1, 2]), r.choice([2, 3]),
                                     attention_axes=r.choice([(2, 3), None, (1,), (3, 1)]))
        return lambda t: layer(t, t)
    if kind == "pad3d":
        return r.choice([L.ZeroPadding3D(((0, 1), (1, 0), (0, 1))),
                         L.Cropping3D(((0, 1), (0, 0), (1, 0))),
                         L.UpSampling3D((1, 2, 1))])
    if kind == "convlstm":
        return maybe_bidirectional(k, r, L.ConvLSTM2D(
            filters, r.choice([1, 2, 3]), padding=r.choice(["valid", "same"]),
            strides=r.choice([1, 1, 2]), return_sequences=r.random() < 0.6,
            go_backwards=r.random() < 0.2))
    if kind == "conv3d":
        return L.Conv3D(filters, r.choice([1, 2, (1, 2, 3)]), strides=r.choice([1, 2]),
                        padding=r.choice(["valid", "same"]), activation=r.choice(ACTIVATIONS))
    if kind == "conv3d_t":
        return L.Conv3DTranspose(filters, r.choice([1, 2, (1, 2, 3)]), strides=r.choice([1, 2]),
                                 padding=r.choice(["valid", "same"]),
                                 activation=r.choice(ACTIVATIONS))
    if kind == "pool3d":
        return r.choice([L.MaxPooling3D, L.AveragePooling3D])(
            pool_size=r.choice([1, 2, (1, 2, 2)]), padding=r.choice(["valid", "same"]))
    return L.TimeDistributed(L.Conv2D(filters, r.choice([1, 2]), activation="relu"))


def head(k, r, rank):
    """A random ending that may flatten the features."""
    L = k.layers
    ends = [[], [L.Dense(r.choice([1, 3, 7]))], [L.Flatten(), L.Dense(r.choice([1, 4]))]]
    ends.append([L.GlobalAveragePooling1D() if rank == 3 else L.GlobalAveragePooling2D()])
    ends.append([L.GlobalMaxPooling1D() if rank == 3 else L.GlobalMaxPooling2D(),
                 L.Dense(2, activation="softmax")])
    return r.choice(ends)


def reshaping_layer(k, r, shape):
    """A layer that moves a value of `shape` (batch axis first) to another
    rank: a vector repeated into a sequence, a sequence into an image and
    back, an image flattened, ...; None where there is none."""
    L = k.layers
    dims = [d for d in shape[1:]]
    if None in dims:
        return None
    if len(dims) == 1:
        return r.choice([L.RepeatVector(r.randint(1, 4)), L.Reshape((1, dims[0]))])
    if len(dims) == 2:
        steps, features = dims
        choices = [L.Reshape((steps, features, 1)), L.Flatten()]
        if features % 2 == 0:
            choices.append(L.Reshape((steps * 2, features // 2)))
        return r.choice(choices)
    if len(dims) == 3:
        h, w, c = dims
        return r.choice([L.Reshape((h, w * c)), L.Reshape((h * w, c)),
                         L.Reshape((1, h, w, c)), L.Flatten()])
    return r.choice([L.Reshape((dims[0], dims[1] * dims[2] * dims[3])),
                     L.Reshape((dims[0] * dims[1], dims[2], dims[3]))])


def shape_of(t):
    return tuple(t.shape)


def grow(k, r, t, count):
    """t after up to `count` random layers (each one that Keras accepts)."""
    added, tries = 0, 0
    while added < count and tries < 40:
        tries += 1
        rank = len(shape_of(t))
        if rank not in (2, 3, 4, 5):
            break
        if rank == 2 or r.random() < 0.1:
            layer = reshaping_layer(k, r, shape_of(t))
            if layer is None:
                break
        else:
            layer = {3: sequence_layer, 4: image_layer, 5: video_layer}[rank](k, r)
        try:
            out = layer(t)
        except Exception:
            continue
        if any(d == 0 for d in shape_of(out)[1:]):
            continue
        t, added = out, added + 1
    return t


def merge(k, r, a, b):
    """a and b joined by a random merge layer their shapes allow (b's mean
    over the steps broadcast against a, sometimes), or a."""
    L = k.layers
    sa, sb = shape_of(a), shape_of(b)
    if len(sa) == 3 and len(sb) == 3 and sa[2] == sb[2] and r.random() < 0.3:
        steps = L.GlobalAveragePooling1D(keepdims=True)(b)
        kind = r.choice([L.Add, L.Subtract, L.Multiply, L.Average, L.Maximum, L.Minimum])
        return kind()([a, steps] if r.random() < 0.5 else [steps, a])
    if shape_of(a) == shape_of(b):
        kind = r.choice([L.Add, L.Subtract, L.Multiply, L.Average, L.Maximum, L.Minimum,
                         L.Concatenate])
        return kind()([a, b])
    if shape_of(a)[:-1] == shape_of(b)[:-1]:
        return L.Concatenate()([a, b])
    return a


def randomize(model, np, rng):
    """Random weights (positive moving variances)."""
    weights = []
    for w in model.weights:
        if "moving_variance" in w.name:
            weights.append(rng.uniform(0.5, 2.0, w.shape).astype("float32"))
        else:
            weights.append(rng.normal(0, 0.5, w.shape).astype("float32"))
    model.set_weights(weights)


def float_input(np, rng, batch, shape, masked):
    """Normal values; with `masked`, some time steps all zeros (what
    Masking(0.0) hides)."""
    data = rng.normal(0, 1, (batch,) + tuple(shape)).astype("float32")
    if masked:
        for b in range(batch):
            for step in range(shape[0]):
                if rng.random() < 0.3:
                    data[b, step] = 0.0
    return data


def chain_model(k, r):
    """A Sequential chain, or a Functional graph of two branches from the
    input joined by a merge layer (Add, Concatenate, ...) and a chain after
    it; returns (model, {input: (shape, masked)})."""
    kind = r.random()
    image = kind < 0.35
    if kind < 0.03:  # volumes over time: a ConvLSTM3D first
        shape = (r.randint(1, 3), r.randint(2, 4), r.randint(2, 4), r.randint(2, 4),
                 r.choice([1, 2]))
    elif kind < 0.1:
        shape = (r.randint(1, 4), r.randint(2, 6), r.randint(2, 6), r.choice([1, 2]))
    elif image:
        shape = (r.randint(3, 9), r.randint(3, 9), r.choice([1, 2, 3]))
    else:
        shape = (r.randint(1, 9), r.choice([1, 2, 3, 5, 12]))
    masked = not image and r.random() < 0.25
    # Models saved for any sequence length: the time axis unknown.
    declared = (None,) + shape[1:] if not image and r.random() < 0.2 else shape
    # A stateful recurrent layer first: the batch fixed, the rows fed in
    # chunks of it (see predict).
    stateful = len(shape) in (2, 4) and r.random() < 0.15
    batch = r.choice([1, 2]) if stateful else None
    x = k.Input(shape=declared, batch_size=batch, name="x")
    t = k.layers.Masking(mask_value=0.0)(x) if masked else x
    if stateful:
        options = dict(stateful=True, return_sequences=r.random() < 0.6,
                       go_backwards=r.random() < 0.2)
        if len(shape) == 4:  # frames over time
            layer = k.layers.ConvLSTM2D(r.choice([1, 2]), r.choice([1, 2]),
                                        padding=r.choice(["valid", "same"]), **options)
        else:
            layer = recurrent_class(k, r)(r.choice([1, 2, 3]), **options)
        t = (k.layers.Bidirectional(layer) if r.random() < 0.3 else layer)(t)
    if len(shape) == 5:
        t = k.layers.ConvLSTM3D(r.choice([1, 2]), r.choice([1, 2]),
                                padding=r.choice(["valid", "same"]),
                                return_sequences=r.random() < 0.4,
                                go_backwards=r.random() < 0.2)(t)
    if r.random() < 0.4:
        t = merge(k, r, grow(k, r, t, r.randint(0, 2)), grow(k, r, t, r.randint(1, 2)))
    t = grow(k, r, t, r.randint(1, 4))
    rank = len(shape_of(t))
    if rank in (3, 4) and r.random() < 0.6:
        for layer in head(k, r, rank):
            try:
                t = layer(t)
            except Exception:
                break
    model = k.Model(x, t)
    if r.random() < 0.5:  # the same chain as a Sequential where it is one
        try:
            chain = k.Sequential([k.Input(shape=declared, batch_size=batch)] +
                                 model.layers[1:])
            chain.set_weights(model.get_weights())
            model = chain
        except Exception:
            pass
    return model, {"x": ("float", shape, masked)}


def embedding_model(k, r):
    """Token ids (int32) -> Embedding (mask_zero or not) -> a chain."""
    L = k.layers
    steps, vocab = r.randint(1, 9), r.choice([3, 10, 50])
    mask_zero = r.random() < 0.5
    x = k.Input(shape=(None if r.random() < 0.3 else steps,), dtype="int32", name="x")
    t = L.Embedding(vocab, r.choice([2, 4, 8]), mask_zero=mask_zero)(x)
    t = grow(k, r, t, r.randint(1, 3))
    if len(shape_of(t)) == 3 and r.random() < 0.5:
        try:
            t = L.Dense(r.choice([1, 3]))(t)
        except Exception:
            pass
    return k.Model(x, t), {"x": ("ids", (steps,), vocab)}


def recurrent_class(k, r):
    return r.choice([k.layers.LSTM, k.layers.GRU, k.layers.SimpleRNN])


def ports_model(k, r):
    """A Functional graph with two inputs, and often two outputs: an
    encoder-decoder (the encoder's states as the decoder's initial_state,
    a Bidirectional encoder's joined), a shared layer or nested model on
    both inputs (Siamese), a sequence with a side vector, or a decoder
    whose states are inputs."""
    L = k.layers
    features, units = r.choice([1, 2, 3, 5]), r.choice([1, 2, 3, 8])
    steps_a, steps_b = r.randint(1, 8), r.randint(1, 8)
    masked = r.random() < 0.3
    unknown = r.random() < 0.25
    a = k.Input(shape=(None if unknown else steps_a, features), name="a")
    specs = {"a": ("float", (steps_a, features), masked)}
    ta = L.Masking(0.0)(a) if masked else a
    kind = r.choice(["seq2seq", "seq2seq", "shared", "nested", "side", "states_in", "cross",
                     "conv_seq2seq"])
    extra = []  # values that may become a second output
    if kind == "conv_seq2seq":  # frames: a ConvLSTM2D encoder's states start the decoder
        frame = (r.randint(2, 5), r.randint(2, 5), features)
        a = k.Input(shape=(None if unknown else steps_a,) + frame, name="a")
        b = k.Input(shape=(None if unknown else steps_b,) + frame, name="b")
        specs = {"a": ("float", (steps_a,) + frame, False),
                 "b": ("float", (steps_b,) + frame, False)}
        conv = dict(filters=units, kernel_size=r.choice([1, 2]),
                    padding=r.choice(["valid", "same"]))
        encoder = L.ConvLSTM2D(return_state=True, go_backwards=r.random() < 0.2, **conv)
        if r.random() < 0.3:  # Bidirectional: its forward states start the decoder
            outs = L.Bidirectional(encoder, merge_mode=r.choice(["concat", "sum"]))(a)
        else:
            outs = encoder(a)
        states = list(outs[1:3])
        t = L.ConvLSTM2D(return_sequences=r.random() < 0.7, **conv)(b, initial_state=states)
        extra = states + [outs[0]]
        inputs = [a, b]
    elif kind == "seq2seq":
        cls = recurrent_class(k, r)
        features_b = r.choice([features, 2])
        b = k.Input(shape=(None if unknown else steps_b, features_b), name="b")
        specs["b"] = ("float", (steps_b, features_b), False)
        if r.random() < 0.3:  # Bidirectional encoder: forward and backward states joined
            outs = L.Bidirectional(cls(units, return_state=True))(ta)
            count = (len(outs) - 1) // 2
            states = [L.Concatenate()([outs[1 + i], outs[1 + count + i]]) for i in range(count)]
            decoder = cls(2 * units, return_sequences=r.random() < 0.7)
        else:
            outs = cls(units, return_state=True, go_backwards=r.random() < 0.2)(ta)
            states = outs[1:]
            decoder = cls(units, return_sequences=r.random() < 0.7,
                          go_backwards=r.random() < 0.2)
        t = decoder(b, initial_state=states)
        extra = list(states)
        inputs = [a, b]
    elif kind in ("shared", "nested"):
        b = k.Input(shape=(None if unknown else steps_a, features), name="b")
        specs["b"] = ("float", (steps_a, features), masked)
        tb = L.Masking(0.0)(b) if masked else b
        if kind == "shared":
            layer = None
            while layer is None:
                candidate = sequence_layer(k, r)
                try:
                    candidate(ta)
                    layer = candidate
                except Exception:
                    continue
        else:
            inner_in = k.Input(shape=(None if unknown else steps_a, features))
            inner_out = grow(k, r, inner_in, r.randint(1, 3))
            layer = (k.Model(inner_in, inner_out, name="inner") if r.random() < 0.5 else
                     k.Sequential([k.Input(shape=(None if unknown else steps_a, features))] +
                                  k.Model(inner_in, inner_out).layers[1:], name="inner"))
        ya, yb = layer(ta), layer(tb)
        t = merge(k, r, ya, yb)
        extra = [yb]
        inputs = [a, b]
    elif kind == "side":
        side = k.Input(shape=(r.choice([1, 2, 4]),), name="side")
        specs["side"] = ("float", tuple(side.shape[1:]), False)
        vector = L.Dense(units, activation=r.choice(ACTIVATIONS))(side)
        seq = grow(k, r, ta, r.randint(0, 2))
        if len(shape_of(seq)) == 3:
            seq = r.choice([recurrent_class(k, r)(units), L.GlobalAveragePooling1D(),
                            L.GlobalMaxPooling1D()])(seq)
        t = L.Concatenate()([seq, vector]) if len(shape_of(seq)) == 2 else vector
        extra = [vector]
        inputs = [a, side]
    elif kind == "cross":  # a attends to b, both possibly masked (query and value masks)
        b = k.Input(shape=(None if unknown else steps_b, features), name="b")
        masked_b = r.random() < 0.5
        specs["b"] = ("float", (steps_b, features), masked_b)
        tb = L.Masking(0.0)(b) if masked_b else b
        if r.random() < 0.5:
            tb = recurrent_class(k, r)(units, return_sequences=True)(tb)
            ta = L.Dense(units)(ta)
        attention = r.choice(["mha", "dot", "additive"])
        if attention == "mha":
            layer = L.MultiHeadAttention(r.choice([1, 2]), r.choice([2, 3]),
                                         dropout=r.choice([0.0, 0.1]))
            if r.random() < 0.3:  # the attention weights as an output too
                t, scores = layer(ta, tb, return_attention_scores=True)
                extra.append(scores)
            else:
                t = layer(ta, tb)
        elif attention == "dot":
            t = L.Attention(use_scale=r.random() < 0.5)([ta, tb])
        else:
            t = L.AdditiveAttention()([ta, tb])
        extra.append(tb)
        inputs = [a, b]
    else:  # a decoder saved for inference: its initial states are inputs
        cls = recurrent_class(k, r)
        names = ["h", "c"] if cls is L.LSTM else ["h"]
        states = [k.Input(shape=(units,), name=n) for n in names]
        for n in names:
            specs[n] = ("float", (units,), False)
        t = cls(units, return_sequences=r.random() < 0.7)(ta, initial_state=states)
        inputs = [a] + states
    t = grow(k, r, t, r.randint(0, 2))
    if len(shape_of(t)) == 3 and r.random() < 0.5:
        t = L.Dense(r.choice([1, 3]))(t)
    outputs = [t]
    if extra and r.random() < 0.4:
        outputs.append(r.choice(extra))
    return k.Model(inputs, outputs if len(outputs) > 1 else t), specs


def random_model(k, np, r, index, large=False):
    """(model, [(input name, array)] in the model's input order); `large`: 70
    rows (35 per thread of two: a recurrence computes each step's input
    projection in the step from 32 rows), a stateful model's fixed batch 35
    times."""
    roll = r.random()
    if roll < 0.12:
        model, specs = embedding_model(k, r)
    elif roll < 0.32:
        model, specs = ports_model(k, r)
    else:
        model, specs = chain_model(k, r)
    rng = np.random.default_rng(index)
    randomize(model, np, rng)
    fixed = stateful_batch(model)
    batch = fixed * r.choice([1, 2, 3]) if fixed else r.choice([1, 2, 5])
    if large:
        batch = (fixed or 2) * 35
    inputs = []
    for name, spec in specs.items():
        if spec[0] == "ids":
            ids = rng.integers(0, spec[2], (batch,) + spec[1]).astype("int32")
            inputs.append((name, ids))
        else:
            inputs.append((name, float_input(np, rng, batch, spec[1], spec[2])))
    return model, inputs


def float64_prediction(k, model, xs):
    """The model's outputs computed in float64 (the same config and weights),
    which tells how far float32 rounding alone moves this model's output."""
    def widened(config):
        if isinstance(config, dict):
            return {key: value if key == "dtype" and "int" in str(value) else
                    "float64" if key == "dtype" else widened(value)
                    for key, value in config.items()}
        if isinstance(config, list):
            return [widened(value) for value in config]
        return config
    set_floatx = getattr(k.backend, "set_floatx", None) or k.config.set_floatx
    set_floatx("float64")
    try:
        twin = model.__class__.from_config(widened(model.get_config()))
        twin.set_weights([w.astype("float64") for w in model.get_weights()])
        return predict(twin, [x if x.dtype.kind == "i" else x.astype("float64") for x in xs])
    finally:
        set_floatx("float32")


def stateful_batch(model):
    """The fixed batch of a model with stateful layers, else None."""
    def stateful(layer):
        inner = getattr(layer, "forward_layer", None) or getattr(layer, "layer", None)
        return getattr(layer, "stateful", False) or (inner is not None and stateful(inner))
    return model.inputs[0].shape[0] if any(stateful(l) for l in model.layers) else None


def predict(model, xs):
    """The model's outputs on the arrays xs (its inputs in order), a list; a
    stateful model's in chunks of its batch, each from the state the one
    before left (Keras' predict(x, batch_size=B), as seqc's --run)."""
    fixed = stateful_batch(model)
    if fixed and len(xs[0]) > fixed:
        import numpy as np
        chunks = [predict(model, [x[i:i + fixed] for x in xs])
                  for i in range(0, len(xs[0]), fixed)]
        return [np.concatenate(parts) for parts in zip(*chunks)]
    ys = model(xs if len(xs) > 1 else xs[0], training=False)
    return [np_array(y) for y in (ys if isinstance(ys, (list, tuple)) else [ys])]


def keras_batch_dependent(np, model, inputs, want):
    """Whether Keras' output for the first row differs when that row comes
    alone: Keras 3's TensorFlow ops.add takes tf.nn.bias_add's path where the
    second operand squeezes to one axis as long as the first's axis 1 or
    last (a merge of (5, 5, 1) and a (5, 1, 1) mean over the steps at a batch
    of 5 adds along axis 1, not along the batch), so such a model's Keras
    output is not a reference for seqc's (which matches Keras' with the row
    alone)."""
    if stateful_batch(model) or len(inputs[0][1]) < 2:
        return False
    try:
        alone = predict(model, [x[:1] for _, x in inputs])
    except Exception:
        return False
    return any(not np.allclose(a, w[:1], atol=1e-5, rtol=1e-5) for a, w in zip(alone, want))


def np_array(t):
    return t.numpy() if hasattr(t, "numpy") else __import__("numpy").asarray(t)


def overflows_inside(k, np, model, xs):
    """Whether some layer's output is not finite in Keras' float32 run."""
    try:
        tensors = []
        for layer in model.layers[1:]:
            out = layer.output
            tensors += list(out) if isinstance(out, (list, tuple)) else [out]
        probe = k.Model(model.inputs, tensors)
        return any(not np.all(np.isfinite(np_array(t)))
                   for t in probe(xs if len(xs) > 1 else xs[0], training=False))
    except Exception:  # a Sequential without inputs, a nested model
        return False


def generate(args, work):
    """Draws the models into `work`: NAME.h5 or NAME.keras, NAME.in.<input>.npy
    per input, NAME.out.<output>.npy and .out64.<output>.npy per output
    (Keras in float32 and float64), listed in NAME.json with the layers."""
    import numpy as np
    import tensorflow as tf
    import tf_keras
    import keras
    sys.path.insert(0, os.path.join(ROOT, "test", "fixtures"))
    from generate import unique_output_names  # seqc's names of several outputs
    tf.get_logger().setLevel("ERROR")
    r = random.Random(args.seed)
    made = []
    for index in range(args.count):
        # tf_keras (Keras 2) models saved as .h5 or SavedModels, Keras 3 ones as .keras.
        k, suffix = (keras, ".keras") if r.random() < args.keras3 else (tf_keras, ".h5")
        # (Drawn only when asked, so that a seed makes the models it made before.)
        if k is tf_keras and args.savedmodel and r.random() < args.savedmodel:
            suffix = "_savedmodel"
        large = bool(args.large_batch) and r.random() < args.large_batch
        name = "m%04d" % index
        while True:  # until Keras itself can run the model drawn
            try:
                model, inputs = random_model(k, np, r, args.seed * 100003 + index, large)
                want = predict(model, [x for _, x in inputs])
                break
            except Exception:
                continue
        path = os.path.join(work, name)
        try:
            if suffix == "_savedmodel":  # a directory; traces seqc does not read left out
                model.save(path + suffix, save_format="tf", save_traces=False)
            else:
                model.save(path + suffix)
        except Exception:  # what tf_keras cannot save as a SavedModel goes to .h5
            suffix = ".h5"
            model.save(path + suffix)
        try:
            exact = float64_prediction(k, model, [x for _, x in inputs])
        except Exception:  # a layer TensorFlow has no float64 kernel for
            exact = want
        # Keras' float32 output on the inputs moved by half an ulp (floats
        # only): how far the model moves for a rounding of its inputs' size
        # (not for a stateful one, whose states the first run moved on).
        nudge = np.random.default_rng(index)
        try:
            moved = want if stateful_batch(model) else predict(model, [
                x if x.dtype.kind in "iu" else
                (x * (1 + nudge.uniform(-2.0**-24, 2.0**-24, x.shape))).astype(x.dtype)
                for _, x in inputs])
        except Exception:
            moved = want
        overflow32 = overflows_inside(k, np, model, [x for _, x in inputs])
        batch_dependent = keras_batch_dependent(np, model, inputs, want)
        # (A Keras 3 Sequential has no output_names: one input, one output.)
        outputs = unique_output_names(list(getattr(model, "output_names", None) or ["y"]))
        manifest = {"model": name + suffix, "inputs": [], "outputs": [],
                    "layers": " -> ".join(l.__class__.__name__ for l in model.layers),
                    "overflow32": overflow32, "keras_batch_dependent": batch_dependent}
        for input_name, x in inputs:
            np.save("%s.in.%s.npy" % (path, input_name), x)
            manifest["inputs"].append(input_name)
        for output_name, y, y64, ym in zip(outputs, want, exact, moved):
            np.save("%s.out.%s.npy" % (path, output_name), y.astype("float32"))
            np.save("%s.out64.%s.npy" % (path, output_name), y64.astype("float64"))
            np.save("%s.outmoved.%s.npy" % (path, output_name), ym.astype("float32"))
            manifest["outputs"].append(output_name)
        with open(path + ".json", "w") as f:
            json.dump(manifest, f)
        made.append(name)
    return made


def compare(args, got, want, exact, overflowed_inside=False, moved=None):
    """None where seqc's output `got` is within tolerance of Keras' float64
    output `exact` (see the module's doc), else what is wrong; "overflow"
    where float32 or float64 Keras overflows (`overflowed_inside`: a layer of
    Keras' float32 run did, which excuses a non-finite `got`). `moved`:
    Keras' float32 output on inputs moved by half an ulp, or None."""
    import numpy as np
    if got.shape != want.shape:
        return "shape %s, Keras %s" % (got.shape, want.shape)
    # Where the output overflows float32 (in float64 beyond its range), seqc
    # is not compared.
    finite = np.isfinite(want)
    if (not np.all(np.isfinite(exact)) or np.max(np.abs(exact), initial=0) > 3.4e38 or
            not finite.any()):
        return "overflow"
    # Within the tests' tolerance of the float64 output, widened by what
    # float32 rounding alone moves it (Keras' own float32 run against the
    # float64 one, and against itself on inputs moved by half an ulp; the
    # largest move over the output: at one element it may be small by
    # chance): a model that amplifies rounding is not held to 1e-5.
    got, keras32, keras64 = got[finite], want[finite], exact[finite]
    rounding = np.max(np.abs(keras32.astype("float64") - keras64))
    if moved is not None and moved.shape == want.shape and np.all(np.isfinite(moved[finite])):
        rounding = max(rounding, np.max(np.abs(moved[finite].astype("float64") - keras32)))
    allowed = args.atol + args.rtol * np.abs(keras64) + args.conditioning * rounding
    if np.all(np.abs(got - keras64) <= allowed):
        return None
    if overflowed_inside and not np.all(np.isfinite(got)):
        return "overflow"
    worst = float(np.nanmax(np.abs(got - keras64) - allowed))
    return "beyond tolerance by %.3g (float32 rounding moves Keras' output %.3g)" % (
        worst, rounding)


def check(args, work, names):
    import numpy as np
    compile_tool = os.path.join(args.build, "bin", "seq-compile")
    findings, refused, passed, unconditioned, batch_dependent = [], {}, 0, set(), set()
    internal = ("lowering failed", "translation to LLVM IR failed", "verif", "rank-reduced",
                "Assertion", "LLVM ERROR", "unrealized")
    for name in names:
        path = os.path.join(work, name)
        manifest = json.load(open(path + ".json"))
        layers = manifest["layers"]
        inputs, outputs = manifest["inputs"], manifest["outputs"]
        for engine in args.engines.split(","):
            # One input and one output: --input FILE and -o FILE; else
            # --input NAME=FILE each and -o DIR/ with DIR/<output>.npy.
            ports = len(inputs) > 1 or len(outputs) > 1
            result = "%s.%s" % (path, engine)
            command = [compile_tool, os.path.join(work, manifest["model"]), "--run",
                       "--engine=" + engine, "--progress=never"]
            if not ports:
                command.append("--input=%s.in.%s.npy" % (path, inputs[0]))
            else:
                command += ["--input=%s=%s.in.%s.npy" % (n, path, n) for n in inputs]
            if not ports:
                command += ["-o", result + ".npy"]
                results = {outputs[0]: result + ".npy"}
            else:
                shutil.rmtree(result, ignore_errors=True)
                command += ["-o", result + "/"]
                results = {n: os.path.join(result, n + ".npy") for n in outputs}
            try:
                p = subprocess.run(command, capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                findings.append((name, engine, "hang (60 s)", layers, command))
                continue
            message = (p.stderr.strip() or p.stdout.strip())
            if (p.returncode == 1 and len(message.splitlines()) == 1 and
                    not any(word in message for word in internal)):
                refused.setdefault(message.split(":")[-1].strip()[:70], []).append(name)
                continue
            if p.returncode != 0:
                findings.append((name, engine, "exit %d: %s" % (p.returncode, message[-300:]),
                                 layers, command))
                continue
            if manifest.get("keras_batch_dependent"):  # it ran; Keras is no reference
                batch_dependent.add(name)
                continue
            verdicts = []
            for output in outputs:
                if not os.path.exists(results[output]):
                    verdicts.append("no output %s" % results[output])
                    continue
                moved = "%s.outmoved.%s.npy" % (path, output)
                verdicts.append(compare(args, np.load(results[output]),
                                        np.load("%s.out.%s.npy" % (path, output)),
                                        np.load("%s.out64.%s.npy" % (path, output)),
                                        manifest.get("overflow32", False),
                                        np.load(moved) if os.path.exists(moved) else None))
            wrong = [v for v in verdicts if v not in (None, "overflow")]
            if wrong:
                findings.append((name, engine, "; ".join(wrong), layers, command))
            elif "overflow" in verdicts:
                unconditioned.add(name)
            else:
                passed += 1
    refusals = {}
    for models in refused.values():
        for model in models:
            refusals[model] = refusals.get(model, 0) + 1
    engines = args.engines.split(",")
    for model, count in sorted(refusals.items()):
        if count < len(engines):  # the engines disagree on whether they take it
            findings.append((model, "-", "refused by %d of %d engines" % (count, len(engines)),
                             json.load(open(os.path.join(work, model + ".json")))["layers"],
                             []))
    for name, engine, what, layers, command in findings:
        print("FINDING %s %s: %s [%s]" % (name, engine, what, layers))
        with open(os.path.join(work, name + ".README"), "a") as f:
            f.write("%s: %s\n  %s\n" % (engine, what, " ".join(command)))
    for reason, models in sorted(refused.items(), key=lambda kv: -len(kv[1])):
        print("refused %3d: %s (e.g. %s)" % (len(models), reason, models[0]))
    print("models %d, runs passed %d, refused %d, overflowing %d, Keras batch-dependent %d, "
          "findings %d" % (len(names), passed, sum(len(v) for v in refused.values()),
                           len(unconditioned), len(batch_dependent), len(findings)))
    return findings


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--work", help="directory for the models (default: a new temporary one)")
    p.add_argument("--engines", default="jit,aot,eager")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--rtol", type=float, default=1e-5)
    p.add_argument("--conditioning", type=float, default=8.0,
                   help="allowed multiple of |keras float32 - keras float64| (default 8)")
    p.add_argument("--keep", action="store_true", help="keep every model, not only findings")
    p.add_argument("--savedmodel", type=float, default=0.0,
                   help="the share of tf_keras models saved as SavedModel directories, not .h5")
    p.add_argument("--large-batch", type=float, default=0.0,
                   help="the share of models run on 70 rows (a recurrence's stepwise input "
                        "projection), not 1, 2 or 5")
    p.add_argument("--keras3", type=float, default=0.3,
                   help="share of the models made with Keras 3 and saved as .keras (0.3)")
    p.add_argument("--recheck", action="store_true",
                   help="run phase 2 again on the models already in --work (no TensorFlow)")
    args = p.parse_args()
    if args.recheck and not args.work:
        p.error("--recheck needs --work")
    work = args.work or tempfile.mkdtemp(prefix="seqc-model-fuzz-")
    os.makedirs(work, exist_ok=True)
    if args.recheck:
        names = sorted(entry[:-len(".json")] for entry in os.listdir(work)
                       if entry.endswith(".json"))
        args.keep = True
    else:
        names = generate(args, work)
    findings = check(args, work, names)
    if not args.keep:
        bad = {f[0] for f in findings}
        for entry in os.listdir(work):
            if entry.split(".")[0] not in bad:
                shutil.rmtree(os.path.join(work, entry), ignore_errors=True)
                if os.path.exists(os.path.join(work, entry)):
                    os.remove(os.path.join(work, entry))
    print("work directory: %s" % work)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

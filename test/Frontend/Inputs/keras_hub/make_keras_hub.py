"""Makes the keras_hub models of test/Frontend/keras-hub.test: ids through a
TokenAndPositionEmbedding (mask_zero or not) and two TransformerEncoders
(normalize_first or not; relu, gelu), masked GlobalAveragePooling1D, Dense,
saved as .keras with random weights, with the ids and Keras' prediction;
forged_encoder.keras, an encoder whose config has a key keras_hub's has not
(a user's class of that name); decoder-only language models: the embedding
and two TransformerDecoders (normalize_first or not, masked or not, one
called with use_causal_mask=False), a Dense over each step's features; and
decoder_cross.keras, a translation model: an encoder over source ids, two
decoders over target ids with cross-attention onto it (one called by
keyword), with the target ids and Keras' prediction; and
decoder_padding_mask.keras, the same with its encoder sequence passed as
decoder_padding_mask (refused).
    pip install keras-hub==0.32.0   # with the fixtures' keras 3.15.1
    python3 make_keras_hub.py
The outputs are committed; tests never run this.
"""
import json
import os
import zipfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import keras_hub  # noqa: E402
import numpy as np  # noqa: E402

rng = np.random.default_rng(0)


def build(normalize_first, mask_zero):
    ids = keras.Input((8,), dtype="int32")
    x = keras_hub.layers.TokenAndPositionEmbedding(
        vocabulary_size=20, sequence_length=10, embedding_dim=6, mask_zero=mask_zero)(ids)
    x = keras_hub.layers.TransformerEncoder(intermediate_dim=10, num_heads=2,
                                            normalize_first=normalize_first,
                                            activation="gelu" if normalize_first else "relu")(x)
    x = keras_hub.layers.TransformerEncoder(intermediate_dim=7, num_heads=3,
                                            normalize_first=normalize_first)(x)
    x = keras.layers.GlobalAveragePooling1D()(x)
    model = keras.Model(ids, keras.layers.Dense(2)(x))
    for w in model.weights:
        w.assign(rng.uniform(-0.5, 0.5, w.shape).astype("float32"))
    return model


ids = np.array([[1, 4, 5, 9, 2, 0, 0, 0], [3, 3, 8, 2, 7, 1, 6, 11], [5, 0, 0, 0, 0, 0, 0, 0]])
np.save("ids.npy", ids.astype(np.float32))
for normalize_first in (False, True):
    for mask_zero in (False, True):
        name = "encoder_nf%d_mz%d" % (normalize_first, mask_zero)
        model = build(normalize_first, mask_zero)
        model.save(name + ".keras")
        np.save(name + ".y.npy", np.asarray(model.predict(ids, verbose=0), np.float32))

# The same file with a key keras_hub's TransformerEncoder does not have.
with zipfile.ZipFile("encoder_nf0_mz1.keras") as z:
    members = {n: z.read(n) for n in z.namelist()}
config = json.loads(members["config.json"])
for layer in config["config"]["layers"]:
    if layer["class_name"] == "TransformerEncoder":
        layer["config"]["rotary"] = True
members["config.json"] = json.dumps(config).encode()
with zipfile.ZipFile("forged_encoder.keras", "w") as z:
    for n, data in members.items():
        z.writestr(n, data)


def build_decoder(normalize_first, mask_zero, causal):
    ids = keras.Input((8,), dtype="int32")
    x = keras_hub.layers.TokenAndPositionEmbedding(
        vocabulary_size=20, sequence_length=10, embedding_dim=6, mask_zero=mask_zero)(ids)
    x = keras_hub.layers.TransformerDecoder(intermediate_dim=10, num_heads=2,
                                            normalize_first=normalize_first,
                                            activation="gelu" if normalize_first else "relu")(
        x, use_causal_mask=causal)
    x = keras_hub.layers.TransformerDecoder(intermediate_dim=7, num_heads=3,
                                            normalize_first=normalize_first)(x)
    model = keras.Model(ids, keras.layers.Dense(5)(x))
    for w in model.weights:
        w.assign(rng.uniform(-0.5, 0.5, w.shape).astype("float32"))
    return model


for normalize_first, mask_zero, causal in ((False, True, True), (True, False, True),
                                           (False, True, False)):
    name = "decoder_nf%d_mz%d%s" % (normalize_first, mask_zero, "" if causal else "_nocausal")
    model = build_decoder(normalize_first, mask_zero, causal)
    model.save(name + ".keras")
    np.save(name + ".y.npy", np.asarray(model.predict(ids, verbose=0), np.float32))

source = keras.Input((8,), dtype="int32", name="source")
target = keras.Input((8,), dtype="int32", name="target")
source_embedding = keras.layers.Embedding(20, 6, mask_zero=True)
target_embedding = keras.layers.Embedding(20, 6, mask_zero=True)
encoded = keras_hub.layers.TransformerEncoder(intermediate_dim=10, num_heads=2)(
    source_embedding(source))
decoded = keras_hub.layers.TransformerDecoder(intermediate_dim=9, num_heads=3)(
    target_embedding(target), encoded)
decoded = keras_hub.layers.TransformerDecoder(intermediate_dim=7, num_heads=2,
                                              normalize_first=True)(
    decoded, encoder_sequence=encoded, use_causal_mask=True)
model = keras.Model([source, target], keras.layers.Dense(5)(decoded))
for w in model.weights:
    w.assign(rng.uniform(-0.5, 0.5, w.shape).astype("float32"))
model.save("decoder_cross.keras")
target_ids = np.array([[2, 7, 1, 0, 0, 0, 0, 0], [4, 4, 9, 3, 12, 6, 1, 8], [11, 3, 0, 0, 0, 0, 0, 0]])
np.save("target_ids.npy", target_ids.astype(np.float32))
np.save("decoder_cross.y.npy",
        np.asarray(model.predict({"source": ids, "target": target_ids}, verbose=0), np.float32))

# The same file with the second decoder's encoder sequence passed as
# decoder_padding_mask (an explicit mask, which seqc refuses by name).
with zipfile.ZipFile("decoder_cross.keras") as z:
    members = {n: z.read(n) for n in z.namelist()}
members["config.json"] = members["config.json"].replace(
    b'"encoder_sequence":', b'"decoder_padding_mask":')
with zipfile.ZipFile("decoder_padding_mask.keras", "w", zipfile.ZIP_DEFLATED) as z:
    for n, data in members.items():
        z.writestr(n, data)

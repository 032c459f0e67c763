"""summary(), metadata, layers and shapes agree with what Keras reported when
it made each fixture (test/fixtures/manifest.json)."""
import json
import re

import numpy as np
import pytest

import seqc
from conftest import (GOOD, by_name, fixture_expected, fixture_input, keras_layers,
                      load_fixture)


def inference_shapes(layers, seqc_layers):
    """Keras' reported shapes where they are its training shapes, replaced by
    what the layer gives at inference (as test/Frontend/check_fixtures.py):
    Keras 3's RandomCrop returns its input unchanged; tf_keras'
    RandomHeight/RandomWidth report their axis as unknown and keep the
    input's; tf_keras reports a slice of fixed size from one end of an axis
    of unknown length (h[:, -2:]) as unknown, and seqc knows its size."""
    shapes = []
    for i, (layer, ours) in enumerate(zip(layers, seqc_layers)):
        shape = list(layer["output_shape"])
        before = tuple(seqc_layers[i - 1]["output_shape"]) if i else None
        if layer["class"] == "RandomCrop" and tuple(ours["output_shape"]) == before:
            shape = list(ours["output_shape"])
        if layer["class"] in ("RandomHeight", "RandomWidth", "SlicingOpLambda") and \
                len(shape) == len(ours["output_shape"]):
            shape = [k if k is not None else s for k, s in zip(shape, ours["output_shape"])]
        shapes.append(dict(layer, output_shape=shape))
    return shapes


@pytest.mark.parametrize("fixture", GOOD, ids=[f["name"] for f in GOOD])
def test_matches_manifest(fixture):
    model = load_fixture(fixture)
    layers = inference_shapes(keras_layers(fixture), model.layers)

    assert model.input_shape == tuple(fixture["input_shape"])
    assert model.output_shape == tuple(fixture["output_shape"])
    assert [{k: layer[k] for k in ("name", "class", "output_shape", "params")}
            for layer in model.layers] == \
        [dict(layer, output_shape=tuple(layer["output_shape"])) for layer in layers]
    assert model.params == fixture["params"]

    metadata = model.metadata
    assert all(isinstance(v, str) for v in metadata.values())
    if fixture["keras_version"]:
        assert metadata["keras_version"] == fixture["keras_version"]
    assert json.loads(metadata["layers"]) == [layer["name"] for layer in layers]

    summary = model.summary()
    assert summary.startswith(f'Model: "{model.name}"\n')
    for layer in layers:
        shape = "(" + ", ".join("None" if d is None else str(d)
                                for d in layer["output_shape"]) + \
                ("," if len(layer["output_shape"]) == 1 else "") + ")"
        # A graph's rows end with the layers they read ("['x[0][0]']").
        assert re.search(rf"^ {re.escape(layer['name'])} \({layer['class']}\) +"
                         rf"{re.escape(shape)} +{layer['params']}( +\[.*\])?$", summary,
                         re.M), layer
    assert f"Total params: {fixture['params']:,}\n" in summary


def test_seed_summary_text():
    assert load_fixture(by_name("seed_build")).summary() == """\
Model: "sequential"
_________________________________________________________________
 Layer (type)                 Output Shape              Param #
=================================================================
 lstm (LSTM)                  (None, 64)                19712

 dense (Dense)                (None, 32)                2080

 dense_1 (Dense)              (None, 1)                 33
=================================================================
Total params: 21,825
Trainable params: 21,825
Non-trainable params: 0
_________________________________________________________________
"""


def test_model_name_and_repr():
    model = load_fixture(by_name("keras3_legacy_gru_bidi"))
    assert model.name == "legacy_net"
    assert repr(model) == "<seqc.Model 'legacy_net' (None, 5, 3) -> (None, 1)>"
    assert repr(model.compile("eager")) == "<seqc.Compiled 'legacy_net' engine='eager'>"


def test_metadata_option_overrides_and_adds():
    model = load_fixture(by_name("seed_build"),
                         metadata={"owner": "forecasting team", "keras_version": "9.9"})
    assert model.metadata["owner"] == "forecasting team"
    assert model.metadata["keras_version"] == "9.9"


def test_input_shape_option():
    fixture = by_name("seed_build_dynamic")
    assert load_fixture(fixture).input_shape == (None, None, 12)
    fixed = load_fixture(fixture, input_shape=(10, 12))
    assert fixed.input_shape == (None, 10, 12)
    assert load_fixture(fixture, input_shape="?,12").input_shape == (None, None, 12)
    assert load_fixture(fixture, input_shape=[None, 12]).input_shape == (None, None, 12)
    np.testing.assert_allclose(fixed.compile("eager")(fixture_input(fixture)),
                               fixture_expected(fixture), atol=1e-5, rtol=1e-5)


def test_mlir_round_trip(tmp_path):
    """Model.mlir() is seq-compile --emit=seq: loading it back runs the same
    model with the same metadata and parameter count (its summary rows are
    read off the IR)."""
    fixture = by_name("bidi_gru_sum")
    model = load_fixture(fixture, metadata={"stage": "prod"})
    path = tmp_path / "model.mlir"
    path.write_text(model.mlir())
    reloaded = seqc.load(path)
    assert reloaded.metadata == model.metadata
    assert reloaded.params == model.params
    assert all(layer["class"].startswith("seq.") for layer in reloaded.layers)
    assert reloaded.input_shape == model.input_shape
    np.testing.assert_array_equal(reloaded.compile("eager")(fixture_input(fixture)),
                                  model.compile("eager")(fixture_input(fixture)))
    elided = model.mlir(elide_weights=True)
    assert "dense_resource<" in elided and "0x" not in elided


def test_compiled_keeps_its_model_alive():
    fixture = by_name("seed_build")
    predict = load_fixture(fixture).compile("eager")  # no other reference to the Model
    import gc
    gc.collect()
    np.testing.assert_allclose(predict(fixture_input(fixture)), fixture_expected(fixture),
                               atol=1e-5, rtol=1e-5)
    assert predict.model.name == "sequential"


def test_default_engine():
    engine = load_fixture(by_name("seed_build")).compile().engine
    assert engine == ("jit" if "jit" in seqc.engines() else "eager")


def test_sixteen_bit_policies_warn_once():
    """A model trained with mixed precision loads with one UserWarning that
    seqc computes it in float32 (Keras in 16 bits), and its metadata lists
    the policies; a float32 model loads silently."""
    mixed = by_name("mixed_precision_keras2")
    with pytest.warns(UserWarning) as caught:
        model = load_fixture(mixed)
    assert len(caught) == 1
    assert re.search(r"Keras computes layers 'conv1d', 'lstm', 'dense' in float16 \(dtype "
                     r"policy mixed_float16\); seqc computes in float32", str(caught[0].message))
    assert json.loads(model.metadata["keras_dtype_policies"]) == ["mixed_float16", "float32"]
    np.testing.assert_allclose(model.compile("eager")(fixture_input(mixed)),
                               fixture_expected(mixed), rtol=1e-5, atol=1e-5)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = load_fixture(by_name("seed_keras3"))
    assert "keras_dtype_policies" not in plain.metadata

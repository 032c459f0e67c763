"""Models with several inputs or outputs (Functional graphs): inputs by Keras
name (a dict) or in order (a list), outputs as a dict by Keras name, equal to
Keras' on every CPU engine."""
import numpy as np
import pytest

import seqc
from conftest import FIXTURES, MANIFEST

MULTI = {e["name"]: e for e in MANIFEST["multi_io"]}
CPU_ENGINES = [e for e in ("eager", "jit", "aot") if e in seqc.engines()]


def load(name):
    return seqc.load(FIXTURES / MULTI[name]["model"])


def inputs(name):
    return {p["name"]: np.load(FIXTURES / p["file"]) for p in MULTI[name]["inputs"]}


def expected(name):
    return {p["name"]: np.load(FIXTURES / p["file"]) for p in MULTI[name]["outputs"]}


@pytest.mark.parametrize("engine", CPU_ENGINES)
@pytest.mark.parametrize("name", sorted(MULTI))
def test_matches_keras(name, engine):
    compiled = load(name).compile(engine)
    assert compiled.input_names == [p["name"] for p in MULTI[name]["inputs"]]
    assert compiled.output_names == [p["name"] for p in MULTI[name]["outputs"]]
    got = compiled(inputs(name))
    want = expected(name)
    if len(want) == 1:
        got = {compiled.output_names[0]: got}
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, atol=1e-5, rtol=1e-5)


def test_list_in_input_order():
    compiled = load("ports_two_inputs_keras3").compile("jit")
    given = inputs("ports_two_inputs_keras3")
    np.testing.assert_array_equal(compiled([given["seq"], given["side"]]), compiled(given))


def test_mistakes_name_the_inputs():
    compiled = load("ports_two_inputs_keras3").compile("eager")
    given = inputs("ports_two_inputs_keras3")
    with pytest.raises(seqc.Error, match="input 'side' is missing; the model's inputs are "
                                         "'seq' and 'side'"):
        compiled({"seq": given["seq"]})
    with pytest.raises(seqc.Error, match="pass a dict by name or a list in that order"):
        compiled(given["seq"])
    with pytest.raises(seqc.Error, match="names an input the model does not have"):
        compiled({**given, "other": given["side"]})
    with pytest.raises(seqc.Error, match="input 'side' has a batch of 2 rows but 'seq' has 3"):
        compiled({"seq": given["seq"], "side": given["side"][:2]})


def test_single_port_models_keep_arrays():
    compiled = seqc.load(FIXTURES / "seed_build.h5").compile("eager")
    assert compiled.input_names == ["lstm_input"]
    assert compiled.output_names == ["dense_1"]

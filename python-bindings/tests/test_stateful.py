"""Stateful models (Keras stateful=True): the state persists from one call to
the next, on every engine, as in Keras; reset_state starts over; the state can
be read and set."""
import numpy as np
import pytest

import seqc
from conftest import ENGINES, by_name, fixture_expected, fixture_input, load_fixture

STATEFUL = ["stateful_lstm_keras3", "stateful_gru_keras2", "stateful_bidi_keras3",
            "stateful_masked_keras2", "stateful_convlstm_keras3"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", STATEFUL)
def test_chunks_one_call_at_a_time(name, engine):
    """Keras fed the fixture's chunks one call after another; so does this."""
    fixture = by_name(name)
    predict = load_fixture(fixture).compile(engine)
    x, expected = fixture_input(fixture), fixture_expected(fixture)
    batch = fixture["input_shape"][0]
    outputs = [predict(x[i:i + batch]) for i in range(0, len(x), batch)]
    np.testing.assert_allclose(np.concatenate(outputs), expected, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("engine", ENGINES)
def test_reset_state_starts_over(engine):
    fixture = by_name("stateful_lstm_keras3")
    predict = load_fixture(fixture).compile(engine)
    x, expected = fixture_input(fixture), fixture_expected(fixture)
    first = predict(x[:2])
    second = predict(x[:2])  # the same rows again, from the state the first left
    assert not np.allclose(first, second)
    predict.reset_state()
    np.testing.assert_array_equal(predict(x[:2]), first)
    np.testing.assert_allclose(first, expected[:2], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("engine", ENGINES)
def test_state_read_and_set(engine):
    fixture = by_name("stateful_bidi_keras3")
    predict = load_fixture(fixture).compile(engine)
    x = fixture_input(fixture)
    state = predict.state
    assert sorted(state) == ["bidirectional/backward", "bidirectional/forward", "gru"]
    assert state["bidirectional/forward"].shape == (2, 2, 3)  # (h, c), batch 2, 3 units
    assert state["gru"].shape == (1, 2, 2)
    assert all(not v.any() for v in state.values())
    predict(x[:2])
    saved = predict.state
    assert saved["gru"].any()
    after = predict(x[2:4])
    predict.state = saved
    np.testing.assert_array_equal(predict(x[2:4]), after)
    # Setting one layer leaves the others as they are.
    predict.state = {"gru": np.zeros((1, 2, 2), np.float32)}
    assert not predict.state["gru"].any() and predict.state["bidirectional/forward"].any()


def test_convlstm_state_has_its_positions():
    """A ConvLSTM's state is h and c at every position: (2, batch, rows,
    cols, filters)."""
    fixture = by_name("stateful_convlstm_keras3")
    predict = load_fixture(fixture).compile("eager")
    assert {k: v.shape for k, v in predict.state.items()} == {"conv_lstm2d": (2, 2, 4, 4, 2)}
    predict(fixture_input(fixture)[:2])
    assert predict.state["conv_lstm2d"].any()


def test_state_errors():
    fixture = by_name("stateful_lstm_keras3")
    predict = load_fixture(fixture).compile("eager")
    with pytest.raises(seqc.Error, match="state of layer 'lstm' has shape"):
        predict.state = {"lstm": np.zeros((2, 2, 4), np.float32)}
    with pytest.raises(seqc.Error, match="names a layer that keeps no state"):
        predict.state = {"dense": np.zeros((1,), np.float32)}
    with pytest.raises(seqc.Error, match="give a multiple of 2"):
        predict(fixture_input(fixture)[:3])


def test_stateless_model_has_no_state():
    predict = load_fixture(by_name("seed_build")).compile("eager")
    assert predict.state == {}
    predict.reset_state()  # nothing to do

"""Through the bindings, every good fixture on the eager engine, and one of
each binding case (conftest.binding_case) on every engine, gives Keras' own
stored prediction."""
import numpy as np
import pytest

from conftest import (ENGINES, GOOD, ONE_PER_BINDING_CASE, by_name, fixture_expected,
                      fixture_input, load_fixture)


def cases():
    for f in GOOD:
        yield pytest.param(f, "eager", id=f["name"] + "-eager")
    for f in ONE_PER_BINDING_CASE:
        for engine in ENGINES:
            name = engine.values[0]
            if name != "eager":
                yield pytest.param(f, name, marks=engine.marks, id=f["name"] + "-" + name)


@pytest.mark.parametrize("fixture,engine", list(cases()))
def test_matches_keras(fixture, engine):
    predict = load_fixture(fixture).compile(engine)
    assert predict.engine == engine
    expected = fixture_expected(fixture)
    output = predict(fixture_input(fixture))
    assert output.dtype == np.float32
    assert output.shape == expected.shape
    np.testing.assert_allclose(output, expected, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("batch", [1, 2, 5, 17])
def test_any_batch_size(engine, batch):
    fixture = by_name("seed_build")
    predict = load_fixture(fixture).compile(engine)
    rows = np.random.default_rng(batch).normal(size=(batch, 10, 12)).astype(np.float32)
    together = predict(rows)
    assert together.shape == (batch, 1)
    one_by_one = np.concatenate([predict(rows[i:i + 1]) for i in range(batch)])
    np.testing.assert_allclose(together, one_by_one, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("engine", ENGINES)
def test_dynamic_timesteps(engine):
    """seed_build_dynamic keeps the time axis open: any length runs, and the
    stored input (10 steps) still gives Keras' output."""
    fixture = by_name("seed_build_dynamic")
    model = load_fixture(fixture)
    assert model.input_shape == (None, None, 12)
    predict = model.compile(engine)
    x = fixture_input(fixture)
    np.testing.assert_allclose(predict(x), fixture_expected(fixture), atol=1e-5, rtol=1e-5)
    # The first steps alone are a different sequence: a different answer.
    shorter = predict(x[:, :4])
    assert shorter.shape == (x.shape[0], 1)
    assert not np.allclose(shorter, fixture_expected(fixture))


@pytest.mark.parametrize("engine", ENGINES)
def test_empty_batch(engine):
    predict = load_fixture(by_name("seed_build")).compile(engine)
    assert predict(np.zeros((0, 10, 12), np.float32)).shape == (0, 1)


@pytest.mark.parametrize("engine", ENGINES)
def test_masked_rows_alone(engine):
    """Masks are data: in a zero-padded batch every sequence gives what it
    gives alone at its true length (mask_dynamic_keras3: Masking -> LSTM)."""
    fixture = by_name("mask_dynamic_keras3")
    predict = load_fixture(fixture).compile(engine)
    batch = fixture_input(fixture)
    together = predict(batch)
    np.testing.assert_allclose(together, fixture_expected(fixture), atol=1e-5, rtol=1e-5)
    for i, sequence in enumerate(batch):
        length = int(np.nonzero(np.any(sequence != 0, axis=-1))[0].max()) + 1
        assert length < batch.shape[1] or i == 0
        alone = predict(sequence[None, :length])
        np.testing.assert_allclose(alone, together[i:i + 1], atol=1e-6, rtol=1e-6)

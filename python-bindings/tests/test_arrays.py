"""numpy in, numpy out: what __call__ accepts, and what it hands back."""
import numpy as np
import pytest

import seqc
from conftest import by_name, fixture_expected, fixture_input, load_fixture

SEED = by_name("seed_build")


@pytest.fixture(scope="module")
def predict():
    return load_fixture(SEED).compile("eager")


@pytest.fixture(scope="module")
def x():
    return fixture_input(SEED)


@pytest.mark.parametrize("convert", [
    pytest.param(lambda a: a.astype(np.float64), id="float64"),
    pytest.param(np.asfortranarray, id="fortran-order"),
    pytest.param(lambda a: np.repeat(a, 2, axis=2)[:, :, ::2], id="strided-view"),
    pytest.param(lambda a: a.tolist(), id="nested-list"),
])
def test_converts_other_arrays(predict, x, convert):
    converted = convert(x)
    if isinstance(converted, np.ndarray):
        assert not (converted.dtype == np.float32 and converted.flags["C_CONTIGUOUS"])
    np.testing.assert_array_equal(predict(converted), predict(x))


@pytest.mark.parametrize("engine", ["eager", "jit", "aot"])
def test_reads_a_float32_array_in_place(x, engine):
    # A C-contiguous float32 array (a slice of rows, a read-only one) is read
    # where it is: the call gives what a copy of it gives, and leaves it alone.
    compiled = load_fixture(SEED).compile(engine)
    rows = np.concatenate([x, x[::-1]])
    middle = rows[1:4]
    assert middle.flags["C_CONTIGUOUS"] and not middle.flags["OWNDATA"]
    frozen = rows.copy()
    frozen.flags["WRITEABLE"] = False
    np.testing.assert_array_equal(compiled(middle), compiled(middle.copy()))
    np.testing.assert_array_equal(compiled(frozen), compiled(rows.copy()))
    np.testing.assert_array_equal(rows, np.concatenate([x, x[::-1]]))


def test_output_is_a_new_array(predict, x):
    before = x.copy()
    first, second = predict(x), predict(x)
    np.testing.assert_array_equal(x, before)  # the input is left alone
    assert first.flags["WRITEABLE"] and first.flags["C_CONTIGUOUS"]
    first[:] = 42
    np.testing.assert_allclose(second, fixture_expected(SEED), atol=1e-5, rtol=1e-5)


def test_wrong_shape_is_an_error(predict, x):
    with pytest.raises(seqc.Error) as error:
        predict(x[:, :, :11])
    assert str(error.value) == "input has shape (3, 10, 11) but the model expects (?, 10, 12)"
    with pytest.raises(seqc.Error, match=r"^input has shape \(10, 12\) but the model expects"):
        predict(x[0])


def test_scalar_is_an_error(predict):
    with pytest.raises(seqc.Error, match="but the model expects"):
        predict(1.0)


def test_not_numbers_is_a_numpy_error(predict):
    with pytest.raises(ValueError):
        predict([["a"]])

"""seqc.ray.Predictor on its own, without a cluster: batches as dicts of
NumPy arrays, pyarrow Tables and pandas DataFrames; columns to inputs and
outputs; threads; messages. (test_ray.py runs it on a local Ray cluster.)"""
import numpy as np
import pytest

import seqc
import seqc.ray
from conftest import FIXTURES

MODEL = FIXTURES / "seed_build_dynamic.h5"  # LSTM(64) -> Dense(32) -> Dense(1), (?, ?, 12)


@pytest.fixture(scope="module")
def model():
    return seqc.load(MODEL)


@pytest.fixture(scope="module")
def rows():
    """300 samples of 2 timesteps: (300, 2, 12), and their outputs."""
    x = np.random.default_rng(3).standard_normal((300, 2, 12)).astype(np.float32)
    return x, seqc.load(MODEL).compile()(x)


def test_numpy_batch_tensor_column(model, rows):
    x, y = rows
    predictor = seqc.ray.Predictor(model)
    out = predictor({"data": x})
    assert list(out) == ["y"]
    np.testing.assert_array_equal(out["y"], y)


def test_scalar_columns_are_the_features_in_order(model, rows):
    x, y = rows
    flat = x.reshape(len(x), 24)
    batch = {"id": np.arange(len(x))} | {f"f{i}": flat[:, i] for i in range(24)}
    out = seqc.ray.Predictor(model, input=[f"f{i}" for i in range(24)], output="score")(batch)
    assert list(out) == ["id", "score"]  # the non-input columns are kept
    np.testing.assert_array_equal(out["id"], batch["id"])
    np.testing.assert_array_equal(out["score"], y)


def test_list_column_and_output_names(model, rows):
    x, y = rows
    batch = {"key": np.array(list("ab") * 150), "v": np.array(list(x.reshape(300, 24)), dtype=object)}
    out = seqc.ray.Predictor(model, input="v", output=["p"], keep=[])(batch)
    assert list(out) == ["p"]
    np.testing.assert_array_equal(out["p"], y[:, 0])


def test_pyarrow_table(model, rows):
    pa = pytest.importorskip("pyarrow")
    x, y = rows
    flat = x.reshape(300, 24)
    table = pa.table({"id": np.arange(300),
                      "fixed": pa.FixedSizeListArray.from_arrays(pa.array(flat.ravel()), 24),
                      "list": pa.array(list(flat)),
                      **{f"f{i}": flat[:, i] for i in range(24)}})
    for input in ("fixed", "list", [f"f{i}" for i in range(24)]):
        out = seqc.ray.Predictor(model, input=input, keep=["id"])(table)
        assert isinstance(out, pa.Table)
        assert out.column_names == ["id", "y"]
        np.testing.assert_array_equal(np.stack(out.column("y").to_numpy(zero_copy_only=False)), y)
    nulls = table.set_column(1, "fixed", pa.array([None] * 300, pa.list_(pa.float32(), 24)))
    with pytest.raises(seqc.Error, match="column 'fixed' has 300 null value"):
        seqc.ray.Predictor(model, input="fixed")(nulls)


def test_pandas_frame(model, rows):
    pd = pytest.importorskip("pandas")
    x, y = rows
    flat = x.reshape(300, 24)
    frame = pd.DataFrame({f"f{i}": flat[:, i] for i in range(24)})
    frame["id"] = np.arange(300)
    out = seqc.ray.Predictor(model, input=[f"f{i}" for i in range(24)], output=["p"])(frame)
    assert list(out.columns) == ["id", "p"]
    np.testing.assert_array_equal(out["p"].to_numpy(), y[:, 0])


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_threads_cut_a_batch_without_changing_a_bit(model, threads):
    x = np.random.default_rng(4).standard_normal((3001, 1, 12)).astype(np.float32)
    predictor = seqc.ray.Predictor(model, threads=threads)
    assert predictor.threads == threads
    np.testing.assert_array_equal(predictor.run(x), model.compile()(x))


def test_engines_that_are_not_reentrant_get_a_copy_per_thread(model):
    if "aot" not in seqc.engines():
        pytest.skip("no aot engine in this build")
    x = np.random.default_rng(5).standard_normal((1000, 1, 12)).astype(np.float32)
    predictor = seqc.ray.Predictor(model, engine="aot", threads=2)
    assert len(predictor._engines) == 2
    np.testing.assert_array_equal(predictor.run(x), model.compile("aot")(x))


def test_threads_default_to_one_outside_ray(model):
    assert seqc.ray.Predictor(model).threads == 1


def test_model_as_compiled_or_bytes(model, rows):
    x, y = rows
    for source in (model.compile("eager"), MODEL.read_bytes()):
        np.testing.assert_allclose(seqc.ray.Predictor(source).run(x), y, atol=1e-5)
    assert seqc.ray.Predictor(model.compile("eager")).engine == "eager"
    with pytest.raises(TypeError, match="seqc.load"):
        seqc.ray.Predictor(str(MODEL))


def test_empty_batch(model):
    out = seqc.ray.Predictor(model)({"data": np.zeros((0, 1, 12), np.float32)})
    assert out["y"].shape == (0, 1)


def test_messages(model):
    predictor = seqc.ray.Predictor(model)
    two = {"a": np.zeros((2, 12)), "b": np.zeros(2)}
    with pytest.raises(seqc.Error, match="say which feed the model"):
        predictor(two)
    with pytest.raises(seqc.Error, match="input column 'c' is not in the batch"):
        seqc.ray.Predictor(model, input="c")(two)
    with pytest.raises(seqc.Error, match=r"rows of shape \(13,\).*do not fit the model's input"):
        seqc.ray.Predictor(model, input="a")({"a": np.zeros((2, 13))})
    with pytest.raises(seqc.Error, match="names 2 columns, but the model's output"):
        seqc.ray.Predictor(model, input="a", output=["p", "q"])(two)
    with pytest.raises(seqc.Error, match="keep=\\['z'\\]: the batch has no column 'z'"):
        seqc.ray.Predictor(model, input="a", keep=["z"])(two)
    with pytest.raises(seqc.Error, match="holds <U1, not numbers"):
        seqc.ray.Predictor(model, input="s")({"s": np.array(["x"] * 12).reshape(1, 12)})
    fixed = seqc.load(FIXTURES / "seed_build.h5")
    with pytest.raises(seqc.Error, match=r"^'a.npy', 'b.npy': .*\(\?, 10, 12\)"):
        seqc.ray.Predictor(fixed, input="data")(
            {"data": np.zeros((2, 9, 12)), "path": np.array(["b.npy", "a.npy"])})

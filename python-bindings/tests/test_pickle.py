"""seqc.Model and seqc.Compiled pickle by value (the model file's bytes and
the load options) and unpickle where the file does not exist; seqc.load_bytes."""
import pickle
import shutil

import numpy as np
import pytest

import seqc
from conftest import FIXTURES, by_name, fixture_expected, fixture_input, load_fixture


def copy_fixture(tmp_path, name):
    path = tmp_path / name
    shutil.copyfile(FIXTURES / name, path)
    return path


@pytest.mark.parametrize("name", ["seed_build", "seed_keras3", "seed_json", "seed_build_dynamic"])
def test_model_unpickles_after_its_file_is_gone(tmp_path, name):
    fixture = by_name(name)
    model_path = copy_fixture(tmp_path, fixture["model"])
    options = {}
    if fixture.get("config"):
        options["config"] = copy_fixture(tmp_path, fixture["config"])
    model = seqc.load(model_path, metadata={"owner": "ml-team"}, **options)
    blob = pickle.dumps(model)
    for path in tmp_path.iterdir():
        path.unlink()

    again = pickle.loads(blob)
    assert again.path == model.path
    assert again.metadata == model.metadata  # "source" too: the same file name
    assert again.layers == model.layers
    assert again.summary() == model.summary()
    assert again.input_shape == model.input_shape
    y = again.compile()(fixture_input(fixture))
    np.testing.assert_allclose(y, fixture_expected(fixture), atol=1e-5, rtol=1e-5)


def test_load_options_travel(tmp_path):
    model = seqc.load(FIXTURES / "seed_build.h5", input_shape=(None, 12),
                      metadata={"k": "v"})
    again = pickle.loads(pickle.dumps(model))
    assert again.input_shape == (None, None, 12)
    assert again.metadata["k"] == "v"


def test_mlir_module_pickles(tmp_path):
    path = tmp_path / "model.mlir"
    path.write_text(load_fixture(by_name("seed_build")).mlir())
    model = seqc.load(path)
    path.unlink()
    again = pickle.loads(pickle.dumps(model))
    x = fixture_input(by_name("seed_build"))
    np.testing.assert_array_equal(again.compile("eager")(x), model.compile("eager")(x))


@pytest.mark.parametrize("engine", ["eager", "jit"])
def test_compiled_pickles_as_model_and_engine(engine):
    if engine not in seqc.engines():
        pytest.skip(f"no {engine} engine in this build")
    fixture = by_name("seed_build")
    compiled = load_fixture(fixture).compile(engine)
    again = pickle.loads(pickle.dumps(compiled))
    assert isinstance(again, seqc.Compiled)
    assert again.engine == engine
    x = fixture_input(fixture)
    np.testing.assert_array_equal(again(x), compiled(x))


def test_a_process_compiles_one_pickled_model_once():
    """The same bytes and options give the same Compiled while it lives, so
    that a worker receiving a model per task compiles it once."""
    blob = pickle.dumps(load_fixture(by_name("seed_build")).compile())
    first = pickle.loads(blob)
    assert pickle.loads(blob) is first
    model = pickle.loads(pickle.dumps(first.model))
    assert pickle.loads(pickle.dumps(model)) is model
    # Other options are another model.
    other = seqc.load(FIXTURES / "seed_build.h5", metadata={"k": "v"})
    assert pickle.loads(pickle.dumps(other)) is not model


def test_load_bytes():
    data = (FIXTURES / "seed_keras3.keras").read_bytes()
    model = seqc.load_bytes(data, name="models/seed.keras")
    assert model.path == "models/seed.keras"
    assert model.metadata["source"] == "seed.keras"
    assert seqc.load_bytes(bytearray(data)).name == model.name
    assert seqc.load_bytes(memoryview(data)).name == model.name
    weights = (FIXTURES / "seed_json.weights.h5").read_bytes()
    config = (FIXTURES / "seed_json.json").read_text()
    for text in (config, config.encode()):
        assert seqc.load_bytes(weights, name="w.h5", config=text).layers == \
            load_fixture(by_name("seed_json")).layers


def test_load_bytes_errors_name_the_file_not_a_temporary():
    with pytest.raises(seqc.Error) as error:
        seqc.load_bytes(b"not a model", name="/data/m.h5")
    assert str(error.value).startswith("'/data/m.h5': ")
    with pytest.raises(seqc.Error) as error:
        seqc.load_bytes((FIXTURES / "bad_lambda.h5").read_bytes(), name="lam.h5")
    assert str(error.value).startswith("'lam.h5': layer 'lam' (Lambda)")
    with pytest.raises(TypeError, match="not a str"):
        seqc.load_bytes(str(FIXTURES / "seed_build.h5"))
    with pytest.raises(TypeError):
        seqc.load_bytes(12)


def test_bad_state_is_an_error():
    with pytest.raises(seqc.Error, match="not the state of a pickled seqc.Model"):
        seqc._seqc._load_state(("x",))
    with pytest.raises(seqc.Error, match="state version 99"):
        seqc._seqc._load_state((99, "m.h5", b"", None, None, None, {}))


def test_directory_models_pickle_as_their_module(tmp_path):
    """A SavedModel, a TF checkpoint or an unzipped .keras is several files:
    a Model of one pickles as the module it imported to (config, weights and
    options inside), and unpickles after the directory is gone."""
    for name in ("savedmodel_keras2", "checkpoint_keras2", "keras3_unzipped"):
        fixture = by_name(name)
        copy = tmp_path / fixture["model"]
        shutil.copytree(FIXTURES / fixture["model"], copy)
        config = {"config": FIXTURES / fixture["config"]} if fixture["config"] else {}
        model = seqc.load(copy, **config)
        blob = pickle.dumps(model)
        shutil.rmtree(copy)
        again = pickle.loads(blob)
        assert again.path == str(copy)
        x = fixture_input(fixture)
        np.testing.assert_array_equal(again.compile("eager")(x), model.compile("eager")(x))

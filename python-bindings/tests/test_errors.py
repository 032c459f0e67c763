"""Bad input raises seqc.Error with seq-compile's one-line message (the text
after "seq-compile: error: ")."""
import re

import numpy as np
import pytest

import seqc
from conftest import BAD, FIXTURES, by_name, fixture_input, load_fixture

L = re.escape

# How the message for each bad fixture of the manifest begins, after
# "'<path>': " (regular expressions).
BAD_MESSAGES = {
    "bad_tf_checkpoint": L("a TensorFlow checkpoint holds weights only: pass the architecture "
                           "with --config model.json (from model.to_json())"),
    "bad_savedmodel": L("a TensorFlow SavedModel that Keras did not save (tf.saved_model.save, "
                        "Keras 3's model.export): it holds TensorFlow graphs, not layers"),
    "bad_subclassed_savedmodel": L("the model is a 'Doubler': only Sequential models and "
                                   "Functional chains are supported"),
    "bad_lambda": L("layer 'lam' (Lambda): Lambda layers hold Python code, which seqc "
                    "never runs; replace the Lambda with built-in layers and re-save"),
    "bad_custom": L("layer 'my_scale' (ScaleLayer): 'ScaleLayer' is not a Keras layer but a "
                    "custom class, whose code is not in the file and which seqc never "
                    "runs; rebuild the model from built-in layers and re-save"),
    "bad_weights_only": L("a weights-only HDF5 file (no 'model_config'): pass the "
                          "architecture with --config model.json (from model.to_json())"),
    "bad_keras1_gate_order": L("layer 'lstm_1' (LSTM): Keras 1 weight 3 is "
                               "'model_weights/lstm_1/lstm_1_W_f:0', expected one named *_W_c"),
}


def test_every_bad_fixture_has_a_message():
    assert sorted(BAD_MESSAGES) == sorted(bad["name"] for bad in BAD)


@pytest.mark.parametrize("bad", BAD, ids=[b["name"] for b in BAD])
def test_bad_fixture(bad):
    path = FIXTURES / bad["path"]
    with pytest.raises(seqc.Error) as error:
        seqc.load(path)
    message = str(error.value)
    assert "\n" not in message
    assert re.match(L(f"'{path}': ") + BAD_MESSAGES[bad["name"]], message), message


def test_error_is_an_exception():
    assert issubclass(seqc.Error, Exception)


def test_missing_file(tmp_path):
    path = tmp_path / "nothing.h5"
    with pytest.raises(seqc.Error, match=f"^'{re.escape(str(path))}': no such file$"):
        seqc.load(path)


def test_json_without_weights():
    path = FIXTURES / "seed_json.json"
    with pytest.raises(seqc.Error, match=re.escape(
            f"'{path}': a JSON file, not a model: pass it as --config together with the "
            "weights file")):
        seqc.load(path)


def test_truncated_file(tmp_path):
    path = tmp_path / "truncated.h5"
    path.write_bytes((FIXTURES / "seed_build.h5").read_bytes()[:3000])
    with pytest.raises(seqc.Error, match=re.escape(f"'{path}': cannot open as an HDF5 file")):
        seqc.load(path)


@pytest.mark.parametrize("shape", [(3, "x"), (0, 12), (), (True, 12), 12])
def test_bad_input_shape(shape):
    with pytest.raises(seqc.Error, match=r"^input_shape=.*: expected positive sizes or None"):
        seqc.load(FIXTURES / "seed_build.h5", input_shape=shape)


def test_bad_input_shape_text():
    with pytest.raises(seqc.Error, match=r"^--input-shape '3,x': expected comma-separated"):
        seqc.load(FIXTURES / "seed_build.h5", input_shape="3,x")


def test_options_do_not_apply_to_mlir(tmp_path):
    path = tmp_path / "model.mlir"
    path.write_text(load_fixture(by_name("seed_build")).mlir())
    with pytest.raises(seqc.Error, match="apply to Keras files, not to .mlir modules"):
        seqc.load(path, input_shape=(10, 12))


def test_broken_mlir(tmp_path):
    path = tmp_path / "broken.mlir"
    path.write_text("module { func.func @other() { return } }\n")
    with pytest.raises(seqc.Error, match=re.escape(f"'{path}': no func.func @predict")):
        seqc.load(path)


def test_unknown_engine():
    model = load_fixture(by_name("seed_build"))
    with pytest.raises(seqc.Error) as error:
        model.compile("tpu")
    assert str(error.value) == f"unknown engine 'tpu' (available: {', '.join(seqc.engines())})"


def test_input_shape_mismatch_names_both_shapes():
    predict = load_fixture(by_name("seed_build")).compile("eager")
    with pytest.raises(seqc.Error, match=re.escape(
            "input has shape (3, 9, 12) but the model expects (?, 10, 12)")):
        predict(fixture_input(by_name("seed_build"))[:, :9])

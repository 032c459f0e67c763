"""The cuda-sim engine: the cuda engine's code built for the CPU simulation,
which checks a model's CUDA path without a GPU."""
import numpy as np

import seqc
from conftest import by_name, fixture_expected, fixture_input, load_fixture


def test_listed():
    assert "cuda-sim" in seqc.engines()


def test_matches_keras():
    fixture = by_name("timedistributed_cnn_lstm_keras3")
    predict = load_fixture(fixture).compile("cuda-sim")
    assert predict.engine == "cuda-sim"
    np.testing.assert_allclose(predict(fixture_input(fixture)), fixture_expected(fixture),
                               atol=1e-5, rtol=1e-5)

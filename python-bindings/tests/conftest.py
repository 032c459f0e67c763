"""Shared helpers: the fixture manifest (test/fixtures/manifest.json) and the
engines this build of seqc has."""
import json
import os
import pathlib
import shutil

import numpy as np
import pytest

import seqc

# Ray, wherever a test (or a doc block it runs) starts a local cluster, stays
# on the loopback interface (Ray picks this machine's address otherwise) and
# sends no usage statistics. Ray reads both when it is imported.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

FIXTURES = pathlib.Path(
    os.environ.get("SEQC_FIXTURES",
                   pathlib.Path(__file__).resolve().parents[2] / "test" / "fixtures"))
MANIFEST = json.loads((FIXTURES / "manifest.json").read_text())
GOOD = MANIFEST["fixtures"]
BAD = MANIFEST["bad"]


def has_cuda_device():
    return pathlib.Path("/dev/nvidia0").exists() or shutil.which("nvidia-smi") is not None


def engine_params():
    """Every built-in engine; the GPU ones are skipped on a machine without a GPU.
    Not cuda-sim (the cuda engine's code in the CPU simulation, seconds to build
    per model): test_cuda_sim.py checks it."""
    params = []
    for name in seqc.engines():
        if name == "cuda-sim":
            continue
        marks = []
        if name in ("cuda", "cudnn") and not has_cuda_device():
            marks.append(pytest.mark.skip(reason="no CUDA device on this machine"))
        params.append(pytest.param(name, marks=marks, id=name))
    return params


ENGINES = engine_params()


def binding_case(fixture):
    """What the binding sees of a fixture's model: the ranks of its input and
    output, a fixed batch (a stateful model), an open axis past the batch."""
    shape = fixture["input_shape"]
    return (len(shape), len(fixture["output_shape"]), shape[0] is None, None in shape[1:])


# The first fixture of each binding case. The bindings pass arrays to and from
# an engine the same way whichever engine it is, so each compiled engine runs
# these through Python; every fixture on every engine is lit's sweep
# (test/Compare/all-fixtures.test, test/Target/CPU/fixtures-aot.test,
# test/Target/CUDA/gpu-fixtures.test), here only eager takes them all.
def one_per_binding_case(fixtures):
    cases = {}
    for f in fixtures:
        cases.setdefault(binding_case(f), f)
    return list(cases.values())


ONE_PER_BINDING_CASE = one_per_binding_case(GOOD)


def by_name(name):
    return next(f for f in GOOD if f["name"] == name)


def load_fixture(fixture, **options):
    if fixture.get("config"):
        options["config"] = FIXTURES / fixture["config"]
    return seqc.load(FIXTURES / fixture["model"], **options)


def fixture_input(fixture):
    return np.load(FIXTURES / fixture["input"])


def fixture_expected(fixture):
    return np.load(FIXTURES / fixture["expected"])


def keras_layers(fixture):
    """The manifest's layers as seqc reports them: the InputLayer of a
    Functional model is not a layer of the chain, and a return_state layer
    (Keras lists its output and states) is its output."""
    layers = []
    for layer in fixture["layers"]:
        if layer["class"] == "InputLayer":
            continue
        shape = layer["output_shape"]
        if shape and isinstance(shape[0], list):
            layer = dict(layer, output_shape=shape[0])
        layers.append(layer)
    return layers

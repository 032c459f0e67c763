"""Model.compile(engine, threads=N): each call's batch split across N threads
(engines 'jit' and 'aot') gives output bitwise identical to one thread's,
for even and uneven chunks and batches 0 and 1; bad ids in two chunks are
reported as on one thread; a bad count is seqc.Error."""
import pickle

import numpy as np
import pytest

import seqc
from conftest import FIXTURES, by_name, fixture_expected, fixture_input, load_fixture

THREADED = [e for e in ("jit", "aot") if e in seqc.engines()]


def uniform(shape, seed=7):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


@pytest.mark.parametrize("engine", THREADED)
@pytest.mark.parametrize("name, row", [("seed_build_dynamic", (20, 12)),
                                       ("lstm_return_sequences", (5, 3)),
                                       ("dense_3d", (4, 3))])
def test_threads_are_bitwise_identical_to_one(engine, name, row):
    model = load_fixture(by_name(name))
    one = model.compile(engine, threads=1)
    for threads in (2, 3, 0):
        many = model.compile(engine, threads=threads)
        assert many.threads == threads
        for batch in (0, 1, 2, 7, 64):
            x = uniform((batch,) + row, seed=batch)
            expected, got = one(x), many(x)
            assert got.shape == expected.shape
            assert got.tobytes() == expected.tobytes(), (threads, batch)


@pytest.mark.parametrize("engine", THREADED)
def test_threads_match_keras(engine):
    fixture = by_name("lstm_return_sequences")
    compiled = load_fixture(fixture).compile(engine, threads=2)
    np.testing.assert_allclose(compiled(fixture_input(fixture)),
                               fixture_expected(fixture), atol=1e-5, rtol=0)


@pytest.mark.parametrize("engine", THREADED)
def test_bad_ids_in_two_chunks_are_counted_as_on_one_thread(engine):
    model = load_fixture(by_name("embedding_lstm"))
    ids = np.random.RandomState(3).randint(0, 10, (64, 5)).astype(np.float32)
    ids[3, 0] = ids[60, 0] = 10
    messages = []
    for threads in (1, 2):
        with pytest.raises(seqc.Error, match=r"ids outside \[0, 10\)") as caught:
            model.compile(engine, threads=threads)(ids)
        messages.append(str(caught.value))
    assert "(2 values)" in messages[1]
    assert messages[0] == messages[1]
    ids[3, 0] = ids[60, 0] = 1
    assert model.compile(engine, threads=2)(ids).shape == (64, 2)


@pytest.mark.parametrize("threads", [-1, 257])
def test_bad_thread_count_is_an_error(threads):
    model = load_fixture(by_name("dense_3d"))
    with pytest.raises(seqc.Error, match=r"threads=.*: give 0 \(one per core\) to 256"):
        model.compile(THREADED[0] if THREADED else "eager", threads=threads)


def test_threads_pickle():
    model = load_fixture(by_name("dense_3d"))
    engine = THREADED[0] if THREADED else "eager"
    compiled = pickle.loads(pickle.dumps(model.compile(engine, threads=3)))
    assert compiled.threads == 3 and compiled.engine == engine

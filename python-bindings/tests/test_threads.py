"""One Compiled, called from several Python threads at once."""
import threading
import time

import numpy as np
import pytest

from conftest import ENGINES, by_name, load_fixture

THREADS = 4
CALLS = 20


def inputs_of(thread):
    rng = np.random.default_rng(thread)
    return [rng.normal(size=(1 + (thread + call) % 3, 10, 12)).astype(np.float32)
            for call in range(CALLS)]


@pytest.mark.parametrize("engine", ENGINES)
def test_four_threads_give_identical_results(engine):
    predict = load_fixture(by_name("seed_build")).compile(engine)
    inputs = [inputs_of(t) for t in range(THREADS)]
    alone = [[predict(x) for x in per_thread] for per_thread in inputs]

    results = [None] * THREADS
    errors = []
    start = threading.Barrier(THREADS)

    def work(thread):
        try:
            start.wait()
            results[thread] = [predict(x) for x in inputs[thread]]
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for thread in range(THREADS):
        for got, want in zip(results[thread], alone[thread]):
            np.testing.assert_array_equal(got, want)


def test_gil_is_released_while_it_runs():
    """While one thread is inside a long call, the main thread keeps running
    Python code, also in the middle of that call."""
    predict = load_fixture(by_name("seed_build")).compile("eager")
    rows = 64
    while True:  # grow the batch until one call takes a while
        x = np.ones((rows, 10, 12), np.float32)
        began = time.perf_counter()
        predict(x)
        if time.perf_counter() - began > 0.1 or rows >= 1 << 16:
            break
        rows *= 2

    span = {}

    def call():
        span["start"] = time.perf_counter()
        predict(x)
        span["end"] = time.perf_counter()

    worker = threading.Thread(target=call)
    ticks = [0.0]
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        if now - ticks[-1] > 1e-3:  # at most one a millisecond
            ticks.append(now)
    worker.join()
    length = span["end"] - span["start"]
    middle = [t for t in ticks
              if span["start"] + 0.3 * length < t < span["end"] - 0.3 * length]
    assert middle, "the main thread did not run during the call"

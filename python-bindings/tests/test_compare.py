"""seqc.compare: compiled vs eager in this process, seq-compile --compare's
JSON report as a dict."""
import numpy as np
import pytest

import seqc
from conftest import ENGINES, by_name, fixture_input, load_fixture

SEED = by_name("seed_build")


@pytest.mark.parametrize("engine", ENGINES)
def test_report(engine):
    model = load_fixture(SEED)
    report = seqc.compare(model, fixture_input(SEED), iterations=6, engine=engine)
    assert report["compiled"]["engine"] == engine
    assert report["eager"]["engine"] == "eager"
    assert report["max_abs_error"] <= 1e-5
    assert report["max_rel_error"] <= 1e-5
    verdicts = {v["kind"]: v for v in report["verdicts"]}
    assert set(verdicts) == {"crash", "numerics", "speed", "memory"}
    assert verdicts["numerics"]["passed"] and verdicts["crash"]["passed"]
    for side in ("compiled", "eager"):
        run = report[side]
        assert run["iterations"] == 6 and not run["crashed"]
        assert len(run["samples"]) == 6
        assert 0 < run["latency_median_us"] <= run["latency_p99_us"]
        assert all(s["rss"] > 0 for s in run["samples"])
    ratio = report["compiled"]["latency_median_us"] / report["eager"]["latency_median_us"]
    assert report["latency_ratio"] == pytest.approx(ratio)
    assert report["passed"] == all(v["passed"] for v in report["verdicts"])


def test_every_call_gives_the_same_bits(monkeypatch):
    model = load_fixture(SEED)
    x = fixture_input(SEED)
    clean = seqc.compare(model, x, iterations=4, engine="jit")
    assert "changed" not in clean["compiled"] and "changed" not in clean["eager"]
    # The test fault moves the first value by one ulp in iteration 2 only.
    monkeypatch.setenv("SEQC_INJECT_FAULT", "flaky")
    report = seqc.compare(model, x, iterations=4, engine="jit")
    assert report["compiled"]["changed"].startswith("call 3 differs from call 1: element 0 is ")
    assert "changed" not in report["eager"]
    numerics = next(v for v in report["verdicts"] if v["kind"] == "numerics")
    assert not numerics["passed"] and not report["passed"]
    assert "the jit engine's output changed between calls: call 3" in numerics["detail"]


def test_takes_a_compiled_model():
    predict = load_fixture(SEED).compile("eager")
    report = seqc.compare(predict, fixture_input(SEED), iterations=2)
    assert report["compiled"]["engine"] == "eager"
    assert report["max_abs_error"] == 0


def test_thresholds_decide_the_verdicts():
    model = load_fixture(SEED)
    x = fixture_input(SEED)
    lenient = seqc.compare(model, x, iterations=4, engine="eager", max_slowdown=1e6,
                           max_growth=1e12)
    assert lenient["passed"]
    # The speed verdict is a rank test at p < 0.001: it needs at least 8
    # iterations per engine before it can fail.
    strict = seqc.compare(model, x, iterations=20, engine="eager", max_slowdown=1e-6)
    speed = next(v for v in strict["verdicts"] if v["kind"] == "speed")
    assert not speed["passed"] and not strict["passed"]


def test_errors():
    model = load_fixture(SEED)
    x = fixture_input(SEED)
    with pytest.raises(seqc.Error, match="^iterations must be at least 2$"):
        seqc.compare(model, x, iterations=1)
    with pytest.raises(seqc.Error, match=r"^input has shape \(3, 10, 11\)"):
        seqc.compare(model, x[:, :, :11], iterations=2)
    with pytest.raises(seqc.Error, match="^unknown engine 'tpu'"):
        seqc.compare(model, x, engine="tpu")
    with pytest.raises(seqc.Error, match="compiled with 'eager'"):
        seqc.compare(model.compile("eager"), x, engine="tpu")
    with pytest.raises(TypeError):
        seqc.compare("model.h5", x)

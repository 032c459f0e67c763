"""Runs every good fixture of test/fixtures/manifest.json through an engine
and the eager interpreter with `seq-compile --run`, and compares the
engine's output with eager's (seq-allclose, atol 1e-5, rtol 0) and with
Keras' own (atol 1e-5, rtol 1e-5).

  check_fixtures.py ENGINE FIXTURES_DIR WORK_DIR SEQ_COMPILE SEQ_ALLCLOSE

Prints one line per mismatch and a summary; exit code 1 if any fixture
fails. Two fixtures run at a time."""
import concurrent.futures
import json
import os
import subprocess
import sys


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return p.returncode, p.stdout.strip()


def check(fixture, engine, fixtures, work, seq_compile, allclose):
    name = fixture["name"]
    model = [os.path.join(fixtures, fixture["model"])]
    if fixture.get("config"):
        model += ["--config", os.path.join(fixtures, fixture["config"])]
    x = os.path.join(fixtures, fixture["input"])
    outputs = {}
    for e in ("eager", engine):
        out = os.path.join(work, "%s.%s.npy" % (name, e))
        rc, text = run([seq_compile] + model + ["--run", "--input", x,
                                                "--engine=" + e, "-o", out])
        if rc != 0:
            return "%s: engine %s failed: %s" % (name, e, text)
        outputs[e] = out
    for against, want, rtol in (("eager", outputs["eager"], "0"),
                                ("Keras", os.path.join(fixtures, fixture["expected"]), "1e-5")):
        rc, text = run([allclose, outputs[engine], want, "--atol", "1e-5", "--rtol", rtol])
        if rc != 0:
            return "%s: against %s: %s" % (name, against, text)
    return None


def main():
    engine, fixtures, work, seq_compile, allclose = sys.argv[1:6]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(fixtures, "manifest.json")) as f:
        good = json.load(f)["fixtures"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        problems = [p for p in pool.map(
            lambda fx: check(fx, engine, fixtures, work, seq_compile, allclose),
            good) if p]
    for p in problems:
        print("MISMATCH " + p)
    print("%s: %d of %d fixtures match eager and Keras" %
          (engine, len(good) - len(problems), len(good)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs seq-compile --compare on every good fixture, each on its own input,
with the numerics verdict at atol 1e-5 and rtol 0: every fixture's ENGINE
output within 1e-5 of the eager interpreter's, as shipped (fused and
lowered).

usage: compare_fixtures.py SEQ_COMPILE FIXTURES_DIR ENGINE ITERATIONS
Prints one line per fixture and exits 1 if any verdict failed.
"""
import json
import os
import subprocess
import sys


def main():
    seq_compile, fixtures, engine, iterations = sys.argv[1:5]
    with open(os.path.join(fixtures, "manifest.json")) as f:
        manifest = json.load(f)
    failed = 0
    for fixture in manifest["fixtures"]:
        args = [seq_compile, os.path.join(fixtures, fixture["model"])]
        if fixture.get("config"):
            args += ["--config", os.path.join(fixtures, fixture["config"])]
        args += ["--compare", "--engine=" + engine, "--iterations=" + iterations,
                 "--atol=1e-5", "--rtol=0",
                 "--input", os.path.join(fixtures, fixture["input"]), "--json"]
        result = subprocess.run(args, capture_output=True, text=True)
        try:
            report = json.loads(result.stdout)
            problems = [v["kind"] + ": " + v["detail"] for v in report["verdicts"] if not v["passed"]]
        except ValueError:
            problems = [result.stderr.strip() or "no report"]
        failed += bool(problems)
        print(("FAIL " if problems else "ok   ") + fixture["name"] + "".join("\n  " + p for p in problems))
    print(f"{len(manifest['fixtures']) - failed} of {len(manifest['fixtures'])} fixtures compare clean")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (lit + GoogleTest through lit,
# a fuzz smoke run of every harness (scripts/fuzz.sh --smoke), and the Python
# bindings' pytest suite).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
"$root/scripts/build.sh" SeqUnitTests seq-docs
results="$root/build/test/results.json"
status=0
/usr/lib/llvm-22/bin/lit -sv --time-tests -o "$results" "$root/build/test" "$root/build/test/Unit" || status=$?
# Fuzz smoke: each libFuzzer harness for ~20 s (scripts/fuzz.sh, build-fuzz/);
# one result per harness.
fuzz_results="$root/build/test/fuzz-results.txt"
rm -f "$fuzz_results"
"$root/scripts/fuzz.sh" --smoke --results "$fuzz_results" || status=1
# Python bindings: built into build/, pip-installed, pytest (python-bindings/).
python_results="$root/build/test/python-results.xml"
"$root/python-bindings/run-tests.sh" "$python_results" || status=1
python3 - "$results" "$python_results" "$fuzz_results" <<'PY'
import json, os, sys, xml.etree.ElementTree as ET
tests = json.load(open(sys.argv[1]))["tests"]
count = lambda *codes: sum(t["code"] in codes for t in tests)
passed, failed, skipped = (count('PASS', 'XFAIL'), count('FAIL', 'XPASS', 'TIMEOUT', 'UNRESOLVED'),
                           count('UNSUPPORTED'))
if os.path.exists(sys.argv[2]):  # pytest's JUnit XML
    suite = ET.parse(sys.argv[2]).getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    n = {k: int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")}
    passed += n["tests"] - n["failures"] - n["errors"] - n["skipped"]
    failed += n["failures"] + n["errors"]
    skipped += n["skipped"]
else:  # the bindings did not build or install
    failed += 1
fuzz = open(sys.argv[3]).read().split() if os.path.exists(sys.argv[3]) else []
if fuzz:
    passed += fuzz[0::2].count("PASS")
    failed += fuzz[0::2].count("FAIL")
else:  # the fuzz harnesses did not build
    failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status

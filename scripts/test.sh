#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (lit + GoogleTest through lit).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
"$root/scripts/build.sh" SeqUnitTests seq-docs
results="$root/build/test/results.json"
status=0
/usr/lib/llvm-22/bin/lit -sv --time-tests -o "$results" "$root/build/test" "$root/build/test/Unit" || status=$?
python3 - "$results" <<'PY'
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
count = lambda *codes: sum(t["code"] in codes for t in tests)
print(f"{count('PASS', 'XFAIL')} passed, {count('FAIL', 'XPASS', 'TIMEOUT', 'UNRESOLVED')} failed, "
      f"{count('UNSUPPORTED')} skipped")
PY
exit $status

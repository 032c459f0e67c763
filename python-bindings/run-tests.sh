#!/usr/bin/env bash
# Builds the Python module into the repository's build/ (which scripts/build.sh
# made: only the module itself is new), installs it with pip, and runs its
# pytest suite. Called by scripts/test.sh; safe to re-run.
#   python-bindings/run-tests.sh [JUNIT_XML]
# SEQC_BUILD_DIR names another build directory of the main project.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${SEQC_BUILD_DIR:-$root/build}
junit=${1:-}
[ -z "$junit" ] || rm -f "$junit"
export CCACHE_BASEDIR="$root" PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore

# Everything Python goes into the project's own virtual environment
# (build/venv), never the system Python: pip downloads only what is missing.
venv=${SEQC_VENV:-$root/build/venv}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
python="$venv/bin/python"
"$python" -m pip install -q -r "$here/requirements.txt"
# Ray is optional (seqc.ray, seq-compile --ray): without it (no access to
# PyPI, a platform without Ray wheels) its tests are skipped, saying why.
"$python" -m pip install -q --retries 1 -r "$here/requirements-ray.txt" ||
  echo "run-tests.sh: Ray could not be installed (requirements-ray.txt); its tests will be skipped" >&2
# --no-build-isolation: build with the packages above, no download per run.
"$python" -m pip install -q --no-build-isolation \
  -C build-dir="$build" -C cmake.define.SEQ_BUILD_TESTS=ON "$here"

# From tests/, so that `import seqc` is the installed package, not ./seqc.
# One worker per core (SEQC_TEST_JOBS=N for N): most tests compile a model on
# one core. The tests that start a Ray cluster share a worker (xdist_group).
cd "$here/tests"
"$python" -m pytest -q -p no:cacheprovider -n "${SEQC_TEST_JOBS:-$(nproc)}" --dist loadgroup \
  ${junit:+--junitxml="$junit"} .

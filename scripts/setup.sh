#!/usr/bin/env bash
# Installs what seqc needs and is missing; safe to re-run.
#   scripts/setup.sh           Debian packages for building and testing
#   scripts/setup.sh --python  also the PyPI packages for fixtures/benchmarks
set -euo pipefail

packages=(cmake g++ llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
          libhdf5-dev zlib1g-dev libgtest-dev ninja-build ccache
          chromium valgrind libseccomp-dev clang-22 libclang-rt-22-dev
          lld-22 libc6-dev-arm64-cross qemu-user)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python packages go into the project's virtual environment (build/venv),
# never the system Python.
if [ "${1:-}" = "--python" ]; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  [ -x "$root/build/venv/bin/python" ] || python3 -m venv "$root/build/venv"
  "$root/build/venv/bin/python" -m pip install -q -r "$root/test/fixtures/requirements.txt"
  "$root/build/venv/bin/python" -m pip install -q -r "$root/python-bindings/requirements.txt"
fi

#!/usr/bin/env bash
# Builds the GPU pack on a machine without a GPU: every fixture's CUDA source
# (fused kernels and cuDNN), its inputs, Keras' and the eager engine's
# outputs, the benchmark models, and run.sh, which checks and times all of it
# on a machine that has only the NVIDIA driver, nvcc and Python. At most
# 60 MiB, so that it can be carried to a lent GPU machine in one piece.
#
#   scripts/gpu-pack.sh [OUT] [--only REGEX]     (default OUT: build/gpu-pack)
#   OUT/run.sh [--simulate] [--only REGEX] [--no-bench] [RESULTS.md]
#
# See docs/CUDA.md ("Checking on a GPU machine").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/gpu-pack
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then out=$1; shift; fi
"$root/scripts/build.sh" seq-compile > /dev/null
exec python3 "$root/bench/gpu/pack.py" "$root/build/bin/seq-compile" "$out" "$@"

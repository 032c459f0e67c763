#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: builds seqc, runs the CUDA backend's tests
# (GPU ones included: they need `nvidia-smi -L` to list a GPU) and the GPU
# benchmark, and writes everything to one report. About 10 minutes on an
# H200 from a clean checkout, most of it building.
#
#   scripts/gpu-check.sh [REPORT]       (default: build/gpu-check.md)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
report=${1:-$root/build/gpu-check.md}
mkdir -p "$(dirname "$report")"
status=0
section() { printf '\n## %s\n\n' "$1" >> "$report"; }
run() { # run TITLE CMD...: the command's output goes to the report, verbatim
  section "$1"; shift
  echo '```' >> "$report"
  "$@" >> "$report" 2>&1 || { echo "FAILED (exit $?)" >> "$report"; status=1; }
  echo '```' >> "$report"
}

echo "# seqc GPU check, $(date -u '+%Y-%m-%d %H:%M UTC')" > "$report"
run "GPU" nvidia-smi -L
run "Build" "$root/scripts/build.sh" seq-compile seq-allclose SeqCudaTests
run "seq-compile --doctor" "$root/build/bin/seq-compile" --doctor
run "CUDA lit tests" /usr/lib/llvm-22/bin/lit -sv "$root/build/test/Target/CUDA"
run "CUDA unit tests" "$root/build/unittests/SeqCudaTests"
section "Benchmark: fused kernels vs cuDNN"
"$root/bench/gpu/run.sh" "$root/build/bin/seq-compile" "$report" > /dev/null 2>> "$report" ||
  { echo "benchmark FAILED" >> "$report"; status=1; }
echo "report: $report"
exit $status

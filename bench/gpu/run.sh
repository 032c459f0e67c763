#!/usr/bin/env bash
# The GPU benchmark: seqc's fused persistent kernels against cuDNN
# (cudnnRNNForward) for LSTM and GRU, units 64 / 256 / 1024, batch 1 / 8 / 64,
# on (batch, 100, 64) inputs, timed through the C API (host in, host out).
#
#   bench/gpu/run.sh SEQ_COMPILE RESULTS.md
#
# Appends the environment and a markdown table to RESULTS.md. A few minutes
# on one GPU (most of it nvcc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seq_compile=${1:?usage: run.sh SEQ_COMPILE RESULTS.md}
results=${2:?usage: run.sh SEQ_COMPILE RESULTS.md}
work=$(mktemp -d -t seqc-gpu-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT

cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
arch=sm_${cap}
python3 "$here/make_models.py" "$work/models"

# Twelve libraries, built in parallel.
jobs=()
for cell in lstm gru; do
  for units in 64 256 1024; do
    for backend in fused cudnn; do
      jobs+=("$cell $units $backend")
    done
  done
done
printf '%s\n' "${jobs[@]}" | xargs -P "$(nproc)" -L 1 bash -c \
  '"$0" "$1/models/$2_$3.mlir" --target=cuda --cuda-arch='"$arch"' --rnn-backend=$4 -o "$1/lib$2_$3_$4.so"' \
  "$seq_compile" "$work"

c++ -std=c++17 -O2 "$here/bench_gpu.cpp" -ldl -o "$work/bench_gpu"
args=()
for cell in lstm gru; do
  for units in 64 256 1024; do
    for backend in fused cudnn; do
      args+=("$cell/$units/$backend=$work/lib${cell}_${units}_${backend}.so")
    done
  done
done

{
  echo
  echo "### $(date -u '+%Y-%m-%d %H:%M UTC'): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  echo
  echo "seqc $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), --cuda-arch=$arch; input (batch, 100, 64); latency per seqc_model_run call including the host-device copies."
  echo
} >> "$results"
"$work/bench_gpu" "$results" "${args[@]}"

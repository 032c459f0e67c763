#!/usr/bin/env bash
# Sets up, builds and runs the main job on a shipped model: the seed model
# (LSTM(64) -> Dense(32, relu) -> Dense(1), saved by real Keras) is
# summarised, fused, compiled to a shared library, run, checked against
# Keras' own output and compared with the eager reference.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" seq-compile seq-allclose
bin="$root/build/bin"
fixtures="$root/test/fixtures"
model="$fixtures/seed_build.h5"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

step() { printf '\n== %s\n' "$*"; }
step seq-compile seed_build.h5 --summary
"$bin/seq-compile" "$model" --summary
step "seq-compile seed_build.h5 --emit=fused (the ops; weights omitted here)"
"$bin/seq-compile" "$model" --emit=fused -o "$out/fused.mlir"
grep -E 'seq\.|func.func' "$out/fused.mlir" | cut -c1-150
step seq-compile seed_build.h5 -o libseed.so
"$bin/seq-compile" "$model" -o "$out/libseed.so"
ls -l "$out/libseed.so" "$out/libseed.h" | awk '{print $5, $9}'
step seq-compile seed_build.h5 --run --engine=jit --input seed_build.input.npy -o y.npy
"$bin/seq-compile" "$model" --run --engine=jit --input "$fixtures/seed_build.input.npy" -o "$out/y.npy"
step seq-allclose y.npy seed_build.expected.npy "(Keras' own predictions)"
"$bin/seq-allclose" "$out/y.npy" "$fixtures/seed_build.expected.npy"
step seq-compile seed_build.h5 --compare --engine=jit
"$bin/seq-compile" "$model" --compare --engine=jit --iterations=200

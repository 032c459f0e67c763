#!/usr/bin/env bash
# Sets up, builds and runs the main job on a shipped model.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
bin="$root/build/bin"
model="$root/test/fixtures/seed_build.h5"
if [ -x "$bin/seq-compile" ] && [ -f "$model" ]; then
  echo "== seq-compile $model --summary"
  "$bin/seq-compile" "$model" --summary
  echo "== seq-compile $model --emit=seq"
  "$bin/seq-compile" "$model" --emit=seq
else
  echo "== seq-opt on examples/seed.mlir"
  "$bin/seq-opt" "$root/examples/seed.mlir" --seq-strip-dropout
fi

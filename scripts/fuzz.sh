#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, clang-22, ASan+UBSan, ccache) into
# build-fuzz/ and runs each over a copy of its committed corpus.
#   scripts/fuzz.sh --smoke          about 20 s per harness (what CI runs)
#   scripts/fuzz.sh --seconds N      N s per harness (campaigns; docs/Security.md)
#   options: --results FILE          one "PASS|FAIL <harness>" line per harness
#            --lower                 keras_import also lowers each module it
#                                    converts to linalg on to the LLVM dialect
#                                    (bufferization, kernels; 4-5x fewer inputs
#                                    a second; RSS limit 2048 MB)
#            --update-corpus         merge what the campaign found (libFuzzer
#                                    -merge=1: only inputs with new coverage)
#                                    into fuzz/corpus/<harness>/
#            HARNESS...              run only these (default: every harness,
#                                    one per folder of fuzz/corpus/)
# Every run uses -timeout=10 -rss_limit_mb=1024 (2048 with --lower). Prints
# per harness the executions, the corpus size, the inputs on which the
# sandboxed reader child crashed or timed out (isolated as designed; kept in
# the campaign folder), the peak RSS of the harness and of its largest child,
# and any crash/timeout/oom/leak files (copied to fuzz/findings/<harness>/,
# which git ignores). Exits 1 on any finding or a child over 1 GiB. The
# harnesses run side by side, one per core (SEQ_JOBS=N: N at a time, and N
# compile jobs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
# Each harness has its corpus folder (fuzz/CMakeLists.txt lists the targets).
all=()
for dir in "$root"/fuzz/corpus/*/; do all+=("$(basename "$dir")"); done
seconds=20 results="" update=0 harnesses=() rss_limit=1024
while (($#)); do
  case "$1" in
    --smoke) seconds=20 ;;
    --seconds) seconds="$2"; shift ;;
    --results) results="$2"; shift ;;
    --lower) export SEQ_FUZZ_LOWER=1; rss_limit=2048 ;;
    --update-corpus) update=1 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) harnesses+=("$1") ;;
  esac
  shift
done
((${#harnesses[@]})) || harnesses=("${all[@]}")

export CCACHE_BASEDIR="$root"
if [ ! -f "$build/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS=-gline-tables-only -DCMAKE_CXX_FLAGS=-gline-tables-only \
    -DSEQ_FUZZ=ON -DSEQ_SANITIZE=address,undefined -DSEQ_BUILD_TESTS=OFF \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache >/dev/null
fi
ninja -C "$build" -j"${SEQ_JOBS:-2}" $(printf 'seq-fuzz-%s ' "${harnesses[@]}") | tail -1

export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
campaign="$build/campaign"

# One harness's run: its table row in $work/row, its findings (if any) in
# $work/found.
fuzz_one() {
  local h=$1 work="$campaign/$1" start elapsed execs found isolated rss child
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts" "$work/isolated"
  cp "$root/fuzz/corpus/$h/"* "$work/corpus/"
  start=$(date +%s)
  # libFuzzer exits non-zero on a finding; the artifacts tell which.
  SEQ_FUZZ_ISOLATED_DIR="$work/isolated" \
    "$build/bin/seq-fuzz-$h" -timeout=10 -rss_limit_mb="$rss_limit" \
    -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1 || true
  elapsed=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
  found=$(ls "$work/artifacts" | grep -E '^(crash|timeout|oom|leak|slow-unit)-' || true)
  if [ -z "$execs" ] && [ -z "$found" ]; then
    found="(no final stats: see $work/log)"
  fi
  isolated=$(sed -n 's/^stat::isolated_inputs: *//p' "$work/log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/log" | tail -1)
  child=$(sed -n 's/^stat::max_child_rss_mb: *//p' "$work/log" | tail -1)
  if [ "${child:-0}" -gt 1024 ]; then
    found="${found:+$found }(a sandboxed child peaked at $child MB)"
  fi
  printf '%-12s %11s %7s %6s %8s %9s %9s %s\n' "$h" "${execs:-?}" "$elapsed" \
    "$(ls "$work/corpus" | wc -l)" "${isolated:-?}" "${rss:-?}" "${child:-0}" \
    "${found:-none}" > "$work/row"
  printf '%s' "$found" > "$work/found"
}

# The harnesses run side by side, one per core (SEQ_JOBS=N: N at a time);
# their rows come in the order they were named.
side_by_side=${SEQ_JOBS:-$(nproc)}
for h in "${harnesses[@]}"; do
  while (( $(jobs -rp | wc -l) >= side_by_side )); do wait -n || true; done
  fuzz_one "$h" &
done
wait

[ -z "$results" ] || : > "$results"
findings=0
printf '%-12s %11s %7s %6s %8s %9s %9s %s\n' harness executions seconds corpus isolated rss_mb child_mb findings
for h in "${harnesses[@]}"; do
  work="$campaign/$h"
  if [ ! -f "$work/row" ]; then  # fuzz_one itself failed
    printf '%-12s %s\n' "$h" "(the run did not finish: see $work)"
    echo "run failed" > "$work/found"
  else
    cat "$work/row"
  fi
  if [ -s "$work/found" ]; then
    findings=1
    mkdir -p "$root/fuzz/findings/$h"
    cp "$work/artifacts/"* "$root/fuzz/findings/$h/" 2>/dev/null || true
    grep -E 'ERROR|SUMMARY|==[0-9]+==' "$work/log" | head -5 | sed 's/^/    /'
    [ -z "$results" ] || echo "FAIL $h" >> "$results"
  else
    [ -z "$results" ] || echo "PASS $h" >> "$results"
    if ((update)); then
      "$build/bin/seq-fuzz-$h" -merge=1 "$root/fuzz/corpus/$h" "$work/corpus" \
        >"$work/merge.log" 2>&1 || echo "    merge failed: see $work/merge.log"
    fi
  fi
done
exit $findings

#!/usr/bin/env bash
# Builds seqc with clang-22 and ASan+UBSan into build-asan/ (-DSEQ_SANITIZE)
# and runs the whole lit suite (lit tests and GoogleTest through lit) under it.
#   scripts/sanitize-test.sh [lit arguments...]
# Leak checking is on, with the packaged (uninstrumented) LLVM/MLIR libraries'
# process-lifetime allocations suppressed (scripts/lsan.supp); a failed
# allocation returns NULL as glibc's does (the sandbox tests rely on it; ASan
# would abort instead); tests whose measurements ASan skews (RSS growth) are
# marked `UNSUPPORTED: asan`. Tests that need
# a GPU skip as they do in the normal suite. Exit status: lit's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-asan"
export CCACHE_BASEDIR="$root"
if [ ! -f "$build/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS=-gline-tables-only -DCMAKE_CXX_FLAGS=-gline-tables-only \
    -DSEQ_SANITIZE=address,undefined \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
fi
ninja -C "$build" -j"${SEQ_JOBS:-2}" all SeqUnitTests
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:abort_on_error=0:check_initialization_order=1:detect_stack_use_after_return=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
/usr/lib/llvm-22/bin/lit -sv --time-tests -o "$build/test/results.json" "$@" \
  "$build/test" "$build/test/Unit"

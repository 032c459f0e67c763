#!/usr/bin/env bash
# The GPU check of seqc, from a pack made by scripts/gpu-pack.sh. Needs only
# the NVIDIA driver, nvcc (CUDA 13) and Python 3 (with the nvidia-cudnn-cu13
# wheel for the cuDNN rows); no LLVM, MLIR, network or seqc build.
#
#   ./run.sh [--simulate] [--only REGEX] [--no-bench] [RESULTS.md]
#
# On a GPU: compiles every model with nvcc (in parallel), checks each fixture
# against Keras' output and a wider random batch against seqc's eager engine
# (atol 1e-4; the fused kernels and cuDNN), then times fused vs cuDNN, and
# writes a markdown report (default: results.md next to this script).
# Exit status 0 only if every check passed; a machine without a visible GPU
# is an error. --simulate instead runs the fused checks on the CPU through
# seqc_cuda_sim.h (no GPU, no nvcc: a check of the pack itself).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
simulate=0 bench=1 only='' results=''
while [ $# -gt 0 ]; do
  case $1 in
    --simulate) simulate=1 bench=0 ;;
    --no-bench) bench=0 ;;
    --only) only=$2; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) results=$1 ;;
  esac
  shift
done
results=${results:-$here/results.md}
# SEQC_PACK_WORK=DIR keeps the binaries and compile logs there.
if [ -n "${SEQC_PACK_WORK:-}" ]; then
  work=$SEQC_PACK_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d -t seqc-gpu-pack-XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
jobs=$(nproc 2>/dev/null || echo 4)
die() { echo "error: $*" >&2; exit 1; }

if [ $simulate = 0 ]; then
  smi=${NVIDIA_SMI:-nvidia-smi}
  gpus=$("$smi" -L 2>/dev/null | grep -c '^GPU') ||
    die "no NVIDIA GPU is visible ('$smi -L' lists none): this pack checks seqc on a GPU; run it where one is (or with --simulate to check the pack itself on a CPU)"
  [ "$gpus" -ge 1 ] || die "no NVIDIA GPU is visible ('$smi -L' lists none)"
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  [ -x "$nvcc" ] || die "nvcc not found (PATH or /usr/local/cuda/bin): the pack compiles its models there"
  cap=$("$smi" --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
  arch="-gencode arch=compute_${cap},code=sm_${cap}"
  # The nvidia-cudnn wheel's folder (its layout differs between wheel versions).
  cudnn=$(python3 -c '
import glob, os, nvidia
for root in nvidia.__path__:
    for header in sorted(glob.glob(os.path.join(root, "**", "include", "cudnn.h"), recursive=True)):
        print(os.path.dirname(os.path.dirname(header))); raise SystemExit' 2>/dev/null || true)
  cudnn_flags=''
  if [ -n "$cudnn" ] && [ -d "$cudnn/include" ]; then
    [ -e "$cudnn/lib/libcudnn.so" ] || ln -sf "$(ls "$cudnn"/lib/libcudnn.so.* | head -1)" "$work/libcudnn.so"
    cudnn_flags="-I$cudnn/include -L$cudnn/lib -L$work -Xlinker -rpath,$cudnn/lib -lcudnn"
  elif [ -e "$(dirname "$nvcc")/../include/cudnn.h" ]; then # cuDNN installed with CUDA
    cudnn=$(cd "$(dirname "$nvcc")/.." && pwd)
    cudnn_flags="-lcudnn"
  fi
else
  cxx=${CXX:-c++}
  cudnn=''
fi

# Which checks and libraries to build.
filter() { if [ -n "$only" ]; then grep -E "^[^	]*($only)" || true; else cat; fi; }
filter < "$here/checks.tsv" > "$work/checks.tsv"
filter < "$here/bench.tsv" > "$work/bench.tsv"
if [ $simulate = 1 ] || [ -z "$cudnn" ]; then
  awk -F'\t' '$2 != "cudnn" && $2 != "auto"' "$work/checks.tsv" > "$work/c" && mv "$work/c" "$work/checks.tsv"
  awk -F'\t' '$2 != "cudnn" && $2 != "auto"' "$work/bench.tsv" > "$work/b" && mv "$work/b" "$work/bench.tsv"
fi
[ -s "$work/checks.tsv" ] || die "no checks match '${only}'"
# cuDNN's persistent algorithm beside its standard one, from the same source.
# Also the fused kernels with at least 8 and 32 units per block (fewer blocks
# to synchronize each step, more work each): SEQC_RECURRENCE_MIN_SLICE; and
# for the models of several recurrent layers (stack10_lstm_256, lstm_512_256)
# the layers one by one instead of one stacked launch; for the 256-unit ones
# that fit one thread-block cluster, the grid-wide plan instead; for the
# small and many-layer models, every call launched kernel by kernel instead
# of as one CUDA graph; for the 256- and 1024-unit ones, the input
# projection on TF32 tensor cores (--cuda-math=tf32); for the single-layer
# LSTM/GRU, the recurrent weights in shared memory instead of registers (the
# plan before the kernels were specialised per model; the slice variants
# are of that plan too).
awk -F'\t' -v OFS='\t' '{ print }
  $2 == "cudnn" { print $1, "cudnn_persist" }
  $2 == "fused" { print $1, "fused_slice8"; print $1, "fused_slice32" }
  $2 == "fused" && $1 ~ /^(stack|(lstm|gru)_[0-9]+_[0-9]+)/ { print $1, "fused_layers" }
  $2 == "fused" && $1 ~ /^(lstm|gru)_256$/ { print $1, "fused_grid" }
  $2 == "fused" && $1 ~ /^((lstm|gru)_64|stack10_lstm_256|cnn_32)$/ { print $1, "fused_nograph" }
  $2 == "fused" && $1 ~ /^(lstm|gru)_(256|1024)$/ { print $1, "fused_tf32" }
  $2 == "fused" && $1 ~ /^(lstm|gru)_[0-9]+$/ { print $1, "fused_shared" }' \
  "$work/bench.tsv" > "$work/b" &&
  mv "$work/b" "$work/bench.tsv"
mkdir -p "$work/bin" "$work/bench" "$work/failed"

# The runtime (the kernels without template parameters and the C API, the
# same for every model) compiled once; every model is built with
# -DSEQC_RUNTIME_LINKED and linked with it, as seq-compile builds a library.
runtime=$work/seqc_runtime.o
if [ $simulate = 1 ]; then
  "$cxx" -std=c++17 -O1 -w -DSEQC_CPU_SIMULATION -include "$here/src/seqc_cuda_sim.h" \
    -x c++ -c "$here/src/seqc_runtime.cu" -o "$runtime" > "$work/seqc_runtime.log" 2>&1
else
  # shellcheck disable=SC2086
  "$nvcc" -O3 -std=c++17 -w -c -Xcompiler -fPIC -Xcompiler -fvisibility=hidden $arch \
    "$here/src/seqc_runtime.cu" -o "$runtime" > "$work/seqc_runtime.log" 2>&1
fi || die "the runtime does not compile: $(grep -m1 -i error "$work/seqc_runtime.log")"

# Compile: one binary per (model, backend), in parallel.
export here work simulate nvcc arch cudnn_flags cxx runtime
compile() { # NAME BACKEND
  local cu=$here/checks/$1.$2.cu bin=$work/bin/$1.$2
  if [ "$simulate" = 1 ]; then
    "$cxx" -std=c++17 -O1 -w -DSEQC_CPU_SIMULATION -DSEQC_RUNTIME_LINKED -include "$here/src/seqc_cuda_sim.h" \
      -x c++ "$cu" -x c++ "$here/src/check_model.cpp" -x none "$runtime" -o "$bin" > "$bin.log" 2>&1
  else
    local flags=''
    case $2 in cudnn | auto) flags=$cudnn_flags ;; esac
    # shellcheck disable=SC2086
    "$nvcc" -O3 -std=c++17 -w $arch -DSEQC_RUNTIME_LINKED "$cu" "$here/src/check_model.cpp" "$runtime" $flags -o "$bin" > "$bin.log" 2>&1
  fi || echo "compile failed: $1 ($2): $(grep -m1 -i error "$bin.log")" >&2
}
compile_lib() { # MODEL BACKEND (fused, cudnn, auto; cudnn_persist, fused_sliceN, fused_layers, fused_grid, fused_nograph, fused_tf32, fused_shared: variants of the cudnn / fused source)
  local src=$1.$2 dir=$work/bench/$2 flags=''
  case $2 in
    cudnn | auto) flags=$cudnn_flags ;;
    cudnn_persist) src=$1.cudnn flags="$cudnn_flags -DSEQC_CUDNN_RNN_ALGO=CUDNN_RNN_ALGO_PERSIST_STATIC" ;;
    fused_slice*) src=$1.fused flags="-DSEQC_RECURRENCE_REGISTERS=0 -DSEQC_RECURRENCE_MIN_SLICE=${2#fused_slice}" ;;
    fused_shared) src=$1.fused flags="-DSEQC_RECURRENCE_REGISTERS=0" ;;
    fused_layers) src=$1.fused flags="-DSEQC_NO_STACKED_RECURRENCES" ;;
    fused_grid) src=$1.fused flags="-DSEQC_RECURRENCE_CLUSTERS=0" ;;
    fused_nograph) src=$1.fused flags="-DSEQC_NO_CUDA_GRAPHS" ;;
    fused_tf32) src=$1.fused flags="-DSEQC_GEMM_TF32" ;;
  esac
  mkdir -p "$dir"
  python3 -c 'import sys, zlib; open(sys.argv[2], "wb").write(zlib.decompress(open(sys.argv[1], "rb").read()))' \
    "$here/bench/$src.weights.z" "$dir/$src.weights"
  cp "$here/bench/$src.cu" "$dir/"
  # shellcheck disable=SC2086
  (cd "$dir" && timeout 600 "$nvcc" -O3 -std=c++17 -w -shared -Xcompiler -fPIC $arch \
     -DSEQC_RUNTIME_LINKED "$src.cu" "$runtime" $flags -o "$work/bench/lib$1.$2.so" > "$src.log" 2>&1) ||
    echo "compile failed: benchmark $1.$2: $(grep -m1 -i error "$dir/$src.log")" >&2
}
check() { # LINE: NAME BACKEND KIND INPUT EXPECTED ATOL, tab-separated
  local name backend kind input expected atol out
  IFS=$'\t' read -r name backend kind input expected atol <<< "$1"
  local bin=$work/bin/$name.$backend
  if [ ! -x "$bin" ]; then
    out="not compiled"
  else
    # A hung kernel must not stop the whole check.
    # A multi-input/output model's files are comma-separated lists.
    local inputs=$here/checks/${input//,/,$here/checks/}
    local expecteds=$here/checks/${expected//,/,$here/checks/}
    out=$(timeout 120 "$bin" "$inputs" "$expecteds" "$atol" 2>&1) && return 0
    [ $? = 124 ] && out="timed out after 120 s"
  fi
  echo "| $name | $backend | vs $kind | ${out//$'\n'/ } |" > "$work/failed/$name.$backend.$kind"
}
export -f compile compile_lib check
echo "compiling $(cut -f1,2 "$work/checks.tsv" | sort -u | wc -l) models$([ $bench = 1 ] && echo " and $(wc -l < "$work/bench.tsv") benchmark libraries") with $jobs jobs..." >&2
started=$(date +%s)
cut -f1,2 "$work/checks.tsv" | sort -u | xargs -P "$jobs" -L 1 bash -c 'compile "$0" "$1"'
[ $bench = 1 ] && xargs -P "$jobs" -L 1 bash -c 'compile_lib "$0" "$1"' < "$work/bench.tsv"
compiled=$(date +%s)

# Checks, several at a time: each process has its own context on the one GPU
# (nothing here is timed), and most of a check's time is creating it.
check_jobs=$([ $simulate = 1 ] && echo "$jobs" || echo $((jobs < 8 ? jobs : 8)))
tr '\n' '\0' < "$work/checks.tsv" | xargs -0 -P "$check_jobs" -n 1 bash -c 'check "$0"'
total=$(wc -l < "$work/checks.tsv")
failed=$(find "$work/failed" -type f | wc -l)
passed=$((total - failed))
find "$work/failed" -type f | sort | xargs -r cat > "$work/failures"
checked=$(date +%s)

{
  echo "# seqc GPU check, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "seqc $(cat "$here/REVISION")"
  if [ $simulate = 1 ]; then
    echo "CPU simulation (seqc_cuda_sim.h), $("$cxx" --version | head -1)"
  else
    echo "$("$smi" --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1), nvcc $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), ${arch#-gencode }, cuDNN: ${cudnn:-none found}"
  fi
  echo
  echo "checks: $passed passed, $failed failed (each fixture vs Keras and a batch of 64 vs the eager engine, atol 1e-4); compile $((compiled - started)) s, checks $((checked - compiled)) s"
  if [ -s "$work/failures" ]; then
    echo
    echo "| model | backend | check | result |"
    echo "|---|---|---|---|"
    cat "$work/failures"
  fi
} > "$results"

status=0
[ $failed = 0 ] || status=1
if [ $bench = 1 ] && [ -s "$work/bench.tsv" ]; then
  c++ -std=c++17 -O2 "$here/src/bench_gpu.cpp" -ldl -o "$work/bench_gpu" || status=1
  args=()
  while IFS=$'\t' read -r model backend; do
    [ -e "$work/bench/lib$model.$backend.so" ] && args+=("${model//_//}/$backend=$work/bench/lib$model.$backend.so")
  done < "$work/bench.tsv"
  {
    echo
    echo "## fused kernels vs cuDNN"
    echo
    echo "input (batch, 100, 64); latency per seqc_model_run call, host input in and host output out."
    echo
  } >> "$results"
  # Each library says at create how its recurrences run on this GPU (one
  # block, one cluster, grid barriers; stacked or one by one), and an auto
  # library at its first call with each shape what its convolutions took on
  # the direct kernel and on cuDNN, and which it kept.
  SEQC_CUDA_PLANS=1 LD_LIBRARY_PATH=${cudnn:+$cudnn/lib:}${LD_LIBRARY_PATH:-} \
    "$work/bench_gpu" "$results" "${args[@]}" > /dev/null 2> "$work/bench.stderr" || status=1
  grep -v "^seqc: \(model\|layer\) " "$work/bench.stderr" >&2
  {
    echo
    echo "### How the recurrences and convolutions ran"
    echo
    grep "^seqc: \(model\|layer\) " "$work/bench.stderr" | sed 's/^seqc: /    /'
  } >> "$results"
fi
cat "$results"
exit $status

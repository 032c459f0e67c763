"""Builds the GPU pack: everything the GPU check needs, for a machine that
has the NVIDIA driver, nvcc and Python but no LLVM/MLIR (see
scripts/gpu-pack.sh, which calls this, and bench/gpu/pack_run.sh, which
becomes the pack's run.sh).

  pack.py SEQ_COMPILE OUT_DIR [--only REGEX] [--limit-mib N]

What goes in:
  checks/    per fixture and backend (fused; cudnn where seqc accepts it; auto,
             the convolutions on the faster of seqc's and cuDNN's, where
             cuDNN runs one):
             NAME.BACKEND.cu (the emitted CUDA source, its kernel library
             replaced by an #include of the one copy, kernels_HASH.cuh, that
             the fixtures with the same library share), the fixture's input
             and Keras' output, and a wider random batch with the eager
             engine's output on it (what --compare checks on a GPU)
  bench/     the benchmark models (bench/gpu/make_models.py) as
             MODEL.BACKEND.cu + MODEL.BACKEND.weights.z (zlib); BACKEND is
             fused, cudnn, or for the CNN also auto (--conv-backend=auto)
  src/       check_model.cpp (and its seqc_c_api.h), bench_gpu.cpp, seqc_cuda_sim.h
             and seqc_cudnn_sim.h, seqc_runtime.cu (the C API, which run.sh
             compiles once and links with every model, as seq-compile does)
  checks.tsv one line per check: NAME BACKEND KIND INPUT EXPECTED ATOL
  bench.tsv  one line per benchmark library: MODEL BACKEND
Standard library only."""
import argparse
import array
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "test", "fixtures")
sys.path.insert(0, os.path.join(ROOT, "test", "Target", "CUDA", "Inputs"))
sys.path.insert(0, os.path.join(ROOT, "test", "Inputs"))
import cuda_fixtures  # noqa: E402  (model_args: how each fixture is loaded)
import npy_rows  # noqa: E402  (float32 .npy read and write)

BENCH_MODELS = ["%s_%d" % (cell, units) for cell in ("lstm", "gru") for units in (64, 256, 1024)]
BENCH_MODELS += ["stack10_lstm_256", "lstm_512_256"]  # the 10-layer stack; the launch-limit case
BENCH_MODELS += ["cnn_32"]  # the VGG-style CNN: direct convolutions against cuDNN's
COMPARE_BATCH = 64


def run(args, cwd=None):
    p = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout.strip()


def compare_input(name, shape, values):
    """A batch of COMPARE_BATCH rows like the fixture's: random in the range
    of its values, or its rows repeated when they are ids (integers)."""
    row = len(values) // shape[0]
    rows = [values[i * row:(i + 1) * row] for i in range(shape[0])]
    if all(v == int(v) for v in values):
        picked = [rows[i % len(rows)] for i in range(COMPARE_BATCH)]
    else:
        rng = random.Random(name)
        lo, hi = min(values), max(values)
        picked = [[rng.uniform(lo, hi) for _ in range(row)] for _ in range(COMPARE_BATCH)]
    return (COMPARE_BATCH,) + tuple(shape[1:]), [v for r in picked for v in r]


# Where the runtime's copy in an emitted .cu begins (it runs to the end).
RUNTIME_PART = "#ifndef SEQC_RUNTIME_LINKED"


def pack_fixture(fx, seq_compile, out, lines, notes):
    name = fx["name"]
    model = cuda_fixtures.model_args(FIXTURES, fx)
    checks = os.path.join(out, "checks")
    shutil.copy(os.path.join(FIXTURES, fx["input"]), os.path.join(checks, name + ".input.npy"))
    shutil.copy(os.path.join(FIXTURES, fx["expected"]), os.path.join(checks, name + ".expected.npy"))
    shape, values = npy_rows.read(os.path.join(FIXTURES, fx["input"]))
    cshape, cvalues = compare_input(name, shape, values)
    npy_rows.write(os.path.join(checks, name + ".compare.npy"), cshape, array.array("f", cvalues))
    rc, text = run([seq_compile] + model + ["--run", "--engine=eager", "--input",
                                              os.path.join(checks, name + ".compare.npy"),
                                              "-o", os.path.join(checks, name + ".eager.npy")])
    if rc != 0:
        raise SystemExit("pack: %s: the eager engine failed: %s" % (name, text))
    for backend in emit_backends(name, model, checks, seq_compile, notes):
        lines.append("%s\t%s\tkeras\t%s.input.npy\t%s.expected.npy\t1e-4" % (name, backend, name, name))
        lines.append("%s\t%s\teager\t%s.compare.npy\t%s.eager.npy\t1e-4" % (name, backend, name, name))


def backend_flags(backend):
    """seq-compile's flags for a pack backend: fused (seqc's kernels), cudnn
    (cuDNN's recurrences and convolutions) or auto (seqc's recurrences, each
    convolution on the faster of seqc's and cuDNN's)."""
    return ["--rnn-backend=" + ("cudnn" if backend == "cudnn" else "fused"),
            "--conv-backend=" + {"fused": "direct", "cudnn": "cudnn", "auto": "auto"}[backend]]


def emit_backends(name, model, checks, seq_compile, notes):
    """The fixture's .cu for each backend, into checks/: seqc's kernels, and
    cuDNN for the recurrences and convolutions it takes; the backends that
    emitted it (cuDNN's refusals go to the notes)."""
    emitted = []
    for backend in ("fused", "cudnn", "auto"):
        cu = os.path.join(checks, "%s.%s.cu" % (name, backend))
        flags = backend_flags(backend)
        # auto (each convolution on the faster of the direct kernel and
        # cuDNN) only where cuDNN runs a convolution of the fixture.
        if backend == "auto" and not (emitted and emitted[-1] == "cudnn" and
                                      "cudnn_conv_run<" in open(os.path.join(
                                          checks, "%s.cudnn.cu" % name)).read()):
            continue
        rc, text = run([seq_compile] + model + ["--target=cuda", "--emit=cuda"] + flags +
                       ["-o", cu])
        if rc != 0:
            if backend == "cudnn" and "use --rnn-backend=fused" in text:
                notes.append("%s: cudnn refused (%s)" % (name, text.splitlines()[-1][:160]))
                continue
            raise SystemExit("pack: %s (%s): emission failed: %s" % (name, backend, text))
        share_library(cu, checks)
        emitted.append(backend)
    return emitted


def share_library(cu, checks):
    """Replaces the kernel library that opens the emitted file `cu` by an
    #include of one copy in checks/, named by its content (the same for every
    fixture of a backend), and drops the runtime that closes it (run.sh links
    src/seqc_runtime.cu, compiled once): 400 copies of either would not fit
    the pack."""
    with open(cu) as f:
        source = f.read()
    runtime = source.index(RUNTIME_PART)
    source = source[:runtime] + "// The runtime: src/seqc_runtime.cu, which run.sh links.\n"
    split = source.index(cuda_fixtures.MODEL_PART)
    lines = source[:split].splitlines(True)
    banner = []
    while lines and lines[0].startswith("//"):
        banner.append(lines.pop(0))
    library = "".join(lines)
    name = "kernels_%s.cuh" % hashlib.sha256(library.encode()).hexdigest()[:12]
    path = os.path.join(checks, name)
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(library)
    with open(cu, "w") as f:
        f.write("".join(banner) + '#include "%s"\n' % name + source[split:])


def pack_ports(fx, seq_compile, out, lines, notes):
    """A multi-input/output fixture: its port files, checked against Keras
    (check_model.cpp takes comma-separated lists)."""
    name = fx["name"]
    model = cuda_fixtures.model_args(FIXTURES, fx)
    checks = os.path.join(out, "checks")
    for port in fx["inputs"] + fx["outputs"]:
        shutil.copy(os.path.join(FIXTURES, port["file"]), os.path.join(checks, port["file"]))
    inputs = ",".join(p["file"] for p in fx["inputs"])
    expected = ",".join(p["file"] for p in fx["outputs"])
    for backend in emit_backends(name, model, checks, seq_compile, notes):
        lines.append("%s\t%s\tkeras\t%s\t%s\t1e-4" % (name, backend, inputs, expected))


def pack_bench(seq_compile, out, models, lines):
    work = os.path.join(out, "bench", "mlir")
    subprocess.run([sys.executable, os.path.join(HERE, "make_models.py"), work] + models, check=True)
    for model in models:
        # auto: the CNN's convolutions on whichever of the direct kernel and
        # cuDNN its first call measures faster.
        backends = ("fused", "cudnn", "auto") if model.startswith("cnn") else ("fused", "cudnn")
        for backend in backends:
            base = os.path.join(out, "bench", "%s.%s" % (model, backend))
            # The source pulls the weights in by this relative name: run.sh
            # runs nvcc from the directory that holds them.
            rc, text = run([seq_compile, os.path.join(work, model + ".mlir"), "--target=cuda",
                            "--emit=cuda"] + backend_flags(backend) + [
                            "--cuda-weights=%s.%s.weights" % (model, backend),
                            "-o", base + ".cu"], cwd=os.path.join(out, "bench"))
            if rc != 0:
                raise SystemExit("pack: benchmark %s (%s): %s" % (model, backend, text))
            with open(base + ".weights", "rb") as f:
                weights = f.read()
            with open(base + ".weights.z", "wb") as f:
                f.write(zlib.compress(weights, 6))
            os.remove(base + ".weights")
            lines.append("%s\t%s" % (model, backend))
    shutil.rmtree(work)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("seq_compile")
    ap.add_argument("out")
    ap.add_argument("--only", help="fixtures and benchmark models whose name matches this regex")
    ap.add_argument("--limit-mib", type=float, default=60)
    args = ap.parse_args()
    only = re.compile(args.only) if args.only else None
    out = args.out
    if os.path.exists(out):
        shutil.rmtree(out)
    for sub in ("checks", "bench", "src"):
        os.makedirs(os.path.join(out, sub))

    with open(os.path.join(FIXTURES, "manifest.json")) as f:
        manifest = json.load(f)
    fixtures = [fx for fx in manifest["fixtures"] if not only or only.search(fx["name"])]
    ports = [fx for fx in manifest["multi_io"] if not only or only.search(fx["name"])]
    checks, notes = [], []
    for fx in fixtures:
        pack_fixture(fx, args.seq_compile, out, checks, notes)
    for fx in ports:
        pack_ports(fx, args.seq_compile, out, checks, notes)
    bench = []
    models = [m for m in BENCH_MODELS if not only or only.search(m)]
    if models:
        pack_bench(args.seq_compile, out, models, bench)

    kernels = os.path.join(ROOT, "lib", "Target", "CUDA", "kernels")
    for name in ("check_model.cpp", "seqc_c_api.h"):
        shutil.copy(os.path.join(ROOT, "test", "Target", "CUDA", "Inputs", name),
                    os.path.join(out, "src"))
    shutil.copy(os.path.join(HERE, "bench_gpu.cpp"), os.path.join(out, "src"))
    rc, text = run([args.seq_compile, "--emit=cuda-runtime", "-o",
                    os.path.join(out, "src", "seqc_runtime.cu")])
    if rc != 0:
        print("error: seq-compile --emit=cuda-runtime: " + text)
        return 1
    for name in ("seqc_cuda_sim.h", "seqc_cudnn_sim.h"):
        shutil.copy(os.path.join(kernels, name), os.path.join(out, "src"))
    shutil.copy(os.path.join(HERE, "pack_run.sh"), os.path.join(out, "run.sh"))
    os.chmod(os.path.join(out, "run.sh"), 0o755)
    with open(os.path.join(out, "checks.tsv"), "w") as f:
        f.write("".join(line + "\n" for line in checks))
    with open(os.path.join(out, "bench.tsv"), "w") as f:
        f.write("".join(line + "\n" for line in bench))
    rc, revision = run(["git", "-C", ROOT, "describe", "--always", "--dirty"])
    with open(os.path.join(out, "REVISION"), "w") as f:
        f.write((revision if rc == 0 else "unknown") + "\n")
    with open(os.path.join(out, "NOTES"), "w") as f:
        f.write("".join(n + "\n" for n in notes))

    size = sum(os.path.getsize(os.path.join(d, n)) for d, _, names in os.walk(out) for n in names)
    print("gpu pack: %d checks of %d fixtures, %d benchmark libraries, %.1f MiB in %s"
          % (len(checks), len(fixtures) + len(ports), len(bench), size / 2**20, out))
    if size > args.limit_mib * 2**20:
        print("error: the pack is %.1f MiB, over its %g MiB limit" % (size / 2**20, args.limit_mib))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

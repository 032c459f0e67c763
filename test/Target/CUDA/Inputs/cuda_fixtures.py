"""Runs every good fixture of test/fixtures/manifest.json through the CUDA
backend in one of three ways, in parallel, and prints one line per failure
and a summary line:

  cuda_fixtures.py sim  WORK FIXTURES SEQ_COMPILE CXX KERNELS INPUTS
      --emit=cuda, compiled by the host C++ compiler under seqc_cuda_sim.h
      (the CPU stand-in for CUDA) with check_model.cpp, run against Keras'
      output within 1e-4. Needs no GPU.
  cuda_fixtures.py nvcc WORK FIXTURES SEQ_COMPILE ARCH
      --emit=cuda for every fixture, grouped by kernel configuration (the
      set of kernel template instances its code launches); for one fixture
      of each configuration, --target=cuda --cuda-arch=ARCH -o lib.so: nvcc
      compiles and links it and the library exports the seqc C API. The
      host code around the kernels is compiled for every fixture by the sim
      mode. Needs nvcc.
  cuda_fixtures.py gpu  WORK FIXTURES SEQ_COMPILE SEQ_ALLCLOSE ENGINE
      seq-compile --run --engine=ENGINE (cuda or cudnn) against Keras' output
      (atol 1e-4). Needs a GPU. For cudnn, models cuDNN cannot express are
      counted as refused (with the message checked), not failed.

Standard library only."""
import concurrent.futures
import json
import os
import re
import subprocess
import sys

API = ["seqc_model_create", "seqc_model_create_sized", "seqc_model_destroy",
       "seqc_model_run", "seqc_last_error", "seqc_model_output_size",
       "seqc_model_input_size", "seqc_model_max_batch", "seqc_model_max_seq_len",
       "seqc_model_input_rank", "seqc_model_input_dim", "seqc_model_output_rank",
       "seqc_model_output_dim", "seqc_model_metadata_json", "seqc_model_state_size",
       "seqc_model_state_count", "seqc_model_state_layer", "seqc_model_state_offset",
       "seqc_model_get_state", "seqc_model_set_state", "seqc_model_reset_state"]


def run(args, **kwargs):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kwargs)
    return p.returncode, p.stdout.strip()


def model_args(fixtures, fixture):
    args = [os.path.join(fixtures, fixture["model"])]
    if fixture.get("config"):
        args += ["--config", os.path.join(fixtures, fixture["config"])]
    return args


def emit_cuda(fixture, work, fixtures, seq_compile):
    """(the fixture's emitted .cu, None), or (None, a failure line)."""
    name = fixture["name"]
    cu = os.path.join(work, name + ".cu")
    rc, text = run([seq_compile] + model_args(fixtures, fixture) +
                   ["--target=cuda", "--emit=cuda", "-o", cu])
    return (cu, None) if rc == 0 else (None, "FAIL %s: emission failed: %s" % (name, text))


def check_sim(fixture, work, fixtures, seq_compile, cxx, kernels, checker):
    name = fixture["name"]
    cu, failure = emit_cuda(fixture, work, fixtures, seq_compile)
    if failure:
        return failure
    binary = os.path.join(work, name + ".sim")
    rc, text = run([cxx, "-std=c++17", "-O0", "-w", "-DSEQC_CPU_SIMULATION",
                    "-include", os.path.join(kernels, "seqc_cuda_sim.h"),
                    "-x", "c++", cu, "-x", "none", checker, "-o", binary])
    if rc != 0:
        return "FAIL %s: does not compile under the simulation: %s" % (name, text[:400])
    rc, text = run([binary, os.path.join(fixtures, fixture["input"]),
                    os.path.join(fixtures, fixture["expected"]), "1e-4"])
    return None if rc == 0 else "FAIL %s: %s" % (name, text)


def kernel_configuration(fixture, work, fixtures, seq_compile):
    """The kernel template instances the fixture's emitted code uses, or a
    failure line."""
    cu, failure = emit_cuda(fixture, work, fixtures, seq_compile)
    if failure:
        return failure
    with open(cu) as f:
        source = f.read()
    model = source[source.index("// ===== the model"):]
    return tuple(sorted(set(re.findall(r"seqc::[a-z_0-9]+<[^<>()]*>", model))))


def check_nvcc(fixture, work, fixtures, seq_compile, arch):
    name = fixture["name"]
    lib = os.path.join(work, "lib%s_cuda.so" % name)
    rc, text = run([seq_compile] + model_args(fixtures, fixture) +
                   ["--target=cuda", "--cuda-arch=" + arch, "-o", lib])
    if rc != 0:
        return "FAIL %s: %s" % (name, text)
    if not os.path.exists(lib[:-3] + ".h"):
        return "FAIL %s: no header next to the library" % name
    rc, text = run(["nm", "-D", "--defined-only", lib])
    exported = {line.split()[-1] for line in text.splitlines() if line.strip()}
    missing = [f for f in API if f not in exported]
    return "FAIL %s: the library lacks %s" % (name, ", ".join(missing)) if missing else None


def check_gpu(fixture, work, fixtures, seq_compile, allclose, engine):
    name = fixture["name"]
    out = os.path.join(work, "%s.%s.npy" % (name, engine))
    rc, text = run([seq_compile] + model_args(fixtures, fixture) +
                   ["--run", "--input", os.path.join(fixtures, fixture["input"]),
                    "--engine=" + engine, "-o", out])
    if rc != 0:
        if engine == "cudnn" and "--rnn-backend=cudnn" in text and "use --rnn-backend=fused" in text:
            return "REFUSED"
        return "FAIL %s: %s" % (name, text)
    rc, text = run([allclose, out, os.path.join(fixtures, fixture["expected"]),
                    "--atol", "1e-4", "--rtol", "0"])
    return None if rc == 0 else "FAIL %s: %s" % (name, text)


def main():
    mode, work, fixtures = sys.argv[1:4]
    rest = sys.argv[4:]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(fixtures, "manifest.json")) as f:
        good = json.load(f)["fixtures"]
    workers = os.cpu_count() or 2
    if mode == "sim":
        seq_compile, cxx, kernels, inputs = rest
        checker = os.path.join(work, "check_model.o")
        rc, text = run([cxx, "-std=c++17", "-O1", "-c",
                        os.path.join(inputs, "check_model.cpp"), "-o", checker])
        if rc != 0:
            print("FAIL check_model.cpp does not compile: " + text)
            return 1
        job = lambda fx: check_sim(fx, work, fixtures, seq_compile, cxx, kernels, checker)
        what = "match Keras within 1e-4 in the CPU simulation"
    elif mode == "nvcc":
        seq_compile, arch = rest
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            configs = list(pool.map(
                lambda fx: kernel_configuration(fx, work, fixtures, seq_compile), good))
        failures = [c for c in configs if isinstance(c, str)]
        first = {}
        for fx, config in zip(good, configs):
            if not isinstance(config, str):
                first.setdefault(config, fx)
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            built = list(pool.map(lambda fx: check_nvcc(fx, work, fixtures, seq_compile, arch),
                                  first.values()))
        failures += [r for r in built if r]
        for r in failures:
            print(r)
        print("%d of %d fixtures emit CUDA; %d of %d kernel configurations build with nvcc "
              "for %s" % (len(good) - sum(isinstance(c, str) for c in configs), len(good),
                          len(first) - sum(bool(r) for r in built), len(first), arch))
        return 1 if failures else 0
    elif mode == "gpu":
        seq_compile, allclose, engine = rest
        job = lambda fx: check_gpu(fx, work, fixtures, seq_compile, allclose, engine)
        what = "match Keras within 1e-4 on the GPU (engine %s)" % engine
    else:
        print("unknown mode " + mode)
        return 2
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(job, good))
    failures = [r for r in results if r and r != "REFUSED"]
    refused = results.count("REFUSED")
    for r in failures:
        print(r)
    print("%d of %d fixtures %s%s" % (len(good) - len(failures) - refused, len(good), what,
                                      "; %d refused by cuDNN" % refused if refused else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

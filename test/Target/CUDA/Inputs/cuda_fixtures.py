"""Runs every good fixture of test/fixtures/manifest.json through the CUDA
backend in one of three ways, in parallel, and prints one line per failure
and a summary line:

  cuda_fixtures.py sim  WORK FIXTURES SEQ_COMPILE CXX KERNELS INPUTS
      --emit=cuda, compiled by the host C++ compiler under seqc_cuda_sim.h
      (the CPU stand-in for CUDA) with check_model.cpp and the runtime
      (compiled once, as seq-compile does), run against Keras' output within
      1e-4; the multi-input/output fixtures too, through
      seqc_model_run_all. Needs no GPU.
  cuda_fixtures.py nvcc WORK FIXTURES SEQ_COMPILE ARCH NVCC
      --emit=cuda for every fixture; nvcc compiles, once, every kernel
      template instance any fixture launches (one translation unit of the
      kernel library taking each instance's address), and builds the full
      library (--target=cuda --cuda-arch=ARCH -o lib.so) of the fewest
      fixtures whose code calls every kernel entry point any fixture calls:
      each links and exports the seqc C API. The host code of every fixture
      is compiled by the sim mode. Needs nvcc.
  cuda_fixtures.py gpu  WORK FIXTURES SEQ_COMPILE SEQ_ALLCLOSE ENGINE
      seq-compile --run --engine=ENGINE (cuda or cudnn) against Keras' output
      (atol 1e-4), a multi-input/output model with --input NAME=FILE and one
      output file per output. Needs a GPU. For cudnn, models cuDNN cannot express are
      counted as refused (with the message checked), not failed.

Standard library only."""
import collections
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
       "seqc_model_get_state", "seqc_model_set_state", "seqc_model_reset_state",
       "seqc_model_run_all", "seqc_model_input_count", "seqc_model_output_count",
       "seqc_model_input_name", "seqc_model_output_name", "seqc_model_input_rank_of",
       "seqc_model_input_dim_of", "seqc_model_output_rank_of", "seqc_model_output_dim_of",
       "seqc_model_input_size_of", "seqc_model_output_size_of", "seqc_model_output_shape_of"]


# SEQC_FIXTURE_FLAGS="--conv-backend=auto ...": more seq-compile flags for
# the sim and nvcc modes' emission.
EXTRA_FLAGS = os.environ.get("SEQC_FIXTURE_FLAGS", "").split()


def run(args, **kwargs):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kwargs)
    return p.returncode, p.stdout.strip()


def port_fixture(entry):
    """A multi_io manifest entry in the form of a good fixture: its "input"
    and "expected" are comma-separated lists, one file per port in the
    model's order (as check_model.cpp takes them)."""
    fx = dict(entry)
    fx["input"] = ",".join(p["file"] for p in entry["inputs"])
    fx["expected"] = ",".join(p["file"] for p in entry["outputs"])
    return fx


def port_paths(fixtures, files):
    """FIXTURES/a,FIXTURES/b of "a,b"."""
    return ",".join(os.path.join(fixtures, f) for f in files.split(","))


def model_args(fixtures, fixture):
    args = [os.path.join(fixtures, fixture["model"])]
    if fixture.get("config"):
        args += ["--config", os.path.join(fixtures, fixture["config"])]
    return args


def emit_cuda(fixture, work, fixtures, seq_compile):
    """(the fixture's emitted .cu, None), or (None, a failure line)."""
    name = fixture["name"]
    cu = os.path.join(work, name + ".cu")
    rc, text = run([seq_compile] + model_args(fixtures, fixture) + EXTRA_FLAGS +
                   ["--target=cuda", "--emit=cuda", "-o", cu])
    return (cu, None) if rc == 0 else (None, "FAIL %s: emission failed: %s" % (name, text))


# Where an emitted file's kernel library ends and the model's code begins.
MODEL_PART = "// ===== the model"


def emit_parts(fixture, work, fixtures, seq_compile):
    """(the emitted .cu, its kernel library's text, its model's code), or a
    failure line."""
    cu, failure = emit_cuda(fixture, work, fixtures, seq_compile)
    if failure:
        return failure
    with open(cu) as f:
        source = f.read()
    split = source.index(MODEL_PART)
    return cu, source[:split], source[split:]


SIM_FLAGS = ["-std=c++17", "-O0", "-w", "-DSEQC_CPU_SIMULATION"]


def without_banner(library):
    """The kernel library's text without the comment lines that open every
    emitted file (they name the model)."""
    lines = library.splitlines(True)
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "".join(lines)


# A precompiled kernel library: its text, the flags that include it, the
# objects to link with it.
Precompiled = collections.namedtuple("Precompiled", "library flags objects")


def is_clang(cxx):
    return "clang" in run([cxx, "--version"])[1]


def precompile_library(work, fixtures, seq_compile, cxx, kernels, fixture):
    """The simulation header and the kernel library (as one fixture's file
    has it) precompiled (a Precompiled), or None when that does not
    build (each file is then compiled whole). With clang the header's
    template instances and inline functions are compiled once too, into the
    precompiled header and its object, instead of into every fixture's
    object (a fixture's compile goes from 0.6 to 0.2 s)."""
    parts = emit_parts(fixture, work, fixtures, seq_compile)
    if isinstance(parts, str):
        return None
    library = without_banner(parts[1])
    header = os.path.join(work, "kernel_library.h")
    with open(header, "w") as f:
        f.write('#include "%s"\n' % os.path.join(kernels, "seqc_cuda_sim.h") + library)
    if not is_clang(cxx):
        rc, _ = run([cxx] + SIM_FLAGS + ["-x", "c++-header", header, "-o", header + ".gch"])
        return Precompiled(library, ["-include", header], []) if rc == 0 else None
    pch = header + ".pch"
    rc, _ = run([cxx] + SIM_FLAGS + ["-fpch-instantiate-templates", "-fpch-codegen",
                                     "-x", "c++-header", header, "-o", pch])
    if rc == 0:
        rc, _ = run([cxx] + SIM_FLAGS + ["-c", pch, "-o", pch + ".o"])
    return Precompiled(library, ["-include-pch", pch], [pch + ".o"]) if rc == 0 else None


def compile_runtime(work, seq_compile, cxx, kernels):
    """The runtime (seq-compile --emit=cuda-runtime) compiled once under the
    simulation, as seq-compile compiles it once for nvcc: its path, or a
    failure line."""
    source = os.path.join(work, "runtime.cu")
    rc, text = run([seq_compile, "--emit=cuda-runtime", "-o", source])
    if rc == 0:
        rc, text = run([cxx] + SIM_FLAGS + ["-include", os.path.join(kernels, "seqc_cuda_sim.h"),
                                            "-x", "c++", "-c", source, "-o", source + ".o"])
    return source + ".o" if rc == 0 else "FAIL the runtime does not compile: " + text[:400]


def check_sim(fixture, work, fixtures, seq_compile, cxx, kernels, checker, pch, runtime):
    name = fixture["name"]
    parts = emit_parts(fixture, work, fixtures, seq_compile)
    if isinstance(parts, str):
        return parts
    cu, own_library, model = parts
    binary = os.path.join(work, name + ".sim")
    if pch and without_banner(own_library) == pch.library:
        # Only the model's part is compiled; the library comes precompiled.
        part = os.path.join(work, name + ".model.cpp")
        with open(part, "w") as f:
            f.write(model)
        unit, objects = pch.flags + ["-x", "c++", part], pch.objects
    else:
        unit, objects = ["-include", os.path.join(kernels, "seqc_cuda_sim.h"), "-x", "c++", cu], []
    # The runtime comes compiled too (the model's code leaves its copy out).
    rc, text = run([cxx] + SIM_FLAGS + ["-DSEQC_RUNTIME_LINKED"] + unit +
                   ["-x", "none", runtime, checker] + objects + ["-o", binary])
    if rc != 0:
        return "FAIL %s: does not compile under the simulation: %s" % (name, text[:400])
    rc, text = run([binary, port_paths(fixtures, fixture["input"]),
                    port_paths(fixtures, fixture["expected"]), "1e-4"])
    return None if rc == 0 else "FAIL %s: %s" % (name, text)


def kernel_use(fixture, work, fixtures, seq_compile):
    """(the kernel library's text, the kernel template instances the
    fixture's code uses, the kernel entry points it calls), or a failure
    line."""
    parts = emit_parts(fixture, work, fixtures, seq_compile)
    if isinstance(parts, str):
        return parts
    _, library, model = parts
    return (library, set(re.findall(r"seqc::[a-z_0-9]+<[^<>()]*>", model)),
            set(re.findall(r"seqc::([a-z_0-9]+)[<(]", model)))


def compile_instances(work, library, instances, arch, nvcc):
    """nvcc compiles every instance in one translation unit; a failure
    line or None."""
    unit = os.path.join(work, "instances.cu")
    with open(unit, "w") as f:
        f.write(library + "\nvoid seqc_every_instance() {\n")
        f.writelines("  (void)&%s;\n" % i for i in sorted(instances))
        f.write("}\n")
    rc, text = run([nvcc, "-std=c++17", "-O3", "-w", "-arch=" + arch, "-c", unit,
                    "-o", unit + ".o"])
    return None if rc == 0 else "FAIL the kernel template instances: %s" % text[-2000:]


def check_nvcc(fixture, work, fixtures, seq_compile, arch):
    name = fixture["name"]
    lib = os.path.join(work, "lib%s_cuda.so" % name)
    rc, text = run([seq_compile] + model_args(fixtures, fixture) + EXTRA_FLAGS +
                   ["--target=cuda", "--cuda-arch=" + arch, "-o", lib])
    if rc != 0:
        return "FAIL %s: %s" % (name, text)
    if not os.path.exists(lib[:-3] + ".h"):
        return "FAIL %s: no header next to the library" % name
    rc, text = run(["nm", "-D", "--defined-only", lib])
    exported = {line.split()[-1] for line in text.splitlines() if line.strip()}
    missing = [f for f in API if f not in exported]
    return "FAIL %s: the library lacks %s" % (name, ", ".join(missing)) if missing else None


def check_gpu_ports(fixture, work, fixtures, seq_compile, allclose, engine):
    """check_gpu of a multi_io fixture: --input NAME=FILE per input, -o DIR/
    receiving one NAME.npy per output."""
    name = fixture["name"]
    out = os.path.join(work, "%s.%s" % (name, engine)) + os.sep
    inputs = []
    for port in fixture["inputs"]:
        inputs += ["--input", "%s=%s" % (port["name"], os.path.join(fixtures, port["file"]))]
    rc, text = run([seq_compile] + model_args(fixtures, fixture) + ["--run"] + inputs +
                   ["--engine=" + engine, "-o", out])
    if rc != 0:
        if engine == "cudnn" and "--rnn-backend=cudnn" in text and "use --rnn-backend=fused" in text:
            return "REFUSED"
        return "FAIL %s: %s" % (name, text)
    for port in fixture["outputs"]:
        rc, text = run([allclose, os.path.join(out, port["name"] + ".npy"),
                        os.path.join(fixtures, port["file"]), "--atol", "1e-4", "--rtol", "0"])
        if rc != 0:
            return "FAIL %s (output %s): %s" % (name, port["name"], text)
    return None


def check_gpu(fixture, work, fixtures, seq_compile, allclose, engine):
    if "inputs" in fixture:
        return check_gpu_ports(fixture, work, fixtures, seq_compile, allclose, engine)
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
        manifest = json.load(f)
    good = manifest["fixtures"]
    # The multi-input/output models too.
    good = good + [port_fixture(e) for e in manifest["multi_io"]]
    # SEQC_FIXTURE_FILTER=REGEX checks only the fixtures whose names match.
    only = os.environ.get("SEQC_FIXTURE_FILTER")
    if only:
        good = [fx for fx in good if re.search(only, fx["name"])]
    workers = os.cpu_count() or 2
    if mode == "sim":
        seq_compile, cxx, kernels, inputs = rest
        checker = os.path.join(work, "check_model.o")
        rc, text = run([cxx, "-std=c++17", "-O1", "-c",
                        os.path.join(inputs, "check_model.cpp"), "-o", checker])
        if rc != 0:
            print("FAIL check_model.cpp does not compile: " + text)
            return 1
        runtime = compile_runtime(work, seq_compile, cxx, kernels)
        if runtime.startswith("FAIL"):
            print(runtime)
            return 1
        pch = precompile_library(work, fixtures, seq_compile, cxx, kernels, good[0])
        job = lambda fx: check_sim(fx, work, fixtures, seq_compile, cxx, kernels, checker, pch,
                                   runtime)
        what = "match Keras within 1e-4 in the CPU simulation"
    elif mode == "nvcc":
        seq_compile, arch, nvcc = rest
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            uses = list(pool.map(lambda fx: kernel_use(fx, work, fixtures, seq_compile), good))
        failures = [u for u in uses if isinstance(u, str)]
        emitted = [(fx, u) for fx, u in zip(good, uses) if not isinstance(u, str)]
        instances = set().union(*(u[1] for _, u in emitted))
        # The fewest fixtures whose code calls every entry point (greedy).
        chosen, uncovered = [], set().union(*(u[2] for _, u in emitted))
        while uncovered:
            fx, u = max(emitted, key=lambda e: len(e[1][2] & uncovered))
            chosen.append(fx)
            uncovered -= u[2]
        jobs = [lambda: compile_instances(work, emitted[0][1][0], instances, arch, nvcc)]
        jobs += [lambda fx=fx: check_nvcc(fx, work, fixtures, seq_compile, arch)
                 for fx in chosen]
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            built = list(pool.map(lambda job: job(), jobs))
        failures += [r for r in built if r]
        for r in failures:
            print(r)
        print("%d of %d fixtures emit CUDA; %d kernel template instances compile with nvcc "
              "for %s; %d of %d libraries calling every entry point build" %
              (len(emitted), len(good), len(instances) if not built[0] else 0, arch,
               len(chosen) - sum(bool(r) for r in built[1:]), len(chosen)))
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

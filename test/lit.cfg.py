import os

import lit.formats
from lit.llvm import llvm_config

config.name = "seqc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.seq_obj_root, "test")

config.substitutions.append(("%seq_src", config.seq_src_root))
config.substitutions.append(("%seq_bin", config.seq_tools_dir))
config.substitutions.append(("%fixtures", os.path.join(config.seq_src_root, "test", "fixtures")))
config.substitutions.append(("%PATH%", config.environment["PATH"]))
import sys
config.substitutions.append(("%python", sys.executable))

# What seq-compile builds once and reuses (the CUDA runtime object), shared
# by the tests of one build directory; lit passes no HOME to look under.
config.environment["SEQC_CACHE_DIR"] = os.path.join(config.test_exec_root, "seqc-cache")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["seq-opt", "seq-compile", "seq-allclose"], [config.seq_tools_dir])
# The fuzz harnesses linked with a replay main (fuzz/ReplayMain.cpp).
llvm_config.add_tool_substitutions([t for t in config.seq_fuzz_targets.split(";") if t],
                                   [config.seq_tools_dir])

# -DSEQ_SANITIZE builds (scripts/sanitize-test.sh): `asan` marks tests whose
# measurements AddressSanitizer skews (RSS growth per iteration).
if "address" in getattr(config, "seq_sanitize", ""):
    config.available_features.add("asan")

# A portable AOT library (x86-64-v3 + x86-64-v4 code) is built on x86-64 hosts.
import platform
if platform.machine() == "x86_64":
    config.available_features.add("x86_64")
# bench/'s C probes use AVX-512 intrinsics.
try:
    if " avx512f " in open("/proc/cpuinfo").read().replace("\n", " "):
        config.available_features.add("avx512")
except OSError:
    pass

import shutil
# AArch64 libraries (--target-triple aarch64-linux-gnu): tested when this
# seqc was built with them (lib/Target/CPU/CMakeLists.txt found clang and an
# AArch64 glibc); qemu-aarch64 runs them here.
if config.seq_aarch64_sysroot:
    config.available_features.add("aarch64-cross")
    config.substitutions.append(("%clang", config.seq_clang))
    config.substitutions.append(("%aarch64_sysroot", config.seq_aarch64_sysroot))
if shutil.which("qemu-aarch64"):
    config.available_features.add("qemu-aarch64")
if shutil.which("chromium"):
    config.available_features.add("chromium")
if shutil.which("valgrind"):
    config.available_features.add("valgrind")

# CUDA: `nvcc` where a CUDA toolkit is installed; `cuda-gpu` only where
# nvidia-smi lists a GPU (tests marked REQUIRES: cuda-gpu skip elsewhere).
import subprocess
nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)
if nvcc:
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))
try:
    if "GPU " in subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout:
        config.available_features.add("cuda-gpu")
except (OSError, subprocess.SubprocessError):
    pass

# The features above, for test/Docs/run_doc_blocks.py (`<!-- doc-test: requires FEATURE -->`).
config.substitutions.append(("%features", ",".join(sorted(config.available_features))))

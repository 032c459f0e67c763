"""Builds each named fixture as an AArch64 library, links examples/run_seed.c
against it for AArch64 and runs it under qemu-aarch64 on the fixture's input;
prints '<name>: ok' when seq-allclose accepts the output (atol 1e-5).

    run_aarch64.py SEQ_COMPILE SEQ_ALLCLOSE WORK CLANG SYSROOT RUN_SEED_C FIXTURES NAME...
"""
import os
import subprocess
import sys


def run(*args):
    subprocess.run(args, check=True)


def main():
    seq_compile, seq_allclose, work, clang, sysroot, source, fixtures = sys.argv[1:8]
    target = ["--target=aarch64-linux-gnu"]
    crt = os.path.join(sysroot, "lib")
    for name in sys.argv[8:]:
        lib = os.path.join(work, "lib%s.so" % name)
        run(seq_compile, os.path.join(fixtures, name + ".h5"),
            "--target-triple", "aarch64-linux-gnu", "-o", lib)
        obj, exe = os.path.join(work, name + ".o"), os.path.join(work, "run_" + name)
        run(clang, *target, "--sysroot=" + sysroot, "-std=c11", "-O1", "-I" + work,
            '-DSEQC_MODEL_HEADER="lib%s.h"' % name, "-c", source, "-o", obj)
        # No GCC for AArch64 here: glibc's start files, no libgcc.
        run(clang, *target, "-fuse-ld=lld", "-nostdlib", os.path.join(crt, "crt1.o"),
            os.path.join(crt, "crti.o"), obj, lib, "-L" + crt, "-lc",
            os.path.join(crt, "crtn.o"), "-Wl,-rpath," + work,
            "-Wl,--dynamic-linker=/lib/ld-linux-aarch64.so.1", "-o", exe)
        out = os.path.join(work, name + ".npy")
        subprocess.run(["qemu-aarch64", "-L", sysroot, exe,
                        os.path.join(fixtures, name + ".input.npy"), out],
                       check=True, stdout=subprocess.DEVNULL)
        run(seq_allclose, out, os.path.join(fixtures, name + ".expected.npy"),
            "--atol", "1e-5", "--rtol", "1e-5")
        print("%s: ok" % name, flush=True)


if __name__ == "__main__":
    main()

"""The machine probes the benchmarks divide by, measured in the same run as
their timings: bench/fma_peak.c (one core's FP32 peak, GFLOP/s) and
bench/l2_bandwidth.c (one core's read bandwidth from a buffer, GB/s), each
compiled once into a work directory."""
import os
import subprocess

BENCH = os.path.dirname(os.path.abspath(__file__))


def probe(work, name, *args):
    """bench/NAME.c built once into `work` and run: the number it prints."""
    exe = os.path.join(work, name)
    if not os.path.exists(exe):
        subprocess.run(["cc", "-O2", "-mavx512f", "-mfma", os.path.join(BENCH, name + ".c"),
                        "-o", exe], check=True)
    return float(subprocess.run([exe] + [str(a) for a in args], check=True,
                                capture_output=True, text=True).stdout)


def fma_peak(work):
    """This core's FP32 peak, GFLOP/s."""
    return probe(work, "fma_peak")


def read_bandwidth(work, size):
    """GB/s reading a buffer of `size` bytes."""
    return probe(work, "l2_bandwidth", size)

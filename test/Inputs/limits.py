"""Runs a command and checks what it cost:

    limits.py --rss-mb N --seconds S [--expect-exit C] -- command...

passes the command's output through and exits 0 only if the command exited
with C (default 0), its peak resident memory (and its children's) stayed
under N MiB and it finished within S seconds; otherwise says which limit
broke and exits 1.
"""
import argparse
import resource
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--rss-mb", type=float, required=True)
parser.add_argument("--seconds", type=float, required=True)
parser.add_argument("--expect-exit", type=int, default=0)
parser.add_argument("command", nargs=argparse.REMAINDER)
args = parser.parse_args()
command = args.command[1:] if args.command[:1] == ["--"] else args.command

start = time.monotonic()
try:
    code = subprocess.run(command, timeout=args.seconds * 3).returncode
except subprocess.TimeoutExpired:
    sys.exit(f"limits.py: {command[0]} ran past {args.seconds * 3:.0f} s")
elapsed = time.monotonic() - start
# ru_maxrss is in KiB on Linux: the largest of the waited-for children.
rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
problems = []
if code != args.expect_exit:
    problems.append(f"exit code {code}, expected {args.expect_exit}")
if rss_mb > args.rss_mb:
    problems.append(f"peak RSS {rss_mb:.0f} MiB > {args.rss_mb:.0f} MiB")
if elapsed > args.seconds:
    problems.append(f"took {elapsed:.1f} s > {args.seconds:.1f} s")
if problems:
    sys.exit("limits.py: " + "; ".join(problems))

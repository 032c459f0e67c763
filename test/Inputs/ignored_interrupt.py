"""Runs a command with SIGINT ignored (as nohup and background jobs start
it), sends it SIGINT after `delay` seconds, and exits with its exit code.

    ignored_interrupt.py DELAY -- command...
"""
import signal
import subprocess
import sys
import time

delay = float(sys.argv[1])
command = sys.argv[3:] if sys.argv[2] == "--" else sys.argv[2:]
process = subprocess.Popen(
    command, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
time.sleep(delay)
if process.poll() is None:
    process.send_signal(signal.SIGINT)
    print("ignored_interrupt.py: sent SIGINT while running", file=sys.stderr)
sys.exit(process.wait())

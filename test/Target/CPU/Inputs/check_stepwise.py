"""Runs recurrent fixtures on ROWS rows at once and one row at a time, and
checks that the outputs are bitwise equal: jit and aot on one thread, jit on
two threads (ROWS / 2 rows each). From 32 rows in a call (or in a thread's
chunk of it) each step computes its own rows of the input projection; one
row at a time, the projection is computed before the loop and each step's
recurrent product is a row swept alone.

  check_stepwise.py FIXTURES_DIR WORK_DIR SEQ_COMPILE ROWS NAME... [-- FLAG...]

The fixtures' sequences are short, so every run sets the bound on a row of
the projection (--seq-stepwise-projection-row-floats) to 0. NAME is a
fixture of one float32 input; its input's rows are repeated up to
ROWS, each nonzero value of row r shifted by r / 1000 where the input holds
floats that are not ids (zeros stay, which a Masking layer masks). FLAGs
after -- go to every seq-compile run. Prints one line per fixture and
exits 1 if any differs."""
import array
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "Inputs"))
import npy_rows  # noqa: E402


def rows_of(shape, values, rows):
    per_row = len(values) // shape[0]
    ids = all(v == int(v) and v >= 0 for v in values)
    out = []
    for r in range(rows):
        source = values[(r % shape[0]) * per_row:(r % shape[0] + 1) * per_row]
        out += source if ids else [v + r / 1000.0 if v else v for v in source]
    return (rows,) + shape[1:], array.array("f", out)


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError(" ".join(args) + ": " + p.stdout.strip())


def main():
    cut = sys.argv.index("--") if "--" in sys.argv else len(sys.argv)
    args, extra = sys.argv[1:cut], sys.argv[cut + 1:]
    fixtures, work, seq_compile, rows = args[:4]
    rows = int(rows)
    os.makedirs(work, exist_ok=True)
    failed = 0
    for name in args[4:]:
        model = os.path.join(fixtures, name)
        stem = os.path.splitext(name)[0]
        shape, values = npy_rows.read(os.path.join(fixtures, stem + ".input.npy"))
        x = os.path.join(work, stem + ".npy")
        npy_rows.write(x, *rows_of(shape, values, rows))
        outputs = {}
        for label, flags in [("one", ["--batch", "1", "--threads", "1"]),
                             ("jit", ["--batch", str(rows), "--threads", "1"]),
                             ("aot", ["--batch", str(rows), "--threads", "1", "--engine=aot"]),
                             ("jit2", ["--batch", str(rows), "--threads", "2"])]:
            out = os.path.join(work, "%s.%s.npy" % (stem, label))
            run([seq_compile, model, "--run", "--input", x, "-o", out,
                 "--seq-stepwise-projection-row-floats=0"] + extra + flags)
            with open(out, "rb") as f:
                outputs[label] = f.read()
        same = len(set(outputs.values())) == 1
        failed += not same
        print("%s: %s" % (name, "bitwise equal" if same else "DIFFERENT"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Runs recurrent fixtures on ROWS rows at once, where each step computes
its own rows of the input projection (32 rows or more in a call, or in a
thread's chunk of it), and one row at a time, where the projection is
computed before the loop, and checks that the outputs are bitwise equal:
jit and aot on one thread, jit on two threads (ROWS / 2 rows each).

  check_stepwise.py FIXTURES_DIR WORK_DIR SEQ_COMPILE ROWS NAME...

The fixtures' sequences are short, so every run sets the bound on a row of
the projection (--seq-stepwise-projection-row-floats) to 0. NAME is a
fixture of one float32 input; its input's rows are repeated up to
ROWS, each nonzero value of row r shifted by r / 1000 where the input holds
floats that are not ids (zeros stay, which a Masking layer masks). Prints
one line per fixture and exits 1 if any differs."""
import ast
import os
import struct
import subprocess
import sys


def read_npy(path):
    """(shape, values) of a little-endian float32 .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", path
    length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + length].decode("latin1"))
    assert header["descr"] == "<f4" and not header["fortran_order"], path
    shape = tuple(header["shape"])
    count = 1
    for d in shape:
        count *= d
    body = data[10 + length:]
    return shape, list(struct.unpack("<%df" % count, body[:4 * count]))


def write_npy(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (tuple(shape),)
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def rows_of(shape, values, rows):
    per_row = len(values) // shape[0]
    ids = all(v == int(v) and v >= 0 for v in values)
    out = []
    for r in range(rows):
        source = values[(r % shape[0]) * per_row:(r % shape[0] + 1) * per_row]
        out += source if ids else [v + r / 1000.0 if v else v for v in source]
    return (rows,) + shape[1:], out


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError(" ".join(args) + ": " + p.stdout.strip())


def main():
    fixtures, work, seq_compile, rows = sys.argv[1:5]
    rows = int(rows)
    os.makedirs(work, exist_ok=True)
    failed = 0
    for name in sys.argv[5:]:
        model = os.path.join(fixtures, name)
        stem = os.path.splitext(name)[0]
        shape, values = read_npy(os.path.join(fixtures, stem + ".input.npy"))
        x = os.path.join(work, stem + ".npy")
        write_npy(x, *rows_of(shape, values, rows))
        outputs = {}
        for label, flags in [("one", ["--batch", "1", "--threads", "1"]),
                             ("jit", ["--batch", str(rows), "--threads", "1"]),
                             ("aot", ["--batch", str(rows), "--threads", "1", "--engine=aot"]),
                             ("jit2", ["--batch", str(rows), "--threads", "2"])]:
            out = os.path.join(work, "%s.%s.npy" % (stem, label))
            run([seq_compile, model, "--run", "--input", x, "-o", out,
                 "--seq-stepwise-projection-row-floats=0"] + flags)
            with open(out, "rb") as f:
                outputs[label] = f.read()
        same = len(set(outputs.values())) == 1
        failed += not same
        print("%s: %s" % (name, "bitwise equal" if same else "DIFFERENT"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

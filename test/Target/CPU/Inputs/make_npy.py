"""Writes a float32 .npy of pseudo-random values without numpy.

  make_npy.py OUT D0,D1,...  [--ids N] [--bad ROW,ROW...]

Values are uniform in [-1, 1), or integers in [0, N) with --ids; --bad sets
the first value of each listed row to N (an id out of range)."""
import argparse
import random
import struct


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("shape")
    p.add_argument("--ids", type=int)
    p.add_argument("--bad", default="")
    a = p.parse_args()
    shape = [int(d) for d in a.shape.split(",")]
    count = 1
    for d in shape:
        count *= d
    rng = random.Random(20261204)
    if a.ids:
        values = [float(rng.randrange(a.ids)) for _ in range(count)]
    else:
        values = [rng.uniform(-1, 1) for _ in range(count)]
    row = count // shape[0]
    for r in filter(None, a.bad.split(",")):
        values[int(r) * row] = float(a.ids)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join("%d, " % d for d in shape) if len(shape) == 1 else
        ", ".join(str(d) for d in shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(a.out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % count, *values))


if __name__ == "__main__":
    main()

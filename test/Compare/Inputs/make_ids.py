"""Writes a float32 .npy of token ids (i mod 20) with the given shape.

usage: make_ids.py OUT.npy ROWS COLUMNS   (standard library only)
"""
import struct
import sys

out, rows, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
header += " " * (63 - (10 + len(header)) % 64) + "\n"
data = struct.pack("<%df" % (rows * cols), *[float(i % 20) for i in range(rows * cols)])
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)

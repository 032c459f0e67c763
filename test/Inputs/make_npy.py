"""Writes a float32 .npy of the given shape (values i % 7 / 7), without numpy.

    make_npy.py out.npy 2000,10,12
"""
import array
import sys

path, shape = sys.argv[1], [int(d) for d in sys.argv[2].split(",")]
count = 1
for d in shape:
    count *= d
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s,), }" % ", ".join(map(str, shape))
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    row = array.array("f", [(i % 7) / 7 for i in range(10000)])
    written = 0
    while written < count:
        n = min(10000, count - written)
        f.write(row[:n].tobytes())
        written += n

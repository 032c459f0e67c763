"""Writes a zip archive (argv[1]) with 65535 empty stored members, all named
differently: a hostile .keras file whose duplicate-name check once took a
minute (a linear search per member)."""
import struct, sys

n = 65535
local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, 0, 0, 0, 6, 0) + b"000000"
entries = b"".join(
    struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0)
    + b"%06d" % i for i in range(n))
end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(entries), len(local), 0)
with open(sys.argv[1], "wb") as f:
    f.write(local + entries + end)

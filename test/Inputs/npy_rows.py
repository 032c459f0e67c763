"""Small .npy/CSV tools for tests, without numpy (float32 '<f4' arrays only);
read() and write() are imported by other scripts too (bench/gpu/pack.py).

    npy_rows.py slice IN.npy START END OUT.npy   rows [START, END) of IN
    npy_rows.py csv IN.npy OUT.csv [--tsv] [--header]
                                                  one row per line, flattened
"""
import array
import sys


def read(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY"
    length = int.from_bytes(data[8:10], "little")
    header = data[10:10 + length].decode()
    assert "'<f4'" in header and "False" in header, header
    shape = tuple(int(d) for d in header.split("(")[1].split(")")[0].split(",") if d.strip())
    values = array.array("f")
    values.frombytes(data[10 + length:])
    return shape, values


def write(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join(f"{d}, " for d in shape) if len(shape) != 1 else f"{shape[0]},")
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
        f.write(values.tobytes())


def main():
    command = sys.argv[1]
    shape, values = read(sys.argv[2])
    row = len(values) // shape[0] if shape[0] else 0
    if command == "slice":
        start, end = int(sys.argv[3]), int(sys.argv[4])
        write(sys.argv[5], (end - start,) + shape[1:], values[start * row:end * row])
    elif command == "csv":
        sep = "\t" if "--tsv" in sys.argv else ","
        with open(sys.argv[3], "w") as f:
            if "--header" in sys.argv:
                f.write(sep.join(f"c{i}" for i in range(row)) + "\n")
            for r in range(shape[0]):
                f.write(sep.join(repr(v) for v in values[r * row:(r + 1) * row]) + "\n")


if __name__ == "__main__":
    main()

"""Row ROW of a padded (batch, time, features) .npy, without its trailing
padding steps (every feature equal to MASK_VALUE), as a (1, length,
features) .npy: the sequence at its true length.

    trim_padding.py IN.npy ROW MASK_VALUE OUT.npy
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Inputs"))
import npy_rows  # noqa: E402


def main():
    source, row, mask_value, target = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    (batch, steps, features), values = npy_rows.read(source)
    step = steps * features
    sequence = values[row * step:(row + 1) * step]
    length = steps
    while length and all(v == mask_value for v in sequence[(length - 1) * features:length * features]):
        length -= 1
    npy_rows.write(target, (1, length, features), sequence[:length * features])


if __name__ == "__main__":
    main()

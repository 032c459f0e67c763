"""Writes the GPU benchmark models as layer-level seq IR (.mlir), one per
size: LSTM(units) over (batch, STEPS, FEATURES) -> Dense(1), with random
weights (uniform +-1/sqrt(units), a fixed seed) stored as dense_resource
blobs, so that seq-compile reads them like any exported model.

  make_models.py OUT_DIR [UNITS...]      (default units: 64 256 1024)

Standard library only."""
import os
import random
import struct
import sys

STEPS = 100
FEATURES = 64


def blob(count, scale, rng):
    data = struct.pack("<%df" % count, *(rng.uniform(-scale, scale) for _ in range(count)))
    return "0x04000000" + data.hex()  # 4-byte alignment, then the floats


def write_model(path, units, cell):
    rng = random.Random(units * 7919 + len(cell))
    gates = 4 if cell == "lstm" else 3
    scale = 1.0 / units ** 0.5
    bias_type = "%dxf32" % (gates * units) if cell == "lstm" else "2x%dxf32" % (gates * units)
    bias_count = gates * units * (1 if cell == "lstm" else 2)
    op = ("seq.lstm %%x, %%k, %%r, %%b activation(tanh, sigmoid)" if cell == "lstm"
          else "seq.gru %%x, %%k, %%r, %%b activation(tanh, sigmoid) {reset_after}")
    with open(path, "w") as f:
        f.write('module attributes {seq.metadata = {model_name = "bench_%s_%d", source = "%s"}} {\n'
                % (cell, units, os.path.basename(path)))
        f.write("  func.func @predict(%%x: tensor<?x%dx%dxf32>) -> tensor<?x1xf32> {\n" % (STEPS, FEATURES))
        f.write('    %%k = arith.constant dense_resource<kernel> : tensor<%dx%dxf32> loc("rnn/kernel")\n'
                % (FEATURES, gates * units))
        f.write('    %%r = arith.constant dense_resource<recurrent_kernel> : tensor<%dx%dxf32> loc("rnn/recurrent_kernel")\n'
                % (units, gates * units))
        f.write('    %%b = arith.constant dense_resource<bias> : tensor<%s> loc("rnn/bias")\n' % bias_type)
        f.write(("    %%h = " + op + " : (tensor<?x%dx%dxf32>, tensor<%dx%dxf32>, tensor<%dx%dxf32>, tensor<%s>) -> tensor<?x%dxf32> loc(\"rnn\")\n")
                % (STEPS, FEATURES, FEATURES, gates * units, units, gates * units, bias_type, units))
        f.write('    %%dk = arith.constant dense_resource<dense_kernel> : tensor<%dx1xf32> loc("head/kernel")\n' % units)
        f.write('    %db = arith.constant dense_resource<dense_bias> : tensor<1xf32> loc("head/bias")\n')
        f.write("    %%y = seq.dense %%h, %%dk, %%db activation(linear) : (tensor<?x%dxf32>, tensor<%dx1xf32>, tensor<1xf32>) -> tensor<?x1xf32> loc(\"head\")\n"
                % (units, units))
        f.write("    return %y : tensor<?x1xf32>\n  }\n}\n\n{-#\n  dialect_resources: {\n    builtin: {\n")
        entries = [("kernel", FEATURES * gates * units), ("recurrent_kernel", units * gates * units),
                   ("bias", bias_count), ("dense_kernel", units), ("dense_bias", 1)]
        f.write(",\n".join('      %s: "%s"' % (name, blob(n, scale, rng)) for name, n in entries))
        f.write("\n    }\n  }\n#-}\n")


def main():
    out = sys.argv[1]
    units = [int(u) for u in sys.argv[2:]] or [64, 256, 1024]
    os.makedirs(out, exist_ok=True)
    for u in units:
        for cell in ("lstm", "gru"):
            write_model(os.path.join(out, "%s_%d.mlir" % (cell, u)), u, cell)


if __name__ == "__main__":
    main()

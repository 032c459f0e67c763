"""Writes the GPU benchmark models as layer-level seq IR (.mlir): a stack of
recurrent layers over (batch, STEPS, FEATURES) -> Dense(1), with random
weights (uniform +-1/sqrt(units), a fixed seed) stored as dense_resource
blobs, so that seq-compile reads them like any exported model. A weight
matrix has one random value per column (the same in every row): that times
exactly like a dense random one, and the weight files compress about 100x,
so that the GPU pack (scripts/gpu-pack.sh) can carry them.

  make_models.py OUT_DIR [MODEL...]

A MODEL is CELL_UNITS (lstm_256, gru_1024: one layer) or
CELL_U1_U2_..._Un (a stack; every layer but the last returns sequences), or
stack10_lstm_256 (ten LSTM(256) layers), or cnn_32: the VGG-style CNN of
bench/run_cnn_bench.py on (32, 32, 3) images ([Conv2D(3x3, same, relu) ->
MaxPooling2D(2)] with 16, 32 and 64 filters -> Dense(10); its
BatchNormalization is folded into the convolutions anyway). Default: lstm and gru with 64, 256
and 1024 units. Standard library only."""
import os
import random
import struct
import sys

STEPS = 100
FEATURES = 64
DEFAULT_MODELS = ["%s_%d" % (cell, units) for units in (64, 256, 1024) for cell in ("lstm", "gru")]


def blob(rows, cols, scale, rng):
    """A rows x cols matrix (or a vector: rows = 1) as a dense_resource blob."""
    column = struct.pack("<%df" % cols, *(rng.uniform(-scale, scale) for _ in range(cols)))
    return "0x04000000" + (column * rows).hex()  # 4-byte alignment, then the floats


def parse(name):
    """(cell, [units per layer]) of a model name."""
    parts = name.split("_")
    if parts[0].startswith("stack"):
        depth = int(parts[0][len("stack"):])
        return parts[1], [int(parts[2])] * depth
    return parts[0], [int(u) for u in parts[1:]]


def write_cnn(path, name, size):
    rng = random.Random(size * 7919)
    body, resources = [], []
    prev, width, channels = "%x", size, 3
    for i, filters in enumerate((16, 32, 64)):
        layer = "conv%d" % i
        in_type = "tensor<?x%dx%dx%dxf32>" % (width, width, channels)
        out_type = "tensor<?x%dx%dx%dxf32>" % (width, width, filters)
        pooled = "tensor<?x%dx%dx%dxf32>" % (width // 2, width // 2, filters)
        body.append('    %%k%d = arith.constant dense_resource<%s_kernel> : tensor<3x3x%dx%dxf32> loc("%s/kernel")'
                    % (i, layer, channels, filters, layer))
        body.append('    %%b%d = arith.constant dense_resource<%s_bias> : tensor<%dxf32> loc("%s/bias")'
                    % (i, layer, filters, layer))
        body.append('    %%c%d = seq.conv2d %s, %%k%d, %%b%d padding(same) activation(relu) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (%s, tensor<3x3x%dx%dxf32>, tensor<%dxf32>) -> %s loc("%s")'
                    % (i, prev, i, i, in_type, channels, filters, filters, out_type, layer))
        body.append('    %%p%d = seq.max_pool2d %%c%d padding(valid) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : %s -> %s loc("pool%d")'
                    % (i, i, out_type, pooled, i))
        resources += [("%s_kernel" % layer, 9 * channels, filters, 1.0 / (9 * channels) ** 0.5),
                      ("%s_bias" % layer, 1, filters, 0.1)]
        prev, width, channels = "%%p%d" % i, width // 2, filters
    flat = width * width * channels
    body.append('    %%f = seq.reshape %s [%d] : tensor<?x%dx%dx%dxf32> -> tensor<?x%dxf32> loc("flatten")'
                % (prev, flat, width, width, channels, flat))
    body.append('    %%dk = arith.constant dense_resource<dense_kernel> : tensor<%dx10xf32> loc("dense/kernel")' % flat)
    body.append('    %db = arith.constant dense_resource<dense_bias> : tensor<10xf32> loc("dense/bias")')
    body.append('    %%y = seq.dense %%f, %%dk, %%db activation(linear) : (tensor<?x%dxf32>, tensor<%dx10xf32>, tensor<10xf32>) -> tensor<?x10xf32> loc("dense")'
                % (flat, flat))
    resources += [("dense_kernel", flat, 10, 1.0 / flat ** 0.5), ("dense_bias", 1, 10, 0.1)]
    with open(path, "w") as f:
        f.write('module attributes {seq.metadata = {model_name = "bench_%s", source = "%s"}} {\n'
                % (name, os.path.basename(path)))
        f.write("  func.func @predict(%%x: tensor<?x%dx%dx3xf32>) -> tensor<?x10xf32> {\n" % (size, size))
        f.write("\n".join(body) + "\n")
        f.write("    return %y : tensor<?x10xf32>\n  }\n}\n\n{-#\n  dialect_resources: {\n    builtin: {\n")
        f.write(",\n".join('      %s: "%s"' % (n, blob(rows, cols, scale, rng))
                            for n, rows, cols, scale in resources))
        f.write("\n    }\n  }\n#-}\n")


def write_model(path, name):
    cell, layers = parse(name)
    if cell == "cnn" and len(layers) == 1:
        return write_cnn(path, name, layers[0])
    if cell not in ("lstm", "gru") or not layers:
        raise SystemExit("unknown model %r (want e.g. lstm_256, gru_512_256, stack10_lstm_256)" % name)
    rng = random.Random(sum(layers) * 7919 + len(layers) * 31 + len(cell))
    gates = 4 if cell == "lstm" else 3
    body, resources = [], []
    prev, width = "%x", FEATURES
    for i, units in enumerate(layers):
        last = i == len(layers) - 1
        scale = 1.0 / units ** 0.5
        bias_type = "%dxf32" % (gates * units) if cell == "lstm" else "2x%dxf32" % (gates * units)
        bias_count = gates * units * (1 if cell == "lstm" else 2)
        in_type = "tensor<?x%dx%dxf32>" % (STEPS, width)
        out_type = "tensor<?x%dxf32>" % units if last else "tensor<?x%dx%dxf32>" % (STEPS, units)
        flags = [] if cell == "lstm" else ["reset_after"]
        if not last:
            flags.append("return_sequences")
        attrs = " {%s}" % ", ".join(flags) if flags else ""
        layer = "rnn%d" % i
        body.append('    %%k%d = arith.constant dense_resource<%s_kernel> : tensor<%dx%dxf32> loc("%s/kernel")'
                    % (i, layer, width, gates * units, layer))
        body.append('    %%r%d = arith.constant dense_resource<%s_recurrent_kernel> : tensor<%dx%dxf32> loc("%s/recurrent_kernel")'
                    % (i, layer, units, gates * units, layer))
        body.append('    %%b%d = arith.constant dense_resource<%s_bias> : tensor<%s> loc("%s/bias")'
                    % (i, layer, bias_type, layer))
        body.append('    %%h%d = seq.%s %s, %%k%d, %%r%d, %%b%d activation(tanh, sigmoid)%s : (%s, tensor<%dx%dxf32>, tensor<%dx%dxf32>, tensor<%s>) -> %s loc("%s")'
                    % (i, cell, prev, i, i, i, attrs, in_type, width, gates * units, units,
                       gates * units, bias_type, out_type, layer))
        resources += [("%s_kernel" % layer, width, gates * units, scale),
                      ("%s_recurrent_kernel" % layer, units, gates * units, scale),
                      ("%s_bias" % layer, 1, bias_count, scale)]
        prev, width = "%%h%d" % i, units
    with open(path, "w") as f:
        f.write('module attributes {seq.metadata = {model_name = "bench_%s", source = "%s"}} {\n'
                % (name, os.path.basename(path)))
        f.write("  func.func @predict(%%x: tensor<?x%dx%dxf32>) -> tensor<?x1xf32> {\n" % (STEPS, FEATURES))
        f.write("\n".join(body) + "\n")
        f.write('    %%dk = arith.constant dense_resource<dense_kernel> : tensor<%dx1xf32> loc("head/kernel")\n' % width)
        f.write('    %db = arith.constant dense_resource<dense_bias> : tensor<1xf32> loc("head/bias")\n')
        f.write("    %%y = seq.dense %s, %%dk, %%db activation(linear) : (tensor<?x%dxf32>, tensor<%dx1xf32>, tensor<1xf32>) -> tensor<?x1xf32> loc(\"head\")\n"
                % (prev, width, width))
        f.write("    return %y : tensor<?x1xf32>\n  }\n}\n\n{-#\n  dialect_resources: {\n    builtin: {\n")
        resources += [("dense_kernel", width, 1, 1.0 / width ** 0.5), ("dense_bias", 1, 1, 0.1)]
        f.write(",\n".join('      %s: "%s"' % (n, blob(rows, cols, scale, rng))
                            for n, rows, cols, scale in resources))
        f.write("\n    }\n  }\n#-}\n")


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or DEFAULT_MODELS
    os.makedirs(out, exist_ok=True)
    for name in names:
        write_model(os.path.join(out, name + ".mlir"), name)


if __name__ == "__main__":
    main()

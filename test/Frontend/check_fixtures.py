"""Checks the import of every fixture against what real Keras reported.

For each good fixture of test/fixtures/manifest.json (written by Keras when
the fixture was made) this imports the model with seq-compile and checks:
- every Keras layer became the seq op(s) of its class, located at the
  layer's name, with Keras' output shape (None = dynamic); a nested model,
  ops located at "<model>/<layer>";
- the function takes Keras' input shape and returns its output shape;
- --summary reports Keras' parameter count per layer and in total;
- the metadata holds the file's Keras version and the layer names.
Prints one line per fixture and exits 1 on any mismatch. Standard library
only: tests never need TensorFlow.

usage: check_fixtures.py SEQ_COMPILE FIXTURES_DIR
"""
import json
import os
import re
import subprocess
import sys

# The seq op a layer of each Keras class becomes (the wrappers add theirs).
OP_OF_CLASS = {
    "LayerScale": "batch_norm", "CustomScaleLayer": "merge",
    "CuDNNLSTM": "lstm", "CuDNNGRU": "gru",
    "Dense": "dense", "LSTM": "lstm", "GRU": "gru", "SimpleRNN": "simple_rnn",
    # Around ConvLSTMs (rank > 3) Bidirectional's merge is a seq.concatenate
    # or seq.merge of the forward and the reversed backward output.
    "Bidirectional": ("bidirectional", "concatenate", "merge"),
    "TimeDistributed": "time_distributed",
    # Conv1D with groups > 1 is a grouped seq.conv2d of one column.
    "Conv1D": ("conv1d", "conv2d"), "MaxPooling1D": "max_pool1d",
    "AveragePooling1D": "avg_pool1d", "GlobalMaxPooling1D": "global_max_pool1d",
    "GlobalAveragePooling1D": "global_avg_pool1d",
    "BatchNormalization": "batch_norm", "LayerNormalization": "layer_norm",
    "Dropout": "dropout", "SpatialDropout1D": "dropout", "Embedding": "embedding",
    "Flatten": "flatten", "Reshape": "reshape", "RepeatVector": "repeat_vector",
    "Activation": "activation", "LeakyReLU": "activation", "ELU": "activation",
    "ThresholdedReLU": "activation", "Softmax": "activation", "PReLU": "prelu",
    "Masking": "apply_mask", "RNN": ("lstm", "gru", "simple_rnn"),
    # A ReLU with max_value or threshold is seq.relu, else an activation.
    "ReLU": ("activation", "relu"),
    "Conv2D": "conv2d", "Conv3D": "conv3d", "ConvLSTM1D": "conv_lstm",
    "ConvLSTM2D": "conv_lstm", "ConvLSTM3D": "conv_lstm", "MaxPooling2D": "max_pool2d",
    "AveragePooling2D": "avg_pool2d", "MaxPooling3D": "max_pool3d",
    "AveragePooling3D": "avg_pool3d", "GlobalMaxPooling2D": "global_max_pool2d",
    "GlobalAveragePooling2D": "global_avg_pool2d",
    "GlobalMaxPooling3D": "global_max_pool3d",
    "GlobalAveragePooling3D": "global_avg_pool3d",
    "ZeroPadding1D": "zero_padding", "ZeroPadding2D": "zero_padding",
    "ZeroPadding3D": "zero_padding", "Cropping1D": "cropping", "Cropping2D": "cropping",
    "Cropping3D": "cropping", "UpSampling1D": "upsampling", "UpSampling2D": "upsampling",
    "UpSampling3D": "upsampling", "Permute": "permute",
    **{f"AdaptiveAveragePooling{n}D": "adaptive_avg_pool" for n in (1, 2, 3)},
    **{f"AdaptiveMaxPooling{n}D": "adaptive_max_pool" for n in (1, 2, 3)},
    "GroupNormalization": "group_norm", "UnitNormalization": "unit_norm",
    "RMSNormalization": "rms_norm",
    # Depthwise and separable convolutions are grouped seq.conv2d (separable:
    # the pointwise 1x1 conv2d at the layer's name).
    "Conv1DTranspose": "conv_transpose1d", "Conv2DTranspose": "conv_transpose2d",
    "Conv3DTranspose": "conv_transpose3d", "DepthwiseConv1D": "conv2d",
    "DepthwiseConv2D": "conv2d", "SeparableConv1D": "conv2d", "SeparableConv2D": "conv2d",
    # The identities at inference.
    "SpatialDropout2D": "dropout", "SpatialDropout3D": "dropout",
    "GaussianNoise": "dropout", "GaussianDropout": "dropout", "AlphaDropout": "dropout",
    "ActivityRegularization": "dropout",
    # The random augmentation layers are identities at inference; tf_keras'
    # RandomCrop resizes (a cropping then a resize), Keras 3's returns its input.
    **{c: "dropout" for c in (
        "RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation",
        "RandomContrast", "RandomBrightness", "RandomHeight", "RandomWidth",
        "RandomColorDegeneration", "RandomColorJitter", "RandomElasticTransform",
        "RandomErasing", "RandomGaussianBlur", "RandomGrayscale", "RandomHue",
        "RandomInvert", "RandomPerspective", "RandomPosterization", "RandomSaturation",
        "RandomSharpness", "RandomShear", "AugMix", "CutMix", "MixUp", "RandAugment",
        "Equalization", "Solarization")},
    "RandomCrop": ("dropout", "cropping", "resize"),
    "Resizing": ("resize", "cropping", "dropout"), "CenterCrop": ("cropping", "resize"),
    # Rescaling and Normalization are affine maps per channel.
    "Rescaling": "batch_norm",
    # Over other axes than the last: a batch_norm between permutes or reshapes.
    "Normalization": ("batch_norm", "permute", "reshape"),
    "Discretization": "discretize", "CategoryEncoding": "category_encoding",
    # The merge layers of Functional graphs.
    "Add": "merge", "Subtract": "merge", "Multiply": "merge", "Average": "merge",
    "Maximum": "merge", "Minimum": "merge", "Concatenate": "concatenate",
    # Attention layers and Dot are several ops; their last one is the
    # layer's output (see CORE_OP).
    "Attention": ("reshape", "apply_mask"), "AdditiveAttention": ("reshape", "apply_mask"),
    "MultiHeadAttention": "dense", "GroupedQueryAttention": "dense",
    "Dot": ("matmul", "reshape"),
    # EinsumDense is a Dense, unflattened by a reshape where it has several
    # output axes.
    "EinsumDense": ("dense", "reshape"),
    # Keras 1 classes the importer translates.
    "Convolution1D": "conv1d", "TimeDistributedDense": "time_distributed",
    "Convolution2D": "conv2d", "AtrousConvolution2D": "conv2d", "Convolution3D": "conv3d",
    "SeparableConvolution2D": "conv2d",
}

# The op a layer made of several ops must contain.
CORE_OP = {"Attention": "attention", "AdditiveAttention": "attention",
           "MultiHeadAttention": "attention", "GroupedQueryAttention": "attention",
           "Dot": "matmul", "CustomScaleLayer": "merge"}

# "%0 = seq.dense ... -> tensor<?x32xf32> loc(#loc3)", or "... : tensor<..>
# loc(..)" for ops with one type, or a region op whose loc follows its "}".
# A recurrent op of a stateful layer has a second result, its final state:
# "-> (tensor<output>, tensor<state>) loc(..)".
OP_LINE = re.compile(r'= seq\.(\w+) .*?(tensor<[^>]*>)(?:, tensor<[^>]*>\))?'
                     r'(?: \{| loc\((#loc\d+|"[^"]*")\))$')
REGION_END = re.compile(r'^\s*\} loc\((#loc\d+|"[^"]*")\)$')
# A stateful model's @predict also takes and returns the layers' states.
SIGNATURE = re.compile(r'func\.func @predict\(%arg0: (tensor<[^>]*>).*\) -> \(?(tensor<[^>]*>)')
LOC_ALIAS = re.compile(r'^(#loc\d+) = loc\("([^"]*)"\)$', re.M)


def shape_of(tensor_type):
    dims = tensor_type[len("tensor<"):-1].split("x")[:-1]
    return [None if d == "?" else int(d) for d in dims]


def run(args):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip())
    return result.stdout


def check(seq_compile, fixtures, fixture):
    model = [seq_compile, os.path.join(fixtures, fixture["model"])]
    if fixture.get("config"):
        model += ["--config", os.path.join(fixtures, fixture["config"])]
    ir = run(model + ["--elide-weights"])
    problems = []

    aliases = dict(LOC_ALIAS.findall(ir))
    ops = {}
    open_regions = []
    for line in ir.splitlines():
        if m := OP_LINE.search(line):
            op, result_type, loc = m.groups()
            # The result type follows "->"; an op without one has its
            # result's type first (seq.prelu: input, then alpha).
            # A stateful layer's final state is the second result.
            types = line.split(" : ")[-1]
            results = types.split("->")[-1]
            result_type = (re.findall(r"tensor<[^>]*>", results)[0] if "->" in types
                           else re.findall(r"tensor<[^>]*>", types)[0])
            if loc is None:
                open_regions.append((op, result_type))
                continue
        elif (m := REGION_END.match(line)) and open_regions:
            (op, result_type), loc = open_regions.pop(), m.group(1)
        else:
            continue
        name = aliases.get(loc, loc.strip('"'))
        ops.setdefault(name, []).append((op, shape_of(result_type)))

    signature = SIGNATURE.search(ir)
    if not signature:
        return ["no func.func @predict"]
    if shape_of(signature.group(1)) != fixture["input_shape"]:
        problems.append(f"input {shape_of(signature.group(1))} != Keras {fixture['input_shape']}")
    if shape_of(signature.group(2)) != fixture["output_shape"]:
        problems.append(f"output {shape_of(signature.group(2))} != Keras {fixture['output_shape']}")

    layers = [l for l in fixture["layers"] if l["class"] != "InputLayer"]
    for layer in layers:
        # A nested model's layers are located at "<model>/<layer>" (a
        # TimeDistributed over a model: "<wrapper>/<model>/<layer>"); the last
        # of them makes its output.
        if layer["class"] in ("Sequential", "Functional") or (
                layer["class"] == "TimeDistributed" and layer["name"] not in ops):
            inner = [op for name, found in ops.items() if name.startswith(layer["name"] + "/")
                     for op in found]
            if not inner:
                problems.append(f"no op located in nested model '{layer['name']}'")
            elif inner[-1][1] != layer["output_shape"]:
                problems.append(f"nested model '{layer['name']}' has shape {inner[-1][1]}, "
                                f"Keras says {layer['output_shape']}")
            continue
        expected_op = OP_OF_CLASS.get(layer["class"])
        found = ops.get(layer["name"], [])
        # tf.cast to float32 and tf.identity return their input: no op.
        if not found and layer["class"] == "TFOpLambda" and re.match(
                r"tf\.(cast|identity)(_\d+)?$", layer["name"]):
            continue
        if not found:
            problems.append(f"no op located at layer '{layer['name']}'")
            continue
        # An operation of several outputs (tf.split, tf.unstack): each has
        # its ops, in order, the last of each with that output's shape.
        outputs = layer["output_shape"]
        if layer["class"] == "TFOpLambda" and outputs and isinstance(outputs[0], list) and \
                len(outputs) > 1:
            shapes = iter([s for _, s in found])
            if not all(any(s == want for s in shapes) for want in outputs):
                problems.append(f"layer '{layer['name']}' has shapes {[s for _, s in found]}, "
                                f"Keras says {outputs}")
            continue
        # A TensorFlow op on tensors (tf_keras' TFOpLambda, SlicingOpLambda)
        # is whichever seq ops compute it; the last has its shape.
        # SpectralNormalization is the op of the layer it wraps.
        if layer["class"] in ("TFOpLambda", "SlicingOpLambda", "SpectralNormalization"):
            expected_op = found[-1][0]
        op, shape = (found[-1] if layer["class"] in CORE_OP or
                     layer["class"] in ("TFOpLambda", "SlicingOpLambda") else found[0])
        core = CORE_OP.get(layer["class"])
        if core and core not in [o for o, _ in found]:
            problems.append(f"layer '{layer['name']}' ({layer['class']}) has no seq.{core}")
        # A 1-D depthwise, separable or grouped layer runs as 2-D; the reshape
        # back ("<name>/to_1d") has Keras' output shape.
        if layer["name"] + "/to_1d" in ops:
            shape = ops[layer["name"] + "/to_1d"][0][1]
        # A channels_first layer is its channels-last op between permutes; the
        # permute back ("<name>/channels_first", after any reshape back) has
        # Keras' output shape.
        if layer["name"] + "/channels_first" in ops:
            shape = ops[layer["name"] + "/channels_first"][0][1]
        # A normalization over another axis than the last runs over the last
        # between two permutes, over several joined into one between two
        # reshapes; the reshape back ("<name>/axes_apart") and the permute
        # back ("<name>/axis_back", after it) have Keras' output shape.
        if layer["name"] + "/axes_apart" in ops:
            shape = ops[layer["name"] + "/axes_apart"][0][1]
        if layer["name"] + "/axis_back" in ops:
            shape = ops[layer["name"] + "/axis_back"][0][1]
        if op not in (expected_op if isinstance(expected_op, tuple) else (expected_op,)):
            problems.append(f"layer '{layer['name']}' ({layer['class']}) became seq.{op}, expected seq.{expected_op}")
        keras_shape = layer["output_shape"]
        # return_state=True: Keras reports [output, states...]; seqc's op is
        # the output.
        if keras_shape and isinstance(keras_shape[0], list):
            keras_shape = keras_shape[0]
        # Keras 3's RandomCrop reports its training shape but returns its input
        # unchanged at inference, as seqc does.
        if layer["class"] == "RandomCrop" and op == "dropout":
            keras_shape = shape
        # tf_keras' RandomHeight/RandomWidth report their axis as unknown (its
        # training size varies); at inference it keeps the input's.
        if layer["class"] in ("RandomHeight", "RandomWidth") and len(shape) == len(keras_shape):
            keras_shape = [k if k is not None else s for k, s in zip(keras_shape, shape)]
        # tf_keras reports a window of fixed size counted from one end of an
        # axis of unknown length (h[:, -2:]) as unknown; seq.slice knows it.
        if op == "slice" and len(shape) == len(keras_shape):
            keras_shape = [k if k is not None else s for k, s in zip(keras_shape, shape)]
        if shape != keras_shape:
            problems.append(f"layer '{layer['name']}' has shape {shape}, Keras says {keras_shape}")
        if layer["class"] == "Bidirectional":
            directions = [ops.get(layer["name"] + d, [(None,)])[0][0] for d in ("/forward", "/backward")]
            if directions[0] is None or directions[0] != directions[1]:
                problems.append(f"layer '{layer['name']}' lacks its two recurrent directions")

    summary = run(model + ["--summary"])
    for layer in layers:
        # A graph's rows end with the layers they read ("['x[0][0]']").
        row = re.search(r"^ " + re.escape(layer["name"]) + r" \(\w+\) .*? (\d+)(?: +\[.*\])?$",
                        summary, re.M)
        if not row or int(row.group(1)) != layer["params"]:
            problems.append(f"summary of '{layer['name']}' does not show {layer['params']} params")
    if f"Total params: {fixture['params']:,}\n" not in summary:
        problems.append(f"summary total differs from Keras' {fixture['params']:,}")

    metadata = json.loads(run(model + ["--print-metadata"]))
    if fixture["keras_version"] and metadata.get("keras_version") != fixture["keras_version"]:
        problems.append(f"metadata keras_version {metadata.get('keras_version')} != {fixture['keras_version']}")
    if json.loads(metadata.get("layers", "[]")) != [l["name"] for l in layers]:
        problems.append(f"metadata layers {metadata.get('layers')} differ from Keras'")
    return problems


def main():
    seq_compile, fixtures = sys.argv[1:3]
    with open(os.path.join(fixtures, "manifest.json")) as f:
        manifest = json.load(f)
    failed = 0
    for fixture in manifest["fixtures"]:
        try:
            problems = check(seq_compile, fixtures, fixture)
        except RuntimeError as error:
            problems = [str(error)]
        failed += bool(problems)
        print(("FAIL " if problems else "ok   ") + fixture["name"] + "".join("\n  " + p for p in problems))
    print(f"{len(manifest['fixtures']) - failed} of {len(manifest['fixtures'])} fixtures match Keras")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

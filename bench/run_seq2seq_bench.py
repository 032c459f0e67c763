#!/usr/bin/env python3
"""An LSTM encoder-decoder (seq2seq): seqc against ONNX Runtime and OpenVINO
on one core.

  python bench/run_seq2seq_bench.py [--build build] [--rounds 15] [--out seq2seq-bench.json]
                                    [--layers]

The model is a tf_keras Functional graph of two inputs, random weights:
  encoder input (50, 64) -> LSTM(128, return_state=True) -> h, c
  decoder input (50, 64) -> LSTM(128, return_sequences=True,
                                 initial_state=[h, c]) -> Dense(64)
(the Dense on the decoder's 3-D sequence), output (50, 64). Batch 1 and 32.

  seqc         the AOT library of `seq-compile model.h5 -o lib.so`, called
               through its C API (seqc_model_run_all, one pointer per
               input; ctypes)
  ONNX Runtime the same weights as an ONNX graph written with onnx.helper:
               two LSTM nodes (gates i, o, f, c), the decoder's taking the
               encoder's Y_h / Y_c as initial_h / initial_c, then MatMul +
               Add (opset 17)
  OpenVINO     that ONNX model compiled for the CPU plugin (f32)
All three outputs are checked against Keras' own prediction first (1e-4);
engines run interleaved round by round (bench/interleave.py), pinned to one
core with one thread each.

With --layers, it also times seqc on parts of the model, each compiled on
its own and timed interleaved: the encoder alone (outputs h, c), encoder +
decoder LSTM (output the decoder's sequence), the whole model.

Needs tensorflow + tf_keras, numpy, onnx, onnxruntime and openvino, e.g. in
a separate virtual environment: pip install tensorflow-cpu tf-keras onnx
onnxruntime openvino.
"""
import json
import os
import tempfile

from interleave import (SeqcAot, compile_aot, interleaved, onnx_lstm_initializers,
                        onnx_runtime_session, openvino_model, parse_and_pin, print_parts,
                        print_table, require_close, seqc_parts, summarize)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T, F, U, OUT = 50, 64, 128, 64


def make_model(path):
    import numpy as np
    import tf_keras as k
    L = k.layers
    enc_in = k.Input((T, F), name="encoder_input")
    dec_in = k.Input((T, F), name="decoder_input")
    _, h, c = L.LSTM(U, return_state=True, name="encoder")(enc_in)
    seq = L.LSTM(U, return_sequences=True, name="decoder")(dec_in, initial_state=[h, c])
    model = k.Model([enc_in, dec_in], L.Dense(OUT, name="projection")(seq))
    rng = np.random.default_rng(0)
    model.set_weights([rng.uniform(-0.1, 0.1, w.shape).astype("float32")
                       for w in model.get_weights()])
    model.save(path)
    return model


def onnx_model(model):
    """Encoder LSTM -> (Y_h, Y_c) -> decoder LSTM's initial state -> Y ->
    MatMul + Add, in (time, batch, features) order between the
    Transposes."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    inits = (onnx_lstm_initializers(*model.get_layer("encoder").get_weights(), suffix="_enc")
             + onnx_lstm_initializers(*model.get_layer("decoder").get_weights(), suffix="_dec"))
    dense_w, dense_b = model.get_layer("projection").get_weights()
    inits += [numpy_helper.from_array(dense_w, "Wd"), numpy_helper.from_array(dense_b, "Bd"),
              numpy_helper.from_array(np.array([1], "int64"), "axis1")]
    nodes = [
        helper.make_node("Transpose", ["encoder_input"], ["enc_t"], perm=[1, 0, 2]),
        helper.make_node("LSTM", ["enc_t", "W_enc", "R_enc", "B_enc"], ["", "h", "c"],
                         hidden_size=U),
        helper.make_node("Transpose", ["decoder_input"], ["dec_t"], perm=[1, 0, 2]),
        helper.make_node("LSTM", ["dec_t", "W_dec", "R_dec", "B_dec", "", "h", "c"], ["dec_y"],
                         hidden_size=U),
        helper.make_node("Squeeze", ["dec_y", "axis1"], ["dec_tbu"]),      # (T, N, U)
        helper.make_node("MatMul", ["dec_tbu", "Wd"], ["proj"]),
        helper.make_node("Add", ["proj", "Bd"], ["proj_b"]),
        helper.make_node("Transpose", ["proj_b"], ["y"], perm=[1, 0, 2]),  # (N, T, OUT)
    ]
    graph = helper.make_graph(
        nodes, "seq2seq",
        [helper.make_tensor_value_info("encoder_input", TensorProto.FLOAT, ["N", T, F]),
         helper.make_tensor_value_info("decoder_input", TensorProto.FLOAT, ["N", T, F])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", T, OUT])], inits)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


def parts(model, enc, dec):
    """The encoder alone, encoder + decoder LSTM, the whole model, for
    interleave.seqc_parts."""
    import tf_keras as k
    enc_in, dec_in = model.inputs
    _, h, c = model.get_layer("encoder").output
    return [("encoder", k.Model(enc_in, [h, c]), [enc]),
            ("+ decoder LSTM", k.Model([enc_in, dec_in], model.get_layer("decoder").output),
             [enc, dec]),
            ("+ Dense (whole model)", model, [enc, dec])]


def main():
    args, core = parse_and_pin(
        __doc__.splitlines()[0], "seq2seq-bench.json", ROOT,
        lambda p: p.add_argument("--layers", action="store_true",
                                 help="also time seqc on parts of the model"))
    import numpy as np
    import onnxruntime as ort
    import openvino as ov

    work = tempfile.mkdtemp(prefix="seqc-seq2seq-bench-")
    path = os.path.join(work, "seq2seq.h5")
    keras_model = make_model(path)
    lib = os.path.join(work, "libseq2seq.so")
    compile_aot(args.build, path, lib)
    proto = onnx_model(keras_model)
    session = onnx_runtime_session(proto)
    request = openvino_model(proto).create_infer_request()

    rng = np.random.default_rng(7)
    rows = []
    for batch in (1, 32):
        enc = rng.uniform(-1, 1, (batch, T, F)).astype("float32")
        dec = rng.uniform(-1, 1, (batch, T, F)).astype("float32")
        feed = {"encoder_input": enc, "decoder_input": dec}
        want = keras_model.predict([enc, dec], verbose=0)
        seqc = SeqcAot(lib, batch, T)
        assert seqc.input_names() == ["encoder_input", "decoder_input"], seqc.input_names()
        y = np.empty((batch, T, OUT), "float32")
        engines = {
            "seqc AOT": lambda: seqc([enc, dec], [y]),
            "ONNX Runtime": lambda: session.run(None, feed),
            "OpenVINO": lambda: request.infer(feed),
        }
        outputs = {"seqc AOT": seqc([enc, dec], [y])[0].copy(),
                   "ONNX Runtime": session.run(None, feed)[0],
                   "OpenVINO": next(iter(request.infer(feed).values()))}
        require_close(outputs, want, batch)
        times = interleaved(engines, args.rounds, args.burst)
        rows.append(summarize({"batch": batch}, times, "seqc AOT"))
        if args.layers:
            rows[-1]["seqc parts"] = seqc_parts(args.build, tempfile.mkdtemp(dir=work),
                                                parts(keras_model, enc, dec), batch, T,
                                                args.rounds, args.burst)

    for r in rows:
        if "seqc parts" in r:
            print_parts("seqc at batch %d, parts of the model" % r["batch"], r["seqc parts"])

    print_table(rows, "batch", "seqc AOT", ["ONNX Runtime", "OpenVINO"])
    with open(args.out, "w") as f:
        json.dump({"versions": {"onnxruntime": ort.__version__, "openvino": ov.__version__},
                   "core": core, "load_average": os.getloadavg(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()

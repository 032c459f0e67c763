#ifndef SEQ_BASE_TD
#define SEQ_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def Seq_Dialect : Dialect {
  let name = "seq";
  let cppNamespace = "::seq";
  let summary = "Keras Sequential models: layer-level and kernel-level ops";
  let description = [{
    The `seq` dialect holds a Keras Sequential model as a `func.func @predict`.

    *Layer level* ops map one to one onto Keras layers (`seq.dense`,
    `seq.lstm`, ...) and are what the Keras importer writes and the eager
    reference interpreter reads. *Kernel level* ops (`seq.linear`,
    `seq.lstm_recurrence`, ...) are what the fusion passes produce and the
    backends lower.

    Conventions:
    - Tensors are float32, batch-major: `(batch, time, features)` for
      sequences. Batch and time may be dynamic (`?`).
    - Weights are operands (usually `arith.constant dense_resource<...>`),
      with Keras' layouts: Dense kernel `(in, units)`, LSTM kernel
      `(in, 4u)` in gate order i, f, c, o; GRU `(in, 3u)` in order z, r, h.
    - The Keras layer name is the op's location: `loc("lstm_1")`.
    - Model metadata (Keras version, backend, user entries) is the module
      attribute `seq.metadata`, a dictionary of string values.
  }];
  let hasOperationAttrVerify = 1;
}

def Seq_ActivationAttr : I32EnumAttr<"Activation", "Keras activation function", [
  I32EnumAttrCase<"Linear", 0, "linear">,
  I32EnumAttrCase<"Relu", 1, "relu">,
  I32EnumAttrCase<"Tanh", 2, "tanh">,
  I32EnumAttrCase<"Sigmoid", 3, "sigmoid">,
  // Keras 2 / tf.keras: clip(0.2 * x + 0.5, 0, 1).
  I32EnumAttrCase<"HardSigmoidKeras2", 4, "hard_sigmoid_keras2">,
  // Keras 3: relu6(x + 3) / 6.
  I32EnumAttrCase<"HardSigmoidKeras3", 5, "hard_sigmoid_keras3">,
  I32EnumAttrCase<"Softmax", 6, "softmax">,
  I32EnumAttrCase<"Elu", 7, "elu">,
  I32EnumAttrCase<"Selu", 8, "selu">,
  I32EnumAttrCase<"Gelu", 9, "gelu">,
  I32EnumAttrCase<"GeluTanh", 10, "gelu_tanh">,
  I32EnumAttrCase<"Swish", 11, "swish">,
  I32EnumAttrCase<"Softplus", 12, "softplus">,
  I32EnumAttrCase<"Softsign", 13, "softsign">,
  I32EnumAttrCase<"LeakyRelu", 14, "leaky_relu">,
  I32EnumAttrCase<"Exponential", 15, "exponential">,
  I32EnumAttrCase<"Relu6", 16, "relu6">,
  // x * relu6(x + 3) / 6 (Keras 3 hard_silu, alias hard_swish).
  I32EnumAttrCase<"HardSilu", 17, "hard_silu">,
  I32EnumAttrCase<"Mish", 18, "mish">,
  // Over the last axis, like softmax.
  I32EnumAttrCase<"LogSoftmax", 19, "log_softmax">,
  // max(x, 0) + alpha * expm1(min(x, 0) / alpha).
  I32EnumAttrCase<"Celu", 20, "celu">,
  I32EnumAttrCase<"HardTanh", 21, "hard_tanh">,
  I32EnumAttrCase<"LogSigmoid", 22, "log_sigmoid">,
  I32EnumAttrCase<"SparsePlus", 23, "sparse_plus">,
  // (x + sqrt(x^2 + 4)) / 2: Keras' default b = 4.
  I32EnumAttrCase<"Squareplus", 24, "squareplus">,
  I32EnumAttrCase<"TanhShrink", 25, "tanh_shrink">,
  // Keras' default threshold 0.5.
  I32EnumAttrCase<"SoftShrink", 26, "soft_shrink">,
  I32EnumAttrCase<"HardShrink", 27, "hard_shrink">,
  I32EnumAttrCase<"SparseSigmoid", 28, "sparse_sigmoid">,
  // x if x > alpha (theta) else 0: the ThresholdedReLU layer.
  I32EnumAttrCase<"ThresholdedRelu", 29, "thresholded_relu">,
  // Elementwise functions that operations on tensors apply (no Keras
  // activation has these names): sqrt, 1 / sqrt, log, |x|, and alpha / x
  // (alpha 1: the reciprocal; a number divided by a tensor).
  I32EnumAttrCase<"Sqrt", 30, "sqrt">,
  I32EnumAttrCase<"Rsqrt", 31, "rsqrt">,
  I32EnumAttrCase<"Log", 32, "log">,
  I32EnumAttrCase<"Abs", 33, "abs">,
  I32EnumAttrCase<"Reciprocal", 34, "reciprocal">
]> {
  let cppNamespace = "::seq";
}

def Seq_MergeModeAttr : I32EnumAttr<"MergeMode", "Bidirectional merge mode", [
  I32EnumAttrCase<"Concat", 0, "concat">,
  I32EnumAttrCase<"Sum", 1, "sum">,
  I32EnumAttrCase<"Mul", 2, "mul">,
  I32EnumAttrCase<"Ave", 3, "ave">
]> {
  let cppNamespace = "::seq";
}

def Seq_MergeKindAttr : I32EnumAttr<"MergeKind", "Keras elementwise merge layer", [
  I32EnumAttrCase<"Add", 0, "add">,
  I32EnumAttrCase<"Subtract", 1, "subtract">,
  I32EnumAttrCase<"Multiply", 2, "multiply">,
  I32EnumAttrCase<"Average", 3, "average">,
  I32EnumAttrCase<"Maximum", 4, "maximum">,
  I32EnumAttrCase<"Minimum", 5, "minimum">,
  // No Keras layer: a tensor divided by a tensor (an operation's).
  I32EnumAttrCase<"Divide", 6, "divide">
]> {
  let cppNamespace = "::seq";
}

def Seq_PaddingAttr : I32EnumAttr<"Padding", "Keras padding mode", [
  I32EnumAttrCase<"Valid", 0, "valid">,
  I32EnumAttrCase<"Same", 1, "same">,
  I32EnumAttrCase<"Causal", 2, "causal">
]> {
  let cppNamespace = "::seq";
}

def Seq_InterpolationAttr : I32EnumAttr<"Interpolation", "Keras UpSampling interpolation", [
  I32EnumAttrCase<"Nearest", 0, "nearest">,
  // Linear along every axis, with half-pixel centres (tf.image.resize).
  I32EnumAttrCase<"Bilinear", 1, "bilinear">
]> {
  let cppNamespace = "::seq";
}

def Seq_CategoryModeAttr : I32EnumAttr<"CategoryMode", "Keras CategoryEncoding output_mode", [
  I32EnumAttrCase<"OneHot", 0, "one_hot">,
  I32EnumAttrCase<"MultiHot", 1, "multi_hot">,
  I32EnumAttrCase<"Count", 2, "count">
]> {
  let cppNamespace = "::seq";
}

def Seq_ScoreModeAttr : I32EnumAttr<"ScoreMode", "How an attention layer scores a query against a key", [
  // q . k (Attention's "dot", MultiHeadAttention).
  I32EnumAttrCase<"Dot", 0, "dot">,
  // sum over features of tanh(q + k) (Attention's "concat", AdditiveAttention).
  I32EnumAttrCase<"Additive", 1, "additive">
]> {
  let cppNamespace = "::seq";
}

class Seq_Op<string mnemonic, list<Trait> traits = []> :
    Op<Seq_Dialect, mnemonic, traits>;

#endif // SEQ_BASE_TD

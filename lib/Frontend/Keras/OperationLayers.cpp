// Operations on tensors that a Functional graph records instead of layers:
// Keras 3's keras.ops (and Python operators on KerasTensors) and tf_keras'
// TFOpLambda / SlicingOpLambda (x * 0.5, 1.0 - x, tf.reduce_mean(x, 1),
// x[:, -1]). Each is a declared function with its arguments, never code:
// those below are imported as seq ops, any other is refused by name. An
// operation computes on every step of a masked tensor and drops the mask.
//
//   arithmetic: add, subtract, multiply, divide (a tensor and a number:
//     an affine map, seq.batch_norm; a number by a tensor: a reciprocal;
//     two tensors of one rank: seq.merge, broadcasting axes of size 1),
//     maximum and minimum (two tensors, or with 0), negative, square,
//     powers by a number (products, sqrt, rsqrt, reciprocal), sqrt, rsqrt,
//     log, abs, reciprocal; clip by two numbers (seq.clip);
//   activations: the activation functions of both Kerases (activationKind)
//     with the call's parameters, softmax and log_softmax over any axis;
//   reductions over axes: mean, sum, max, min, logsumexp, variance and standard
//     deviation (keepdims or not);
//   products and normalizations: matmul (seq.matmul; per head above rank 3)
//     and the einsums that are one (or a transpose) after sums of one
//     tensor's axes,
//     l2_normalize over one axis or several and keras.ops.normalize (L2) over
//     one (seq.unit_norm);
//   shapes: expand_dims, squeeze, reshape, transpose, concatenate, stack,
//     split and unstack (several outputs: LayerEmitter::operationOutputs),
//     pad with zeros (seq.zero_padding), tile (copies concatenated),
//     reverse / flip along axes after the batch axis (seq.reverse),
//     slicing with integers and slices of step 1 (seq.cropping, or seq.slice
//     for a window counted from one end of an axis of unknown length), and
//     image resizes
//     (seq.resize);
//   casts to float32 and tf.identity: the input itself.
#include "LayerEmitter.h"

#include "EmitterSupport.h"
#include "LayerFamilies.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;
namespace json = llvm::json;

namespace seq::keras {

using namespace emit;

namespace {

/// The operation an entry names, in one spelling for both Kerases: Keras 3
/// by the op's class, tf_keras by the TensorFlow function; "" if unknown.
std::string operationName(const LayerConfig &layer) {
  StringRef source = layer.getSourceClassName();
  if (source == "TFOpLambda" || source == "SlicingOpLambda") {
    StringRef function = layer.getObject().getString("function").value_or("");
    return llvm::StringSwitch<std::string>(function)
        .Cases({"__operators__.add", "math.add"}, "add")
        .Case("math.subtract", "subtract")
        .Case("math.multiply", "multiply")
        .Cases({"math.truediv", "math.divide"}, "divide")
        .Case("math.maximum", "maximum")
        .Case("math.minimum", "minimum")
        .Case("math.negative", "negative")
        .Case("math.square", "square")
        .Case("nn.relu", "relu")
        .Cases({"math.sigmoid", "nn.sigmoid"}, "sigmoid")
        .Cases({"math.tanh", "nn.tanh"}, "tanh")
        .Case("math.exp", "exp")
        .Case("math.sqrt", "sqrt")
        .Case("math.rsqrt", "rsqrt")
        .Case("math.log", "log")
        .Case("math.abs", "abs")
        .Case("math.reciprocal", "reciprocal")
        .Case("math.pow", "power")
        .Case("nn.relu6", "relu6")
        .Cases({"nn.silu", "nn.swish"}, "silu")
        .Case("nn.gelu", "gelu")
        .Case("nn.leaky_relu", "leaky_relu")
        .Case("nn.elu", "elu")
        .Case("nn.selu", "selu")
        .Cases({"math.softplus", "nn.softplus"}, "softplus")
        .Cases({"nn.softsign", "math.softsign"}, "softsign")
        .Case("math.log_sigmoid", "log_sigmoid")
        .Cases({"nn.log_softmax", "math.log_softmax"}, "log_softmax")
        .Cases({"nn.softmax", "math.softmax"}, "softmax")
        .Case("cast", "cast")
        .Case("identity", "identity")
        .Cases({"math.l2_normalize", "nn.l2_normalize"}, "l2_normalize")
        .Cases({"linalg.matmul", "matmul"}, "matmul")
        .Case("stack", "stack")
        .Case("split", "split")
        .Case("unstack", "unstack")
        .Cases({"compat.v1.pad", "pad"}, "pad")
        .Case("tile", "tile")
        .Case("reverse", "reverse")
        .Case("clip_by_value", "clip")
        .Case("image.resize", "resize")
        .Case("math.reduce_mean", "mean")
        .Case("math.reduce_sum", "sum")
        .Case("math.reduce_max", "max")
        .Case("math.reduce_min", "min")
        .Case("math.reduce_variance", "var")
        .Case("math.reduce_std", "std")
        .Case("math.reduce_logsumexp", "logsumexp")
        .Case("expand_dims", "expand_dims")
        .Cases({"compat.v1.squeeze", "squeeze"}, "squeeze")
        .Case("reshape", "reshape")
        .Cases({"compat.v1.transpose", "transpose"}, "transpose")
        .Case("concat", "concatenate")
        .Case("__operators__.getitem", "getitem")
        .Default("");
  }
  source.consume_front("keras.ops.");
  return llvm::StringSwitch<std::string>(source)
      .Case("Add", "add")
      .Case("Subtract", "subtract")
      .Case("Multiply", "multiply")
      .Cases({"Divide", "TrueDivide"}, "divide")
      .Case("Maximum", "maximum")
      .Case("Minimum", "minimum")
      .Case("Negative", "negative")
      .Case("Square", "square")
      .Case("Relu", "relu")
      .Case("Sigmoid", "sigmoid")
      .Case("Tanh", "tanh")
      .Case("Exp", "exp")
      .Case("Sqrt", "sqrt")
      .Case("Rsqrt", "rsqrt")
      .Case("Log", "log")
      .Cases({"Absolute", "Abs"}, "abs")
      .Case("Reciprocal", "reciprocal")
      .Case("Power", "power")
      .Case("Relu6", "relu6")
      .Cases({"Silu", "Swish"}, "silu")
      .Case("Gelu", "gelu")
      .Case("LeakyRelu", "leaky_relu")
      .Case("Elu", "elu")
      .Case("Celu", "celu")
      .Case("Selu", "selu")
      .Case("Softplus", "softplus")
      .Case("Softsign", "softsign")
      .Case("LogSigmoid", "log_sigmoid")
      .Case("HardSigmoid", "hard_sigmoid")
      .Cases({"HardSilu", "HardSwish"}, "hard_silu")
      .Case("HardTanh", "hard_tanh")
      .Case("SparsePlus", "sparse_plus")
      .Case("SparseSigmoid", "sparse_sigmoid")
      .Case("Squareplus", "squareplus")
      .Case("TanhShrink", "tanh_shrink")
      .Case("SoftShrink", "soft_shrink")
      .Case("HardShrink", "hard_shrink")
      .Case("LogSoftmax", "log_softmax")
      .Case("Softmax", "softmax")
      .Case("Cast", "cast")
      .Case("Matmul", "matmul")
      .Case("Stack", "stack")
      .Case("Split", "split")
      .Case("Unstack", "unstack")
      .Case("Pad", "pad")
      .Case("Tile", "tile")
      .Case("Einsum", "einsum")
      .Case("Clip", "clip")
      .Case("Normalize", "normalize")
      .Case("Flip", "reverse")
      .Case("Resize", "resize")
      .Case("Mean", "mean")
      .Case("Sum", "sum")
      .Case("Max", "max")
      .Case("Min", "min")
      .Case("Var", "var")
      .Case("Std", "std")
      .Case("Logsumexp", "logsumexp")
      .Case("ExpandDims", "expand_dims")
      .Case("Squeeze", "squeeze")
      .Case("Reshape", "reshape")
      .Case("Transpose", "transpose")
      .Case("Concatenate", "concatenate")
      .Case("GetItem", "getitem")
      .Default("");
}

/// The activation function an operation named `op` (operationName's
/// spelling) applies; std::nullopt for other operations.
std::optional<Activation> activationKind(StringRef op) {
  return llvm::StringSwitch<std::optional<Activation>>(op)
      .Case("relu", Activation::Relu)
      .Case("sigmoid", Activation::Sigmoid)
      .Case("tanh", Activation::Tanh)
      .Case("exp", Activation::Exponential)
      .Case("softmax", Activation::Softmax)
      .Case("relu6", Activation::Relu6)
      .Case("silu", Activation::Swish)
      .Case("gelu", Activation::Gelu)
      .Case("selu", Activation::Selu)
      .Case("softplus", Activation::Softplus)
      .Case("softsign", Activation::Softsign)
      .Case("log_sigmoid", Activation::LogSigmoid)
      .Case("hard_sigmoid", Activation::HardSigmoidKeras3)
      .Case("hard_silu", Activation::HardSilu)
      .Case("hard_tanh", Activation::HardTanh)
      .Case("sparse_plus", Activation::SparsePlus)
      .Case("sparse_sigmoid", Activation::SparseSigmoid)
      .Case("squareplus", Activation::Squareplus)
      .Case("tanh_shrink", Activation::TanhShrink)
      .Case("soft_shrink", Activation::SoftShrink)
      .Case("hard_shrink", Activation::HardShrink)
      .Case("leaky_relu", Activation::LeakyRelu)
      .Case("elu", Activation::Elu)
      .Case("celu", Activation::Celu)
      .Case("log_softmax", Activation::LogSoftmax)
      .Case("sqrt", Activation::Sqrt)
      .Case("rsqrt", Activation::Rsqrt)
      .Case("log", Activation::Log)
      .Case("abs", Activation::Abs)
      .Case("reciprocal", Activation::Reciprocal)
      .Default(std::nullopt);
}

/// The function as the file names it, for messages.
std::string spelled(const LayerConfig &layer) {
  StringRef source = layer.getSourceClassName();
  if (source == "TFOpLambda" || source == "SlicingOpLambda")
    return "tf." + layer.getObject().getString("function").value_or("?").str();
  return source.str();
}

/// The largest slice bound or index taken (beyond any axis; a bound's
/// negation must not overflow).
constexpr int64_t kLargestBound = int64_t(1) << 31;
/// The most ops one operation unrolls into (a split's parts, a product's
/// heads): a hostile file's axis of a billion must not become a billion ops.
constexpr int64_t kMostUnrolled = 4096;

/// One argument of an operation: a tensor, or a number.
struct Operand {
  Value tensor;
  double number = 0;
};

/// Builds the seq ops of one operation, located at its name.
struct OperationBuilder {
  OpBuilder &builder;
  const LayerConfig &layer;
  ArrayRef<Value> inputs;
  Location loc;

  Error fail(const Twine &why) const { return layer.error(why); }

  /// A keyword's value: in the op's config (Keras 3) or the call's keyword
  /// arguments (tf_keras); null when absent or None.
  const json::Value *option(StringRef key) const {
    const json::Value *v = layer.getObject().get(key);
    if (!v)
      v = layer.getCallArgument(key);
    return v && !v->getAsNull() ? v : nullptr;
  }

  /// The call's positional arguments as the file lists them: Keras 3's
  /// "args"; tf_keras' first argument (a tensor reference, or a number as
  /// ["_CONSTANT_VALUE", -1, value, kwargs]) and then its keyword "y" (or
  /// "b", tf.linalg.matmul's).
  std::vector<const json::Value *> positional() const {
    std::vector<const json::Value *> args;
    const json::Value *node = layer.getInboundNode();
    if (!node)
      return args;
    if (const json::Object *o = node->getAsObject()) {
      if (const json::Array *list = o->getArray("args"))
        for (const json::Value &a : *list)
          args.push_back(&a);
      return args;
    }
    const json::Array *refs = node->getAsArray();
    const json::Array *first = refs && !refs->empty() ? (*refs)[0].getAsArray() : nullptr;
    if (!first)
      return args;
    args.push_back(&(*refs)[0]);
    if (first->size() >= 4)
      if (const json::Object *kwargs = (*first)[3].getAsObject())
        for (StringRef key : {"y", "b"})
          if (const json::Value *y = kwargs->get(key))
            args.push_back(y);
    return args;
  }

  /// The positional arguments as tensors (the inputs, in order) and numbers.
  Expected<std::vector<Operand>> operands() const {
    std::vector<Operand> result;
    size_t next = 0;
    for (const json::Value *a : positional()) {
      if (std::optional<double> n = a->getAsNumber()) {
        result.push_back({Value(), *n});
        continue;
      }
      const json::Array *ref = a->getAsArray();
      if (ref && isConstantValue(*ref)) {
        std::optional<double> n = (*ref)[2].getAsNumber();
        if (!n)
          return fail("takes a constant that is not a number");
        result.push_back({Value(), *n});
        continue;
      }
      // A tf_keras reference ["name", node, index, kwargs] (whose kwargs
      // may reference more tensors), or one Keras 3 tensor.
      bool tensor = ref && ref->size() >= 3 && (*ref)[0].getAsString()
                        ? true
                        : tensorRefs(*a).size() == 1;
      if (!tensor || next >= inputs.size())
        return fail("takes an argument that is neither a tensor nor a number");
      result.push_back({inputs[next++], 0});
    }
    if (next != inputs.size())
      return fail("reads " + Twine(inputs.size()) + " tensors, of which " + Twine(next) +
                  " are its arguments");
    return result;
  }

  Expected<int64_t> axis(StringRef key, int64_t rank, bool required = true) const {
    const json::Value *v = option(key);
    std::optional<int64_t> a = v ? v->getAsInteger() : std::nullopt;
    if (v && v->getAsArray() && v->getAsArray()->size() == 1)
      a = (*v->getAsArray())[0].getAsInteger();
    if (!a) {
      if (!v && !required)
        return rank - 1;
      return fail(Twine(v ? "has an " + key + " that is not one axis"
                          : "has no " + key) +
                  ": seqc imports it over one axis");
    }
    int64_t index = *a < 0 ? *a + rank : *a;
    if (index < 1 || index >= rank)
      return fail(key + " " + Twine(*a) + " is not an axis after the batch axis of its rank-" +
                  Twine(rank) + " input");
    return index;
  }

  Value reshape(Value x, ArrayRef<int64_t> sizes) const {
    // sizes: without the batch axis; at most one unknown.
    SmallVector<int64_t> target;
    for (int64_t s : sizes)
      target.push_back(ShapedType::isDynamic(s) ? -1 : s);
    return reshapeAxes(builder, loc, x, target);
  }

  Value permute(Value x, ArrayRef<int64_t> dims) const {
    return permuteAxes(builder, loc, x, dims);
  }

  /// x * scale + offset, elementwise (seq.batch_norm along the last axis;
  /// one of unknown length gets an axis of size 1 after it meanwhile).
  Expected<Value> affine(Value x, double scale, double offset) const {
    ArrayRef<int64_t> shape = shapeOf(x);
    if (!ShapedType::isDynamic(shape.back()))
      return scaleAndShift(builder, loc, x, scale, offset);
    if (llvm::count_if(shape.drop_front(), ShapedType::isDynamic) > 1)
      return fail("applies a number to an input with more than one axis of unknown length");
    SmallVector<int64_t> sizes(shape.drop_front());
    sizes.push_back(1);
    Value column = reshape(x, sizes);
    return reshape(scaleAndShift(builder, loc, column, scale, offset), shape.drop_front());
  }

  /// The shape two tensors of one rank broadcast to, NumPy's way: on each
  /// axis equal sizes, or one of them 1 (seq.merge repeats that one; a
  /// (batch, 1, features) tensor over steps of any length).
  Expected<SmallVector<int64_t>> broadcastShape(Value a, Value b) const {
    ArrayRef<int64_t> sa = shapeOf(a), sb = shapeOf(b);
    SmallVector<int64_t> shape(sa);
    bool fits = sa.size() == sb.size();
    for (size_t i = 1; fits && i < sa.size(); ++i) {
      std::optional<int64_t> both = shapes::broadcast(sa[i], sb[i]);
      fits = both.has_value();
      shape[i] = both.value_or(sa[i]);
    }
    if (!fits)
      return fail("combines tensors of shapes " + shapeText(sa) + " and " + shapeText(sb) +
                  ": they do not broadcast (seqc broadcasts tensors of one rank along axes "
                  "of size 1)");
    return shape;
  }

  /// seq.merge `kind` of two tensors, broadcast (broadcastShape).
  Expected<Value> merge(MergeKind kind, Value a, Value b) const {
    Expected<SmallVector<int64_t>> shape = broadcastShape(a, b);
    if (!shape)
      return shape.takeError();
    return MergeOp::create(builder, loc, tensorType(builder, *shape), ValueRange{a, b}, kind)
        .getResult();
  }

  /// x ** p for the exponents that are a product or a function seqc has:
  /// 1, 2, 3 (products in float32, within an ulp of pow), 0.5, -0.5, -1.
  Expected<Value> power(Value x, double p, bool tensorFirst) const {
    if (!tensorFirst)
      return fail("raises a number to the power of a tensor: not supported");
    if (p == 1)
      return x;
    if (p == 2 || p == 3) {
      SmallVector<Value> factors(static_cast<size_t>(p), x);
      return MergeOp::create(builder, loc, x.getType(), factors, MergeKind::Multiply)
          .getResult();
    }
    if (p == 0.5)
      return activate(x, Activation::Sqrt);
    if (p == -0.5)
      return activate(x, Activation::Rsqrt);
    if (p == -1)
      return activate(x, Activation::Reciprocal, builder.getF32FloatAttr(1.0f));
    return fail("raises to the power " + formatNumber(p) +
                ": seqc imports the powers 1, 2, 3, 0.5, -0.5 and -1");
  }

  /// seq.activation `kind` of x (`alpha` where the kind takes one, `axis`
  /// for softmax and log_softmax over another than the last).
  Value activate(Value x, Activation kind, FloatAttr alpha = {}, IntegerAttr axis = {}) const {
    return ActivationOp::create(builder, loc, x.getType(), x, kind, alpha, axis).getResult();
  }

  Expected<Value> binary(StringRef op) const {
    Expected<std::vector<Operand>> args = operands();
    if (!args)
      return args.takeError();
    if (args->size() != 2)
      return fail("takes " + Twine(args->size()) + " arguments, expected 2");
    Operand a = (*args)[0], b = (*args)[1];
    if (a.tensor && b.tensor) {
      // The operations' names are seq.merge's kinds (power is none).
      std::optional<MergeKind> kind = symbolizeMergeKind(op);
      if (!kind)
        return fail("raises a tensor to the power of a tensor: not supported");
      return merge(*kind, a.tensor, b.tensor);
    }
    if (!a.tensor && !b.tensor)
      return fail("takes no tensor");
    bool tensorFirst = static_cast<bool>(a.tensor);
    Value x = tensorFirst ? a.tensor : b.tensor;
    double c = tensorFirst ? b.number : a.number;
    if (op == "add")
      return affine(x, 1.0, c);
    if (op == "multiply")
      return affine(x, c, 0.0);
    if (op == "subtract")
      return tensorFirst ? affine(x, 1.0, -c) : affine(x, -1.0, c);
    if (op == "divide") {
      if (!tensorFirst)
        return activate(x, Activation::Reciprocal,
                        builder.getF32FloatAttr(static_cast<float>(c)));
      if (c == 0)
        return fail("divides by 0");
      return affine(x, 1.0 / c, 0.0);
    }
    if (op == "power")
      return power(x, c, tensorFirst);
    if (c != 0)
      return fail("takes the " + op + " of a tensor and " + formatNumber(c) +
                  ": seqc imports it with 0 (a ReLU) or of two tensors");
    if (op == "maximum")
      return activate(x, Activation::Relu);
    // min(x, 0) = -relu(-x).
    Expected<Value> negated = affine(x, -1.0, 0.0);
    if (!negated)
      return negated;
    return affine(activate(*negated, Activation::Relu), -1.0, 0.0);
  }

  /// The axes `v` names (an integer or a list of them), in its order, each
  /// after the batch axis of a rank-`rank` input and named once; `doing` is
  /// what the operation does with them ("reduces"), for messages.
  Expected<SmallVector<int64_t>> namedAxes(const json::Value &v, StringRef key, int64_t rank,
                                           StringRef doing) const {
    SmallVector<const json::Value *> items;
    if (const json::Array *list = v.getAsArray())
      for (const json::Value &item : *list)
        items.push_back(&item);
    else
      items.push_back(&v);
    SmallVector<int64_t> axes;
    for (const json::Value *item : items) {
      std::optional<int64_t> a = item->getAsInteger();
      int64_t index = a ? (*a < 0 ? *a + rank : *a) : -1;
      if (index == 0)
        return fail(doing + " the batch axis: seqc " + doing + " axes after it");
      if (index < 1 || index >= rank)
        return fail("has an " + key + " that is not an axis after the batch axis of its rank-" +
                    Twine(rank) + " input");
      if (llvm::is_contained(axes, index))
        return fail("names " + key + " " + Twine(index) + " twice");
      axes.push_back(index);
    }
    return axes;
  }

  /// The axes `key` names (at least one), ascending.
  Expected<SmallVector<int64_t>> axisList(StringRef key, int64_t rank) const {
    const json::Value *v = option(key);
    if (!v)
      return fail("has no " + key + ": seqc reduces over the axes it names");
    Expected<SmallVector<int64_t>> axes = namedAxes(*v, key, rank, "reduces");
    if (!axes)
      return axes.takeError();
    if (axes->empty())
      return fail(key + " names no axis");
    llvm::sort(*axes);
    return axes;
  }

  /// The reduction `op` over the axes the call names, keepdims as it says.
  Expected<Value> reduce(StringRef op, Value x) const {
    Expected<SmallVector<int64_t>> axes =
        axisList("axis", static_cast<int64_t>(shapeOf(x).size()));
    if (!axes)
      return axes.takeError();
    return reduce(op, x, *axes, keepdims());
  }

  bool keepdims() const {
    const json::Value *keep = option("keepdims");
    return keep && keep->getAsBoolean().value_or(false);
  }

  /// tf.math.reduce_variance / reduce_std, keras.ops.var / std, as
  /// TensorFlow computes them: the mean of (x - mean)^2 over the axes (and
  /// its square root).
  Expected<Value> variance(Value x, bool standardDeviation) const {
    Expected<SmallVector<int64_t>> axes =
        axisList("axis", static_cast<int64_t>(shapeOf(x).size()));
    if (!axes)
      return axes.takeError();
    Expected<Value> mean = reduce("mean", x, *axes, /*keepdims=*/true);
    if (!mean)
      return mean;
    Expected<Value> deviation = merge(MergeKind::Subtract, x, *mean);
    if (!deviation)
      return deviation;
    Expected<Value> squares = merge(MergeKind::Multiply, *deviation, *deviation);
    if (!squares)
      return squares;
    Expected<Value> result = reduce("mean", *squares, *axes, keepdims());
    if (!result || !standardDeviation)
      return result;
    return activate(*result, Activation::Sqrt);
  }

  /// tf.math.reduce_logsumexp, keras.ops.logsumexp, as TensorFlow computes
  /// it: log(sum(exp(x - max))) + max over the axes (finite inputs; an
  /// infinite maximum is replaced by 0 there).
  Expected<Value> logSumExp(Value x) const {
    Expected<SmallVector<int64_t>> axes =
        axisList("axis", static_cast<int64_t>(shapeOf(x).size()));
    if (!axes)
      return axes.takeError();
    Expected<Value> peak = reduce("max", x, *axes, /*keepdims=*/true);
    if (!peak)
      return peak;
    Expected<Value> shifted = merge(MergeKind::Subtract, x, *peak);
    if (!shifted)
      return shifted;
    Expected<Value> total =
        reduce("sum", activate(*shifted, Activation::Exponential), *axes, keepdims());
    if (!total)
      return total;
    // The maximum as the sum came out: without the reduced axes unless kept.
    Value kept = keepdims() ? *peak : reshape(*peak, shapeOf(*total).drop_front());
    return merge(MergeKind::Add, activate(*total, Activation::Log), kept);
  }

  /// mean, sum, max or min over `axes` (ascending): they move first and
  /// join into one, the others into another, a global pooling over the
  /// first, and the others apart again (with axes of size 1 where keepdims
  /// keeps them).
  Expected<Value> reduce(StringRef op, Value x, ArrayRef<int64_t> axes, bool keepdims) const {
    ArrayRef<int64_t> in = shapeOf(x);
    int64_t rank = static_cast<int64_t>(in.size());
    // The result's sizes after the batch axis, and the axes not reduced.
    SmallVector<int64_t> out, others;
    for (int64_t i = 1; i < rank; ++i) {
      bool isReduced = llvm::is_contained(axes, i);
      if (!isReduced)
        others.push_back(i);
      if (!isReduced || keepdims)
        out.push_back(isReduced ? 1 : in[i]);
    }
    if (others.empty() && !keepdims)
      return fail("reduces every axis after the batch axis, leaving (batch,): seqc needs "
                  "keepdims=True there");
    auto product = [&](ArrayRef<int64_t> list) {
      int64_t n = 1;
      for (int64_t i : list)
        n = ShapedType::isDynamic(in[i]) || ShapedType::isDynamic(n) ? ShapedType::kDynamic
                                                                     : n * in[i];
      return n;
    };
    int64_t reduced = product(axes), joined = product(others);
    bool direct = axes.size() == 1 && others.size() == 1; // already (batch, r, k)
    if (!direct && llvm::count_if(in.drop_front(), ShapedType::isDynamic) > 1)
      return fail("reduces an input of shape " + shapeText(in) +
                  ": seqc needs all but one of its axes to have fixed lengths");
    bool sumOfUnknownLength = op == "sum" && ShapedType::isDynamic(reduced);
    if (sumOfUnknownLength && ShapedType::isDynamic(joined))
      return fail("sums over an axis of unknown length beside another of unknown length: "
                  "not supported");
    SmallVector<int64_t> order(axes.begin(), axes.end());
    order.append(others);
    Value moved = llvm::is_sorted(order) ? x : permute(x, order);
    Value rows = direct ? moved : reshape(moved, {reduced, joined});
    if (sumOfUnknownLength) {
      // (batch, 1, steps) of ones times the (batch, steps, rest) rows: the
      // ones are x * 0 + 1 of one column (the steps' count is unknown).
      Expected<Value> column = reduce("max", rows, {2}, /*keepdims=*/true);
      if (!column)
        return column;
      Expected<Value> ones = affine(*column, 0.0, 1.0);
      if (!ones)
        return ones;
      Expected<Value> summed = this->product(permute(*ones, {2, 1}), rows, false);
      if (!summed)
        return summed;
      return reshape(*summed, out);
    }
    if (op == "min") {
      Expected<Value> negated = affine(rows, -1.0, 0.0);
      if (!negated)
        return negated;
      rows = *negated;
    }
    auto pooledType = tensorType(builder, {in[0], joined});
    Value pooled = op == "max" || op == "min"
                       ? GlobalMaxPool1DOp::create(builder, loc, pooledType, rows, false)
                             .getResult()
                       : GlobalAvgPool1DOp::create(builder, loc, pooledType, rows, Value(), false)
                             .getResult();
    Expected<Value> result = pooled;
    if (op == "min")
      result = affine(pooled, -1.0, 0.0);
    if (op == "sum")
      result = affine(pooled, static_cast<double>(reduced), 0.0);
    if (!result)
      return result;
    return ArrayRef<int64_t>(out) == shapeOf(*result).drop_front() ? *result
                                                                    : reshape(*result, out);
  }

  /// A boolean option, false when absent.
  bool flag(StringRef key) const {
    const json::Value *v = option(key);
    return v && v->getAsBoolean().value_or(false);
  }

  /// A number option, `fallback` when absent.
  Expected<double> number(StringRef key, double fallback) const {
    const json::Value *v = option(key);
    if (!v)
      return fallback;
    std::optional<double> n = v->getAsNumber();
    if (!n || !std::isfinite(*n))
      return fail("has a " + key + " that is not a number");
    return *n;
  }

  /// The activation function an operation applies elementwise (or, for
  /// log_softmax, along an axis), with the parameters its call names.
  Expected<Value> activationOperation(StringRef op, Value x) const {
    int64_t rank = static_cast<int64_t>(shapeOf(x).size());
    // Parameters Keras lets vary but seqc's activation fixes.
    auto fixed = [&](StringRef key, double value) -> Error {
      Expected<double> v = number(key, value);
      if (!v)
        return v.takeError();
      if (*v != value)
        return fail("has " + key + " " + formatNumber(*v) + ": seqc imports " + op +
                    " with " + key + " " + formatNumber(value));
      return Error::success();
    };
    std::optional<Activation> kind = activationKind(op);
    if (!kind)
      return fail(op + " is not an activation");
    // tf.nn.gelu's approximate defaults to False; keras.ops.gelu records it.
    if (kind == Activation::Gelu && flag("approximate"))
      kind = Activation::GeluTanh;
    if (op == "squareplus")
      if (Error e = fixed("b", 4.0))
        return std::move(e);
    if (op == "soft_shrink" || op == "hard_shrink")
      if (Error e = fixed("threshold", 0.5))
        return std::move(e);
    FloatAttr alpha;
    if (shapes::takesAlpha(*kind)) {
      // tf.nn.leaky_relu's "alpha", keras.ops.leaky_relu's "negative_slope";
      // tf.nn.elu has no alpha (1).
      StringRef key = op == "leaky_relu" && option("negative_slope") ? "negative_slope" : "alpha";
      Expected<double> a = number(key, shapes::cellAlpha(*kind));
      if (!a)
        return a.takeError();
      alpha = builder.getF32FloatAttr(static_cast<float>(*a));
    }
    IntegerAttr axisAttr;
    if (shapes::isRowActivation(*kind)) {
      Expected<int64_t> a = axis("axis", rank, /*required=*/false);
      if (!a)
        return a.takeError();
      if (*a != rank - 1)
        axisAttr = builder.getI64IntegerAttr(*a);
    }
    return activate(x, *kind, alpha, axisAttr);
  }

  /// tf.cast to float32 (the only type seqc computes in) is the identity.
  Expected<Value> cast(Value x) const {
    // A TFOpLambda's config "dtype" is its own policy; the call names the type.
    const json::Value *v = layer.getSourceClassName() == "TFOpLambda"
                               ? layer.getCallArgument("dtype")
                               : option("dtype");
    std::optional<StringRef> dtype = v ? v->getAsString() : std::nullopt;
    if (dtype != "float32")
      return fail("casts to " + (dtype ? *dtype : StringRef("an unnamed type")) +
                  ": seqc computes in float32 and imports only casts to it");
    return x;
  }

  /// x / sqrt(max(sum(x^2), epsilon)) along axis `a` (seq.unit_norm over
  /// the last axis, the axis moved there and back).
  Value unitNorm(Value x, int64_t a, float epsilon) const {
    int64_t rank = static_cast<int64_t>(shapeOf(x).size());
    FloatAttr attr = builder.getF32FloatAttr(epsilon);
    if (a == rank - 1)
      return UnitNormOp::create(builder, loc, x.getType(), x, attr).getResult();
    SmallVector<int64_t> order;
    for (int64_t i = 1; i < rank; ++i)
      if (i != a)
        order.push_back(i);
    order.push_back(a);
    Value last = permute(x, order);
    Value normalized = UnitNormOp::create(builder, loc, last.getType(), last, attr).getResult();
    return permute(normalized, shapes::inversePermutation(order));
  }

  /// tf.reverse(x, axis) and keras.ops.flip(x, axis): one seq.reverse per
  /// axis named (an int or a list; flip's default, every axis, and the
  /// batch axis are refused).
  Expected<Value> reverse(Value x) const {
    int64_t rank = static_cast<int64_t>(shapeOf(x).size());
    const json::Value *v = option("axis");
    if (!v)
      return fail("reverses every axis, the batch axis too: seqc reverses axes after it");
    Expected<SmallVector<int64_t>> axes = namedAxes(*v, "axis", rank, "reverses");
    if (!axes)
      return axes.takeError();
    for (int64_t a : *axes)
      x = ReverseOp::create(builder, loc, x.getType(), x, a).getResult();
    return x;
  }

  /// tf.math.l2_normalize along one axis or several: x / sqrt(max(sum(x^2),
  /// epsilon)), the sum over all of them, epsilon 1e-12 unless given.
  Expected<Value> l2Normalize(Value x) const {
    int64_t rank = static_cast<int64_t>(shapeOf(x).size());
    const json::Value *v = option("axis");
    if (!v || v->kind() == json::Value::Null)
      return fail("normalizes over every axis, the batch axis too (no axis given): seqc "
                  "normalizes over axes after it");
    Expected<SmallVector<int64_t>> axes = namedAxes(*v, "axis", rank, "normalizes");
    if (!axes)
      return axes.takeError();
    llvm::sort(*axes);
    Expected<double> epsilon = number("epsilon", 1e-12);
    if (!epsilon)
      return epsilon.takeError();
    if (!(*epsilon >= 1.2e-38 && *epsilon <= 3.4e38))
      return fail("has epsilon " + formatNumber(*epsilon) +
                  ": seqc imports one between 1.2e-38 and 3.4e38 (a normal float32)");
    if (axes->size() == 1)
      return unitNorm(x, axes->front(), static_cast<float>(*epsilon));
    FloatAttr floor = builder.getF32FloatAttr(static_cast<float>(*epsilon));
    return normalizeOverAxes(
        builder, layer.getName(), x, *axes,
        [&](Value flat, int64_t) -> Expected<Value> {
          return UnitNormOp::create(builder, loc, flat.getType(), flat, floor).getResult();
        },
        [&](const Twine &what) { return fail(what); });
  }

  /// keras.ops.normalize(x, axis=-1, order=2, epsilon=1e-7): the L2 norm
  /// floored at epsilon (Keras 3.6+: x * min(rsqrt(sum(x^2)), 1 / epsilon);
  /// before, without an epsilon argument: x / max(norm, 1e-7)), so the sum
  /// of squares at epsilon^2.
  Expected<Value> normalize(Value x) const {
    int64_t rank = static_cast<int64_t>(shapeOf(x).size());
    Expected<int64_t> a = axis("axis", rank, /*required=*/false);
    if (!a)
      return a.takeError();
    Expected<double> order = number("order", 2);
    Expected<double> epsilon = number("epsilon", 1e-7);
    if (!order)
      return order.takeError();
    if (!epsilon)
      return epsilon.takeError();
    if (*order != 2)
      return fail("has order " + formatNumber(*order) +
                  ": seqc imports the L2 norm (order 2)");
    if (!(*epsilon >= 1.1e-19 && *epsilon <= 1.8e19))
      return fail("has epsilon " + formatNumber(*epsilon) +
                  ": seqc imports one between 1.1e-19 and 1.8e19 (its square a normal "
                  "float32)");
    return unitNorm(x, *a, static_cast<float>(*epsilon * *epsilon));
  }

  /// A batched matrix product of (batch, ..., m, k) and (batch, ..., k, n)
  /// tensors of one rank (tf.linalg.matmul's transpose_a/b and adjoint_a/b
  /// swap the last two axes of a real operand). Rank 3 is one seq.matmul;
  /// above, the axes between the batch and the matrices (heads: fixed
  /// lengths, equal in both) are unrolled: one seq.matmul per head, joined.
  Expected<Value> matmul() const {
    Expected<std::vector<Operand>> args = operands();
    if (!args)
      return args.takeError();
    if (args->size() != 2 || !(*args)[0].tensor || !(*args)[1].tensor)
      return fail("multiplies other than two tensors");
    Value a = (*args)[0].tensor, b = (*args)[1].tensor;
    int64_t rank = static_cast<int64_t>(shapeOf(a).size());
    if (rank >= 3 && (flag("transpose_a") || flag("adjoint_a"))) {
      SmallVector<int64_t> dims;
      for (int64_t i = 1; i + 2 < rank; ++i)
        dims.push_back(i);
      dims.append({rank - 1, rank - 2});
      a = permute(a, dims);
    }
    return product(a, b, flag("transpose_b") || flag("adjoint_b"));
  }

  /// a (batch, ..., m, k) times b (batch, ..., k, n), or b (batch, ..., n,
  /// k) with `transposeB`: one seq.matmul at rank 3; above it one per head
  /// (the axes between the batch and the matrices, of equal, fixed
  /// lengths), cropped out of both and joined along the heads.
  Expected<Value> product(Value a, Value b, bool transposeB) const {
    ArrayRef<int64_t> sa = shapeOf(a), sb = shapeOf(b);
    int64_t rank = static_cast<int64_t>(sa.size());
    auto refuse = [&](const Twine &why) {
      return fail("multiplies tensors of shapes " + shapeText(sa) + " and " + shapeText(sb) +
                  ": " + why);
    };
    if (rank < 3 || static_cast<int64_t>(sb.size()) != rank)
      return refuse("seqc multiplies (batch, ..., m, k) by (batch, ..., k, n) of one rank");
    int64_t heads = 1;
    for (int64_t i = 1; i + 2 < rank; ++i) {
      if (ShapedType::isDynamic(sa[i]) || sa[i] != sb[i])
        return refuse("the axes before the matrices must have equal, fixed lengths");
      if (sa[i] > kMostUnrolled || (heads *= sa[i]) > kMostUnrolled)
        return refuse("seqc unrolls at most " + Twine(kMostUnrolled) + " heads");
    }
    int64_t m = sa[rank - 2], k = sa[rank - 1];
    int64_t bk = transposeB ? sb[rank - 1] : sb[rank - 2];
    int64_t n = transposeB ? sb[rank - 2] : sb[rank - 1];
    if (shapes::conflict(k, bk))
      return refuse("their inner sizes differ");
    auto matmul = [&](Value x, Value y) {
      auto type = tensorType(builder, {sa[0], m, n});
      return MatMulOp::create(builder, loc, type, x, y, transposeB).getResult();
    };
    if (rank == 3)
      return matmul(a, b);
    auto matrices = [](ArrayRef<int64_t> s) { return s.take_back(2); };
    if (llvm::count_if(matrices(sa), ShapedType::isDynamic) > 1 ||
        llvm::count_if(matrices(sb), ShapedType::isDynamic) > 1 ||
        (ShapedType::isDynamic(m) && ShapedType::isDynamic(n)))
      return refuse("seqc unrolls the heads of matrices with at most one axis of unknown "
                    "length");
    // x as (batch, heads, rows, columns).
    auto joinHeads = [&](Value x) {
      ArrayRef<int64_t> s = shapeOf(x);
      return rank == 4 ? x : reshape(x, {heads, s[rank - 2], s[rank - 1]});
    };
    // Head h of (batch, heads, rows, columns) as a (batch, rows, columns) tensor.
    auto head = [&](Value joined, int64_t h) {
      ArrayRef<int64_t> s = shapeOf(joined);
      SmallVector<int64_t> low{h, 0, 0}, high{heads - h - 1, 0, 0};
      Value one = CroppingOp::create(builder, loc, tensorType(builder, {s[0], 1, s[2], s[3]}),
                                     joined, builder.getDenseI64ArrayAttr(low),
                                     builder.getDenseI64ArrayAttr(high))
                      .getResult();
      return reshape(one, {s[2], s[3]});
    };
    Value ja = joinHeads(a), jb = joinHeads(b);
    SmallVector<Value> products;
    for (int64_t h = 0; h < heads; ++h)
      products.push_back(reshape(matmul(head(ja, h), head(jb, h)), {1, m, n}));
    Value joined = products.size() == 1
                       ? products[0]
                       : ConcatenateOp::create(builder, loc,
                                               tensorType(builder, {sa[0], heads, m, n}),
                                               products, 1)
                             .getResult();
    if (rank == 4)
      return joined;
    SmallVector<int64_t> out(sa.begin() + 1, sa.end() - 2);
    out.append({m, n});
    return reshape(joined, out);
  }

  /// keras.ops.einsum of one tensor (a transpose) or two (a product: every
  /// letter but the batch axis' first is in both operands and the result
  /// (heads), in both only (the one summed, if any), or in one operand and
  /// the result (its rows or columns, at most one each)), "bqd,bkd->bqk",
  /// "bhqk,bhkd->bhqd", "bqd,bd->bqd"; the batch axis' letter first
  /// everywhere.
  Expected<Value> einsum() const {
    const json::Value *v = option("subscripts");
    std::optional<StringRef> subscripts = v ? v->getAsString() : std::nullopt;
    if (!subscripts)
      return fail("has no subscripts");
    auto [lhs, out] = subscripts->split("->");
    SmallVector<StringRef> terms;
    lhs.split(terms, ',');
    // Letters, each once.
    auto letters = [](StringRef t) {
      std::string seen;
      for (char c : t) {
        if (!llvm::isAlpha(c) || seen.find(c) != std::string::npos)
          return false;
        seen += c;
      }
      return !t.empty();
    };
    auto refuse = [&](const Twine &why) {
      return fail("computes einsum '" + *subscripts + "': " + why);
    };
    if (!subscripts->contains("->") || !letters(out) ||
        !llvm::all_of(terms, letters) || terms.size() != inputs.size() || terms.size() > 2)
      return refuse("seqc imports einsum of one or two tensors, each axis named by one "
                    "letter once, the result named after '->'");
    for (auto [term, x] : llvm::zip(terms, inputs))
      if (static_cast<int64_t>(term.size()) != static_cast<int64_t>(shapeOf(x).size()))
        return refuse("names " + Twine(term.size()) + " axes of a rank-" +
                      Twine(shapeOf(x).size()) + " tensor");
    char batch = out.front();
    if (llvm::any_of(terms, [&](StringRef t) { return t.front() != batch; }))
      return refuse("the batch axis must be the first of every tensor and of the result");
    // For each letter after the batch axis' in `order`, its axis in `term`.
    auto axesOf = [](StringRef term, StringRef order) {
      SmallVector<int64_t> dims;
      for (char c : order)
        dims.push_back(static_cast<int64_t>(term.find(c)));
      return dims;
    };
    auto arrange = [&](Value x, StringRef from, StringRef to) {
      return from == to ? x : permute(x, axesOf(from, to.drop_front()));
    };
    // A letter of one tensor only that the result drops is a sum over that
    // tensor's axis, taken first (seq's reduce); `kept` names what is left.
    SmallVector<Value, 2> operands;
    SmallVector<std::string, 2> kept;
    for (auto [i, term] : llvm::enumerate(terms)) {
      StringRef other = terms.size() == 2 ? terms[1 - i] : StringRef();
      SmallVector<int64_t> own;
      std::string left;
      for (auto [axis, c] : llvm::enumerate(term))
        if (axis > 0 && !other.contains(c) && !out.contains(c))
          own.push_back(static_cast<int64_t>(axis));
        else
          left += c;
      Expected<Value> x =
          own.empty() ? Expected<Value>(inputs[i]) : reduce("sum", inputs[i], own, false);
      if (!x)
        return x.takeError();
      operands.push_back(*x);
      kept.push_back(left);
    }
    if (terms.size() == 1) {
      std::string from = kept[0], to = out.str();
      llvm::sort(from);
      llvm::sort(to);
      if (from == to)
        return arrange(operands[0], kept[0], out);
      return refuse("names an axis in the result that the tensor does not have");
    }
    StringRef a = kept[0], b = kept[1];
    std::string heads, rows, columns, summed;
    for (char c : a.drop_front()) {
      bool inB = b.contains(c), inOut = out.contains(c);
      (inB ? (inOut ? heads : summed) : rows) += c;
    }
    for (char c : b.drop_front())
      if (!a.contains(c))
        columns += c;
    if (summed.size() > 1 || rows.size() > 1 || columns.size() > 1 ||
        out.size() != 1 + heads.size() + rows.size() + columns.size())
      return refuse("seqc imports einsum as a matmul or a product: at most one axis summed, "
                    "one of rows and one of columns");
    // Operands as (batch, heads..., rows, summed) and (batch, heads...,
    // summed, columns), or (columns, summed): a missing rows or columns
    // axis is one of size 1.
    std::string ta = batch + heads + rows + summed;
    std::string tb = batch + heads + summed + columns;
    std::string tbT = batch + heads + columns + summed;
    Value x = arrange(operands[0], a, ta);
    bool transposeB = b == tbT && !columns.empty();
    Value y = transposeB ? operands[1] : arrange(operands[1], b, tb);
    auto withUnit = [&](Value t, bool missing, int64_t at) {
      if (!missing)
        return t;
      SmallVector<int64_t> sizes(shapeOf(t).drop_front());
      sizes.insert(sizes.begin() + at, 1);
      return reshape(t, sizes);
    };
    int64_t h = static_cast<int64_t>(heads.size());
    auto unknowns = [](Value t) {
      return llvm::count_if(shapeOf(t).drop_front(), ShapedType::isDynamic);
    };
    if (summed.empty()) {
      // No axis summed: the elementwise product of (batch, heads, rows, 1)
      // and (batch, heads, 1, columns), "bqd,bd->bqd", "bi,bj->bij".
      x = arrange(operands[0], a, batch + heads + rows);
      y = arrange(operands[1], b, batch + heads + columns);
      if ((!columns.empty() && unknowns(x) > 1) || (!rows.empty() && unknowns(y) > 1))
        return refuse("its tensors have more than one axis of unknown length");
      x = withUnit(x, !columns.empty(), h + static_cast<int64_t>(rows.size()));
      y = withUnit(y, !rows.empty(), h);
      Expected<Value> m = merge(MergeKind::Multiply, x, y);
      if (!m)
        return m.takeError();
      return arrange(*m, batch + heads + rows + columns, out);
    }
    x = withUnit(x, rows.empty(), h);
    y = withUnit(y, columns.empty(), h + 1);
    Expected<Value> p = product(x, y, transposeB);
    if (!p)
      return p.takeError();
    Value r = *p;
    if (rows.empty() || columns.empty()) {
      SmallVector<int64_t> kept(shapeOf(r).drop_front());
      if (columns.empty())
        kept.erase(kept.begin() + h + 1);
      if (rows.empty())
        kept.erase(kept.begin() + h);
      if (kept.empty())
        return refuse("leaves (batch,), which seqc does not represent");
      if (llvm::count_if(kept, ShapedType::isDynamic) > 1)
        return refuse("leaves more than one axis of unknown length");
      r = reshape(r, kept);
    }
    return arrange(r, batch + heads + rows + columns, out);
  }

  /// tf.stack / keras.ops.stack along a new axis after the batch axis: each
  /// tensor given an axis of size 1 there, then joined along it.
  Expected<Value> stack() const {
    ArrayRef<int64_t> in = shapeOf(inputs[0]);
    int64_t rank = static_cast<int64_t>(in.size());
    const json::Value *v = option("axis");
    int64_t a = 0;
    if (v) {
      std::optional<int64_t> given = v->getAsInteger();
      if (!given)
        return fail("has an axis that is not one axis");
      a = *given < 0 ? *given + rank + 1 : *given;
    }
    if (a < 1 || a > rank)
      return fail("stacks along axis " + Twine(a) +
                  ": seqc stacks along a new axis after the batch axis");
    SmallVector<int64_t> sizes(in.drop_front());
    if (llvm::count_if(sizes, ShapedType::isDynamic) > 1)
      return fail("stacks tensors with more than one axis of unknown length");
    sizes.insert(sizes.begin() + (a - 1), 1);
    SmallVector<Value> parts;
    for (Value x : inputs) {
      ArrayRef<int64_t> s = shapeOf(x);
      bool same = s.size() == in.size();
      for (size_t i = 1; same && i < s.size(); ++i)
        same = !shapes::conflict(s[i], in[i]);
      if (!same)
        return fail("stacks tensors of shapes " + shapeText(in) + " and " +
                    shapeText(shapeOf(x)));
      parts.push_back(reshape(x, sizes));
    }
    if (parts.size() == 1)
      return parts[0];
    SmallVector<int64_t> result(shapeOf(parts[0]));
    result[a] = static_cast<int64_t>(parts.size());
    return ConcatenateOp::create(builder, loc, tensorType(builder, result), parts, a)
        .getResult();
  }

  /// tf.image.resize / keras.ops.image.resize of (batch, height, width,
  /// channels) images of fixed size, nearest or bilinear without
  /// antialiasing (a seq.resize, as Keras' Resizing layer).
  Expected<Value> resize(Value x) const {
    ArrayRef<int64_t> in = shapeOf(x);
    if (in.size() != 4)
      return fail("resizes an input of shape " + shapeText(in) +
                  ": seqc resizes (batch, height, width, channels) images");
    const json::Value *format = option("data_format");
    if (format && format->getAsString() != "channels_last")
      return fail("resizes channels_first images: seqc resizes channels_last ones");
    if (ShapedType::isDynamic(in[1]) || ShapedType::isDynamic(in[2]))
      return fail("resizes images of shape " + shapeText(in) +
                  ": seqc needs their height and width fixed (--input-shape)");
    Expected<SmallVector<int64_t>> size = integers("size");
    if (!size)
      return size.takeError();
    if (size->size() != 2 || (*size)[0] < 1 || (*size)[1] < 1 || (*size)[0] > kLargestBound ||
        (*size)[1] > kLargestBound)
      return fail("has a size that is not two positive sizes");
    const json::Value *method = option("method");
    if (!method)
      method = option("interpolation");
    std::optional<StringRef> name = method ? method->getAsString() : StringRef("bilinear");
    std::optional<Interpolation> interpolation =
        name ? symbolizeInterpolation(*name) : std::nullopt;
    if (!interpolation)
      return fail("resizes by " + (name ? *name : StringRef("an unnamed method")) +
                  ": seqc resizes by bilinear or nearest");
    for (StringRef key : {"antialias", "preserve_aspect_ratio", "crop_to_aspect_ratio",
                          "pad_to_aspect_ratio"})
      if (flag(key))
        return fail("resizes with " + key + ": not supported");
    if ((*size)[0] == in[1] && (*size)[1] == in[2])
      return x;
    auto type = tensorType(builder, {in[0], (*size)[0], (*size)[1], in[3]});
    return ResizeOp::create(builder, loc, type, x, *size, *interpolation).getResult();
  }

  Expected<Value> concatenate() const {
    if (inputs.size() < 2)
      return fail("joins fewer than two tensors");
    int64_t rank = static_cast<int64_t>(shapeOf(inputs[0]).size());
    Expected<int64_t> a = axis("axis", rank, /*required=*/false);
    if (!a)
      return a.takeError();
    SmallVector<int64_t> result(shapeOf(inputs[0]));
    for (Value x : inputs.drop_front()) {
      ArrayRef<int64_t> s = shapeOf(x);
      if (static_cast<int64_t>(s.size()) != rank)
        return fail("joins tensors of different ranks");
      for (int64_t i = 1; i < rank; ++i)
        if (i != *a && shapes::conflict(s[i], result[i]))
          return fail("joins tensors of shapes " + shapeText(shapeOf(inputs[0])) + " and " +
                      shapeText(s) + " along axis " + Twine(*a));
      result[*a] = ShapedType::isDynamic(result[*a]) || ShapedType::isDynamic(s[*a])
                       ? ShapedType::kDynamic
                       : result[*a] + s[*a];
    }
    return ConcatenateOp::create(builder, loc, tensorType(builder, result), inputs, *a)
        .getResult();
  }

  /// Sizes from a list of integers (a shape, a permutation).
  Expected<SmallVector<int64_t>> integers(StringRef key) const {
    const json::Value *v = option(key);
    const json::Array *list = v ? v->getAsArray() : nullptr;
    if (!list)
      return fail("has no " + key + " list");
    SmallVector<int64_t> values;
    for (const json::Value &e : *list) {
      std::optional<int64_t> n = e.getAsInteger();
      if (!n && e.getAsNull())
        n = -1;
      if (!n || *n < -1 || *n > (int64_t(1) << 31))
        return fail(key + " holds something other than sizes");
      values.push_back(*n);
    }
    return values;
  }

  /// tf.clip_by_value (clip_value_min, clip_value_max) and keras.ops.clip
  /// (x_min, x_max), by numbers: seq.clip.
  Expected<Value> clip(Value x) const {
    bool tf = layer.getSourceClassName() == "TFOpLambda";
    StringRef lowKey = tf ? "clip_value_min" : "x_min", highKey = tf ? "clip_value_max" : "x_max";
    if (!option(lowKey) || !option(highKey))
      return fail("has no " + Twine(option(lowKey) ? highKey : lowKey) +
                  ": seqc clips by two numbers");
    Expected<double> low = number(lowKey, 0), high = number(highKey, 0);
    if (!low)
      return low.takeError();
    if (!high)
      return high.takeError();
    if (float(*low) > float(*high))
      return fail("clips to [" + formatNumber(*low) + ", " + formatNumber(*high) + "], which is empty");
    return ClipOp::create(builder, loc, x.getType(), x, builder.getF32FloatAttr(*low),
                          builder.getF32FloatAttr(*high))
        .getResult();
  }

  /// tf.pad (paddings) and keras.ops.pad (pad_width): a (before, after)
  /// pair per axis, the batch axis' (0, 0), padded with zeros
  /// (seq.zero_padding).
  Expected<Value> pad(Value x) const {
    ArrayRef<int64_t> in = shapeOf(x);
    bool tf = layer.getSourceClassName() == "TFOpLambda";
    const json::Value *modeValue = option("mode");
    std::optional<StringRef> mode = modeValue ? modeValue->getAsString() : std::nullopt;
    if (modeValue && (!mode || mode->lower() != "constant"))
      return fail("pads in mode " + (mode ? mode->str() : std::string("?")) +
                  ": seqc pads with a constant");
    if (const json::Value *v = option("constant_values"); v && v->getAsNumber() != 0.0)
      return fail("pads with a value other than 0: seqc pads with zeros");
    const json::Value *widths = option(tf ? "paddings" : "pad_width");
    const json::Array *pairs = widths ? widths->getAsArray() : nullptr;
    if (!pairs || pairs->size() != in.size())
      return fail("has no (before, after) pair for each of its input's " + Twine(in.size()) +
                  " axes");
    SmallVector<int64_t> low, high;
    for (auto [i, pair] : llvm::enumerate(*pairs)) {
      const json::Array *p = pair.getAsArray();
      std::optional<int64_t> before = p && p->size() == 2 ? (*p)[0].getAsInteger() : std::nullopt;
      std::optional<int64_t> after = p && p->size() == 2 ? (*p)[1].getAsInteger() : std::nullopt;
      if (!before || !after || *before < 0 || *after < 0 || *before > kLargestBound ||
          *after > kLargestBound)
        return fail("pads by something other than a pair of sizes per axis");
      if (i == 0) {
        if (*before || *after)
          return fail("pads the batch axis: not supported");
        continue;
      }
      low.push_back(*before);
      high.push_back(*after);
    }
    return ZeroPaddingOp::create(builder, loc, tensorType(builder, shapes::padded(in, low, high)),
                                 x, builder.getDenseI64ArrayAttr(low),
                                 builder.getDenseI64ArrayAttr(high))
        .getResult();
  }

  /// tf.tile (multiples) and keras.ops.tile (repeats; fewer than the
  /// input's axes count from the last, NumPy's rule): copies joined along
  /// each axis after the batch axis (seq.concatenate).
  Expected<Value> tile(Value x) const {
    int64_t rank = static_cast<int64_t>(shapeOf(x).size());
    Expected<SmallVector<int64_t>> given =
        integers(layer.getSourceClassName() == "TFOpLambda" ? "multiples" : "repeats");
    if (!given)
      return given.takeError();
    SmallVector<int64_t> repeats(*given);
    if (static_cast<int64_t>(repeats.size()) < rank)
      repeats.insert(repeats.begin(), rank - repeats.size(), 1);
    if (static_cast<int64_t>(repeats.size()) != rank)
      return fail("repeats " + Twine(given->size()) + " axes of a rank-" + Twine(rank) +
                  " input");
    if (repeats[0] != 1)
      return fail("repeats the batch axis: not supported");
    for (int64_t i = 1; i < rank; ++i) {
      if (repeats[i] < 1 || repeats[i] > 1024)
        return fail("repeats axis " + Twine(i) + " " + Twine(repeats[i]) +
                    " times: seqc repeats an axis 1 to 1024 times");
      if (repeats[i] == 1)
        continue;
      SmallVector<int64_t> shape(shapeOf(x));
      if (!ShapedType::isDynamic(shape[i]))
        shape[i] *= repeats[i];
      SmallVector<Value> copies(repeats[i], x);
      x = ConcatenateOp::create(builder, loc, tensorType(builder, shape), copies, i).getResult();
    }
    return x;
  }

  /// The parts of x along one axis of fixed length after the batch axis,
  /// each a seq.cropping: tf.split's num_or_size_splits (a count of equal
  /// parts, or their sizes, one of them -1 for the rest), keras.ops.split's
  /// indices_or_sections (a count, or the indices where parts start:
  /// NumPy's rule), tf.unstack's and keras.ops.unstack's parts of one with
  /// the axis dropped.
  Expected<SmallVector<Value>> split(StringRef op, Value x) const {
    ArrayRef<int64_t> in = shapeOf(x);
    int64_t rank = static_cast<int64_t>(in.size());
    if (!option("axis"))
      return fail("splits along the batch axis (axis 0, the default): seqc splits along an "
                  "axis after it");
    Expected<int64_t> axis = this->axis("axis", rank);
    if (!axis)
      return axis.takeError();
    int64_t length = in[*axis];
    if (ShapedType::isDynamic(length))
      return fail("splits axis " + Twine(*axis) + " of unknown length: seqc splits an axis "
                  "of fixed length");
    SmallVector<int64_t> sizes;
    const json::Value *how =
        op == "unstack" ? nullptr
                        : option(layer.getSourceClassName() == "TFOpLambda" ? "num_or_size_splits"
                                                                            : "indices_or_sections");
    std::optional<int64_t> count = how ? how->getAsInteger() : std::nullopt;
    if (op == "unstack")
      count = length;
    if (count && *count > kMostUnrolled)
      return fail("splits axis " + Twine(*axis) + " into " + Twine(*count) + " parts: seqc " +
                  "splits into at most " + Twine(kMostUnrolled));
    if (count) {
      if (*count < 1 || length % *count != 0)
        return fail("splits axis " + Twine(*axis) + " of length " + Twine(length) + " into " +
                    Twine(*count) + " parts: they must be of equal size");
      sizes.assign(*count, length / *count);
    } else if (const json::Array *list = how ? how->getAsArray() : nullptr) {
      bool indices = layer.getSourceClassName() != "TFOpLambda";
      int64_t previous = 0, rest = -1;
      for (const json::Value &e : *list) {
        std::optional<int64_t> n = e.getAsInteger();
        if (!n || *n < -1 || *n > kLargestBound)
          return fail("splits by something other than sizes or indices");
        if (indices) {
          sizes.push_back(*n - previous);
          previous = *n;
        } else if (*n == -1) {
          if (rest >= 0)
            return fail("has more than one size -1");
          rest = sizes.size();
          sizes.push_back(0);
        } else {
          sizes.push_back(*n);
        }
      }
      if (indices)
        sizes.push_back(length - previous);
      if (static_cast<int64_t>(sizes.size()) > kMostUnrolled)
        return fail("splits axis " + Twine(*axis) + " into " + Twine(sizes.size()) +
                    " parts: seqc splits into at most " + Twine(kMostUnrolled));
      int64_t total = 0;
      for (int64_t size : sizes)
        total += size;
      if (rest >= 0)
        sizes[rest] = length - total;
      else if (!indices && total != length)
        return fail("splits axis " + Twine(*axis) + " of length " + Twine(length) +
                    " into sizes that sum to " + Twine(total));
    } else {
      return fail("has no number of parts or their sizes");
    }
    if (llvm::any_of(sizes, [](int64_t size) { return size < 1; }))
      return fail("leaves an empty part of axis " + Twine(*axis) + ": not supported");
    SmallVector<Value> parts;
    int64_t start = 0;
    for (int64_t size : sizes) {
      SmallVector<int64_t> low(rank - 1, 0), high(rank - 1, 0), shape(in);
      low[*axis - 1] = start;
      high[*axis - 1] = length - start - size;
      shape[*axis] = size;
      start += size;
      Value part = x;
      if (size != length)
        part = CroppingOp::create(builder, loc, tensorType(builder, shape), x,
                                  builder.getDenseI64ArrayAttr(low),
                                  builder.getDenseI64ArrayAttr(high))
                   .getResult();
      if (op == "unstack") {
        SmallVector<int64_t> kept(in.drop_front());
        kept.erase(kept.begin() + (*axis - 1));
        if (kept.empty())
          return fail("leaves (batch,), which seqc does not represent");
        part = reshape(part, kept);
      }
      parts.push_back(part);
    }
    return parts;
  }

  /// x[spec]: Keras 3's args[1] (slices as {"class_name": "__slice__",
  /// "config": {...}}), tf_keras' slice_spec (slices as {"start", "stop",
  /// "step"}); an integer indexes (and drops) an axis, None (newaxis) adds
  /// one of size 1, an Ellipsis stands for the axes not named. Cropped with
  /// seq.cropping, then reshaped where axes go or come.
  Expected<Value> slice(Value x) const {
    const json::Value *spec = option("slice_spec");
    if (!spec) {
      std::vector<const json::Value *> args = positional();
      spec = args.size() == 2 ? args[1] : nullptr;
    }
    const json::Array *list = spec ? spec->getAsArray() : nullptr;
    std::vector<const json::Value *> items;
    if (list)
      for (const json::Value &item : *list)
        items.push_back(&item);
    else if (spec)
      items.push_back(spec);
    if (items.empty())
      return fail("has no slices");
    ArrayRef<int64_t> in = shapeOf(x);
    int64_t rank = static_cast<int64_t>(in.size());
    auto isEllipsis = [](const json::Value *v) {
      const json::Object *o = v->getAsObject();
      return o && o->getString("class_name") == "__ellipsis__";
    };
    int64_t named = 0, ellipses = 0;
    for (const json::Value *item : items) {
      ellipses += isEllipsis(item);
      named += !isEllipsis(item) && !item->getAsNull();
    }
    if (ellipses > 1 || named > rank)
      return fail("indexes " + Twine(named) + " axes of a rank-" + Twine(rank) + " input");
    // One entry per axis: the ellipsis (or the end) stands for the others.
    std::vector<const json::Value *> perAxis;
    static const json::Value all = json::Object{};
    for (const json::Value *item : items) {
      if (isEllipsis(item))
        perAxis.insert(perAxis.end(), rank - named, &all);
      else
        perAxis.push_back(item);
    }
    if (!ellipses)
      perAxis.insert(perAxis.end(), rank - named, &all);

    SmallVector<int64_t> low(rank - 1, 0), high(rank - 1, 0), out;
    // Windows of fixed size (start, size) on axes of unknown length.
    SmallVector<std::optional<std::pair<int64_t, int64_t>>> windows(rank - 1);
    int64_t axis = 0; // the input axis the next entry reads
    for (const json::Value *item : perAxis) {
      if (item->getAsNull()) {
        if (axis == 0)
          return fail("adds an axis before the batch axis: not supported");
        out.push_back(-2); // a new axis of size 1, placed below
        continue;
      }
      const json::Object *o = item->getAsObject();
      if (o && o->get("class_name")) {
        if (o->getString("class_name") != "__slice__")
          return fail("indexes with something other than integers, slices, None and "
                      "Ellipsis");
        o = o->getObject("config");
        if (!o)
          return fail("has a slice without its config");
      }
      std::optional<int64_t> index = item->getAsInteger();
      if (index && (*index < -kLargestBound || *index > kLargestBound))
        return fail("indexes with " + Twine(*index) + ", beyond 2^31");
      if (!o && !index)
        return fail("indexes with something other than integers, slices, None and "
                    "Ellipsis");
      std::optional<int64_t> start, stop;
      if (o) {
        for (StringRef key : {"start", "stop", "step"}) {
          const json::Value *v = o->get(key);
          if (!v || v->getAsNull())
            continue;
          std::optional<int64_t> n = v->getAsInteger();
          if (!n || *n < -kLargestBound || *n > kLargestBound)
            return fail("has a slice " + key + " that is not an integer of at most 2^31");
          if (key == "step" && *n != 1)
            return fail("slices with a step of " + Twine(*n) + ": seqc slices with step 1");
          if (key == "start")
            start = *n;
          else if (key == "stop")
            stop = *n;
        }
      }
      int64_t i = axis++;
      if (i == 0) {
        if (!o || start || stop)
          return fail("slices the batch axis: not supported");
        out.push_back(in[0]);
        continue;
      }
      int64_t size = in[i];
      if (ShapedType::isDynamic(size)) {
        // Counted from both ends (x[:, 1:-1]), the cropping keeps the axis'
        // unknown length; from one end only (x[:, -1], x[:, -3:], x[:, :2]),
        // a window of fixed size that the axis must hold at run time.
        bool fromEnd = index ? *index < 0 : start && *start < 0;
        if (index) {
          windows[i - 1] = {*index, 1};
          continue;
        }
        if (fromEnd || (stop && *stop >= 0)) {
          int64_t first = start.value_or(0);
          if (fromEnd && stop && *stop >= 0)
            return fail("slices axis " + Twine(i) + " of unknown length from its end to a "
                        "position from its start: seqc needs both bounds from one end");
          int64_t last = stop ? *stop : 0;
          if (last <= first)
            return fail("leaves nothing of axis " + Twine(i));
          windows[i - 1] = {first, last - first};
          out.push_back(last - first);
          continue;
        }
        low[i - 1] = start.value_or(0);
        high[i - 1] = stop ? -*stop : 0;
        out.push_back(size);
        continue;
      }
      auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + size : v, 0, size); };
      int64_t first = start ? clamp(*start) : 0, last = stop ? clamp(*stop) : size;
      if (index) {
        first = *index < 0 ? *index + size : *index;
        if (first < 0 || first >= size)
          return fail("index " + Twine(*index) + " is out of range for axis " + Twine(i) +
                      " of size " + Twine(size));
        last = first + 1;
      }
      if (last <= first)
        return fail("leaves nothing of axis " + Twine(i));
      low[i - 1] = first;
      high[i - 1] = size - last;
      if (!index)
        out.push_back(last - first);
    }
    SmallVector<int64_t> croppedShape{in[0]};
    for (int64_t i = 1; i < rank; ++i)
      croppedShape.push_back(ShapedType::isDynamic(in[i]) ? in[i]
                                                         : in[i] - low[i - 1] - high[i - 1]);
    Value cropped = x;
    if (llvm::any_of(low, [](int64_t v) { return v != 0; }) ||
        llvm::any_of(high, [](int64_t v) { return v != 0; }))
      cropped = CroppingOp::create(builder, loc, tensorType(builder, croppedShape), x,
                                   builder.getDenseI64ArrayAttr(low),
                                   builder.getDenseI64ArrayAttr(high))
                    .getResult();
    if (llvm::any_of(windows, [](const auto &w) { return w.has_value(); })) {
      SmallVector<int64_t> starts(rank - 1, 0), sizes(rank - 1);
      for (int64_t i = 1; i < rank; ++i) {
        if (windows[i - 1])
          std::tie(starts[i - 1], sizes[i - 1]) = *windows[i - 1];
        else if (ShapedType::isDynamic(croppedShape[i]))
          return fail("slices axis " + Twine(i) + " of unknown length and keeps another "
                      "one: seqc keeps at most one such axis");
        else
          sizes[i - 1] = croppedShape[i];
        croppedShape[i] = sizes[i - 1];
      }
      cropped = SliceOp::create(builder, loc, tensorType(builder, croppedShape), cropped,
                                builder.getDenseI64ArrayAttr(starts),
                                builder.getDenseI64ArrayAttr(sizes))
                    .getResult();
    }
    SmallVector<int64_t> sizes =
        llvm::map_to_vector(ArrayRef(out).drop_front(), [](int64_t v) { return v == -2 ? 1 : v; });
    if (sizes.empty())
      return fail("indexes every axis: it leaves (batch,), which seqc does not represent");
    if (ArrayRef<int64_t>(sizes) == ArrayRef(croppedShape).drop_front())
      return cropped;
    if (llvm::count_if(sizes, ShapedType::isDynamic) > 1)
      return fail("leaves more than one axis of unknown length");
    return reshape(cropped, sizes);
  }
};

} // namespace

Expected<Value> LayerEmitter::emitOperation(const LayerConfig &layer, ArrayRef<Value> inputs) {
  // An operation computes on every step of a masked tensor and passes no
  // mask on, in tf_keras and Keras 3 alike.
  mask = nullptr;
  lastOperationOutputs.clear();
  OperationBuilder ob{builder, layer, inputs, layerLoc(builder, layer.getName())};
  std::string op = operationName(layer);
  if (op.empty())
    return ob.fail(spelled(layer) + " is an operation seqc does not import (docs/Usage.md "
                   "lists those it does)");
  if (inputs.empty())
    return ob.fail("reads no tensor");
  if (op == "add" || op == "subtract" || op == "multiply" || op == "divide" ||
      op == "maximum" || op == "minimum" || op == "power")
    return ob.binary(op);
  if (op == "concatenate")
    return ob.concatenate();
  if (op == "matmul")
    return ob.matmul();
  if (op == "einsum")
    return ob.einsum();
  if (op == "stack")
    return ob.stack();
  if (inputs.size() != 1)
    return ob.fail("reads " + Twine(inputs.size()) + " tensors, expected 1");
  Value x = inputs[0];
  int64_t rank = static_cast<int64_t>(shapeOf(x).size());
  if (op == "negative")
    return ob.affine(x, -1.0, 0.0);
  if (op == "square")
    return ob.power(x, 2, /*tensorFirst=*/true);
  if (op == "cast")
    return ob.cast(x);
  if (op == "identity")
    return x;
  if (op == "l2_normalize")
    return ob.l2Normalize(x);
  if (op == "normalize")
    return ob.normalize(x);
  if (op == "reverse")
    return ob.reverse(x);
  if (op == "resize")
    return ob.resize(x);
  if (op == "mean" || op == "sum" || op == "max" || op == "min")
    return ob.reduce(op, x);
  if (op == "var" || op == "std")
    return ob.variance(x, op == "std");
  if (op == "logsumexp")
    return ob.logSumExp(x);
  if (activationKind(op))
    return ob.activationOperation(op, x);
  if (op == "getitem")
    return ob.slice(x);
  if (op == "pad")
    return ob.pad(x);
  if (op == "clip")
    return ob.clip(x);
  if (op == "tile")
    return ob.tile(x);
  if (op == "split" || op == "unstack") {
    Expected<SmallVector<Value>> parts = ob.split(op, x);
    if (!parts)
      return parts.takeError();
    lastOperationOutputs = std::move(*parts);
    return lastOperationOutputs.front();
  }
  ArrayRef<int64_t> in = shapeOf(x);
  if (op == "expand_dims" || op == "squeeze") {
    const json::Value *v = ob.option("axis");
    std::optional<int64_t> a = v ? v->getAsInteger() : std::nullopt;
    if (!a)
      return ob.fail("has no axis: seqc " + Twine(op == "squeeze" ? "squeezes" : "expands") +
                     " one named axis");
    SmallVector<int64_t> sizes(in.drop_front());
    if (op == "expand_dims") {
      int64_t index = *a < 0 ? *a + rank + 1 : *a;
      if (index < 1 || index > rank)
        return ob.fail("axis " + Twine(*a) + " is not a new axis after the batch axis");
      sizes.insert(sizes.begin() + (index - 1), 1);
    } else {
      int64_t index = *a < 0 ? *a + rank : *a;
      if (index < 1 || index >= rank || in[index] != 1)
        return ob.fail("axis " + Twine(*a) + " is not an axis of size 1 after the batch axis");
      sizes.erase(sizes.begin() + (index - 1));
      if (sizes.empty())
        return ob.fail("leaves (batch,), which seqc does not represent");
    }
    if (llvm::count_if(sizes, ShapedType::isDynamic) > 1)
      return ob.fail("reshapes an input with more than one axis of unknown length");
    return ob.reshape(x, sizes);
  }
  if (op == "reshape") {
    Expected<SmallVector<int64_t>> shape =
        ob.integers(layer.getSourceClassName() == "TFOpLambda" ? "shape" : "newshape");
    if (!shape)
      return shape.takeError();
    if (shape->size() < 2 || shape->front() != -1)
      return ob.fail("reshapes the batch axis: seqc reshapes the axes after it (the first "
                     "size must be -1)");
    SmallVector<int64_t> target(shape->begin() + 1, shape->end());
    std::string error;
    if (!shapes::reshape(in, target, error))
      return ob.fail(error);
    return reshapeAxes(builder, ob.loc, x, target);
  }
  if (op == "transpose") {
    Expected<SmallVector<int64_t>> perm =
        ob.integers(layer.getSourceClassName() == "TFOpLambda" ? "perm" : "axes");
    if (!perm)
      return perm.takeError();
    if (static_cast<int64_t>(perm->size()) != rank || perm->front() != 0 ||
        !shapes::isPermutation(ArrayRef(*perm).drop_front()))
      return ob.fail("is not a permutation of the axes after the batch axis");
    return ob.permute(x, ArrayRef(*perm).drop_front());
  }
  return ob.fail(spelled(layer) + " is an operation seqc does not import");
}

} // namespace seq::keras

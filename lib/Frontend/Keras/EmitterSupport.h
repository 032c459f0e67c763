// What every layer emitter of the Keras importer shares: result types,
// locations, config reads that several layer families make, and the
// weights a layer must have (WeightList). Internal to lib/Frontend/Keras.
#ifndef SEQ_LIB_FRONTEND_KERAS_EMITTERSUPPORT_H
#define SEQ_LIB_FRONTEND_KERAS_EMITTERSUPPORT_H

#include "KerasConfig.h"
#include "WeightStore.h"

#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace seq::keras::emit {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;
using mlir::ArrayRef;
using mlir::Location;
using mlir::OpBuilder;
using mlir::RankedTensorType;
using mlir::DenseElementsAttr;
using mlir::DenseResourceElementsAttr;
using mlir::FloatAttr;
using mlir::HeapAsmResourceBlob;
using mlir::SmallVector;
using mlir::Type;
using mlir::Value;
namespace arith = mlir::arith;

constexpr int64_t kDynamic = shapes::kDynamic;

/// A float32 tensor type of `shape`.
RankedTensorType tensorType(OpBuilder &b, ArrayRef<int64_t> shape);

ArrayRef<int64_t> shapeOf(Value v);

/// seq.permute of `x` by Keras' Permute dims (the axes after the batch,
/// numbered from 1).
Value permuteAxes(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> dims);

/// seq.reshape of `x` to (batch, target...); one target size may be -1.
/// The target must fit `x` (callers check shapes::reshape where it may not).
Value reshapeAxes(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> target);

/// A normalization over `axes` (ascending, after the batch axis) as the
/// same normalization over the last axis: `overLast` is given `x` with the
/// axes moved last and joined into one (of `joined` floats, unknown when
/// one of them is), and its result goes back to `x`'s layout. The ops are
/// located at "<name>/axis_last", "axes_joined", "axes_apart" and
/// "axis_back". Axes that would leave two of unknown length are an error
/// (from `fail`, given what is wrong).
Expected<Value> normalizeOverAxes(
    OpBuilder &b, StringRef name, Value x, ArrayRef<int64_t> axes,
    llvm::function_ref<Expected<Value>(Value flat, int64_t joined)> overLast,
    llvm::function_ref<llvm::Error(const llvm::Twine &)> fail);

/// A (size) float32 constant of `value` everywhere.
Value filledVector(OpBuilder &b, Location loc, int64_t size, double value);

/// x * scale + offset along the last axis, `scale` and `offset` (channels)
/// tensors: seq.batch_norm of mean 0, variance 1 and epsilon 0 is exactly
/// that.
Value scaleAndShift(OpBuilder &b, Location loc, Value x, Value scale, Value offset);
/// The same with numbers, along a last axis of fixed length.
Value scaleAndShift(OpBuilder &b, Location loc, Value x, double scale, double offset);

/// The location naming a layer (or a part of one: "conv/kernel").
Location layerLoc(OpBuilder &b, StringRef name);

/// "(?, 10, 12)".
std::string shapeText(ArrayRef<int64_t> shape);

/// A config number as Python would print it: 300, 0.5, 1e-05.
std::string formatNumber(double value);

/// The first failure among several config reads (the rest are dropped).
template <typename... Ts> Error firstError(Expected<Ts> &...values) {
  Error result = Error::success();
  auto take = [&](auto &value) {
    if (value)
      return;
    Error e = value.takeError();
    if (result)
      llvm::consumeError(std::move(e));
    else
      result = std::move(e);
  };
  (take(values), ...);
  return result;
}

struct ActivationSpec {
  Activation kind;
  FloatAttr alpha;
};

/// The weights a layer must have, in Keras' order; checks count and shapes
/// and turns each into an arith.constant holding a dense_resource blob.
class WeightList {
public:
  /// `unbuiltModel`: see LayerEmitter.
  WeightList(OpBuilder &b, const LayerConfig &layer,
             ArrayRef<WeightArray> arrays, StringRef locName, bool unbuiltModel)
      : b(b), layer(layer), arrays(arrays), locName(locName),
        unbuiltModel(unbuiltModel) {}

  /// `roles` names every array expected, e.g. {"kernel", "bias"}.
  Error expect(ArrayRef<StringRef> roles) {
    if (arrays.size() == roles.size())
      return Error::success();
    if (unbuiltModel)
      return layer.error("the file holds no weights: the model was saved before "
                         "it was built (build it, e.g. by calling it on a batch, "
                         "then save it again)");
    std::string names;
    for (StringRef r : roles)
      names += (names.empty() ? "" : ", ") + r.str();
    return layer.error("the file has " + Twine(arrays.size()) +
                       " weight arrays for this layer, expected " +
                       Twine(roles.size()) +
                       (roles.empty() ? "" : " (" + names + ")") +
                       ": the weights do not match the config");
  }

  /// The next array as a constant; `shape` may hold kDynamic wildcards.
  /// With `as` (of as many elements), the constant has that shape instead:
  /// the same values in the same order (a depthwise kernel (k..., C, M)
  /// as a grouped one (k..., 1, C*M)).
  Expected<Value> next(StringRef role, ArrayRef<int64_t> shape,
                       ArrayRef<int64_t> as = {}) {
    const WeightArray &array = arrays[used++];
    bool ok = array.shape.size() == shape.size();
    for (size_t i = 0; ok && i < shape.size(); ++i)
      ok = shape[i] == kDynamic || shape[i] == array.shape[i];
    if (!ok)
      return layer.error(role + " '" + array.name + "' has shape " +
                         shapeText(array.shape) + ", expected " +
                         shapeText(shape) + " from the config");
    auto type = tensorType(b, as.empty() ? ArrayRef<int64_t>(array.shape) : as);
    auto blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(
        ArrayRef<float>(array.data));
    auto attr = DenseResourceElementsAttr::get(
        type, (locName + "." + role).str(), std::move(blob));
    return arith::ConstantOp::create(b, layerLoc(b, (locName + "/" + role).str()),
                                     type, attr)
        .getResult();
  }

  /// A constant the file does not store (BatchNormalization's gamma when
  /// scale=False): `value` everywhere.
  Value filled(StringRef role, int64_t size, float value) {
    auto type = tensorType(b, {size});
    return arith::ConstantOp::create(b, layerLoc(b, (locName + "/" + role).str()),
                                     type, DenseElementsAttr::get(type, value))
        .getResult();
  }

  /// A kernel of `kernelShape` and, with `useBias`, a bias of the kernel's
  /// last size: Dense and Conv1D.
  Expected<std::pair<Value, Value>> kernelAndBias(ArrayRef<int64_t> kernelShape,
                                                  bool useBias) {
    std::vector<StringRef> roles = {"kernel"};
    if (useBias)
      roles.push_back("bias");
    if (Error e = expect(roles))
      return std::move(e);
    Expected<Value> kernel = next("kernel", kernelShape);
    if (!kernel)
      return kernel.takeError();
    if (!useBias)
      return std::make_pair(*kernel, Value());
    Expected<Value> bias = next("bias", {kernelShape.back()});
    if (!bias)
      return bias.takeError();
    return std::make_pair(*kernel, *bias);
  }

  /// How many arrays the file has for the layer.
  size_t size() const { return arrays.size(); }

  /// The next array as it is in the file (after expect()), for a layer that
  /// folds it into constants of its own.
  const WeightArray &take() { return arrays[used++]; }

  /// The shape of the next array, before taking it.
  ArrayRef<int64_t> peekShape() const { return arrays[used].shape; }

private:
  OpBuilder &b;
  const LayerConfig &layer;
  ArrayRef<WeightArray> arrays;
  std::string locName;
  bool unbuiltModel;
  size_t used = 0;
};

/// The activation in config key `key` (`fallback` when absent), by name;
/// `kerasMajor` picks hard_sigmoid's formula.
Expected<ActivationSpec> parseActivation(OpBuilder &b, const LayerConfig &layer,
                                         StringRef key, StringRef fallback,
                                         int kerasMajor);

/// A layer error unless `input` has rank `rank` (batch axis included).
Error requireRank(const LayerConfig &layer, Value input, size_t rank);

/// The axes config 'axis' names (an int or a list; absent: the last), as
/// indices in [1, rank), ascending: a layer error for the batch axis, an
/// axis out of range or named twice.
Expected<SmallVector<int64_t>> featureAxes(const LayerConfig &layer, size_t rank);

/// The one axis config 'axis' names (an int or a one-element list; absent:
/// the last) as an index in [1, rank): a layer error for the batch axis,
/// an axis out of range, or several axes.
Expected<int64_t> singleFeatureAxis(const LayerConfig &layer, size_t rank);

/// A layer error unless config 'axis' (singleFeatureAxis) is the last axis
/// of a rank-`rank` input. The normalizations check it; LayerEmitter hands
/// them another axis moved last, with 'axis' -1.
Error requireLastAxis(const LayerConfig &layer, size_t rank);

/// Config 'padding': valid, same, and with `allowCausal` causal.
Expected<Padding> parsePadding(const LayerConfig &layer, bool allowCausal);

} // namespace seq::keras::emit

#endif

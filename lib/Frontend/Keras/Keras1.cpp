#include "Keras1.h"

#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace seq::keras {

namespace {

/// The key under which a translated layer entry keeps its Keras 1 class,
/// so that messages name the class the user wrote.

bool isRecurrent(StringRef cls) {
  return cls == "LSTM" || cls == "GRU" || cls == "SimpleRNN";
}

/// Visits every {"class_name", "config": {...}} layer entry of a model
/// config, wrapped layers included.
void forEachLayer(const json::Value &value,
                  function_ref<void(StringRef, const json::Object &)> visit) {
  if (const json::Array *list = value.getAsArray()) {
    for (const json::Value &e : *list)
      forEachLayer(e, visit);
    return;
  }
  const json::Object *o = value.getAsObject();
  if (!o)
    return;
  std::optional<StringRef> cls = o->getString("class_name");
  const json::Value *config = o->get("config");
  if (cls && config && config->getAsObject())
    visit(*cls, *config->getAsObject());
  if (config) {
    if (const json::Object *c = config->getAsObject()) {
      if (const json::Value *layers = c->get("layers"))
        forEachLayer(*layers, visit);
      if (const json::Value *layer = c->get("layer"))
        forEachLayer(*layer, visit);
    } else {
      forEachLayer(*config, visit);
    }
  }
}

/// Moves `from` to `to` (when present).
void rename(json::Object &config, StringRef from, StringRef to) {
  auto it = config.find(from);
  if (it == config.end())
    return;
  json::Value value = std::move(it->second);
  config.erase(it);
  config[to] = std::move(value);
}

/// Keras 1 built-in layers with no counterpart in seqc: refused as Keras 1
/// layers rather than reported as unknown (custom) classes.
bool isUnsupportedKeras1Class(StringRef cls) {
  static const StringSet<> classes = {
      "Deconvolution2D", "LocallyConnected1D",
      "LocallyConnected2D",     "ConvLSTM2D",      "Highway",
      "MaxoutDense",            "ParametricSoftplus", "SReLU"};
  return classes.contains(cls);
}

/// The Keras 1 poolings of 2-D and 3-D inputs, under their Keras 2 names.
bool isPoolingNd(StringRef cls) {
  return cls == "MaxPooling2D" || cls == "AveragePooling2D" ||
         cls == "MaxPooling3D" || cls == "AveragePooling3D";
}

class Translator {
public:
  Translator(StringRef where, StringRef version)
      : where(where), version(version) {}

  Error layerList(json::Array &layers) {
    for (size_t i = 0; i < layers.size(); ++i) {
      json::Object *entry = layers[i].getAsObject();
      // A malformed entry is parseModelConfig's to report.
      if (entry)
        if (Error e = layer(*entry, /*first=*/isFirst(layers, i)))
          return e;
    }
    return Error::success();
  }

  Error layer(json::Object &entry, bool first) {
    std::optional<StringRef> clsValue = entry.getString("class_name");
    json::Object *config = entry.getObject("config");
    if (!clsValue || !config)
      return Error::success();
    std::string cls = clsValue->str();
    std::string name = config->getString("name").value_or(cls).str();
    auto error = [&](const Twine &message) {
      return fileError(where, "layer '" + name + "' (" + cls + "): Keras 1 " +
                                  message);
    };

    // Keras 2's data_format: 'th' (Theano's order) is channels first.
    if (const json::Value *order = config->get("dim_ordering")) {
      std::optional<StringRef> text = order->getAsString();
      if (!text || (*text != "th" && *text != "tf"))
        return error("dim_ordering '" + (text ? *text : StringRef("?")) +
                     "' is unknown (Keras 1 knows 'th' and 'tf')");
      (*config)["data_format"] = *text == "th" ? "channels_first" : "channels_last";
      config->erase("dim_ordering");
    }
    if (first && !config->get("batch_input_shape"))
      synthesizeInputShape(cls, *config);

    std::string newClass = cls;
    if (cls == "Dense") {
      rename(*config, "output_dim", "units");
      rename(*config, "bias", "use_bias");
    } else if (isRecurrent(cls)) {
      if (Error e = recurrent(cls, *config, error))
        return e;
    } else if (cls == "Bidirectional" || cls == "TimeDistributed") {
      json::Object *inner = config->getObject("layer");
      bool hoist = first && !config->get("batch_input_shape");
      if (inner)
        if (Error e = layer(*inner, hoist))
          return e;
      // The input shape given to the wrapped layer is the model's.
      if (json::Object *innerConfig = inner ? inner->getObject("config") : nullptr)
        if (const json::Value *shape = innerConfig->get("batch_input_shape");
            hoist && shape)
          (*config)["batch_input_shape"] = *shape;
    } else if (cls == "TimeDistributedDense") {
      // Keras 1's TimeDistributedDense is TimeDistributed(Dense) with the
      // same two weights.
      json::Object dense = *config;
      dense.erase("batch_input_shape");
      rename(dense, "output_dim", "units");
      rename(dense, "bias", "use_bias");
      dense["name"] = name + "/dense"; // the op inside the wrapper's region
      json::Object wrapper;
      for (StringRef key : {"name", "trainable", "batch_input_shape"})
        if (const json::Value *v = config->get(key))
          wrapper[key] = *v;
      wrapper["layer"] =
          json::Object{{"class_name", "Dense"}, {"config", std::move(dense)}};
      *config = std::move(wrapper);
      newClass = "TimeDistributed";
    } else if (cls == "Convolution1D" || cls == "AtrousConvolution1D") {
      rename(*config, "nb_filter", "filters");
      rename(*config, "filter_length", "kernel_size");
      rename(*config, "subsample_length", "strides");
      rename(*config, "atrous_rate", "dilation_rate");
      rename(*config, "bias", "use_bias");
      if (Error e = borderMode(*config, error))
        return e;
      newClass = "Conv1D";
    } else if (cls == "Convolution2D" || cls == "AtrousConvolution2D" ||
               cls == "Convolution3D" || cls == "SeparableConvolution2D") {
      bool is3d = cls == "Convolution3D";
      json::Array kernel;
      for (StringRef key : is3d ? std::vector<StringRef>{"kernel_dim1", "kernel_dim2",
                                                         "kernel_dim3"}
                                : std::vector<StringRef>{"nb_row", "nb_col"}) {
        const json::Value *size = config->get(key);
        if (!size || !size->getAsInteger())
          return error("config has no integer '" + key + "'");
        kernel.push_back(*size);
        config->erase(key);
      }
      (*config)["kernel_size"] = std::move(kernel);
      rename(*config, "nb_filter", "filters");
      rename(*config, "subsample", "strides");
      rename(*config, "atrous_rate", "dilation_rate");
      rename(*config, "bias", "use_bias");
      if (Error e = borderMode(*config, error))
        return e;
      newClass = is3d ? "Conv3D"
                 : cls == "SeparableConvolution2D" ? "SeparableConv2D"
                                                   : "Conv2D";
    } else if (isPoolingNd(cls)) {
      if (const json::Value *strides = config->get("strides");
          strides && strides->kind() == json::Value::Null)
        config->erase("strides"); // null: the pool size, as in Keras 2
      if (Error e = borderMode(*config, error))
        return e;
    } else if (cls == "UpSampling1D") {
      rename(*config, "length", "size");
    } else if (cls == "ZeroPadding2D") {
      if (Error e = zeroPadding2d(*config, error))
        return e;
    } else if (cls == "SpatialDropout2D" || cls == "SpatialDropout3D") {
      rename(*config, "p", "rate");
    } else if (cls == "MaxPooling1D" || cls == "AveragePooling1D") {
      rename(*config, "pool_length", "pool_size");
      if (const json::Value *stride = config->get("stride");
          stride && stride->kind() == json::Value::Null)
        config->erase("stride"); // null: the pool length, as in Keras 2
      rename(*config, "stride", "strides");
      if (Error e = borderMode(*config, error))
        return e;
    } else if (cls == "Dropout" || cls == "SpatialDropout1D" ||
               cls == "GaussianDropout") {
      rename(*config, "p", "rate");
    } else if (cls == "GaussianNoise") {
      rename(*config, "sigma", "stddev");
    } else if (cls == "BatchNormalization") {
      if (Error e = batchNorm(*config, error))
        return e;
    } else if (cls == "Merge") {
      return error("Merge layers join branches, which seqc does not support "
                   "(only plain chains of layers)");
    } else if (isUnsupportedKeras1Class(cls)) {
      return error("layer class '" + cls + "' is not supported (see "
                   "docs/Usage.md for the Keras 1 layers seqc reads)");
    }
    if (newClass != cls) {
      entry["class_name"] = newClass;
      entry[kSourceClassKey] = cls;
    }
    return Error::success();
  }

private:
  /// Keras 1.1 and 1.2 normalise at inference by the running mean and
  /// `running_std`, which despite its name holds the running variance
  /// (K.batch_normalization): the weights [gamma, beta, running_mean,
  /// running_std] are Keras 2's [gamma, beta, moving_mean, moving_variance],
  /// as Keras 2 loads them. Keras 1.0 divided by (std + epsilon) up to some
  /// 1.0.x release and recorded no version, so its files are refused.
  template <typename ErrorFn>
  Error batchNorm(json::Object &config, ErrorFn &error) {
    StringRef v = version;
    if (!(v.starts_with("1.1") || v.starts_with("1.2")))
      return error("BatchNormalization from Keras 1.0 (" +
                   (v.empty() ? std::string("no keras_version")
                              : "keras_version " + version) +
                   ") is not supported: Keras 1.0 stored a standard deviation "
                   "where Keras 1.1 and later store a variance (rebuild the "
                   "model in Keras 2 and copy the weights)");
    if (const json::Value *mode = config.get("mode")) {
      std::optional<int64_t> value = mode->getAsInteger();
      if (value != 0)
        return error("BatchNormalization mode " +
                     (value ? std::to_string(*value) : std::string("?")) +
                     " is not supported, only mode 0 (feature-wise, with the "
                     "running statistics at inference); modes 1 and 2 "
                     "normalise with each batch's statistics");
      config.erase("mode");
    }
    for (StringRef key : {"beta_init", "gamma_init",
                          "gamma_regularizer", "beta_regularizer"})
      config.erase(key);
    return Error::success();
  }

  static bool isFirst(const json::Array &layers, size_t i) {
    for (size_t j = 0; j < i; ++j) {
      const json::Object *o = layers[j].getAsObject();
      if (!o || o->getString("class_name") != StringRef("InputLayer"))
        return false;
    }
    return true;
  }

  /// A first layer made with input_dim/input_length instead of
  /// input_shape records only those.
  static void synthesizeInputShape(StringRef cls, json::Object &config) {
    const json::Value *dim = config.get("input_dim");
    const json::Value *length = config.get("input_length");
    auto orNull = [](const json::Value *v) {
      return v && v->getAsInteger() ? json::Value(*v->getAsInteger())
                                    : json::Value(nullptr);
    };
    if (cls == "Embedding") {
      config["batch_input_shape"] = json::Array{nullptr, orNull(length)};
      return;
    }
    if (!dim || !dim->getAsInteger())
      return;
    if (cls == "Dense")
      config["batch_input_shape"] = json::Array{nullptr, orNull(dim)};
    else if (isRecurrent(cls) || cls == "Convolution1D" ||
             cls == "AtrousConvolution1D" || cls == "TimeDistributedDense")
      config["batch_input_shape"] =
          json::Array{nullptr, orNull(length), orNull(dim)};
  }

  template <typename ErrorFn>
  static Error recurrent(StringRef cls, json::Object &config, ErrorFn error) {
    rename(config, "output_dim", "units");
    // Keras 1's defaults, where Keras 2's differ.
    if (!config.get("inner_activation") && cls != "SimpleRNN")
      config["inner_activation"] = "hard_sigmoid";
    rename(config, "inner_activation", "recurrent_activation");
    // Keras 1 recurrent layers always have a bias; its GRU applies the reset
    // gate before the recurrent product.
    config["use_bias"] = true;
    if (cls == "GRU")
      config["reset_after"] = false;
    if (const json::Value *mode = config.get("consume_less")) {
      std::optional<StringRef> text = mode->getAsString();
      if (!text || (*text != "cpu" && *text != "mem" && *text != "gpu"))
        return error("consume_less '" + (text ? *text : StringRef("?")) +
                     "' is unknown (Keras 1 knows 'cpu', 'mem' and 'gpu')");
      config.erase("consume_less");
    }
    return Error::success();
  }

  /// Keras 1.2's ZeroPadding2D padding: (rows, cols) as in Keras 2, or
  /// (top, bottom, left, right), or a dict of top_pad, bottom_pad, left_pad
  /// and right_pad; the last two become Keras 2's ((top, bottom), (left,
  /// right)).
  template <typename ErrorFn>
  static Error zeroPadding2d(json::Object &config, ErrorFn error) {
    const json::Value *padding = config.get("padding");
    if (!padding)
      return Error::success();
    std::vector<int64_t> sides; // top, bottom, left, right
    if (const json::Object *named = padding->getAsObject()) {
      for (StringRef key : {"top_pad", "bottom_pad", "left_pad", "right_pad"}) {
        const json::Value *side = named->get(key);
        std::optional<int64_t> size = side ? side->getAsInteger() : int64_t(0);
        if (!size)
          return error("ZeroPadding2D padding '" + key + "' must be an integer");
        sides.push_back(*size);
      }
    } else if (const json::Array *list = padding->getAsArray();
               list && list->size() == 4) {
      for (const json::Value &side : *list) {
        std::optional<int64_t> size = side.getAsInteger();
        if (!size)
          return error("ZeroPadding2D padding must hold integers");
        sides.push_back(*size);
      }
    } else {
      return Error::success(); // (rows, cols) or an int: Keras 2's forms
    }
    config["padding"] = json::Array{json::Array{sides[0], sides[1]},
                                    json::Array{sides[2], sides[3]}};
    return Error::success();
  }

  template <typename ErrorFn>
  static Error borderMode(json::Object &config, ErrorFn error) {
    const json::Value *mode = config.get("border_mode");
    if (!mode)
      return Error::success();
    std::optional<StringRef> text = mode->getAsString();
    if (!text || (*text != "valid" && *text != "same"))
      return error("border_mode '" + (text ? *text : StringRef("?")) +
                   "' is not supported (valid and same are)");
    rename(config, "border_mode", "padding");
    return Error::success();
  }

  std::string where;
  std::string version;
};

/// `count` arrays starting at `first` of the regrouped layer, one per gate,
/// stacked along their last axis in `order`.
Expected<WeightArray> fuseGates(const LayerConfig &layer,
                                ArrayRef<WeightArray> arrays,
                                ArrayRef<int> order, int role, int perGate) {
  const WeightArray &head = arrays[order[0] * perGate + role];
  WeightArray fused;
  fused.shape = head.shape;
  if (head.shape.empty() || head.shape.size() > 2)
    return layer.error("Keras 1 per-gate weight '" + head.name +
                       "' must have rank 1 or 2");
  int64_t width = head.shape.back();
  int64_t rows = head.shape.size() == 2 ? head.shape[0] : 1;
  for (int gate : order) {
    const WeightArray &part = arrays[gate * perGate + role];
    if (part.shape != head.shape)
      return layer.error("Keras 1 per-gate weights '" + head.name + "' and '" +
                         part.name + "' differ in shape");
    fused.name += (fused.name.empty() ? "" : " + ") + part.name;
  }
  fused.shape.back() = width * static_cast<int64_t>(order.size());
  fused.data.reserve(head.data.size() * order.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int gate : order) {
      const std::vector<float> &data = arrays[gate * perGate + role].data;
      fused.data.insert(fused.data.end(), data.begin() + r * width,
                        data.begin() + (r + 1) * width);
    }
  return fused;
}

/// The per-gate weight name Keras 1 gives array `index` of a recurrent layer
/// stored per gate ("W_i", "U_c", ...).
std::string gateWeightName(StringRef gates, size_t index) {
  static const char *roles[] = {"W", "U", "b"};
  return std::string(roles[index % 3]) + "_" + gates[index / 3];
}

/// LSTM (12 arrays, gates i, c, f, o) or GRU (9 arrays, gates z, r, h) stored
/// per gate: kernel, recurrent_kernel, bias in Keras 2's order. Other counts
/// are left for the emitter to report (3 = consume_less='gpu', already fused
/// in Keras 2's order).
Error fuseRecurrent(const LayerConfig &layer, StringRef cls,
                    std::vector<WeightArray> &arrays) {
  StringRef gates = cls == "LSTM" ? "icfo" : cls == "GRU" ? "zrh" : "";
  if (gates.empty() || arrays.size() != 3 * gates.size())
    return Error::success();
  // Keras 1 names them <layer>_W_i:0 ...; a file whose names say another
  // order is refused rather than misread.
  for (size_t i = 0; i < arrays.size(); ++i) {
    StringRef name = arrays[i].name;
    name = name.substr(name.rfind('/') + 1);
    name = name.take_until([](char c) { return c == ':'; });
    std::string expected = gateWeightName(gates, i);
    bool keras1Named = name.size() > 4 && name[name.size() - 2] == '_' &&
                       name[name.size() - 4] == '_';
    if (keras1Named && !name.ends_with("_" + expected))
      return layer.error("Keras 1 weight " + Twine(i) + " is '" + arrays[i].name +
                         "', expected one named *_" + expected +
                         " (Keras 1 stores " + cls + " weights per gate in the "
                         "order " + (cls == "LSTM" ? "i, c, f, o" : "z, r, h") +
                         ")");
  }
  // Keras 2's gate order as positions in Keras 1's.
  std::vector<int> order = cls == "LSTM" ? std::vector<int>{0, 2, 1, 3}
                                         : std::vector<int>{0, 1, 2};
  std::vector<WeightArray> fused;
  for (int role = 0; role < 3; ++role) {
    Expected<WeightArray> array = fuseGates(layer, arrays, order, role, 3);
    if (!array)
      return array.takeError();
    fused.push_back(std::move(*array));
  }
  arrays = std::move(fused);
  return Error::success();
}

/// Convolution1D kernels: Keras 1.2 (filter_length, 1, input_dim, nb_filter)
/// or Keras 1.0/1.1 (nb_filter, input_dim, filter_length, 1) become
/// (filter_length, input_dim, nb_filter); Theano's are flipped in time.
Error convertConvKernel(const LayerConfig &layer, WeightArray &kernel,
                        StringRef backend) {
  std::vector<int64_t> s = kernel.shape;
  if (s.size() != 4)
    return Error::success(); // the emitter reports the shape
  Expected<int64_t> filters = layer.getIntOr("filters", -1);
  Expected<int64_t> width = layer.getIntOrSingleton("kernel_size");
  if (!filters || !width) {
    consumeError(filters.takeError());
    consumeError(width.takeError());
    return Error::success(); // the emitter reports the config
  }
  int64_t length, in, out;
  std::vector<float> data(kernel.data.size());
  if (s[1] == 1 && s[0] == *width && s[3] == *filters) {
    length = s[0], in = s[2], out = s[3];
    data = kernel.data;
  } else if (s[3] == 1 && s[0] == *filters && s[2] == *width) {
    out = s[0], in = s[1], length = s[2];
    for (int64_t o = 0; o < out; ++o)
      for (int64_t c = 0; c < in; ++c)
        for (int64_t t = 0; t < length; ++t)
          data[(t * in + c) * out + o] = kernel.data[(o * in + c) * length + t];
  } else {
    return layer.error("Keras 1 kernel '" + kernel.name +
                       "' has neither the (filter_length, 1, input_dim, "
                       "nb_filter) nor the (nb_filter, input_dim, "
                       "filter_length, 1) layout");
  }
  if (backend == "theano") {
    std::vector<float> flipped(data.size());
    int64_t step = in * out;
    for (int64_t t = 0; t < length; ++t)
      std::copy(data.begin() + t * step, data.begin() + (t + 1) * step,
                flipped.begin() + (length - 1 - t) * step);
    data = std::move(flipped);
  }
  kernel.shape = {length, in, out};
  kernel.data = std::move(data);
  return Error::success();
}

/// Convolution2D/3D kernels: Keras 1 stores them (nb_filter, stack, k...)
/// with dim_ordering 'th' and (k..., stack, nb_filter) with 'tf'; they
/// become Keras 2's (k..., stack, nb_filter), and Theano's (a true
/// convolution) are flipped along every spatial axis, as Keras 2's loader
/// does (convert_kernel).
Error convertConvNdKernel(const LayerConfig &layer, WeightArray &kernel,
                          StringRef backend) {
  std::vector<int64_t> s = kernel.shape;
  size_t rank = s.size();
  Expected<int64_t> filters = layer.getIntOr("filters", -1);
  std::optional<StringRef> format = layer.getObject().getString("data_format");
  if (!filters || rank < 3) {
    if (!filters)
      consumeError(filters.takeError());
    return Error::success(); // the emitter reports the config or the shape
  }
  size_t n = rank - 2; // spatial axes
  std::vector<int64_t> k(n), out(rank);
  int64_t in;
  bool channelsFirst = format && *format == "channels_first";
  if (channelsFirst) {
    in = s[1];
    for (size_t i = 0; i < n; ++i)
      k[i] = s[2 + i];
    if (s[0] != *filters)
      return layer.error("Keras 1 kernel '" + kernel.name + "' of dim_ordering 'th' "
                         "must have nb_filter (" + Twine(*filters) +
                         ") on its first axis, got shape " + Twine(s[0]) + " there");
  } else {
    in = s[n];
    for (size_t i = 0; i < n; ++i)
      k[i] = s[i];
    if (s[n + 1] != *filters)
      return layer.error("Keras 1 kernel '" + kernel.name + "' of dim_ordering 'tf' "
                         "must have nb_filter (" + Twine(*filters) +
                         ") on its last axis, got shape " + Twine(s[n + 1]) + " there");
  }
  int64_t taps = 1;
  for (int64_t size : k)
    taps *= size;
  std::vector<float> data(kernel.data.size());
  // Keras 2's element (tap t, channel c, filter f) from Keras 1's, the tap
  // flipped along every spatial axis for Theano.
  bool flip = backend == "theano";
  for (int64_t t = 0; t < taps; ++t) {
    int64_t from = 0, rest = t;
    std::vector<int64_t> index(n);
    for (size_t i = n; i-- > 0;) {
      index[i] = rest % k[i];
      rest /= k[i];
    }
    for (size_t i = 0; i < n; ++i)
      from = from * k[i] + (flip ? k[i] - 1 - index[i] : index[i]);
    for (int64_t c = 0; c < in; ++c)
      for (int64_t f = 0; f < *filters; ++f) {
        size_t at = channelsFirst ? (size_t)((f * in + c) * taps + from)
                                  : (size_t)((from * in + c) * *filters + f);
        data[(t * in + c) * *filters + f] = kernel.data[at];
      }
  }
  for (size_t i = 0; i < n; ++i)
    out[i] = k[i];
  out[n] = in;
  out[n + 1] = *filters;
  kernel.shape = out;
  kernel.data = std::move(data);
  return Error::success();
}

/// SeparableConvolution2D (TensorFlow only in Keras 1): with dim_ordering
/// 'th' its depthwise kernel is (depth_multiplier, stack, rows, cols) and
/// its pointwise kernel (nb_filter, stack * depth_multiplier, 1, 1); Keras
/// 1's backend transposed both by (2, 3, 1, 0) into Keras 2's layouts.
Error convertSeparableKernels(const LayerConfig &layer,
                              std::vector<WeightArray> &weights) {
  std::optional<StringRef> format = layer.getObject().getString("data_format");
  if (!format || *format != "channels_first")
    return Error::success();
  for (size_t i = 0; i < std::min<size_t>(2, weights.size()); ++i) {
    WeightArray &w = weights[i];
    if (w.shape.size() != 4)
      continue; // the emitter reports the shape
    std::vector<int64_t> s = w.shape;
    std::vector<float> data(w.data.size());
    // (a, b, c, d) -> (c, d, b, a)
    for (int64_t a = 0; a < s[0]; ++a)
      for (int64_t b = 0; b < s[1]; ++b)
        for (int64_t c = 0; c < s[2]; ++c)
          for (int64_t d = 0; d < s[3]; ++d)
            data[((c * s[3] + d) * s[1] + b) * s[0] + a] =
                w.data[((a * s[1] + b) * s[2] + c) * s[3] + d];
    w.shape = {s[2], s[3], s[1], s[0]};
    w.data = std::move(data);
  }
  (void)layer;
  return Error::success();
}

} // namespace

bool isKeras1Model(StringRef kerasVersion, const json::Value &root) {
  if (!kerasVersion.empty())
    return kerasVersion.starts_with("1.");
  // Keras 1.0 recorded no version: its argument names tell it.
  static const StringSet<> classes = {"Convolution1D", "AtrousConvolution1D",
                                      "TimeDistributedDense", "Merge",
                                      "Convolution2D", "MaxoutDense",
                                      "Highway"};
  static const StringSet<> keys = {
      "inner_activation", "nb_filter",    "filter_length", "border_mode",
      "subsample_length", "pool_length",  "consume_less",  "dim_ordering",
      "W_regularizer",    "dropout_W",    "input_dtype"};
  bool found = false;
  forEachLayer(root, [&](StringRef cls, const json::Object &c) {
    if (classes.contains(cls) || (cls == "Dropout" && c.get("p")) ||
        (cls != "Embedding" && c.get("output_dim")))
      found = true;
    for (const auto &kv : c)
      if (keys.contains(kv.first.str()))
        found = true;
  });
  return found;
}

Error translateKeras1Config(json::Value &root, StringRef where,
                           StringRef kerasVersion) {
  json::Object *top = root.getAsObject();
  json::Value *config = top ? top->get("config") : nullptr;
  if (!config)
    return Error::success(); // parseModelConfig says what is missing
  Translator translator(where, kerasVersion);
  if (json::Array *list = config->getAsArray())
    return translator.layerList(*list);
  if (json::Object *o = config->getAsObject())
    if (json::Array *layers = o->getArray("layers"))
      return translator.layerList(*layers);
  return Error::success();
}

Error translateKeras1Weights(const LayerConfig &layer,
                             std::vector<WeightArray> &weights,
                             StringRef backend) {
  StringRef cls = layer.getClassName();
  if (isRecurrent(cls))
    return fuseRecurrent(layer, cls, weights);
  if (cls == "Bidirectional") {
    Expected<LayerConfig> inner = layer.getInnerLayer("layer");
    if (!inner)
      return inner.takeError();
    if (weights.size() % 2)
      return Error::success(); // the emitter reports the count
    size_t half = weights.size() / 2;
    std::vector<WeightArray> forward(weights.begin(), weights.begin() + half);
    std::vector<WeightArray> backward(weights.begin() + half, weights.end());
    if (Error e = fuseRecurrent(layer, inner->getClassName(), forward))
      return e;
    if (Error e = fuseRecurrent(layer, inner->getClassName(), backward))
      return e;
    weights = std::move(forward);
    weights.insert(weights.end(), std::make_move_iterator(backward.begin()),
                   std::make_move_iterator(backward.end()));
    return Error::success();
  }
  if (cls == "Conv1D" && !weights.empty())
    return convertConvKernel(layer, weights[0], backend);
  if ((cls == "Conv2D" || cls == "Conv3D") && !weights.empty())
    return convertConvNdKernel(layer, weights[0], backend);
  if (cls == "SeparableConv2D")
    return convertSeparableKernels(layer, weights);
  return Error::success();
}

} // namespace seq::keras

#include "seq/Dialect/Seq/IR/SeqShapes.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace seq::shapes {

std::string format(llvm::ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "(";
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (d == kDynamic)
      os << "?";
    else
      os << d;
  });
  os << ")";
  return text;
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t conv1dLength(int64_t length, int64_t width, int64_t stride,
                     int64_t dilation, Padding padding) {
  if (length == kDynamic)
    return kDynamic;
  int64_t span = dilation * (width - 1) + 1;
  switch (padding) {
  case Padding::Same:
    return ceilDiv(length, stride);
  case Padding::Causal:
    length += span - 1;
    [[fallthrough]];
  case Padding::Valid:
    return length < span ? 0 : (length - span) / stride + 1;
  }
  llvm_unreachable("unknown padding");
}

int64_t pool1dLength(int64_t length, int64_t poolSize, int64_t stride,
                     Padding padding) {
  return conv1dLength(length, poolSize, stride, /*dilation=*/1, padding);
}

llvm::SmallVector<int64_t> convolution(llvm::ArrayRef<int64_t> input,
                                       llvm::ArrayRef<int64_t> window,
                                       llvm::ArrayRef<int64_t> strides,
                                       llvm::ArrayRef<int64_t> dilations,
                                       Padding padding, int64_t filters) {
  llvm::SmallVector<int64_t> result{input.front()};
  for (size_t i = 0; i < window.size(); ++i)
    result.push_back(conv1dLength(input[i + 1], window[i], strides[i],
                                  dilations[i], padding));
  result.push_back(filters);
  return result;
}

llvm::SmallVector<int64_t> convLstm(llvm::ArrayRef<int64_t> input,
                                    llvm::ArrayRef<int64_t> window,
                                    llvm::ArrayRef<int64_t> strides,
                                    llvm::ArrayRef<int64_t> dilations,
                                    Padding padding, int64_t filters,
                                    bool returnSequences) {
  llvm::SmallVector<int64_t> step{input.front()};
  step.append(input.begin() + 2, input.end());
  llvm::SmallVector<int64_t> result =
      convolution(step, window, strides, dilations, padding, filters);
  if (returnSequences)
    result.insert(result.begin() + 1, input[1]);
  return result;
}

TransposedAxis transposedAxis(int64_t length, int64_t width, int64_t stride,
                              int64_t dilation, Padding padding,
                              int64_t outputPadding) {
  int64_t span = dilation * (width - 1) + 1;
  bool same = padding == Padding::Same;
  // The length's part that does not depend on the input: out = n*s + tail.
  int64_t tail = outputPadding < 0
                     ? (same ? 0 : std::max(span, stride) - stride)
                     : (same ? span % 2 : span) + outputPadding - stride;
  int64_t padBefore =
      same ? std::max(span - stride - tail, int64_t(0)) / 2 : 0;
  if (length == kDynamic)
    return {kDynamic, padBefore};
  return {length * stride + tail, padBefore};
}

bool transposedPaddingFits(int64_t width, int64_t stride, int64_t dilation,
                           Padding padding, int64_t outputPadding) {
  if (outputPadding < 0)
    return true;
  int64_t span = dilation * (width - 1) + 1;
  if (padding == Padding::Same)
    return span % 2 + outputPadding >= 1 && span % 2 + outputPadding <= stride;
  return outputPadding < stride;
}

llvm::SmallVector<int64_t>
transposedConvolution(llvm::ArrayRef<int64_t> input,
                      llvm::ArrayRef<int64_t> window,
                      llvm::ArrayRef<int64_t> strides,
                      llvm::ArrayRef<int64_t> dilations, Padding padding,
                      llvm::ArrayRef<int64_t> outputPadding, int64_t filters) {
  llvm::SmallVector<int64_t> result{input.front()};
  for (size_t i = 0; i < window.size(); ++i)
    result.push_back(transposedAxis(input[i + 1], window[i], strides[i],
                                    dilations[i], padding,
                                    outputPadding.empty() ? -1
                                                          : outputPadding[i])
                         .length);
  result.push_back(filters);
  return result;
}

llvm::SmallVector<int64_t> pooling(llvm::ArrayRef<int64_t> input,
                                   llvm::ArrayRef<int64_t> window,
                                   llvm::ArrayRef<int64_t> strides,
                                   Padding padding) {
  llvm::SmallVector<int64_t> ones(window.size(), 1);
  return convolution(input, window, strides, ones, padding, input.back());
}

llvm::SmallVector<int64_t> globalPooling(llvm::ArrayRef<int64_t> input,
                                         bool keepdims) {
  if (!keepdims)
    return {input.front(), input.back()};
  llvm::SmallVector<int64_t> result(input.size(), 1);
  result.front() = input.front();
  result.back() = input.back();
  return result;
}

llvm::SmallVector<int64_t> padded(llvm::ArrayRef<int64_t> input,
                                  llvm::ArrayRef<int64_t> low,
                                  llvm::ArrayRef<int64_t> high, int sign) {
  llvm::SmallVector<int64_t> result(input);
  for (size_t i = 0; i + 1 < input.size(); ++i)
    if (input[i + 1] != kDynamic)
      result[i + 1] = input[i + 1] + sign * (low[i] + high[i]);
  return result;
}

llvm::SmallVector<int64_t> upsampled(llvm::ArrayRef<int64_t> input,
                                     llvm::ArrayRef<int64_t> size) {
  llvm::SmallVector<int64_t> result(input);
  for (size_t i = 0; i + 1 < input.size(); ++i)
    if (input[i + 1] != kDynamic)
      result[i + 1] = input[i + 1] * size[i];
  return result;
}

llvm::SmallVector<int64_t> categoryEncoded(llvm::ArrayRef<int64_t> input,
                                           int64_t numTokens, CategoryMode mode) {
  if (mode == CategoryMode::OneHot && input.size() == 2 && input[1] != 1)
    return {input[0], input[1], numTokens};
  return {input.empty() ? kDynamic : input[0], numTokens};
}

llvm::SmallVector<int64_t> resized(llvm::ArrayRef<int64_t> input,
                                   llvm::ArrayRef<int64_t> size) {
  llvm::SmallVector<int64_t> result(input);
  for (size_t i = 0; i < size.size() && i + 2 < input.size(); ++i)
    result[i + 1] = size[i];
  return result;
}

bool isPermutation(llvm::ArrayRef<int64_t> dims) {
  llvm::SmallVector<bool> seen(dims.size() + 1, false);
  for (int64_t d : dims) {
    if (d < 1 || d > static_cast<int64_t>(dims.size()) || seen[d])
      return false;
    seen[d] = true;
  }
  return true;
}

llvm::SmallVector<int64_t> permuted(llvm::ArrayRef<int64_t> input,
                                    llvm::ArrayRef<int64_t> dims) {
  llvm::SmallVector<int64_t> result{input.front()};
  for (int64_t d : dims)
    result.push_back(input[d]);
  return result;
}

llvm::SmallVector<int64_t> inversePermutation(llvm::ArrayRef<int64_t> dims) {
  llvm::SmallVector<int64_t> inverse(dims.size());
  for (auto [i, d] : llvm::enumerate(dims))
    inverse[d - 1] = static_cast<int64_t>(i) + 1;
  return inverse;
}

llvm::SmallVector<int64_t> flatten(llvm::ArrayRef<int64_t> input) {
  int64_t product = 1;
  for (int64_t d : input.drop_front()) {
    if (d == kDynamic) {
      product = kDynamic;
      break;
    }
    product *= d;
  }
  return {input.front(), product};
}

std::optional<llvm::SmallVector<int64_t>>
reshape(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> target,
        std::string &error) {
  int64_t inferred = -1;
  int64_t known = 1;
  for (auto [i, d] : llvm::enumerate(target)) {
    if (d == -1) {
      if (inferred != -1) {
        error = "target_shape may hold at most one -1";
        return std::nullopt;
      }
      inferred = i;
    } else if (d <= 0) {
      error = "target_shape sizes must be positive or -1, got " +
              std::to_string(d);
      return std::nullopt;
    } else {
      known *= d;
    }
  }
  llvm::SmallVector<int64_t> inputTail(input.drop_front());
  int64_t total = flatten(input)[1];
  llvm::SmallVector<int64_t> result{input.front()};
  result.append(target.begin(), target.end());
  if (total == kDynamic) {
    if (inferred != -1)
      result[inferred + 1] = kDynamic;
    return result;
  }
  if (inferred == -1 ? total != known : total % known != 0) {
    error = "cannot reshape " + format(inputTail) + " (" +
            std::to_string(total) + " values per sample) into " +
            format(target);
    return std::nullopt;
  }
  if (inferred != -1)
    result[inferred + 1] = total / known;
  return result;
}

bool takesAlpha(Activation activation) {
  return activation == Activation::LeakyRelu || activation == Activation::Elu ||
         activation == Activation::Celu ||
         activation == Activation::ThresholdedRelu || activation == Activation::Reciprocal;
}

float cellAlpha(Activation activation) {
  switch (activation) {
  case Activation::Elu:
  case Activation::Celu:
  case Activation::Reciprocal:
    return 1.0f;
  case Activation::LeakyRelu:
    return 0.2f; // keras.activations.leaky_relu's negative_slope
  default:
    return 0.0f;
  }
}

bool isRowActivation(Activation activation) {
  return activation == Activation::Softmax ||
         activation == Activation::LogSoftmax;
}

} // namespace seq::shapes

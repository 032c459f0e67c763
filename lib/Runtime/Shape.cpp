//===- Shape.cpp - Flatten, Reshape, RepeatVector, TimeDistributed steps --===//

#include "Detail.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace seq::rt;
using detail::require;

/// Product of the dimensions from axis `first` on.
static int64_t productFrom(const Tensor &x, int64_t first) {
  int64_t n = 1;
  for (int64_t i = first; i < x.rank(); ++i)
    n *= x.shape[i];
  return n;
}

Tensor seq::rt::flatten(const Tensor &x) {
  require(x.rank() >= 1, "flatten input must have a batch axis");
  return Tensor{{x.shape[0], productFrom(x, 1)}, x.data};
}

llvm::Expected<Tensor>
seq::rt::reshape(const Tensor &x,
                 const std::vector<int64_t> &targetWithoutBatch) {
  require(x.rank() >= 1, "reshape input must have a batch axis");
  Tensor target;
  target.shape = targetWithoutBatch;
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        "cannot reshape " + x.shapeString() +
        " to (batch, ...) = " + target.shapeString() + ": " + why);
  };

  int64_t perRow = productFrom(x, 1);
  int64_t known = 1;
  std::optional<size_t> inferred;
  for (size_t i = 0; i < targetWithoutBatch.size(); ++i) {
    int64_t d = targetWithoutBatch[i];
    if (d == -1) {
      if (inferred)
        return fail("more than one -1");
      inferred = i;
    } else if (d < 0) {
      return fail("negative dimension");
    } else {
      known *= d;
    }
  }
  std::vector<int64_t> shape = {x.shape[0]};
  shape.insert(shape.end(), targetWithoutBatch.begin(),
               targetWithoutBatch.end());
  if (inferred) {
    if (known == 0 || perRow % known != 0)
      return fail(llvm::Twine(perRow) + " elements per batch row do not divide "
                                        "into the known dimensions");
    shape[*inferred + 1] = perRow / known;
  } else if (known != perRow) {
    return fail(llvm::Twine(perRow) + " elements per batch row, target has " +
                llvm::Twine(known));
  }
  return Tensor{shape, x.data};
}

Tensor seq::rt::repeatVector(const Tensor &x, int64_t n) {
  detail::requireRank(x, 2, "repeat_vector input");
  int64_t batch = x.shape[0], f = x.shape[1];
  Tensor y = Tensor::zeros({batch, n, f});
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      std::copy_n(&x.data[b * f], f, &y.data[(b * n + i) * f]);
  return y;
}

Tensor seq::rt::sliceTime(const Tensor &x, int64_t t) {
  require(x.rank() >= 2 && t >= 0 && t < x.shape[1],
          "cannot take time step " + llvm::Twine(t) + " of " + x.shapeString());
  int64_t batch = x.shape[0], steps = x.shape[1], n = productFrom(x, 2);
  std::vector<int64_t> shape = {batch};
  shape.insert(shape.end(), x.shape.begin() + 2, x.shape.end());
  Tensor y = Tensor::zeros(shape);
  for (int64_t b = 0; b < batch; ++b)
    std::copy_n(&x.data[(b * steps + t) * n], n, &y.data[b * n]);
  return y;
}

void seq::rt::setTime(Tensor &y, int64_t t, const Tensor &slice) {
  require(y.rank() >= 2 && t >= 0 && t < y.shape[1],
          "cannot set time step " + llvm::Twine(t) + " of " + y.shapeString());
  std::vector<int64_t> expected = {y.shape[0]};
  expected.insert(expected.end(), y.shape.begin() + 2, y.shape.end());
  require(slice.shape == expected, "time step " + slice.shapeString() +
                                       " does not fit " + y.shapeString());
  int64_t batch = y.shape[0], steps = y.shape[1], n = productFrom(y, 2);
  for (int64_t b = 0; b < batch; ++b)
    std::copy_n(&slice.data[b * n], n, &y.data[(b * steps + t) * n]);
}

/// y (shape `outShape`, same rank as x) with y[i] = x[i + offset] where that
/// is inside x, else 0; the batch axis is not shifted.
static Tensor shifted(const Tensor &x, std::vector<int64_t> outShape,
                      llvm::ArrayRef<int64_t> offset) {
  Tensor y = Tensor::zeros(outShape);
  std::vector<int64_t> xStrides = x.strides(), index(x.rank());
  for (int64_t e = 0, n = y.numElements(); e < n; ++e) {
    detail::unflatten(e, outShape, index);
    int64_t source = index[0] * xStrides[0];
    bool inside = true;
    for (int64_t i = 1; i < x.rank() && inside; ++i) {
      int64_t at = index[i] + offset[i - 1];
      inside = at >= 0 && at < x.shape[i];
      source += at * xStrides[i];
    }
    if (inside)
      y.data[e] = x.data[source];
  }
  return y;
}

static void requireAxes(const Tensor &x, llvm::ArrayRef<int64_t> a,
                        llvm::ArrayRef<int64_t> b, llvm::StringRef what) {
  require(x.rank() >= 2 && static_cast<int64_t>(a.size()) == x.rank() - 1 &&
              static_cast<int64_t>(b.size()) == x.rank() - 1,
          what + " needs one size per axis after the batch axis of " +
              x.shapeString());
}

Tensor seq::rt::zeroPadding(const Tensor &x, llvm::ArrayRef<int64_t> low,
                            llvm::ArrayRef<int64_t> high) {
  requireAxes(x, low, high, "zero_padding");
  std::vector<int64_t> shape = x.shape, offset;
  for (int64_t i = 1; i < x.rank(); ++i) {
    shape[i] += low[i - 1] + high[i - 1];
    offset.push_back(-low[i - 1]);
  }
  return shifted(x, shape, offset);
}

Tensor seq::rt::cropping(const Tensor &x, llvm::ArrayRef<int64_t> low,
                         llvm::ArrayRef<int64_t> high) {
  requireAxes(x, low, high, "cropping");
  std::vector<int64_t> shape = x.shape;
  for (int64_t i = 1; i < x.rank(); ++i) {
    shape[i] -= low[i - 1] + high[i - 1];
    require(shape[i] >= 1, "cropping leaves nothing of " + x.shapeString());
  }
  return shifted(x, shape, low);
}

/// x grown `factor` times along `axis` by linear interpolation with
/// half-pixel centres (tf.image.resize's bilinear, one axis at a time).
static Tensor interpolateAxis(const Tensor &x, int64_t axis, int64_t factor) {
  std::vector<int64_t> shape = x.shape;
  int64_t length = x.shape[axis];
  shape[axis] *= factor;
  Tensor y = Tensor::zeros(shape);
  int64_t inner = detail::product(llvm::ArrayRef<int64_t>(x.shape).drop_front(axis + 1));
  int64_t outer = detail::product(llvm::ArrayRef<int64_t>(x.shape).take_front(axis));
  float scale = 1.0f / static_cast<float>(factor);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t t = 0; t < shape[axis]; ++t) {
      float in = (static_cast<float>(t) + 0.5f) * scale - 0.5f;
      float below = std::floor(in);
      int64_t lo = std::max<int64_t>(static_cast<int64_t>(below), 0);
      int64_t hi = std::min<int64_t>(static_cast<int64_t>(std::ceil(in)), length - 1);
      double lerp = in - below;
      const float *a = &x.data[(o * length + lo) * inner];
      const float *b = &x.data[(o * length + hi) * inner];
      float *out = &y.data[(o * shape[axis] + t) * inner];
      for (int64_t i = 0; i < inner; ++i)
        out[i] = static_cast<float>(a[i] + (double(b[i]) - a[i]) * lerp);
    }
  return y;
}

Tensor seq::rt::upsampling(const Tensor &x, llvm::ArrayRef<int64_t> size,
                           bool bilinear) {
  requireAxes(x, size, size, "upsampling");
  if (bilinear) {
    Tensor y = x;
    for (int64_t i = 1; i < x.rank(); ++i)
      if (size[i - 1] > 1)
        y = interpolateAxis(y, i, size[i - 1]);
    return y;
  }
  std::vector<int64_t> shape = x.shape;
  for (int64_t i = 1; i < x.rank(); ++i)
    shape[i] *= size[i - 1];
  Tensor y = Tensor::zeros(shape);
  std::vector<int64_t> xStrides = x.strides(), index(x.rank());
  for (int64_t e = 0, n = y.numElements(); e < n; ++e) {
    detail::unflatten(e, shape, index);
    int64_t source = index[0] * xStrides[0];
    for (int64_t i = 1; i < x.rank(); ++i)
      source += index[i] / size[i - 1] * xStrides[i];
    y.data[e] = x.data[source];
  }
  return y;
}

/// x resized to `out` along `axis` as TensorFlow's half-pixel
/// ResizeNearestNeighbor / ResizeBilinear compute it, in float32.
static Tensor resizeAxis(const Tensor &x, int64_t axis, int64_t out,
                         bool bilinear) {
  std::vector<int64_t> shape = x.shape;
  int64_t length = x.shape[axis];
  shape[axis] = out;
  Tensor y = Tensor::zeros(shape);
  int64_t inner = detail::product(llvm::ArrayRef<int64_t>(x.shape).drop_front(axis + 1));
  int64_t outer = detail::product(llvm::ArrayRef<int64_t>(x.shape).take_front(axis));
  float scale = static_cast<float>(length) / static_cast<float>(out);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t t = 0; t < out; ++t) {
      float *dst = &y.data[(o * out + t) * inner];
      if (!bilinear) {
        int64_t source = std::min<int64_t>(
            static_cast<int64_t>(std::floor((static_cast<float>(t) + 0.5f) * scale)),
            length - 1);
        const float *src = &x.data[(o * length + source) * inner];
        std::copy(src, src + inner, dst);
        continue;
      }
      float in = (static_cast<float>(t) + 0.5f) * scale - 0.5f;
      float below = std::floor(in);
      int64_t lo = std::max<int64_t>(static_cast<int64_t>(below), 0);
      int64_t hi = std::min<int64_t>(static_cast<int64_t>(std::ceil(in)), length - 1);
      float lerp = in - below;
      const float *a = &x.data[(o * length + lo) * inner];
      const float *b = &x.data[(o * length + hi) * inner];
      for (int64_t i = 0; i < inner; ++i)
        dst[i] = a[i] + (b[i] - a[i]) * lerp;
    }
  return y;
}

Tensor seq::rt::resize(const Tensor &x, llvm::ArrayRef<int64_t> size,
                       bool bilinear) {
  require(x.rank() == static_cast<int64_t>(size.size()) + 2,
          "resize needs one size per spatial axis of " + x.shapeString());
  Tensor y = x;
  for (int64_t i = static_cast<int64_t>(size.size()); i >= 1; --i)
    if (y.shape[i] != size[i - 1])
      y = resizeAxis(y, i, size[i - 1], bilinear);
  return y;
}

Tensor seq::rt::reverse(const Tensor &x, int64_t axis) {
  require(axis >= 0 && axis < x.rank(), "reverse axis outside " + x.shapeString());
  Tensor y = Tensor::zeros(x.shape);
  int64_t n = x.shape[axis], inner = x.strides()[axis];
  int64_t outer = x.numElements() / std::max<int64_t>(n * inner, 1);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < n; ++i)
      std::copy_n(x.data.begin() + (o * n + n - 1 - i) * inner, inner,
                  y.data.begin() + (o * n + i) * inner);
  return y;
}

Tensor seq::rt::permute(const Tensor &x, llvm::ArrayRef<int64_t> dims) {
  require(static_cast<int64_t>(dims.size()) == x.rank() - 1,
          "permute needs one axis per axis after the batch axis of " +
              x.shapeString());
  std::vector<int64_t> shape{x.shape[0]};
  for (int64_t d : dims)
    shape.push_back(x.shape[d]);
  Tensor y = Tensor::zeros(shape);
  std::vector<int64_t> xStrides = x.strides(), index(x.rank());
  for (int64_t e = 0, n = y.numElements(); e < n; ++e) {
    detail::unflatten(e, shape, index);
    int64_t source = index[0] * xStrides[0];
    for (size_t i = 0; i < dims.size(); ++i)
      source += index[i + 1] * xStrides[dims[i]];
    y.data[e] = x.data[source];
  }
  return y;
}

//===- Categorical.cpp - Keras Discretization and CategoryEncoding --------===//

#include "Detail.h"

#include <cmath>

using namespace seq::rt;
using detail::require;

Tensor seq::rt::discretize(const Tensor &x, const Tensor &boundaries) {
  require(boundaries.rank() == 1, "discretize boundaries must have rank 1, got " +
                                      boundaries.shapeString());
  Tensor y = x;
  for (size_t i = 0; i < x.data.size(); ++i) {
    int64_t bucket = 0;
    for (float b : boundaries.data)
      bucket += !(x.data[i] < b); // TensorFlow's upper_bound: NaN goes last
    y.data[i] = static_cast<float>(bucket);
  }
  return y;
}

Tensor seq::rt::categoryEncoding(const Tensor &x, int64_t numTokens,
                                 bool oneHot, bool count) {
  require(x.rank() == 2, "category_encoding input must have rank 2, got " +
                             x.shapeString());
  int64_t batch = x.shape[0], k = x.shape[1];
  bool rows = oneHot && k != 1;
  Tensor y = Tensor::zeros(rows ? std::vector<int64_t>{batch, k, numTokens}
                                : std::vector<int64_t>{batch, numTokens});
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t j = 0; j < k; ++j) {
      float id = x.data[b * k + j];
      if (!(id >= 0 && id < static_cast<float>(numTokens) && std::trunc(id) == id))
        continue;
      int64_t t = static_cast<int64_t>(id);
      float &out = rows ? y.data[(b * k + j) * numTokens + t]
                        : y.data[b * numTokens + t];
      out = count ? out + 1.0f : 1.0f;
    }
  return y;
}

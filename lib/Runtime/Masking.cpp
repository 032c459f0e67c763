//===- Masking.cpp - Keras' timestep mask ---------------------------------===//

#include "Detail.h"

using namespace seq::rt;
using detail::require;

Tensor seq::rt::sequenceMask(const Tensor &input, float maskValue) {
  require(input.rank() == 2 || input.rank() == 3,
          "sequence_mask input " + input.shapeString() +
              " is not (batch, time) or (batch, time, features)");
  int64_t batch = input.shape[0], steps = input.shape[1];
  int64_t features = input.rank() == 3 ? input.shape[2] : 1;
  Tensor mask = Tensor::zeros({batch, steps});
  for (int64_t i = 0; i < batch * steps; ++i)
    for (int64_t f = 0; f < features; ++f)
      if (input.data[i * features + f] != maskValue)
        mask.data[i] = 1.0f;
  return mask;
}

Tensor seq::rt::applyMask(const Tensor &x, const Tensor &mask) {
  require(x.rank() >= 3 && mask.shape == std::vector<int64_t>{x.shape[0], x.shape[1]},
          "mask " + mask.shapeString() + " does not fit the (batch, time) of " +
              x.shapeString());
  Tensor y = x;
  int64_t steps = mask.shape[0] * mask.shape[1];
  int64_t inner = steps ? static_cast<int64_t>(x.data.size()) / steps : 0;
  for (int64_t i = 0; i < steps; ++i)
    for (int64_t j = 0; j < inner; ++j)
      y.data[i * inner + j] *= mask.data[i];
  return y;
}

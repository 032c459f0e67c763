//===- Attention.cpp - Keras Dot and the attention layers' core -----------===//

#include "Detail.h"

#include <cmath>
#include <cstdlib>
#include <limits>

using namespace seq::rt;
using detail::require;
using detail::requireRank;

Tensor seq::rt::matmul(const Tensor &a, const Tensor &b, bool transposeB) {
  requireRank(a, 3, "matmul a");
  requireRank(b, 3, "matmul b");
  int64_t batch = a.shape[0], m = a.shape[1], k = a.shape[2];
  int64_t n = transposeB ? b.shape[1] : b.shape[2];
  require(b.shape[0] == batch && (transposeB ? b.shape[2] : b.shape[1]) == k,
          "matmul operands " + a.shapeString() + " and " + b.shapeString() +
              " do not fit");
  Tensor y = Tensor::zeros({batch, m, n});
  for (int64_t s = 0; s < batch; ++s)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t l = 0; l < k; ++l)
          acc += static_cast<double>(a.at({s, i, l})) *
                 (transposeB ? b.at({s, j, l}) : b.at({s, l, j}));
        y.at({s, i, j}) = static_cast<float>(acc);
      }
  return y;
}

Tensor seq::rt::attention(const Tensor &query, const Tensor &key,
                          const Tensor &value, const AttentionOptions &options) {
  requireRank(query, 4, "attention query");
  requireRank(key, 4, "attention key");
  requireRank(value, 4, "attention value");
  int64_t batch = query.shape[0], tq = query.shape[1], heads = query.shape[2],
          d = query.shape[3];
  int64_t tk = key.shape[1], kvHeads = key.shape[2], dv = value.shape[3];
  require(key.shape[0] == batch && value.shape[0] == batch && key.shape[3] == d &&
              value.shape[1] == tk && value.shape[2] == kvHeads && kvHeads > 0 &&
              heads % kvHeads == 0,
          "attention operands " + query.shapeString() + ", " + key.shapeString() +
              " and " + value.shapeString() + " do not fit");
  const Tensor *featureScale = options.featureScale;
  require(!featureScale || (featureScale->rank() == 1 && featureScale->shape[0] == d),
          "attention feature_scale does not match the features");
  int64_t group = heads / kvHeads;
  // Keras' masked score (without a mask offset): a finite value, so that a
  // row that sees nothing averages all values instead of dividing by zero.
  const float hidden = -0.7f * std::numeric_limits<float>::max();
  const Tensor *queryMask = options.queryMask, *keyMask = options.keyMask;
  require(!queryMask || queryMask->shape == std::vector<int64_t>{batch, tq},
          "attention query_mask does not match the query");
  require(!keyMask || keyMask->shape == std::vector<int64_t>{batch, tk},
          "attention key_mask does not match the key");
  const Tensor *attentionMask = options.attentionMask;
  require(!attentionMask || attentionMask->shape == std::vector<int64_t>{batch, tq, tk},
          "attention attention_mask does not match the query and the key");
  auto sees = [&](int64_t b, int64_t i, int64_t j) {
    return !(options.causal && j > i) &&
           !(options.window > 0 && std::abs(i - j) >= options.window) &&
           !(queryMask && queryMask->at({b, i}) == 0) &&
           !(keyMask && keyMask->at({b, j}) == 0) &&
           !(attentionMask && attentionMask->at({b, i, j}) == 0);
  };
  Tensor y = options.weights ? Tensor::zeros({batch, heads, tq, tk})
                             : Tensor::zeros({batch, tq, heads, dv});
  std::vector<float> scores(tk);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h) {
      int64_t kh = h / group;
      for (int64_t i = 0; i < tq; ++i) {
        for (int64_t j = 0; j < tk; ++j) {
          bool seen = sees(b, i, j);
          if (!seen && !options.maskOffset) {
            scores[j] = hidden;
            continue;
          }
          double acc = 0;
          for (int64_t f = 0; f < d; ++f) {
            float q = query.at({b, i, h, f}), k = key.at({b, j, kh, f});
            if (!options.additive) {
              acc += static_cast<double>(q) * k;
              continue;
            }
            double t = std::tanh(static_cast<double>(options.scale.value_or(1.0f)) *
                                 (static_cast<double>(q) + k));
            acc += featureScale ? featureScale->data[f] * t : t;
          }
          if (!options.additive && options.scale)
            acc *= *options.scale;
          if (options.additive && options.scoreWeight)
            acc *= *options.scoreWeight;
          scores[j] = static_cast<float>(acc);
          if (!seen)
            scores[j] += *options.maskOffset;
        }
        detail::activateRow(Activation::Softmax, 0, scores);
        if (options.zeroHidden)
          for (int64_t j = 0; j < tk; ++j)
            if (!sees(b, i, j))
              scores[j] = 0.0f;
        if (options.weights) {
          for (int64_t j = 0; j < tk; ++j)
            y.at({b, h, i, j}) = scores[j];
          continue;
        }
        for (int64_t c = 0; c < dv; ++c) {
          double acc = 0;
          for (int64_t j = 0; j < tk; ++j)
            acc += static_cast<double>(scores[j]) * value.at({b, j, kh, c});
          y.at({b, i, h, c}) = static_cast<float>(acc);
        }
      }
    }
  return y;
}

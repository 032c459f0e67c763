// ===== seqc CUDA fixed kernels =============================================
// The kernels without template parameters and their launchers (declared,
// with what each computes, in seqc_kernels.cuh): the same code for every
// model, so seq-compile compiles them once, with the runtime, instead of in
// every model's .cu (which holds them too unless built with
// -DSEQC_RUNTIME_LINKED).
// ===========================================================================
namespace seqc {

__global__ void sequence_mask_kernel(const float *__restrict__ x, float *__restrict__ mask,
                                     int64_t rows, int features, float mask_value) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows)
    return;
  float kept = 0.0f;
  for (int f = 0; f < features; ++f)
    if (x[i * features + f] != mask_value)
      kept = 1.0f;
  mask[i] = kept;
}

cudaError_t sequence_mask(cudaStream_t stream, const float *x, float *mask, int64_t rows,
                          int features, float mask_value) {
  if (rows == 0)
    return cudaSuccess;
  SEQC_LAUNCH(sequence_mask_kernel, blocks_for(rows, 256), 256, 0, stream)(x, mask, rows,
                                                                         features, mask_value);
  return cudaGetLastError();
}

__global__ void apply_mask_kernel(const float *__restrict__ x, const float *__restrict__ mask,
                                  float *__restrict__ y, int64_t n, int64_t inner) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * mask[i / inner];
}

cudaError_t apply_mask(cudaStream_t stream, const float *x, const float *mask, float *y,
                       int64_t rows, int64_t inner) {
  int64_t n = rows * inner;
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(apply_mask_kernel, blocks_for(n, 256), 256, 0, stream)(x, mask, y, n, inner);
  return cudaGetLastError();
}

__global__ void merge_kernel(const float *__restrict__ a, const float *__restrict__ b,
                             float *y, int64_t n, MergeKind kind, float divisor) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = a[i], z = b[i], r;
  switch (kind) {
  case MergeKind::Subtract: r = x - z; break;
  case MergeKind::Multiply: r = x * z; break;
  case MergeKind::Maximum: r = fmaxf(x, z); break;
  case MergeKind::Minimum: r = fminf(x, z); break;
  case MergeKind::Divide: r = x / z; break;
  default: r = x + z; break;
  }
  y[i] = divisor != 0.0f ? r / divisor : r;
}

cudaError_t merge(cudaStream_t stream, const float *a, const float *b, float *y, int64_t n,
                  MergeKind kind, float divisor) {
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(merge_kernel, blocks_for(n, 256), 256, 0, stream)(a, b, y, n, kind, divisor);
  return cudaGetLastError();
}

__global__ void concat_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t outer,
                              int64_t width, int64_t total, int64_t offset) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < outer * width)
    y[(i / width) * total + offset + i % width] = x[i];
}

cudaError_t concat_into(cudaStream_t stream, const float *x, float *y, int64_t outer,
                        int64_t width, int64_t total, int64_t offset) {
  int64_t n = outer * width;
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(concat_kernel, blocks_for(n, 256), 256, 0, stream)(x, y, outer, width, total,
                                                                 offset);
  return cudaGetLastError();
}

__global__ void layer_norm_kernel(const float *__restrict__ x, const float *__restrict__ gamma,
                                  const float *__restrict__ beta, float *__restrict__ y,
                                  int64_t rows, int n, float epsilon) {
  int64_t row = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  const float *xr = x + row * n;
  float *yr = y + row * n;
  float sum = 0.0f;
  for (int i = lane; i < n; i += 32)
    sum += xr[i];
  for (int off = 16; off > 0; off /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
  float mean = sum / n;
  float sq = 0.0f;
  for (int i = lane; i < n; i += 32)
    sq += (xr[i] - mean) * (xr[i] - mean);
  for (int off = 16; off > 0; off /= 2)
    sq += __shfl_xor_sync(0xffffffffu, sq, off);
  float scale = 1.0f / sqrtf(sq / n + epsilon);
  for (int i = lane; i < n; i += 32)
    yr[i] = (xr[i] - mean) * scale * gamma[i] + beta[i];
}

cudaError_t layer_norm(cudaStream_t stream, const float *x, const float *gamma,
                       const float *beta, float *y, int64_t rows, int n, float epsilon) {
  if (rows == 0)
    return cudaSuccess;
  SEQC_LAUNCH(layer_norm_kernel, blocks_for(rows, 8), 256, 0, stream)(x, gamma, beta, y, rows, n,
                                                             epsilon);
  return cudaGetLastError();
}

__global__ void group_norm_kernel(const float *__restrict__ x, const float *__restrict__ gamma,
                                  const float *__restrict__ beta, float *__restrict__ y,
                                  int64_t batch, int64_t positions, int channels, int groups,
                                  float epsilon) {
  int64_t row = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= batch * groups)
    return;
  int64_t b = row / groups;
  int g = row % groups, per_group = channels / groups;
  int64_t count = positions * per_group;
  const float *xs = x + b * positions * channels + g * per_group;
  float *ys = y + b * positions * channels + g * per_group;
  float sum = 0.0f;
  for (int64_t i = lane; i < count; i += 32)
    sum += xs[i / per_group * channels + i % per_group];
  for (int off = 16; off > 0; off /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
  float mean = sum / count;
  float sq = 0.0f;
  for (int64_t i = lane; i < count; i += 32) {
    float d = xs[i / per_group * channels + i % per_group] - mean;
    sq += d * d;
  }
  for (int off = 16; off > 0; off /= 2)
    sq += __shfl_xor_sync(0xffffffffu, sq, off);
  float scale = 1.0f / sqrtf(sq / count + epsilon);
  for (int64_t i = lane; i < count; i += 32) {
    int64_t at = i / per_group * channels + i % per_group;
    int c = g * per_group + (int)(i % per_group);
    ys[at] = (xs[at] - mean) * scale * gamma[c] + beta[c];
  }
}

cudaError_t group_norm(cudaStream_t stream, const float *x, const float *gamma,
                       const float *beta, float *y, int64_t batch, int64_t positions,
                       int channels, int groups, float epsilon) {
  if (batch == 0)
    return cudaSuccess;
  SEQC_LAUNCH(group_norm_kernel, blocks_for(batch * groups, 8), 256, 0, stream)(
      x, gamma, beta, y, batch, positions, channels, groups, epsilon);
  return cudaGetLastError();
}

__global__ void rms_norm_kernel(const float *__restrict__ x, const float *__restrict__ scale,
                                float *__restrict__ y, int64_t rows, int n, float epsilon,
                                bool unit) {
  int64_t row = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  const float *xr = x + row * n;
  float *yr = y + row * n;
  float sq = 0.0f;
  for (int i = lane; i < n; i += 32)
    sq += xr[i] * xr[i];
  for (int off = 16; off > 0; off /= 2)
    sq += __shfl_xor_sync(0xffffffffu, sq, off);
  float factor = unit ? 1.0f / sqrtf(fmaxf(sq, epsilon)) : 1.0f / sqrtf(sq / n + epsilon);
  for (int i = lane; i < n; i += 32)
    yr[i] = xr[i] * factor * (scale ? scale[i] : 1.0f);
}

cudaError_t rms_norm(cudaStream_t stream, const float *x, const float *scale, float *y,
                     int64_t rows, int n, float epsilon, bool unit) {
  if (rows == 0)
    return cudaSuccess;
  SEQC_LAUNCH(rms_norm_kernel, blocks_for(rows, 8), 256, 0, stream)(x, scale, y, rows, n,
                                                             epsilon, unit);
  return cudaGetLastError();
}

__global__ void batch_norm_kernel(const float *__restrict__ x, const float *__restrict__ gamma,
                                  const float *__restrict__ beta, const float *__restrict__ mean,
                                  const float *__restrict__ variance, float *__restrict__ y,
                                  int64_t n, int channels, float epsilon) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int c = i % channels;
  y[i] = (x[i] - mean[c]) / sqrtf(variance[c] + epsilon) * gamma[c] + beta[c];
}

cudaError_t batch_norm(cudaStream_t stream, const float *x, const float *gamma,
                       const float *beta, const float *mean, const float *variance,
                       float *y, int64_t n, int channels, float epsilon) {
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(batch_norm_kernel, blocks_for(n, 256), 256, 0, stream)(x, gamma, beta, mean, variance, y,
                                                            n, channels, epsilon);
  return cudaGetLastError();
}

__global__ void embedding_kernel(const float *__restrict__ ids, const float *__restrict__ table,
                                 float *__restrict__ y, int64_t count, int vocab, int dim,
                                 unsigned long long *bad_id) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count * dim)
    return;
  int64_t row = i / dim;
  int d = i % dim;
  float id = ids[row];
  if (!(truncf(id) == id && id >= 0.0f && id < (float)vocab)) {
    atomicCAS(bad_id, 0ull, (unsigned long long)row + 1);
    y[i] = 0.0f;
    return;
  }
  y[i] = table[(size_t)(int64_t)id * dim + d];
}

cudaError_t embedding(cudaStream_t stream, const float *ids, const float *table, float *y,
                      int64_t count, int vocab, int dim, unsigned long long *bad_id) {
  if (count == 0)
    return cudaSuccess;
  SEQC_LAUNCH(embedding_kernel, blocks_for(count * dim, 256), 256, 0, stream)(ids, table, y, count,
                                                                     vocab, dim, bad_id);
  return cudaGetLastError();
}

__global__ void truncate_kernel(const float *__restrict__ x, float *__restrict__ y,
                                int64_t count) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    y[i] = truncf(x[i]);
}

cudaError_t truncate(cudaStream_t stream, const float *x, float *y, int64_t count) {
  if (count == 0)
    return cudaSuccess;
  SEQC_LAUNCH(truncate_kernel, blocks_for(count, 256), 256, 0, stream)(x, y, count);
  return cudaGetLastError();
}

__global__ void discretize_kernel(const float *__restrict__ x, const float *__restrict__ bounds,
                                  float *__restrict__ y, int64_t count, int n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  float v = x[i];
  int bucket = 0;
  for (int j = 0; j < n; ++j)
    bucket += !(v < bounds[j]);
  y[i] = (float)bucket;
}

cudaError_t discretize(cudaStream_t stream, const float *x, const float *bounds, float *y,
                       int64_t count, int n) {
  if (count == 0)
    return cudaSuccess;
  SEQC_LAUNCH(discretize_kernel, blocks_for(count, 256), 256, 0, stream)(x, bounds, y, count, n);
  return cudaGetLastError();
}

__global__ void category_encoding_kernel(const float *__restrict__ x, float *__restrict__ y,
                                         int64_t batch, int k, int n, bool rows, bool count) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int t = i % n;
  if (rows) {
    if (i >= batch * k * n)
      return;
    y[i] = x[i / n] == (float)t ? 1.0f : 0.0f;
    return;
  }
  if (i >= batch * n)
    return;
  int64_t b = i / n;
  float hits = 0.0f;
  for (int j = 0; j < k; ++j)
    hits += x[b * k + j] == (float)t ? 1.0f : 0.0f;
  y[i] = count ? hits : (hits > 0.0f ? 1.0f : 0.0f);
}

cudaError_t category_encoding(cudaStream_t stream, const float *x, float *y, int64_t batch,
                              int k, int n, bool rows, bool count) {
  int64_t elements = batch * (rows ? k : 1) * n;
  if (elements == 0)
    return cudaSuccess;
  SEQC_LAUNCH(category_encoding_kernel, blocks_for(elements, 256), 256, 0, stream)(x, y, batch, k, n,
                                                                              rows, count);
  return cudaGetLastError();
}

__global__ void repeat_vector_kernel(const float *__restrict__ x, float *__restrict__ y,
                                     int batch, int n, int f) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int64_t)batch * n * f)
    return;
  int k = i % f;
  int b = i / ((int64_t)n * f);
  y[i] = x[(size_t)b * f + k];
}

cudaError_t repeat_vector(cudaStream_t stream, const float *x, float *y, int64_t batch,
                          int n, int f) {
  int64_t total = batch * n * f;
  if (total == 0)
    return cudaSuccess;
  SEQC_LAUNCH(repeat_vector_kernel, blocks_for(total, 256), 256, 0, stream)(x, y, (int)batch, n, f);
  return cudaGetLastError();
}

__global__ void relu_layer_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t n,
                                  float slope, float threshold, int has_max, float max_value) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  float p = threshold != 0.0f ? (v > threshold ? v : 0.0f) : fmaxf(v, 0.0f);
  if (has_max)
    p = fminf(fmaxf(p, 0.0f), max_value);
  y[i] = p - slope * fmaxf(threshold - v, 0.0f);
}

cudaError_t relu_layer(cudaStream_t stream, const float *x, float *y, int64_t n,
                       float slope, float threshold, int has_max, float max_value) {
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(relu_layer_kernel, blocks_for(n, 256), 256, 0, stream)(x, y, n, slope, threshold,
                                                                     has_max, max_value);
  return cudaGetLastError();
}

__global__ void clip_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t n,
                            float lo, float hi) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  y[i] = v > hi ? hi : v < lo ? lo : v;
}

cudaError_t clip(cudaStream_t stream, const float *x, float *y, int64_t n, float lo, float hi) {
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(clip_kernel, blocks_for(n, 256), 256, 0, stream)(x, y, n, lo, hi);
  return cudaGetLastError();
}

__global__ void prelu_kernel(const float *__restrict__ x, const float *__restrict__ alpha,
                             float *__restrict__ y, int64_t n, int64_t per_sample,
                             PreluShape s) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  if (v >= 0.0f) {
    y[i] = v;
    return;
  }
  int64_t rest = i % per_sample, a = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    a += (rest % s.dims[d]) * s.alpha_strides[d];
    rest /= s.dims[d];
  }
  y[i] = alpha[a] * v;
}

cudaError_t prelu(cudaStream_t stream, const float *x, const float *alpha, float *y,
                  int64_t n, int64_t per_sample, PreluShape s) {
  if (n == 0 || per_sample == 0)
    return cudaSuccess;
  SEQC_LAUNCH(prelu_kernel, blocks_for(n, 256), 256, 0, stream)(x, alpha, y, n, per_sample, s);
  return cudaGetLastError();
}

__global__ void shift_copy_kernel(const float *__restrict__ x, float *__restrict__ y, Shape5 in,
                                  Shape5 out, Shape5 offset) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= numel5(out))
    return;
  int64_t rest = i, source = 0, stride = 1;
  bool inside = true;
  for (int a = out.rank - 1; a >= 0; --a) {
    int64_t at = rest % out.d[a] - offset.d[a];
    rest /= out.d[a];
    inside = inside && at >= 0 && at < in.d[a];
    source += at * stride;
    stride *= in.d[a];
  }
  y[i] = inside ? x[source] : 0.0f;
}

cudaError_t shift_copy(cudaStream_t stream, const float *x, float *y, Shape5 in,
                       Shape5 out, Shape5 offset) {
  int64_t n = numel5(out);
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(shift_copy_kernel, blocks_for(n, 256), 256, 0, stream)(x, y, in, out, offset);
  return cudaGetLastError();
}

__global__ void upsample_nearest_kernel(const float *__restrict__ x, float *__restrict__ y,
                                        Shape5 in, Shape5 factor) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t n = 1;
  for (int a = 0; a < in.rank; ++a)
    n *= in.d[a] * factor.d[a];
  if (i >= n)
    return;
  int64_t rest = i, source = 0, stride = 1;
  for (int a = in.rank - 1; a >= 0; --a) {
    int64_t size = in.d[a] * factor.d[a];
    source += rest % size / factor.d[a] * stride;
    rest /= size;
    stride *= in.d[a];
  }
  y[i] = x[source];
}

cudaError_t upsample_nearest(cudaStream_t stream, const float *x, float *y, Shape5 in,
                             Shape5 factor) {
  int64_t n = numel5(in);
  for (int a = 0; a < in.rank; ++a)
    n *= factor.d[a];
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(upsample_nearest_kernel, blocks_for(n, 256), 256, 0, stream)(x, y, in, factor);
  return cudaGetLastError();
}

__global__ void upsample_linear_kernel(const float *__restrict__ x, float *__restrict__ y,
                                       int64_t outer, int length, int64_t inner, int factor) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int out_length = length * factor;
  if (i >= outer * out_length * inner)
    return;
  int64_t k = i % inner;
  int t = (i / inner) % out_length;
  int64_t o = i / (inner * out_length);
  float in = ((float)t + 0.5f) * (1.0f / (float)factor) - 0.5f;
  float below = floorf(in);
  int lo = max((int)below, 0), hi = min((int)ceilf(in), length - 1);
  float a = x[(o * length + lo) * inner + k], b = x[(o * length + hi) * inner + k];
  y[i] = a + (b - a) * (in - below);
}

cudaError_t upsample_linear(cudaStream_t stream, const float *x, float *y, int64_t outer,
                            int length, int64_t inner, int factor) {
  int64_t n = outer * length * factor * inner;
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(upsample_linear_kernel, blocks_for(n, 256), 256, 0, stream)(x, y, outer, length,
                                                                          inner, factor);
  return cudaGetLastError();
}

__global__ void resize_axis_kernel(const float *__restrict__ x, float *__restrict__ y,
                                   int64_t outer, int length, int out_length, int64_t inner,
                                   float scale, bool bilinear) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= outer * out_length * inner)
    return;
  int64_t k = i % inner;
  int t = (i / inner) % out_length;
  int64_t o = i / (inner * out_length);
  float centre = ((float)t + 0.5f) * scale;
  if (!bilinear) {
    int source = min((int)floorf(centre), length - 1);
    y[i] = x[(o * length + source) * inner + k];
    return;
  }
  float in = centre - 0.5f;
  float below = floorf(in);
  int lo = max((int)below, 0), hi = min((int)ceilf(in), length - 1);
  float a = x[(o * length + lo) * inner + k], b = x[(o * length + hi) * inner + k];
  y[i] = a + (b - a) * (in - below);
}

cudaError_t resize_axis(cudaStream_t stream, const float *x, float *y, int64_t outer,
                        int length, int out_length, int64_t inner, bool bilinear) {
  int64_t n = outer * out_length * inner;
  if (n == 0)
    return cudaSuccess;
  float scale = (float)length / (float)out_length;
  SEQC_LAUNCH(resize_axis_kernel, blocks_for(n, 256), 256, 0, stream)(
      x, y, outer, length, out_length, inner, scale, bilinear);
  return cudaGetLastError();
}

__global__ void reverse_axis_kernel(const float *__restrict__ x, float *__restrict__ y,
                                    int64_t outer, int64_t length, int64_t inner) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= outer * length * inner)
    return;
  int64_t k = i % inner;
  int64_t t = (i / inner) % length;
  int64_t o = i / (inner * length);
  y[i] = x[(o * length + length - 1 - t) * inner + k];
}

cudaError_t reverse_axis(cudaStream_t stream, const float *x, float *y, int64_t outer,
                         int64_t length, int64_t inner) {
  int64_t n = outer * length * inner;
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(reverse_axis_kernel, blocks_for(n, 256), 256, 0, stream)(x, y, outer, length,
                                                                      inner);
  return cudaGetLastError();
}

__global__ void adaptive_pool_axis_kernel(const float *__restrict__ x, float *__restrict__ y,
                                          int64_t outer, int length, int out_length,
                                          int64_t inner, bool is_max) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= outer * out_length * inner)
    return;
  int64_t k = i % inner;
  int64_t t = (i / inner) % out_length;
  int64_t o = i / (inner * out_length);
  int64_t start = t * length / out_length;
  int64_t end = ((t + 1) * length + out_length - 1) / out_length;
  float max = -INFINITY, sum = 0.0f;
  for (int64_t s = start; s < end; ++s) {
    float v = x[(o * length + s) * inner + k];
    max = fmaxf(max, v);
    sum += v;
  }
  y[i] = is_max ? max : sum / (float)(end - start);
}

cudaError_t adaptive_pool_axis(cudaStream_t stream, const float *x, float *y,
                               int64_t outer, int length, int out_length,
                               int64_t inner, bool is_max) {
  int64_t n = outer * out_length * inner;
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(adaptive_pool_axis_kernel, blocks_for(n, 256), 256, 0, stream)(
      x, y, outer, length, out_length, inner, is_max);
  return cudaGetLastError();
}

__global__ void permute_kernel(const float *__restrict__ x, float *__restrict__ y, Shape5 in,
                               Shape5 perm) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= numel5(in))
    return;
  int64_t in_stride[5];
  int64_t stride = 1;
  for (int a = in.rank - 1; a >= 0; --a) {
    in_stride[a] = stride;
    stride *= in.d[a];
  }
  int64_t rest = i, source = 0;
  for (int a = in.rank - 1; a >= 0; --a) {
    int64_t size = in.d[perm.d[a]];
    source += rest % size * in_stride[perm.d[a]];
    rest /= size;
  }
  y[i] = x[source];
}

cudaError_t permute(cudaStream_t stream, const float *x, float *y, Shape5 in, Shape5 perm) {
  int64_t n = numel5(in);
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(permute_kernel, blocks_for(n, 256), 256, 0, stream)(x, y, in, perm);
  return cudaGetLastError();
}

__global__ void matmul_kernel(const float *__restrict__ a, const float *__restrict__ b,
                              float *__restrict__ y, int64_t batch, int64_t m, int64_t n,
                              int64_t k, int transpose_b) {
  int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= batch * m * n)
    return;
  int64_t j = e % n, i = (e / n) % m, s = e / (m * n);
  const float *row = a + (s * m + i) * k;
  float acc = 0.0f;
  for (int64_t l = 0; l < k; ++l)
    acc += row[l] * (transpose_b ? b[(s * n + j) * k + l] : b[(s * k + l) * n + j]);
  y[e] = acc;
}

cudaError_t matmul(cudaStream_t stream, const float *a, const float *b, float *y,
                   int64_t batch, int64_t m, int64_t n, int64_t k, bool transpose_b) {
  int64_t total = batch * m * n;
  if (total == 0)
    return cudaSuccess;
  SEQC_LAUNCH(matmul_kernel, blocks_for(total, 256), 256, 0, stream)(a, b, y, batch, m, n, k,
                                                                     transpose_b ? 1 : 0);
  return cudaGetLastError();
}

__global__ void attention_kernel(const float *__restrict__ q, const float *__restrict__ k,
                                 const float *__restrict__ v,
                                 const float *__restrict__ feature_scale, AttentionMasks masks,
                                 float *__restrict__ y, float *__restrict__ weights,
                                 AttentionShape s) {
  int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= s.batch * s.tq * s.heads)
    return;
  int64_t h = e % s.heads, i = (e / s.heads) % s.tq, b = e / (s.heads * s.tq);
  int64_t kh = h / s.group, kvHeads = s.heads / s.group;
  const float *qrow = q + e * s.d;
  bool row_seen = !(masks.query && masks.query[b * s.tq + i] == 0.0f);
  float m = -3.40282347e+38f;
  for (int64_t j = 0; j < s.tk; ++j)
    m = fmaxf(m, attention_score(qrow, k, feature_scale, masks, row_seen, s, b, kh, i, j));
  float *out = y ? y + e * s.dv : nullptr;
  for (int64_t c = 0; out && c < s.dv; ++c)
    out[c] = 0.0f;
  // With zero_hidden a hidden score's weight is 0 after the softmax: it
  // counts in the sum, not in the output.
  auto kept = [&](int64_t j, float w) {
    return s.zero_hidden && !attention_sees(masks, row_seen, s, b, i, j) ? 0.0f : w;
  };
  float sum = 0.0f;
  for (int64_t j = 0; j < s.tk; ++j) {
    float w = expf(attention_score(qrow, k, feature_scale, masks, row_seen, s, b, kh, i, j) - m);
    sum += w;
    w = kept(j, w);
    const float *vrow = v + ((b * s.tk + j) * kvHeads + kh) * s.dv;
    for (int64_t c = 0; out && c < s.dv; ++c)
      out[c] += w * vrow[c];
  }
  for (int64_t c = 0; out && c < s.dv; ++c)
    out[c] /= sum;
  if (weights) {
    float *row = weights + ((b * s.heads + h) * s.tq + i) * s.tk;
    for (int64_t j = 0; j < s.tk; ++j)
      row[j] = kept(j, expf(attention_score(qrow, k, feature_scale, masks, row_seen, s, b, kh,
                                            i, j) - m)) / sum;
  }
}

cudaError_t attention(cudaStream_t stream, const float *q, const float *k, const float *v,
                      const float *feature_scale, AttentionMasks masks, float *y,
                      float *weights, AttentionShape s) {
  int64_t rows = s.batch * s.tq * s.heads;
  if (rows == 0)
    return cudaSuccess;
  SEQC_LAUNCH(attention_kernel, blocks_for(rows, 128), 128, 0, stream)(
      q, k, v, feature_scale, masks, y, weights, s);
  return cudaGetLastError();
}

} // namespace seqc

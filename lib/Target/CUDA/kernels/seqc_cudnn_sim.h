// seqc_cudnn_sim.h — cuDNN's convolution API on the CPU, for seqc_cuda_sim.h.
//
// The subset of cudnn.h that seqc_cudnn.cuh's convolution path calls, with
// cuDNN 9's documented semantics, so that a model emitted with
// `--conv-backend=cudnn|auto` runs under the simulation and is checked
// against Keras without a GPU: tensors and filters are described in the
// logical NCHW / KCHW order and laid out by their format (NCHW or NHWC),
// padding is the same on both sides, CUDNN_CONVOLUTION flips the taps where
// CUDNN_CROSS_CORRELATION does not, groups split channels and filters, and
// any math type but CUDNN_FMA_MATH rounds the operands to TF32 as a tensor
// core would. Calls are checked as cuDNN checks them (BAD_PARAM for a
// mismatched descriptor or a workspace that is too small, NOT_SUPPORTED for
// an algorithm whose status said so); during a stream capture the forward
// call is recorded with its descriptors' values, as a GPU records it. The
// RNN API is not simulated.
#ifndef SEQC_CUDNN_SIM_H
#define SEQC_CUDNN_SIM_H

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#define CUDNN_MAJOR 9
#define CUDNN_MINOR 19
#define CUDNN_PATCHLEVEL 0
#define CUDNN_DIM_MAX 8

enum cudnnStatus_t {
  CUDNN_STATUS_SUCCESS = 0,
  CUDNN_STATUS_NOT_INITIALIZED = 1001,
  CUDNN_STATUS_BAD_PARAM = 2000,
  CUDNN_STATUS_NOT_SUPPORTED = 3000,
};
enum cudnnDataType_t { CUDNN_DATA_FLOAT = 0, CUDNN_DATA_DOUBLE = 1, CUDNN_DATA_HALF = 2 };
enum cudnnTensorFormat_t { CUDNN_TENSOR_NCHW = 0, CUDNN_TENSOR_NHWC = 1 };
enum cudnnConvolutionMode_t { CUDNN_CONVOLUTION = 0, CUDNN_CROSS_CORRELATION = 1 };
enum cudnnMathType_t {
  CUDNN_DEFAULT_MATH = 0,
  CUDNN_TENSOR_OP_MATH = 1,
  CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
  CUDNN_FMA_MATH = 3,
};
enum cudnnConvolutionFwdAlgo_t {
  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0,
  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
  CUDNN_CONVOLUTION_FWD_ALGO_GEMM = 2,
  CUDNN_CONVOLUTION_FWD_ALGO_DIRECT = 3,
  CUDNN_CONVOLUTION_FWD_ALGO_FFT = 4,
  CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING = 5,
  CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD = 6,
  CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED = 7,
  CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8,
};
enum cudnnDeterminism_t { CUDNN_NON_DETERMINISTIC = 0, CUDNN_DETERMINISTIC = 1 };
struct cudnnConvolutionFwdAlgoPerf_t {
  cudnnConvolutionFwdAlgo_t algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t mathType;
  int reserved[3];
};

namespace seqc_sim {

/// A tensor or filter: logical sizes (N, C, spatial... / K, C, spatial...)
/// and the element strides its format gives them.
struct CudnnLayout {
  int rank = 0;
  int dims[CUDNN_DIM_MAX] = {};
  int64_t strides[CUDNN_DIM_MAX] = {};
  bool set = false;
};

inline cudnnStatus_t cudnn_layout(CudnnLayout &l, cudnnDataType_t type,
                                  cudnnTensorFormat_t format, int rank, const int *dims) {
  if (type != CUDNN_DATA_FLOAT)
    return CUDNN_STATUS_NOT_SUPPORTED; // seqc's path is float32 only
  if (rank < 3 || rank > CUDNN_DIM_MAX || !dims)
    return CUDNN_STATUS_BAD_PARAM;
  if (format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC)
    return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < rank; ++i)
    if (dims[i] <= 0)
      return CUDNN_STATUS_BAD_PARAM;
  l.rank = rank;
  std::memcpy(l.dims, dims, sizeof(int) * rank);
  int64_t stride = 1;
  if (format == CUDNN_TENSOR_NCHW) {
    for (int i = rank - 1; i >= 0; --i)
      l.strides[i] = stride, stride *= dims[i];
  } else { // N, spatial..., C in memory
    l.strides[1] = 1;
    stride = dims[1];
    for (int i = rank - 1; i >= 2; --i)
      l.strides[i] = stride, stride *= dims[i];
    l.strides[0] = stride;
  }
  l.set = true;
  return CUDNN_STATUS_SUCCESS;
}

struct CudnnConvolution {
  int spatial = 0;
  int pad[CUDNN_DIM_MAX] = {}, stride[CUDNN_DIM_MAX] = {}, dilation[CUDNN_DIM_MAX] = {};
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  int groups = 1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  bool set = false;
};

/// The output's logical sizes, or BAD_PARAM where cuDNN would refuse.
inline cudnnStatus_t cudnn_output_dims(const CudnnConvolution &c, const CudnnLayout &x,
                                       const CudnnLayout &w, int *out) {
  if (!c.set || !x.set || !w.set || x.rank != c.spatial + 2 || w.rank != x.rank)
    return CUDNN_STATUS_BAD_PARAM;
  if (x.dims[1] != w.dims[1] * c.groups || w.dims[0] % c.groups != 0)
    return CUDNN_STATUS_BAD_PARAM;
  out[0] = x.dims[0];
  out[1] = w.dims[0];
  for (int i = 0; i < c.spatial; ++i) {
    int span = (w.dims[2 + i] - 1) * c.dilation[i] + 1;
    int room = x.dims[2 + i] + 2 * c.pad[i] - span;
    if (room < 0)
      return CUDNN_STATUS_BAD_PARAM;
    out[2 + i] = 1 + room / c.stride[i];
  }
  return CUDNN_STATUS_SUCCESS;
}

/// What this simulation's "algorithms" support and need: each computes the
/// same sums; Winograd only for 2-D 3x3, stride 1, dilation 1, one group;
/// FFT and DIRECT never (as for most of seqc's shapes on a real GPU).
inline cudnnStatus_t cudnn_algo_status(cudnnConvolutionFwdAlgo_t algo,
                                       const CudnnConvolution &c, const CudnnLayout &w) {
  switch (algo) {
  case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
  case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
  case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
    return CUDNN_STATUS_SUCCESS;
  case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: {
    bool fits = c.spatial == 2 && c.groups == 1;
    for (int i = 0; i < c.spatial; ++i)
      fits = fits && w.dims[2 + i] == 3 && c.stride[i] == 1 && c.dilation[i] == 1;
    return fits ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED;
  }
  default:
    return CUDNN_STATUS_NOT_SUPPORTED;
  }
}

inline size_t cudnn_algo_workspace(cudnnConvolutionFwdAlgo_t algo, const CudnnLayout &w,
                                   const int *out, int rank) {
  size_t taps = 1, positions = 1;
  for (int i = 1; i < rank; ++i)
    taps *= w.dims[i];
  for (int i = 2; i < rank; ++i)
    positions *= out[i];
  switch (algo) {
  case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
    return taps * sizeof(int);
  case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: // im2col
    return (size_t)out[0] * positions * taps * sizeof(float);
  case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
    return (size_t)w.dims[0] * w.dims[1] * 16 * sizeof(float);
  default:
    return 0;
  }
}

} // namespace seqc_sim

struct cudnnContext {
  cudaStream_t stream = nullptr;
};
typedef cudnnContext *cudnnHandle_t;
struct cudnnTensorStruct : seqc_sim::CudnnLayout {};
struct cudnnFilterStruct : seqc_sim::CudnnLayout {};
struct cudnnConvolutionStruct : seqc_sim::CudnnConvolution {};
typedef cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;

inline size_t cudnnGetVersion() {
  return CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL;
}
inline const char *cudnnGetErrorString(cudnnStatus_t s) {
  switch (s) {
  case CUDNN_STATUS_SUCCESS:
    return "CUDNN_STATUS_SUCCESS";
  case CUDNN_STATUS_NOT_INITIALIZED:
    return "CUDNN_STATUS_NOT_INITIALIZED";
  case CUDNN_STATUS_BAD_PARAM:
    return "CUDNN_STATUS_BAD_PARAM";
  case CUDNN_STATUS_NOT_SUPPORTED:
    return "CUDNN_STATUS_NOT_SUPPORTED";
  }
  return "CUDNN_STATUS_UNKNOWN";
}

namespace seqc_sim {
template <typename T> cudnnStatus_t cudnn_new(T **d) {
  *d = new T();
  return CUDNN_STATUS_SUCCESS;
}
template <typename T> cudnnStatus_t cudnn_delete(T *d) {
  delete d;
  return CUDNN_STATUS_SUCCESS;
}
} // namespace seqc_sim
inline cudnnStatus_t cudnnCreate(cudnnHandle_t *h) { return seqc_sim::cudnn_new(h); }
inline cudnnStatus_t cudnnDestroy(cudnnHandle_t h) { return seqc_sim::cudnn_delete(h); }
inline cudnnStatus_t cudnnSetStream(cudnnHandle_t h, cudaStream_t s) {
  if (!h)
    return CUDNN_STATUS_NOT_INITIALIZED;
  h->stream = s;
  return CUDNN_STATUS_SUCCESS;
}

inline cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *d) {
  return seqc_sim::cudnn_new(d);
}
inline cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) {
  return seqc_sim::cudnn_delete(d);
}
inline cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *d) {
  return seqc_sim::cudnn_new(d);
}
inline cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d) {
  return seqc_sim::cudnn_delete(d);
}
inline cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *d) {
  return seqc_sim::cudnn_new(d);
}
inline cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d) {
  return seqc_sim::cudnn_delete(d);
}

/// dimA in the logical order (N, C, spatial...) whatever the format.
inline cudnnStatus_t cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t d,
                                                  cudnnTensorFormat_t format,
                                                  cudnnDataType_t type, int rank,
                                                  const int *dimA) {
  return seqc_sim::cudnn_layout(*d, type, format, rank, dimA);
}
/// filterDimA in the logical order (K, C, spatial...) whatever the format.
inline cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t d, cudnnDataType_t type,
                                                cudnnTensorFormat_t format, int rank,
                                                const int *filterDimA) {
  return seqc_sim::cudnn_layout(*d, type, format, rank, filterDimA);
}
inline cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t d, int length,
                                                     const int *padA, const int *strideA,
                                                     const int *dilationA,
                                                     cudnnConvolutionMode_t mode,
                                                     cudnnDataType_t computeType) {
  if (length < 1 || length > CUDNN_DIM_MAX - 2 || computeType != CUDNN_DATA_FLOAT)
    return CUDNN_STATUS_BAD_PARAM;
  if (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION)
    return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < length; ++i)
    if (padA[i] < 0 || strideA[i] < 1 || dilationA[i] < 1)
      return CUDNN_STATUS_BAD_PARAM;
  d->spatial = length;
  std::memcpy(d->pad, padA, sizeof(int) * length);
  std::memcpy(d->stride, strideA, sizeof(int) * length);
  std::memcpy(d->dilation, dilationA, sizeof(int) * length);
  d->mode = mode;
  d->set = true;
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t d, int groups) {
  if (groups < 1)
    return CUDNN_STATUS_BAD_PARAM;
  d->groups = groups;
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t d,
                                                 cudnnMathType_t math) {
  d->math = math;
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(cudnnConvolutionDescriptor_t c,
                                                           cudnnTensorDescriptor_t x,
                                                           cudnnFilterDescriptor_t w, int rank,
                                                           int *out) {
  if (rank != x->rank)
    return CUDNN_STATUS_BAD_PARAM;
  return seqc_sim::cudnn_output_dims(*c, *x, *w, out);
}

/// Every algorithm, Winograd first (as cuDNN's heuristics often rank it for
/// 3x3), the supported ones before the rest.
inline cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
    cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t y, int requested, int *returned,
    cudnnConvolutionFwdAlgoPerf_t *perf) {
  int out[CUDNN_DIM_MAX];
  if (!h)
    return CUDNN_STATUS_NOT_INITIALIZED;
  if (requested < 1 || seqc_sim::cudnn_output_dims(*c, *x, *w, out) != CUDNN_STATUS_SUCCESS)
    return CUDNN_STATUS_BAD_PARAM;
  const cudnnConvolutionFwdAlgo_t order[] = {
      CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD,     CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
      CUDNN_CONVOLUTION_FWD_ALGO_GEMM,         CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
      CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,       CUDNN_CONVOLUTION_FWD_ALGO_FFT,
      CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING,   CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED};
  std::vector<cudnnConvolutionFwdAlgoPerf_t> all;
  for (bool supported : {true, false})
    for (cudnnConvolutionFwdAlgo_t algo : order) {
      cudnnStatus_t status = seqc_sim::cudnn_algo_status(algo, *c, *w);
      if ((status == CUDNN_STATUS_SUCCESS) != supported)
        continue;
      cudnnConvolutionFwdAlgoPerf_t p{};
      p.algo = algo;
      p.status = status;
      p.time = -1.0f;
      p.memory = seqc_sim::cudnn_algo_workspace(algo, *w, out, x->rank);
      p.determinism = CUDNN_DETERMINISTIC;
      p.mathType = c->math;
      all.push_back(p);
    }
  *returned = std::min<int>(requested, (int)all.size());
  std::copy(all.begin(), all.begin() + *returned, perf);
  (void)y;
  return CUDNN_STATUS_SUCCESS;
}

inline cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t h,
                                                             cudnnTensorDescriptor_t x,
                                                             cudnnFilterDescriptor_t w,
                                                             cudnnConvolutionDescriptor_t c,
                                                             cudnnTensorDescriptor_t y,
                                                             cudnnConvolutionFwdAlgo_t algo,
                                                             size_t *bytes) {
  int out[CUDNN_DIM_MAX];
  if (!h)
    return CUDNN_STATUS_NOT_INITIALIZED;
  if (seqc_sim::cudnn_output_dims(*c, *x, *w, out) != CUDNN_STATUS_SUCCESS)
    return CUDNN_STATUS_BAD_PARAM;
  if (seqc_sim::cudnn_algo_status(algo, *c, *w) != CUDNN_STATUS_SUCCESS)
    return CUDNN_STATUS_NOT_SUPPORTED;
  (void)y;
  *bytes = seqc_sim::cudnn_algo_workspace(algo, *w, out, x->rank);
  return CUDNN_STATUS_SUCCESS;
}

namespace seqc_sim {
/// y = a * conv(x, w) + b * y, on layouts already checked.
inline void cudnn_convolve(const CudnnLayout &X, const CudnnLayout &W, const CudnnLayout &Y,
                           const CudnnConvolution &C, float a, float b, const float *xs,
                           const float *ws, float *ys) {
  const bool tensor_cores = C.math != CUDNN_FMA_MATH;
  auto operand = [&](float v) { return tensor_cores ? seqc_sim::tf32(v) : v; };
  const int spatial = C.spatial, group_channels = W.dims[1],
            group_filters = W.dims[0] / C.groups;
  int64_t positions = 1, taps = 1;
  for (int i = 0; i < spatial; ++i)
    positions *= Y.dims[2 + i], taps *= W.dims[2 + i];
  for (int n = 0; n < Y.dims[0]; ++n)
    for (int k = 0; k < Y.dims[1]; ++k) {
      const int g = k / group_filters;
      for (int64_t p = 0; p < positions; ++p) {
        int o[CUDNN_DIM_MAX - 2];
        int64_t rest = p;
        for (int i = spatial - 1; i >= 0; --i)
          o[i] = rest % Y.dims[2 + i], rest /= Y.dims[2 + i];
        double sum = 0.0;
        for (int64_t t = 0; t < taps; ++t) {
          int tap[CUDNN_DIM_MAX - 2];
          int64_t r = t;
          for (int i = spatial - 1; i >= 0; --i)
            tap[i] = r % W.dims[2 + i], r /= W.dims[2 + i];
          int64_t x_at = (int64_t)n * X.strides[0], w_at = (int64_t)k * W.strides[0];
          bool inside = true;
          for (int i = 0; i < spatial && inside; ++i) {
            int at = o[i] * C.stride[i] - C.pad[i] + tap[i] * C.dilation[i];
            inside = at >= 0 && at < X.dims[2 + i];
            int w_tap = C.mode == CUDNN_CONVOLUTION ? W.dims[2 + i] - 1 - tap[i] : tap[i];
            x_at += (int64_t)at * X.strides[2 + i];
            w_at += (int64_t)w_tap * W.strides[2 + i];
          }
          if (!inside)
            continue;
          for (int c = 0; c < group_channels; ++c)
            sum += (double)operand(xs[x_at + (int64_t)(g * group_channels + c) * X.strides[1]]) *
                   operand(ws[w_at + (int64_t)c * W.strides[1]]);
        }
        int64_t y_at = (int64_t)n * Y.strides[0] + (int64_t)k * Y.strides[1];
        for (int i = 0; i < spatial; ++i)
          y_at += (int64_t)o[i] * Y.strides[2 + i];
        ys[y_at] = a * (float)sum + (b == 0.0f ? 0.0f : b * ys[y_at]);
      }
    }
}
} // namespace seqc_sim

/// y = alpha * conv(x, w) + beta * y.
inline cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t h, const void *alpha,
                                             cudnnTensorDescriptor_t xd, const void *x,
                                             cudnnFilterDescriptor_t wd, const void *w,
                                             cudnnConvolutionDescriptor_t cd,
                                             cudnnConvolutionFwdAlgo_t algo, void *work,
                                             size_t work_bytes, const void *beta,
                                             cudnnTensorDescriptor_t yd, void *y) {
  using seqc_sim::CudnnLayout;
  int out[CUDNN_DIM_MAX];
  if (!h)
    return CUDNN_STATUS_NOT_INITIALIZED;
  if (!x || !w || !y || !alpha || !beta)
    return CUDNN_STATUS_BAD_PARAM;
  if (seqc_sim::cudnn_output_dims(*cd, *xd, *wd, out) != CUDNN_STATUS_SUCCESS || !yd->set ||
      yd->rank != xd->rank)
    return CUDNN_STATUS_BAD_PARAM;
  for (int i = 0; i < yd->rank; ++i)
    if (yd->dims[i] != out[i])
      return CUDNN_STATUS_BAD_PARAM;
  if (seqc_sim::cudnn_algo_status(algo, *cd, *wd) != CUDNN_STATUS_SUCCESS)
    return CUDNN_STATUS_NOT_SUPPORTED;
  size_t need = seqc_sim::cudnn_algo_workspace(algo, *wd, out, xd->rank);
  if (work_bytes < need || (need && !work))
    return CUDNN_STATUS_BAD_PARAM;
  // What a GPU would bake into the recorded work: the descriptors' values.
  seqc_sim::run_or_record([X = CudnnLayout(*xd), W = CudnnLayout(*wd), Y = CudnnLayout(*yd),
                           C = seqc_sim::CudnnConvolution(*cd), a = *(const float *)alpha,
                           b = *(const float *)beta, xs = (const float *)x,
                           ws = (const float *)w, ys = (float *)y] {
    seqc_sim::cudnn_convolve(X, W, Y, C, a, b, xs, ws, ys);
  });
  return CUDNN_STATUS_SUCCESS;
}

#endif

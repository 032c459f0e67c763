// ===== seqc cuDNN paths =====================================================
// Copied into the .cu when a model runs anything on cuDNN (`--conv-backend=
// cudnn|auto`, `--rnn-backend=cudnn`): the error helpers and the
// convolution path. seqc_cudnn_rnn.cuh (the RNN path) follows it when a
// recurrence runs on cuDNN. Under SEQC_CPU_SIMULATION, seqc_cudnn_sim.h
// stands in for cudnn.h (its convolution API only).
// ===========================================================================
#ifndef SEQC_CPU_SIMULATION
#include <cudnn.h>
#endif

namespace seqc {

inline const char *cudnn_error(cudnnStatus_t status) {
  return status == CUDNN_STATUS_SUCCESS ? nullptr : cudnnGetErrorString(status);
}
inline const char *cuda_error(cudaError_t err) {
  return err == cudaSuccess ? nullptr : cudaGetErrorString(err);
}

/// The model's cuDNN handle on `stream`, after checking that the cuDNN found
/// is the major version the library was built against: nullptr, or why not
/// (written into `error`, 1024 bytes).
inline const char *cudnn_open(cudaStream_t stream, cudnnHandle_t *handle, char *error) {
  size_t version = cudnnGetVersion();
  if (version / 10000 != CUDNN_MAJOR)
    return seqc_format(error,
                       "cuDNN %zu.%zu.%zu found, but this library needs cuDNN %d (built "
                       "against %d.%d.%d)",
                       version / 10000, version % 10000 / 100, version % 100, CUDNN_MAJOR,
                       CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
  if (cudnnStatus_t s = cudnnCreate(handle))
    return seqc_format(error, "cannot initialise cuDNN: %s", cudnnGetErrorString(s));
  if (cudnnStatus_t s = cudnnSetStream(*handle, stream))
    return seqc_format(error, "cuDNN: %s", cudnnGetErrorString(s));
  return nullptr;
}

inline void cudnn_close(cudnnHandle_t handle) { cudnnDestroy(handle); }

#define SEQC_CUDNN_TRY(expr)                                                                \
  do {                                                                                      \
    if (const char *seqc_e = (expr))                                                        \
      return seqc_e;                                                                        \
  } while (0)

// ----- Convolutions ----------------------------------------------------------
// A Conv1D/2D/3D (any groups; a Conv1D as a 2-D convolution of unit height;
// padding the same on both sides: the emitter pads a copy of the input
// first where it is not) as
// cudnnConvolutionForward on NHWC / NDHWC tensors in FMA math (no TF32, so
// the result stays within 1e-4 of Keras), then the bias and activation. The
// Keras kernel (k..., channels / groups, filters) is re-laid out once at
// create into cuDNN's NHWC filter (filters, k..., channels / groups). The
// descriptors and algorithm follow the input's shape (set again when it
// changes); the workspace grows when an algorithm needs more.

/// dst (filters, taps * group_channels) from src (taps * group_channels, filters).
__global__ void filter_transpose_kernel(const float *__restrict__ src, int64_t rows, int filters,
                                        float *__restrict__ dst) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows * filters)
    return;
  int64_t f = i / rows, r = i % rows;
  dst[i] = src[r * filters + f];
}

template <Act A>
__global__ void bias_activation_kernel(float *__restrict__ y, const float *__restrict__ bias,
                                       int64_t n, int filters, float alpha) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = activate<A>(y[i] + (bias ? bias[i % filters] : 0.0f), alpha);
}

struct CudnnConv {
  int spatial = 2, channels = 0, filters = 0, groups = 1;
  cudnnTensorDescriptor_t x_desc = nullptr, y_desc = nullptr;
  cudnnFilterDescriptor_t w_desc = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  float *weights = nullptr;
  void *work = nullptr;
  size_t work_bytes = 0;
  int shape[5] = {-1, -1, -1, -1, -1}; // (batch, in...) the descriptors are set for
};

/// `kernel` (device) in Keras' layout; `kernel_size`, `pad`, `stride` and
/// `dilation` have one entry per spatial axis (2 or 3).
inline const char *cudnn_conv_create(cudaStream_t stream, CudnnConv &c, int channels,
                                     int filters, int groups, Sizes3 kernel_size, Sizes3 pad,
                                     Sizes3 stride, Sizes3 dilation, const float *kernel) {
  const int spatial = kernel_size.n;
  c.spatial = spatial;
  c.channels = channels;
  c.filters = filters;
  c.groups = groups;
  SEQC_CUDNN_TRY(cudnn_error(cudnnCreateTensorDescriptor(&c.x_desc)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnCreateTensorDescriptor(&c.y_desc)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnCreateFilterDescriptor(&c.w_desc)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnCreateConvolutionDescriptor(&c.conv)));
  int dims[5] = {filters, channels / groups};
  int64_t taps = 1;
  for (int i = 0; i < spatial; ++i) {
    dims[2 + i] = kernel_size.v[i];
    taps *= kernel_size.v[i];
  }
  SEQC_CUDNN_TRY(cudnn_error(cudnnSetFilterNdDescriptor(c.w_desc, CUDNN_DATA_FLOAT,
                                                        CUDNN_TENSOR_NHWC, spatial + 2, dims)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnSetConvolutionNdDescriptor(
      c.conv, spatial, pad.v, stride.v, dilation.v, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnSetConvolutionGroupCount(c.conv, groups)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnSetConvolutionMathType(c.conv, CUDNN_FMA_MATH)));
  int64_t rows = taps * (channels / groups);
  SEQC_CUDNN_TRY(cuda_error(cudaMalloc(&c.weights, (size_t)rows * filters * sizeof(float))));
  SEQC_LAUNCH(filter_transpose_kernel, blocks_for(rows * filters, 256), 256, 0, stream)(
      kernel, rows, filters, c.weights);
  SEQC_CUDNN_TRY(cuda_error(cudaGetLastError()));
  return cuda_error(cudaStreamSynchronize(stream));
}

/// y = act(conv(x) + bias) for x (batch, in..., channels); `out` are the
/// output's spatial sizes the caller allocated for, checked against cuDNN's.
template <Act A>
inline const char *cudnn_conv_run(cudnnHandle_t handle, cudaStream_t stream, CudnnConv &c,
                                  const float *x, int batch, Sizes3 in, Sizes3 out, float *y,
                                  const float *bias, float alpha) {
  int64_t positions = 1;
  for (int i = 0; i < c.spatial; ++i)
    positions *= out.v[i];
  if (batch == 0 || positions == 0)
    return nullptr;
  bool same = c.shape[0] == batch;
  for (int i = 0; i < c.spatial; ++i)
    same = same && c.shape[1 + i] == in.v[i];
  if (!same) {
    int xd[5] = {batch, c.channels}, yd[5] = {};
    for (int i = 0; i < c.spatial; ++i)
      xd[2 + i] = in.v[i];
    SEQC_CUDNN_TRY(cudnn_error(cudnnSetTensorNdDescriptorEx(
        c.x_desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, c.spatial + 2, xd)));
    SEQC_CUDNN_TRY(cudnn_error(cudnnGetConvolutionNdForwardOutputDim(
        c.conv, c.x_desc, c.w_desc, c.spatial + 2, yd)));
    if (yd[0] != batch || yd[1] != c.filters)
      return "cuDNN computed an unexpected convolution output shape";
    for (int i = 0; i < c.spatial; ++i)
      if (yd[2 + i] != out.v[i])
        return "cuDNN computed an unexpected convolution output shape";
    SEQC_CUDNN_TRY(cudnn_error(cudnnSetTensorNdDescriptorEx(
        c.y_desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, c.spatial + 2, yd)));
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    SEQC_CUDNN_TRY(cudnn_error(cudnnGetConvolutionForwardAlgorithm_v7(
        handle, c.x_desc, c.w_desc, c.conv, c.y_desc, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found,
        perf)));
    int pick = -1;
    for (int i = 0; i < found && pick < 0; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS)
        pick = i;
    if (pick < 0)
      return "cuDNN has no forward algorithm for this convolution";
    c.algo = perf[pick].algo;
    size_t need = 0;
    SEQC_CUDNN_TRY(cudnn_error(cudnnGetConvolutionForwardWorkspaceSize(
        handle, c.x_desc, c.w_desc, c.conv, c.y_desc, c.algo, &need)));
    if (need > c.work_bytes) {
      if (c.work)
        cudaFree(c.work);
      c.work = nullptr;
      c.work_bytes = 0;
      SEQC_CUDNN_TRY(cuda_error(cudaMalloc(&c.work, need)));
      c.work_bytes = need;
    }
    c.shape[0] = batch;
    for (int i = 0; i < c.spatial; ++i)
      c.shape[1 + i] = in.v[i];
  }
  const float one = 1.0f, zero = 0.0f;
  SEQC_CUDNN_TRY(cudnn_error(cudnnConvolutionForward(handle, &one, c.x_desc, x, c.w_desc,
                                                     c.weights, c.conv, c.algo, c.work,
                                                     c.work_bytes, &zero, c.y_desc, y)));
  int64_t n = (int64_t)batch * positions * c.filters;
  SEQC_LAUNCH(bias_activation_kernel<A>, blocks_for(n, 256), 256, 0, stream)(y, bias, n,
                                                                             c.filters, alpha);
  SEQC_CUDNN_TRY(cuda_error(cudaGetLastError()));
  return cuda_error(softmax_rows<A>(stream, y, (int64_t)batch * positions, c.filters));
}

inline void cudnn_conv_destroy(CudnnConv &c) {
  if (c.x_desc)
    cudnnDestroyTensorDescriptor(c.x_desc);
  if (c.y_desc)
    cudnnDestroyTensorDescriptor(c.y_desc);
  if (c.w_desc)
    cudnnDestroyFilterDescriptor(c.w_desc);
  if (c.conv)
    cudnnDestroyConvolutionDescriptor(c.conv);
  for (void *p : {(void *)c.weights, c.work})
    if (p)
      cudaFree(p);
  c = CudnnConv();
}

} // namespace seqc

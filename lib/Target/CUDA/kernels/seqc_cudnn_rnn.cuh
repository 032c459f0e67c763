// ===== seqc cuDNN RNN path =================================================
// Copied into the .cu after seqc_cudnn.cuh when `--rnn-backend=cudnn`: LSTM
// and GRU (reset_after=true) layers run through cudnnRNNForward (cuDNN 9
// API) instead of the persistent fused kernel. cuDNN computes the input
// projection itself, so it gets the layer's input and Keras kernels, re-laid
// out once at create into cuDNN's weight space. Everything is allocated at
// create.
// ===========================================================================

// The GPU pack's benchmark also builds the same source with
// -DSEQC_CUDNN_RNN_ALGO=CUDNN_RNN_ALGO_PERSIST_STATIC, to time seqc's fused
// kernels against cuDNN's persistent algorithm as well.
#ifndef SEQC_CUDNN_RNN_ALGO
#define SEQC_CUDNN_RNN_ALGO CUDNN_RNN_ALGO_STANDARD
#endif

namespace seqc {

__global__ void fill_int_kernel(int *p, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = value;
}

/// dst (hidden x in, row-major: cuDNN's matrix of one gate) from the gate
/// block starting at column `col0` of a Keras kernel src (in x ld).
__global__ void gate_transpose_kernel(const float *__restrict__ src, int ld, int col0, int in,
                                      int hidden, float *__restrict__ dst) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int64_t)in * hidden)
    return;
  int k = i % in, j = i / in;
  dst[i] = src[(size_t)k * ld + col0 + j];
}

struct CudnnRnn {
  bool lstm = true;
  int input = 0, hidden = 0, max_batch = 0, max_steps = 0;
  cudnnRNNDescriptor_t rnn = nullptr;
  cudnnDropoutDescriptor_t dropout = nullptr;
  cudnnRNNDataDescriptor_t x_desc = nullptr, y_desc = nullptr;
  cudnnTensorDescriptor_t h_desc = nullptr;
  void *weights = nullptr, *work = nullptr, *reserve = nullptr;
  size_t weight_bytes = 0, work_bytes = 0, reserve_bytes = 0;
  int *dev_lengths = nullptr; // max_batch
  int *host_lengths = nullptr;
  float *x_reversed = nullptr; // go_backwards: (max_batch, max_steps, input)
  float *y = nullptr;          // (max_batch, max_steps, hidden)
  float *h_last = nullptr;     // (max_batch, hidden)
};

inline const char *cudnn_set_shapes(cudnnHandle_t handle, CudnnRnn &r, int batch, int steps) {
  for (int b = 0; b < batch; ++b)
    r.host_lengths[b] = steps;
  float fill = 0.0f;
  SEQC_CUDNN_TRY(cudnn_error(cudnnSetRNNDataDescriptor(
      r.x_desc, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, steps, batch,
      r.input, r.host_lengths, &fill)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnSetRNNDataDescriptor(
      r.y_desc, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, steps, batch,
      r.hidden, r.host_lengths, &fill)));
  int dims[3] = {1, batch, r.hidden}, strides[3] = {batch * r.hidden, r.hidden, 1};
  SEQC_CUDNN_TRY(
      cudnn_error(cudnnSetTensorNdDescriptor(r.h_desc, CUDNN_DATA_FLOAT, 3, dims, strides)));
  (void)handle;
  return nullptr;
}

/// Copies one Keras gate block into cuDNN's weight space: matrix `lin_id`
/// from src's columns [col0, col0 + hidden), and its bias (or zeros).
inline const char *cudnn_load_gate(cudnnHandle_t handle, cudaStream_t stream, CudnnRnn &r,
                                   int lin_id, const float *src, int rows, int col0,
                                   const float *bias) {
  cudnnTensorDescriptor_t m_desc = nullptr, b_desc = nullptr;
  SEQC_CUDNN_TRY(cudnn_error(cudnnCreateTensorDescriptor(&m_desc)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnCreateTensorDescriptor(&b_desc)));
  void *m_addr = nullptr, *b_addr = nullptr;
  const char *err = cudnn_error(cudnnGetRNNWeightParams(handle, r.rnn, 0, r.weight_bytes,
                                                        r.weights, lin_id, m_desc, &m_addr,
                                                        b_desc, &b_addr));
  cudnnDataType_t type;
  int nd = 0, dims[8] = {}, strides[8] = {};
  if (!err)
    err = cudnn_error(cudnnGetTensorNdDescriptor(m_desc, 8, &type, &nd, dims, strides));
  if (!err && (type != CUDNN_DATA_FLOAT || !m_addr ||
               !is_row_major_matrix(nd, dims, strides, r.hidden, rows)))
    err = "cuDNN reported an unexpected RNN weight matrix layout";
  const int ld = (r.lstm ? 4 : 3) * r.hidden;
  if (!err) {
    int64_t n = (int64_t)rows * r.hidden;
    SEQC_LAUNCH(gate_transpose_kernel, blocks_for(n, 256), 256, 0, stream)(
        src, ld, col0, rows, r.hidden, static_cast<float *>(m_addr));
    err = cuda_error(cudaGetLastError());
  }
  if (!err && b_addr)
    err = cuda_error(bias ? cudaMemcpyAsync(b_addr, bias + col0, r.hidden * sizeof(float),
                                            cudaMemcpyDeviceToDevice, stream)
                          : cudaMemsetAsync(b_addr, 0, r.hidden * sizeof(float), stream));
  cudnnDestroyTensorDescriptor(m_desc);
  cudnnDestroyTensorDescriptor(b_desc);
  return err;
}

/// Sets up one LSTM or GRU (reset_after) layer. kernel (input, G*hidden),
/// recurrent (hidden, G*hidden) in Keras gate order; LSTM: input_bias
/// (4*hidden) or null, recurrent_bias null; GRU: both rows of the (2, 3u)
/// bias. All pointers are device pointers.
inline const char *cudnn_rnn_create(cudnnHandle_t handle, cudaStream_t stream, CudnnRnn &r,
                                    bool lstm, int input, int hidden, int max_batch,
                                    int max_steps, bool go_backwards, const float *kernel,
                                    const float *recurrent, const float *input_bias,
                                    const float *recurrent_bias) {
  r.lstm = lstm;
  r.input = input;
  r.hidden = hidden;
  r.max_batch = max_batch;
  r.max_steps = max_steps;
  SEQC_CUDNN_TRY(cudnn_error(cudnnCreateRNNDescriptor(&r.rnn)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnCreateDropoutDescriptor(&r.dropout)));
  // No dropout at inference: no states needed.
  SEQC_CUDNN_TRY(cudnn_error(cudnnSetDropoutDescriptor(r.dropout, handle, 0.0f, nullptr, 0, 0)));
  // FMA math: no TF32 tensor cores, so the result stays within 1e-4 of Keras.
  SEQC_CUDNN_TRY(cudnn_error(cudnnSetRNNDescriptor_v8(
      r.rnn, SEQC_CUDNN_RNN_ALGO, lstm ? CUDNN_LSTM : CUDNN_GRU, CUDNN_RNN_DOUBLE_BIAS,
      CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
      CUDNN_FMA_MATH, input, hidden, hidden, 1, r.dropout, CUDNN_RNN_PADDED_IO_ENABLED)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnCreateRNNDataDescriptor(&r.x_desc)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnCreateRNNDataDescriptor(&r.y_desc)));
  SEQC_CUDNN_TRY(cudnn_error(cudnnCreateTensorDescriptor(&r.h_desc)));

  SEQC_CUDNN_TRY(cudnn_error(cudnnGetRNNWeightSpaceSize(handle, r.rnn, &r.weight_bytes)));
  SEQC_CUDNN_TRY(cuda_error(cudaMalloc(&r.weights, r.weight_bytes)));
  SEQC_CUDNN_TRY(cuda_error(cudaMemsetAsync(r.weights, 0, r.weight_bytes, stream)));
  r.host_lengths = new int[max_batch];
  SEQC_CUDNN_TRY(cudnn_set_shapes(handle, r, max_batch, max_steps));
  SEQC_CUDNN_TRY(cudnn_error(cudnnGetRNNTempSpaceSizes(
      handle, r.rnn, CUDNN_FWD_MODE_INFERENCE, r.x_desc, &r.work_bytes, &r.reserve_bytes)));
  if (r.work_bytes)
    SEQC_CUDNN_TRY(cuda_error(cudaMalloc(&r.work, r.work_bytes)));
  if (r.reserve_bytes)
    SEQC_CUDNN_TRY(cuda_error(cudaMalloc(&r.reserve, r.reserve_bytes)));
  SEQC_CUDNN_TRY(cuda_error(cudaMalloc(&r.dev_lengths, max_batch * sizeof(int))));
  SEQC_CUDNN_TRY(
      cuda_error(cudaMalloc(&r.y, (size_t)max_batch * max_steps * hidden * sizeof(float))));
  SEQC_CUDNN_TRY(cuda_error(cudaMalloc(&r.h_last, (size_t)max_batch * hidden * sizeof(float))));
  if (go_backwards)
    SEQC_CUDNN_TRY(cuda_error(
        cudaMalloc(&r.x_reversed, (size_t)max_batch * max_steps * input * sizeof(float))));

  // cuDNN's gate order: LSTM i, f, g, o (as Keras); GRU r, z, h (Keras z, r, h).
  const int lstm_blocks[4] = {0, 1, 2, 3}, gru_blocks[3] = {1, 0, 2};
  const int gates = lstm ? 4 : 3;
  for (int g = 0; g < gates; ++g) {
    int block = lstm ? lstm_blocks[g] : gru_blocks[g];
    SEQC_CUDNN_TRY(cudnn_load_gate(handle, stream, r, g, kernel, input, block * hidden,
                                   input_bias));
    SEQC_CUDNN_TRY(cudnn_load_gate(handle, stream, r, gates + g, recurrent, hidden,
                                   block * hidden, recurrent_bias));
  }
  return cuda_error(cudaStreamSynchronize(stream));
}

/// Runs the layer on x (batch, steps, input). Writes the sequence (in
/// processing order, as Keras returns it for go_backwards) to `sequence` or
/// the last state to `last`; either may be null.
inline const char *cudnn_rnn_run(cudnnHandle_t handle, cudaStream_t stream, CudnnRnn &r,
                                 const float *x, int batch, int steps, bool go_backwards,
                                 float *sequence, float *last) {
  if (batch == 0 || steps == 0)
    return nullptr;
  SEQC_CUDNN_TRY(cudnn_set_shapes(handle, r, batch, steps));
  size_t work = 0, reserve = 0;
  SEQC_CUDNN_TRY(cudnn_error(cudnnGetRNNTempSpaceSizes(handle, r.rnn, CUDNN_FWD_MODE_INFERENCE,
                                                       r.x_desc, &work, &reserve)));
  if (work > r.work_bytes || reserve > r.reserve_bytes)
    return "cuDNN needs more workspace than was allocated at create";
  SEQC_LAUNCH(fill_int_kernel, blocks_for(batch, 256), 256, 0, stream)(r.dev_lengths, batch, steps);
  SEQC_CUDNN_TRY(cuda_error(cudaGetLastError()));
  if (go_backwards) {
    SEQC_CUDNN_TRY(cuda_error(reverse_axis(stream, x, r.x_reversed, batch, steps, r.input)));
    x = r.x_reversed;
  }
  SEQC_CUDNN_TRY(cudnn_error(cudnnRNNForward(
      handle, r.rnn, CUDNN_FWD_MODE_INFERENCE, r.dev_lengths, r.x_desc, x, r.y_desc,
      sequence ? sequence : r.y, r.h_desc, nullptr, last ? last : r.h_last, r.h_desc, nullptr,
      nullptr, r.weight_bytes, r.weights, r.work_bytes, r.work, r.reserve_bytes, r.reserve)));
  return nullptr;
}

inline void cudnn_rnn_destroy(CudnnRnn &r) {
  if (r.rnn)
    cudnnDestroyRNNDescriptor(r.rnn);
  if (r.dropout)
    cudnnDestroyDropoutDescriptor(r.dropout);
  if (r.x_desc)
    cudnnDestroyRNNDataDescriptor(r.x_desc);
  if (r.y_desc)
    cudnnDestroyRNNDataDescriptor(r.y_desc);
  if (r.h_desc)
    cudnnDestroyTensorDescriptor(r.h_desc);
  for (void *p : {r.weights, r.work, r.reserve, (void *)r.dev_lengths, (void *)r.x_reversed,
                  (void *)r.y, (void *)r.h_last})
    if (p)
      cudaFree(p);
  delete[] r.host_lengths;
  r = CudnnRnn();
}

} // namespace seqc

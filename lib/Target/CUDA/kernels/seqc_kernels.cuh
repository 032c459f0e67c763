// ===== seqc CUDA kernel library ============================================
// Copied verbatim into every .cu that `seq-compile --target=cuda` writes, so
// that the generated file stands alone. The generated part below it holds the
// weights, the buffer shapes and one launch per kernel-level op. The kernels
// with template parameters are defined here, instantiated by each model for
// its own units and activations; the others are only declared here: they are
// defined in seqc_fixed_kernels.cu, compiled once with the runtime.
//
// Conventions: float32 tensors, batch-major and contiguous; every launcher
// returns cudaError_t and launches on the given stream; no launcher
// allocates memory (the model allocates everything once, at create).
// Activations follow Keras exactly (ReferenceKernels.h is the oracle): no
// fast-math intrinsics and no TF32, so results stay within 1e-4 of Keras.
// ===========================================================================
#ifndef SEQC_CPU_SIMULATION
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <mma.h>
// Kernel launches are spelled SEQC_LAUNCH(kernel, grid, block, shared, stream)(args)
// so that seqc_cuda_sim.h can run the same source on a CPU.
#define SEQC_LAUNCH(kernel, grid, block, shared, stream) kernel<<<grid, block, shared, stream>>>
#define SEQC_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#define SEQC_UNROLL _Pragma("unroll")
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace seqc {

namespace cg = cooperative_groups;

enum class Act : int {
  Linear,
  Relu,
  Tanh,
  Sigmoid,
  HardSigmoidKeras2, // clip(0.2x + 0.5, 0, 1): Keras 2 / tf.keras
  HardSigmoidKeras3, // relu6(x + 3) / 6: Keras 3
  Softmax,           // over the last axis: a separate row kernel, never inline
  Elu,
  Selu,
  Gelu,     // exact (erf)
  GeluTanh, // tanh approximation
  Swish,
  Softplus,
  Softsign,
  LeakyRelu,
  Exponential,
  Relu6,
  HardSilu, // x * relu6(x + 3) / 6
  Mish,
  LogSoftmax, // over the last axis: the row kernel, like Softmax
  Celu,
  HardTanh,
  LogSigmoid,
  SparsePlus,
  Squareplus, // b = 4
  TanhShrink,
  SoftShrink, // threshold 0.5
  HardShrink, // threshold 0.5
  SparseSigmoid,
  ThresholdedRelu, // theta = alpha
  Sqrt,            // the elementwise functions of operations on tensors
  Rsqrt,
  Log,
  Abs,
  Reciprocal, // alpha / x
};

/// Softmax and LogSoftmax normalise rows; the others map each element.
__host__ __device__ constexpr bool is_row_act(Act a) {
  return a == Act::Softmax || a == Act::LogSoftmax;
}

/// log(1 + exp(x)) without overflow.
__device__ __forceinline__ float softplus(float x) {
  return log1pf(expf(-fabsf(x))) + fmaxf(x, 0.0f);
}

__device__ __forceinline__ float sigmoid(float x) {
  // Either branch exponentiates a non-positive number: nothing overflows.
  if (x >= 0.0f)
    return 1.0f / (1.0f + expf(-x));
  float e = expf(x);
  return e / (1.0f + e);
}

/// The elementwise activations; `alpha` is the ELU/CELU alpha, the LeakyReLU
/// slope, the ThresholdedReLU theta or the Reciprocal's numerator. Softmax and LogSoftmax are handled by
/// softmax_rows and never reach here.
template <Act A> __device__ __forceinline__ float activate(float x, float alpha) {
  if constexpr (A == Act::Linear || is_row_act(A)) {
    return x;
  } else if constexpr (A == Act::Relu) {
    return fmaxf(x, 0.0f);
  } else if constexpr (A == Act::Tanh) {
    return tanhf(x);
  } else if constexpr (A == Act::Sigmoid) {
    return sigmoid(x);
  } else if constexpr (A == Act::HardSigmoidKeras2) {
    return fminf(fmaxf(0.2f * x + 0.5f, 0.0f), 1.0f);
  } else if constexpr (A == Act::HardSigmoidKeras3) {
    return fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) / 6.0f;
  } else if constexpr (A == Act::Elu) {
    return x > 0.0f ? x : alpha * expm1f(x);
  } else if constexpr (A == Act::Selu) {
    return 1.0507009873554805f * (x > 0.0f ? x : 1.6732632423543772f * expm1f(x));
  } else if constexpr (A == Act::Gelu) {
    // = 0.5 x (1 + erf(x / sqrt 2)), without 1 + erf cancelling for x < 0.
    return 0.5f * x * erfcf(x * -0.70710678118654752f);
  } else if constexpr (A == Act::GeluTanh) {
    // = 0.5 x (1 + tanh(u)), without 1 + tanh cancelling for x < 0.
    return x * sigmoid(2.0f * 0.7978845608028654f * (x + 0.044715f * x * x * x));
  } else if constexpr (A == Act::Swish) {
    return x * sigmoid(x);
  } else if constexpr (A == Act::Softplus) {
    return softplus(x);
  } else if constexpr (A == Act::Softsign) {
    return x / (1.0f + fabsf(x));
  } else if constexpr (A == Act::LeakyRelu) {
    return x >= 0.0f ? x : alpha * x;
  } else if constexpr (A == Act::Exponential) {
    return expf(x);
  } else if constexpr (A == Act::Relu6) {
    return fminf(fmaxf(x, 0.0f), 6.0f);
  } else if constexpr (A == Act::HardSilu) {
    return x * (fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) / 6.0f);
  } else if constexpr (A == Act::Mish) {
    return x * tanhf(softplus(x));
  } else if constexpr (A == Act::Celu) {
    return fmaxf(x, 0.0f) + alpha * expm1f(fminf(x, 0.0f) / alpha);
  } else if constexpr (A == Act::HardTanh) {
    return fminf(fmaxf(x, -1.0f), 1.0f);
  } else if constexpr (A == Act::LogSigmoid) {
    return -softplus(-x);
  } else if constexpr (A == Act::SparsePlus) {
    return x <= -1.0f ? 0.0f : x < 1.0f ? 0.25f * (x + 1.0f) * (x + 1.0f) : x;
  } else if constexpr (A == Act::Squareplus) {
    // = (x + sqrt(x^2 + 4)) / 2, without x + sqrt(...) cancelling for x < 0
    // or x^2 overflowing.
    return x >= 0.0f ? (x + hypotf(x, 2.0f)) / 2.0f : 2.0f / (hypotf(x, 2.0f) - x);
  } else if constexpr (A == Act::TanhShrink) {
    return x - tanhf(x);
  } else if constexpr (A == Act::SoftShrink) {
    return x > 0.5f ? x - 0.5f : x < -0.5f ? x + 0.5f : 0.0f;
  } else if constexpr (A == Act::HardShrink) {
    return fabsf(x) > 0.5f ? x : 0.0f;
  } else if constexpr (A == Act::SparseSigmoid) {
    return x <= -1.0f ? 0.0f : x >= 1.0f ? 1.0f : 0.5f * (x + 1.0f);
  } else if constexpr (A == Act::ThresholdedRelu) {
    return x > alpha ? x : 0.0f;
  } else if constexpr (A == Act::Sqrt) {
    return sqrtf(x);
  } else if constexpr (A == Act::Rsqrt) {
    return 1.0f / sqrtf(x);
  } else if constexpr (A == Act::Log) {
    return logf(x);
  } else if constexpr (A == Act::Abs) {
    return fabsf(x);
  } else {
    static_assert(A == Act::Reciprocal, "unhandled activation");
    return alpha / x;
  }
}

inline unsigned blocks_for(int64_t n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

// Static, like probe: each translation unit checks its own code (the
// runtime's, with the fixed kernels, is built for the same architectures).
static __global__ void probe_kernel() {}

/// Runs an empty kernel: fails with cudaErrorNoKernelImageForDevice when the
/// library has no code for this GPU, which is better said at create.
[[maybe_unused]] static cudaError_t probe(cudaStream_t stream) {
  SEQC_LAUNCH(probe_kernel, 1, 1, 0, stream)();
  cudaError_t err = cudaGetLastError();
  return err != cudaSuccess ? err : cudaStreamSynchronize(stream);
}

// ---------------------------------------------------------------------------
// seq.linear: c (M x N) = act(a (M x K) @ w (K x N) + bias).
// A classic shared-memory tiled SGEMM: 64x64 output tile per block, 16-deep
// K slices, 256 threads each holding a 4x4 register tile. Columns of a
// thread's tile are 16 apart so that loads from Bs and stores to c are
// conflict-free / coalesced.
// ---------------------------------------------------------------------------
constexpr int kGemmTileM = 64, kGemmTileN = 64, kGemmTileK = 16;

template <Act A>
__global__ void __launch_bounds__(256)
linear_kernel(const float *__restrict__ a, const float *__restrict__ w,
              const float *__restrict__ bias, float *__restrict__ c, int M, int N,
              int K, float alpha) {
  __shared__ float As[kGemmTileK][kGemmTileM + 4]; // A tile, transposed
  __shared__ float Bs[kGemmTileK][kGemmTileN];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kGemmTileM, col0 = blockIdx.x * kGemmTileN;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kGemmTileK) {
    for (int i = threadIdx.x; i < kGemmTileM * kGemmTileK; i += blockDim.x) {
      int r = i / kGemmTileK, kk = i % kGemmTileK;
      int gr = row0 + r, gk = k0 + kk;
      As[kk][r] = (gr < M && gk < K) ? a[(size_t)gr * K + gk] : 0.0f;
    }
    for (int i = threadIdx.x; i < kGemmTileK * kGemmTileN; i += blockDim.x) {
      int kk = i / kGemmTileN, cc = i % kGemmTileN;
      int gk = k0 + kk, gc = col0 + cc;
      Bs[kk][cc] = (gk < K && gc < N) ? w[(size_t)gk * N + gc] : 0.0f;
    }
    __syncthreads();
SEQC_UNROLL
    for (int kk = 0; kk < kGemmTileK; ++kk) {
      float av[4], bv[4];
SEQC_UNROLL
      for (int i = 0; i < 4; ++i)
        av[i] = As[kk][ty * 4 + i];
SEQC_UNROLL
      for (int j = 0; j < 4; ++j)
        bv[j] = Bs[kk][tx + 16 * j];
SEQC_UNROLL
      for (int i = 0; i < 4; ++i)
SEQC_UNROLL
        for (int j = 0; j < 4; ++j)
          acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
SEQC_UNROLL
  for (int i = 0; i < 4; ++i) {
    int r = row0 + ty * 4 + i;
    if (r >= M)
      continue;
SEQC_UNROLL
    for (int j = 0; j < 4; ++j) {
      int col = col0 + tx + 16 * j;
      if (col >= N)
        continue;
      float v = acc[i][j] + (bias ? bias[col] : 0.0f);
      c[(size_t)r * N + col] = activate<A>(v, alpha);
    }
  }
}

/// Softmax (or its log) of one row of n values, in place, by the 32 lanes of
/// one warp; each lane rewrites only the values it read.
template <bool kLog> __device__ void warp_softmax_row(float *r, int n, int lane) {
  float m = -INFINITY;
  for (int i = lane; i < n; i += 32)
    m = fmaxf(m, r[i]);
  for (int off = 16; off > 0; off /= 2)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  float sum = 0.0f;
  for (int i = lane; i < n; i += 32)
    sum += expf(r[i] - m);
  for (int off = 16; off > 0; off /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if constexpr (kLog) {
    // x - max - log(sum): exact where exp(x - max) / sum would underflow.
    float log_sum = logf(sum);
    for (int i = lane; i < n; i += 32)
      r[i] = r[i] - m - log_sum;
  } else {
    for (int i = lane; i < n; i += 32)
      r[i] = expf(r[i] - m) / sum;
  }
}

/// Softmax (or its log) over rows of length n, in place; one warp per row.
template <bool kLog>
__global__ void softmax_rows_kernel(float *x, int64_t rows, int n) {
  int64_t row = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row < rows)
    warp_softmax_row<kLog>(x + row * n, n, threadIdx.x % 32);
}

/// Normalises rows when A is a row activation (softmax, log_softmax); the
/// elementwise activations were applied already, so this does nothing.
template <Act A>
inline cudaError_t softmax_rows(cudaStream_t stream, float *x, int64_t rows, int n) {
  if (!is_row_act(A) || rows == 0)
    return cudaSuccess;
  SEQC_LAUNCH(softmax_rows_kernel<A == Act::LogSoftmax>, blocks_for(rows, 8), 256, 0,
              stream)(x, rows, n);
  return cudaGetLastError();
}

// The same GEMM on tensor cores (`--cuda-math=tf32|bf16`, which define
// SEQC_GEMM_TF32 / SEQC_GEMM_BF16): in TF32 each operand keeps 10 of
// float32's 23 mantissa bits, in BF16 7; the products are summed in float32.
// The 64x64 tile of a block is 8 warps of 16x32 (two 16x16 accumulators
// each); 16-deep K slices are staged through shared memory (zeros past the
// edges, BF16 converted there), so any M, N, K work.
enum class GemmMath : int { Fp32, Tf32, Bf16 };

// Device code for GPUs without TF32/BF16 tensor cores compiles without them
// (gemm_math() never picks them there).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define SEQC_TENSOR_CORES 1
template <GemmMath G> struct TensorCoreMath;
template <> struct TensorCoreMath<GemmMath::Tf32> {
  using Stored = float; // rounded to TF32 in the fragments
  using Fragment = nvcuda::wmma::precision::tf32;
  static constexpr int kStep = 8, kPad = 4;
  __device__ static float store(float v) { return v; }
};
template <> struct TensorCoreMath<GemmMath::Bf16> {
  using Stored = __nv_bfloat16;
  using Fragment = __nv_bfloat16;
  static constexpr int kStep = 16, kPad = 8;
  __device__ static __nv_bfloat16 store(float v) { return __float2bfloat16(v); }
};
#endif

template <Act A, GemmMath G>
__global__ void __launch_bounds__(256)
linear_tensor_core_kernel(const float *__restrict__ a, const float *__restrict__ w,
                          const float *__restrict__ bias, float *__restrict__ c, int M, int N,
                          int K, float alpha) {
#ifdef SEQC_TENSOR_CORES
  namespace wmma = nvcuda::wmma;
  using Math = TensorCoreMath<G>;
  using Stored = typename Math::Stored;
  constexpr int S = Math::kStep, lda = kGemmTileK + Math::kPad, ldb = kGemmTileN + Math::kPad,
                ldc = kGemmTileN + 4;
  __shared__ __align__(32) Stored As[kGemmTileM * lda];
  __shared__ __align__(32) Stored Bs[kGemmTileK * ldb];
  __shared__ __align__(32) float Cs[kGemmTileM * ldc];
  const int warp = threadIdx.x / 32, warp_row = (warp / 2) * 16, warp_col = (warp % 2) * 32;
  const int row0 = blockIdx.y * kGemmTileM, col0 = blockIdx.x * kGemmTileN;
  wmma::fragment<wmma::accumulator, 16, 16, S, float> acc[2];
  wmma::fill_fragment(acc[0], 0.0f);
  wmma::fill_fragment(acc[1], 0.0f);
  for (int k0 = 0; k0 < K; k0 += kGemmTileK) {
    for (int i = threadIdx.x; i < kGemmTileM * kGemmTileK; i += blockDim.x) {
      int r = i / kGemmTileK, kk = i % kGemmTileK;
      int gr = row0 + r, gk = k0 + kk;
      As[r * lda + kk] = Math::store((gr < M && gk < K) ? a[(size_t)gr * K + gk] : 0.0f);
    }
    for (int i = threadIdx.x; i < kGemmTileK * kGemmTileN; i += blockDim.x) {
      int kk = i / kGemmTileN, cc = i % kGemmTileN;
      int gk = k0 + kk, gc = col0 + cc;
      Bs[kk * ldb + cc] = Math::store((gk < K && gc < N) ? w[(size_t)gk * N + gc] : 0.0f);
    }
    __syncthreads();
    for (int kk = 0; kk < kGemmTileK; kk += S) {
      wmma::fragment<wmma::matrix_a, 16, 16, S, typename Math::Fragment, wmma::row_major> fa;
      wmma::load_matrix_sync(fa, As + warp_row * lda + kk, lda);
      if constexpr (G == GemmMath::Tf32)
        for (int e = 0; e < fa.num_elements; ++e)
          fa.x[e] = wmma::__float_to_tf32(fa.x[e]);
      for (int half = 0; half < 2; ++half) {
        wmma::fragment<wmma::matrix_b, 16, 16, S, typename Math::Fragment, wmma::row_major> fb;
        wmma::load_matrix_sync(fb, Bs + kk * ldb + warp_col + 16 * half, ldb);
        if constexpr (G == GemmMath::Tf32)
          for (int e = 0; e < fb.num_elements; ++e)
            fb.x[e] = wmma::__float_to_tf32(fb.x[e]);
        wmma::mma_sync(acc[half], fa, fb, acc[half]);
      }
    }
    __syncthreads();
  }
  for (int half = 0; half < 2; ++half)
    wmma::store_matrix_sync(Cs + warp_row * ldc + warp_col + 16 * half, acc[half], ldc,
                            wmma::mem_row_major);
  __syncthreads();
  for (int i = threadIdx.x; i < kGemmTileM * kGemmTileN; i += blockDim.x) {
    int r = row0 + i / kGemmTileN, col = col0 + i % kGemmTileN;
    if (r < M && col < N)
      c[(size_t)r * N + col] = activate<A>(
          Cs[(i / kGemmTileN) * ldc + i % kGemmTileN] + (bias ? bias[col] : 0.0f), alpha);
  }
#endif
}

/// The arithmetic seq.linear runs in: as the library was built, on a GPU
/// that has it (TF32 and BF16 tensor cores: compute capability 8.0+), else
/// float32.
inline GemmMath gemm_math() {
#if defined(SEQC_GEMM_TF32) || defined(SEQC_GEMM_BF16)
  // Each GPU's compute capability, asked once per process (0: not yet).
  constexpr int kDevices = 64;
  static std::atomic<int> majors[kDevices] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0)
    return GemmMath::Fp32;
  int major = device < kDevices ? majors[device].load(std::memory_order_relaxed) : 0;
  if (major == 0) {
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
      return GemmMath::Fp32;
    if (device < kDevices)
      majors[device].store(major, std::memory_order_relaxed);
  }
  if (major < 8)
    return GemmMath::Fp32;
#endif
#if defined(SEQC_GEMM_TF32)
  return GemmMath::Tf32;
#elif defined(SEQC_GEMM_BF16)
  return GemmMath::Bf16;
#else
  return GemmMath::Fp32;
#endif
}

/// Rows of one GEMM launch: row tiles are grid.y, which stops at 65535.
constexpr int64_t kGemmMaxRowsPerLaunch = 65535LL * kGemmTileM;

/// c = act(a w + bias) for a (M, K), w (K, N) in arithmetic `math`; M of
/// any size is split into launches of at most `rows_per_launch` rows.
template <Act A>
cudaError_t linear_with(GemmMath math, cudaStream_t stream, const float *a, const float *w,
                        const float *bias, float *c, int64_t M, int N, int K, float alpha,
                        int64_t rows_per_launch = kGemmMaxRowsPerLaunch) {
  rows_per_launch = std::min(rows_per_launch, kGemmMaxRowsPerLaunch);
  for (int64_t row0 = 0; row0 < M; row0 += rows_per_launch) {
    const int64_t rows = std::min(rows_per_launch, M - row0);
    dim3 grid((N + kGemmTileN - 1) / kGemmTileN,
              static_cast<unsigned>((rows + kGemmTileM - 1) / kGemmTileM));
    auto kernel = math == GemmMath::Tf32   ? &linear_tensor_core_kernel<A, GemmMath::Tf32>
                  : math == GemmMath::Bf16 ? &linear_tensor_core_kernel<A, GemmMath::Bf16>
                                           : &linear_kernel<A>;
    SEQC_LAUNCH(kernel, grid, 256, 0, stream)(a + row0 * K, w, bias, c + row0 * N,
                                              static_cast<int>(rows), N, K, alpha);
    if (cudaError_t err = cudaGetLastError())
      return err;
  }
  return softmax_rows<A>(stream, c, M, N);
}

/// seq.linear as the library was built (--cuda-math).
template <Act A>
cudaError_t linear(cudaStream_t stream, const float *a, const float *w, const float *bias,
                   float *c, int64_t M, int N, int K, float alpha,
                   int64_t rows_per_launch = kGemmMaxRowsPerLaunch) {
  return linear_with<A>(gemm_math(), stream, a, w, bias, c, M, N, K, alpha, rows_per_launch);
}

// ---------------------------------------------------------------------------
// Recurrences (seq.lstm_recurrence, seq.gru_recurrence,
// seq.simple_rnn_recurrence): one persistent cooperative kernel runs the
// whole time loop. Block b owns units [b*slice, (b+1)*slice) for every gate,
// so the pointwise cell is fused with the recurrent GEMM. Its slice of the
// recurrent kernel stays in registers (the kernel specialised for the
// model's unit count) or in shared memory across all timesteps when it fits
// (else it is read from global memory / L2 each step). Each timestep ends in
// one grid-wide barrier (two for GRU with reset_after=false, whose candidate
// needs r * h of every unit). h is double-buffered in global memory.
// ---------------------------------------------------------------------------
enum class Cell : int { Lstm, GruResetAfter, GruResetBefore, SimpleRnn };

template <Cell C> __host__ __device__ constexpr int gates_of() {
  return C == Cell::Lstm ? 4 : C == Cell::SimpleRnn ? 1 : 3;
}

constexpr int kRecThreads = 256;
constexpr int kRecBatchChunk = 16; // batch rows per shared-memory pass
constexpr int kRecKChunk = 128;    // h elements per row staged at a time

struct RecurrenceArgs {
  const float *xproj; // (batch, steps, gates*units): input GEMM incl. its bias
  const float *u;     // (units, gates*units)
  const float *rbias; // (gates*units) recurrent bias (GRU reset_after) or null
  float *out;         // (batch, steps, units) or (batch, units)
  float *h;           // 2 x (batch, units), ping-pong state
  float *c;           // (batch, units) LSTM cell state
  float *z;           // (batch, units) GRU reset_before: update gate
  float *rh;          // (batch, units) GRU reset_before: r * h of every unit
  const float *mask;   // (batch, steps) Keras timestep mask of 1 and 0, or null
  const float *h0;     // (states, batch, units) initial state (LSTM: h, c), or null for zeros
  float *state_out;    // (states, batch, units) final state, or null
  int batch, steps, units, slice;
  int cluster; // the grid is one thread-block cluster (set from the plan)
  int go_backwards, return_sequences, zero_output_for_mask;
  float alpha;           // of the activation (elu, celu, leaky_relu)
  float recurrent_alpha; // of the recurrent activation
};

/// Whether batch row b takes input step t; a masked step keeps the state.
__device__ __forceinline__ bool step_kept(const RecurrenceArgs &p, int b, int t) {
  return !p.mask || p.mask[(size_t)b * p.steps + t] != 0.0f;
}

/// Whether batch row b took any processing step before step s.
__device__ inline bool row_seen_before(const RecurrenceArgs &p, int b, int s) {
  for (int e = 0; e < s; ++e)
    if (step_kept(p, b, p.go_backwards ? p.steps - 1 - e : e))
      return true;
  return false;
}

/// Stores unit j of batch row b's new state at processing step s (input
/// step t): into the next h buffer (at = b * units + j) and into the output
/// (every step, or the last one). A masked step keeps the previous state and
/// emits the previous output: the state, but zero before the row's first
/// unmasked step (which matters when the state starts nonzero), or zero
/// with zero_output_for_mask.
__device__ __forceinline__ void store_state(const RecurrenceArgs &p, const float *hprev,
                                            float *hnext, int b, int t, int s, int j, size_t at,
                                            bool last, float hn) {
  const bool kept = step_kept(p, b, t);
  if (!kept)
    hn = __ldcg(hprev + at);
  hnext[at] = hn;
  const bool emits =
      kept || (!p.zero_output_for_mask && (!p.h0 || row_seen_before(p, b, s)));
  const float out = emits ? hn : 0.0f;
  if (p.return_sequences)
    p.out[((size_t)b * p.steps + s) * p.units + j] = out;
  else if (last)
    p.out[at] = out;
}

/// Stride between shared-memory weight columns; odd so that both "one
/// column per thread" and "one k per lane" access patterns are conflict-free.
__host__ __device__ inline int weight_column_stride(int units) { return units | 1; }

inline size_t recurrence_shared_bytes(int gates, int units, int slice, bool shared_weights) {
  size_t floats = (size_t)kRecBatchChunk * kRecKChunk + (size_t)kRecBatchChunk * gates * slice;
  if (shared_weights)
    floats += (size_t)gates * slice * weight_column_stride(units);
  return floats * sizeof(float);
}

/// acc[bb][col] = sum_{k < K} src[(b0 + bb) * stride + k] * W[k][col] for
/// the gate blocks [g_begin, g_end) of a slice of ns units, col =
/// (g - g_begin) * ns + jj. W's column g*ns + jj is in shared memory at ws +
/// (g*ns + jj) * ldw when kSharedW, else in global memory at wg[k * ldg +
/// g * gate_stride + jj]. When there are fewer outputs than threads, `lanes`
/// threads share one output and reduce with warp shuffles.
template <bool kSharedW>
__device__ void slice_product(const float *src, size_t stride, int K, const float *ws, int ldw,
                              const float *wg, size_t ldg, int gate_stride, float *hs,
                              float *acc, int ns, int b0, int nb, int g_begin, int g_end) {
  const int ncols = (g_end - g_begin) * ns;
  const int nout = nb * ncols;
  int lanes = 1;
  while (lanes < 32 && nout * lanes * 2 <= (int)blockDim.x)
    lanes *= 2;
  const int groups = blockDim.x / lanes;
  const int lane = threadIdx.x % lanes, group = threadIdx.x / lanes;
  for (int o = threadIdx.x; o < nout; o += blockDim.x)
    acc[o] = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kRecKChunk) {
    const int kc = min(kRecKChunk, K - k0);
    __syncthreads(); // the previous chunk of hs is consumed
    for (int i = threadIdx.x; i < nb * kc; i += blockDim.x) {
      int bb = i / kc, kk = i % kc;
      hs[bb * kRecKChunk + kk] = __ldcg(src + (size_t)(b0 + bb) * stride + k0 + kk);
    }
    __syncthreads();
    // Uniform trip count per warp: every lane reaches the shuffles.
    for (int base = 0; base < nout; base += groups) {
      const int o = base + group;
      float s = 0.0f;
      if (o < nout) {
        const int bb = o / ncols, col = o % ncols;
        const int g = g_begin + col / ns, jj = col % ns;
        const float *hrow = hs + bb * kRecKChunk;
        if (kSharedW) {
          const float *wcol = ws + (size_t)(g * ns + jj) * ldw + k0;
          for (int kk = lane; kk < kc; kk += lanes)
            s = fmaf(hrow[kk], wcol[kk], s);
        } else {
          const float *wcol = wg + (size_t)k0 * ldg + (size_t)g * gate_stride + jj;
          for (int kk = lane; kk < kc; kk += lanes)
            s = fmaf(hrow[kk], __ldg(wcol + kk * ldg), s);
        }
      }
      for (int off = lanes / 2; off > 0; off /= 2)
        s += __shfl_down_sync(0xffffffffu, s, off, lanes);
      if (o < nout && lane == 0)
        acc[o] += s;
    }
  }
  __syncthreads();
}

/// slice_product of a recurrence: acc[bb][col] = sum_k src[b0 + bb][k] *
/// U[k][g*units + j0 + jj].
template <bool kSharedW>
__device__ void slice_matvec(const RecurrenceArgs &p, const float *src, const float *ws,
                             float *hs, float *acc, int j0, int ns, int b0, int nb,
                             int g_begin, int g_end, int gates) {
  const int u = p.units;
  slice_product<kSharedW>(src, u, u, ws, weight_column_stride(u), p.u + j0, (size_t)gates * u,
                          u, hs, acc, ns, b0, nb, g_begin, g_end);
}

/// Copies this block's slice of a (K, gates*units) kernel (units [j0, j0 +
/// ns) of every gate) into shared memory: column g*ns + jj at ws + (g*ns +
/// jj) * weight_column_stride(K). Coalesced along jj; the shared stores are
/// strided by the odd column stride.
__device__ inline void load_weight_slice(const float *w, int K, int gates, int units, int j0,
                                         int ns, float *ws) {
  const int ldw = weight_column_stride(K);
  for (int i = threadIdx.x; i < K * gates * ns; i += blockDim.x) {
    int jj = i % ns, g = (i / ns) % gates, k = i / (ns * gates);
    ws[(size_t)(g * ns + jj) * ldw + k] =
        w[(size_t)k * gates * units + (size_t)g * units + j0 + jj];
  }
}

// Where a recurrence keeps its recurrent kernel U across the steps, and how
// a block multiplies rows of h by its slice of it. Each is a type the kernel
// is instantiated with: constructed once per block (loading what it keeps),
// then product() per batch pass: acc[bb * ncols + (g - g_begin) * ns + jj] =
// sum_k src[(b0 + bb) * units + k] * U[k][g * units + j0 + jj] for the gates
// [g_begin, g_end), ncols = (g_end - g_begin) * ns; it starts and ends with
// a block barrier.
enum class WeightHome : int { Global, Shared, Registers };

/// U's slice in shared memory (kShared) or read from global memory (L2)
/// each step, for any number of units; h is staged kRecKChunk values of
/// kRecBatchChunk rows at a time.
template <bool kShared> struct StagedWeights {
  static constexpr int kRows = kRecBatchChunk; // batch rows per pass
  const float *ws;
  float *hs, *acc;
  __device__ StagedWeights(const RecurrenceArgs &p, float *smem, int gates, int j0, int ns)
      : ws(smem) {
    hs = smem + (kShared ? (size_t)gates * p.slice * weight_column_stride(p.units) : 0);
    acc = hs + kRecBatchChunk * kRecKChunk;
    if (kShared)
      load_weight_slice(p.u, p.units, gates, p.units, j0, ns, smem);
  }
  __device__ void product(const RecurrenceArgs &p, const float *src, int j0, int ns, int b0,
                          int nb, int g_begin, int g_end, int gates) {
    slice_matvec<kShared>(p, src, ws, hs, acc, j0, ns, b0, nb, g_begin, g_end, gates);
  }
};

/// How RegisterWeights lays out a recurrent kernel of kGates gates of kUnits
/// units over a block: kParts adjacent lanes (a power of two) share one
/// column of U, each holding kPerThread consecutive k of it (a multiple of
/// 4, so that h is read 16 bytes at a time), and a block owns kSlice units
/// of every gate. kParts is the fewest that keeps kPerThread <=
/// kMaxPerThread; kFits is false when even 32 do not.
template <int kGates, int kUnits> struct RegisterLayout {
  static constexpr int kMaxPerThread = 128;
  static constexpr int per_thread(int parts) { return ((kUnits + parts - 1) / parts + 3) / 4 * 4; }
  static constexpr int parts() {
    for (int parts = 1; parts <= 32; parts *= 2)
      if (per_thread(parts) <= kMaxPerThread)
        return parts;
    return 0;
  }
  static constexpr int kParts = parts();
  static constexpr bool kFits = kParts > 0 && kGates * kParts <= kRecThreads;
  static constexpr int kPerThread = kFits ? per_thread(kParts) : 4;
  static constexpr int kSlice =
      kFits ? (kRecThreads / (kGates * kParts) < kUnits ? kRecThreads / (kGates * kParts) : kUnits)
            : 1;
  static constexpr int kBlocks = (kUnits + kSlice - 1) / kSlice;
  /// A staged row of h: the lanes' parts, each 4 floats apart beyond its
  /// kPerThread values so that the lanes of one column read different banks;
  /// zeros past kUnits.
  static constexpr int kSegment = kPerThread + (kParts > 1 ? 4 : 0);
  static constexpr int kRowStride = kParts * kSegment;
  /// Batch rows per pass (at most 32 KB of staged rows).
  static constexpr int kRows = 8192 / kRowStride < 1 ? 1
                               : 8192 / kRowStride > kRecBatchChunk ? kRecBatchChunk
                                                                    : 8192 / kRowStride;
};

/// U's slice in registers for all the steps: the kernel specialised for a
/// model's unit count (a compile-time constant, so the product's loops
/// unroll and the weights need no loads). Per 4 FMAs one 16-byte
/// shared-memory load of h (broadcast to the lanes of other columns),
/// instead of two loads per FMA.
template <int kGates, int kUnits> struct RegisterWeights {
  using Layout = RegisterLayout<kGates, kUnits>;
  static_assert(Layout::kFits, "no register layout for this many units");
  static constexpr int kRows = Layout::kRows, kParts = Layout::kParts;
  static constexpr int kPerThread = Layout::kPerThread, kSlice = Layout::kSlice;
  static constexpr int kSegment = Layout::kSegment, kRowStride = Layout::kRowStride;
  /// Staged rows of h, then h U of this block's columns.
  static constexpr size_t kSharedBytes =
      ((size_t)kRows * kRowStride + (size_t)kRows * kGates * kSlice) * sizeof(float);
  float w[kPerThread];
  float *hs, *acc;
  int gate, jj, part; // this thread's column (gate, unit j0 + jj) and its part of k
  bool owns;          // the column is one of this block's
  __device__ RegisterWeights(const RecurrenceArgs &p, float *smem, int, int j0, int ns)
      : hs(smem), acc(smem + kRows * kRowStride) {
    const int column = threadIdx.x / kParts;
    part = threadIdx.x % kParts;
    gate = column / kSlice;
    jj = column % kSlice;
    owns = gate < kGates && jj < ns;
    SEQC_UNROLL
    for (int i = 0; i < kPerThread; ++i) {
      const int k = part * kPerThread + i;
      w[i] = owns && k < kUnits ? p.u[(size_t)k * kGates * kUnits + gate * kUnits + j0 + jj]
                                : 0.0f;
    }
  }
  __device__ void product(const RecurrenceArgs &, const float *src, int, int ns, int b0,
                          int nb, int g_begin, int g_end, int) {
    __syncthreads(); // the previous pass's hs and acc are consumed
    for (int i = threadIdx.x; i < nb * kRowStride; i += blockDim.x) {
      const int bb = i / kRowStride, r = i % kRowStride, e = r % kSegment;
      const int k = r / kSegment * kPerThread + e;
      hs[i] = e < kPerThread && k < kUnits ? __ldcg(src + (size_t)(b0 + bb) * kUnits + k) : 0.0f;
    }
    __syncthreads();
    const int ncols = (g_end - g_begin) * ns;
    const bool wanted = owns && gate >= g_begin && gate < g_end;
    for (int bb = 0; bb < nb; ++bb) {
      const float *h = hs + bb * kRowStride + part * kSegment;
      float s = 0.0f;
      SEQC_UNROLL
      for (int i = 0; i < kPerThread; ++i)
        s = fmaf(h[i], w[i], s);
      // Every lane takes part (a warp's lanes all reach the shuffles).
      SEQC_UNROLL
      for (int off = kParts / 2; off > 0; off /= 2)
        s += __shfl_xor_sync(0xffffffffu, s, off);
      if (wanted && part == 0)
        acc[bb * ncols + (gate - g_begin) * ns + jj] = s;
    }
    __syncthreads();
  }
};

/// The new h of one unit from its gates' pre-activations: x[g], the input
/// projection (with the input bias), and hg[g], the recurrent product (with
/// GRU reset_after's recurrent bias). LSTM reads its cell state at *c and
/// keeps the new one there unless the step is masked (!kept); GRU blends
/// with the previous h at *hprev. Every cell but GRU reset_before (two
/// phases, in the kernel).
template <Cell C, Act A, Act R>
__device__ __forceinline__ float cell_output(const float *x, const float *hg, float *c,
                                             const float *hprev, bool kept, float alpha,
                                             float recurrent_alpha) {
  if constexpr (C == Cell::Lstm) {
    float ig = activate<R>(x[0] + hg[0], recurrent_alpha);
    float fg = activate<R>(x[1] + hg[1], recurrent_alpha);
    float gg = activate<A>(x[2] + hg[2], alpha);
    float og = activate<R>(x[3] + hg[3], recurrent_alpha);
    float cn = fg * *c + ig * gg;
    if (kept)
      *c = cn;
    return og * activate<A>(cn, alpha);
  } else if constexpr (C == Cell::GruResetAfter) {
    float z = activate<R>(x[0] + hg[0], recurrent_alpha);
    float r = activate<R>(x[1] + hg[1], recurrent_alpha);
    float cand = activate<A>(x[2] + r * hg[2], alpha);
    return z * __ldcg(hprev) + (1.0f - z) * cand;
  } else {
    static_assert(C == Cell::SimpleRnn, "GRU reset_before runs in two phases");
    return activate<A>(x[0] + hg[0], alpha);
  }
}

/// Whether a cell with these activations normalises rows of units (softmax,
/// log_softmax): then one block owns every unit and the cell runs in phases.
template <Cell C, Act A, Act R> __host__ __device__ constexpr bool row_cell() {
  return is_row_act(A) || (C != Cell::SimpleRnn && is_row_act(R));
}

/// Activates nb rows of n values, `stride` apart, in place with the whole
/// block: elementwise, or softmax / log_softmax per row with one warp per
/// row. Ends with a barrier, so the block sees the result.
template <Act X>
__device__ void block_activate(float *base, int nb, int n, int stride, float alpha) {
  if constexpr (is_row_act(X)) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    for (int r = warp; r < nb; r += warps)
      warp_softmax_row<X == Act::LogSoftmax>(base + (size_t)r * stride, n, lane);
  } else {
    for (int i = threadIdx.x; i < nb * n; i += blockDim.x) {
      float *v = base + (size_t)(i / n) * stride + i % n;
      *v = activate<X>(*v, alpha);
    }
  }
  __syncthreads();
}

/// One step of a cell with a row activation for batch rows [b0, b0 + nb),
/// by the one block that owns all units: acc holds h U (gate blocks of u
/// columns, ncols per row) and becomes the gates in place. For GRU with
/// reset_after=False this is the first phase (z and r * h).
template <Cell C, Act A, Act R>
__device__ void row_cell_step(const RecurrenceArgs &p, float *acc, int ncols, const float *hprev,
                              float *hnext, int b0, int nb, int t, int s, bool last) {
  constexpr int G = gates_of<C>();
  const int u = p.units, T = p.steps;
  const int gates_here = C == Cell::GruResetBefore ? 2 : C == Cell::GruResetAfter ? 3 : G;
  // Pre-activations: x W + h U (+ recurrent bias); GRU reset_after keeps
  // the candidate's h U + b apart until r is known.
  for (int i = threadIdx.x; i < nb * u; i += blockDim.x) {
    const int bb = i / u, j = i % u, b = b0 + bb;
    const float *xp = p.xproj + ((size_t)b * T + t) * G * u;
    float *a = acc + (size_t)bb * ncols;
    for (int g = 0; g < gates_here; ++g) {
      float bias = C == Cell::GruResetAfter && p.rbias ? p.rbias[g * u + j] : 0.0f;
      a[g * u + j] += bias + (C == Cell::GruResetAfter && g == 2 ? 0.0f : xp[g * u + j]);
    }
  }
  __syncthreads();
  if constexpr (C == Cell::Lstm) {
    block_activate<R>(acc, nb, u, ncols, p.recurrent_alpha);
    block_activate<R>(acc + u, nb, u, ncols, p.recurrent_alpha);
    block_activate<A>(acc + 2 * u, nb, u, ncols, p.alpha);
    block_activate<R>(acc + 3 * u, nb, u, ncols, p.recurrent_alpha);
    for (int i = threadIdx.x; i < nb * u; i += blockDim.x) {
      const int bb = i / u, j = i % u;
      float *a = acc + (size_t)bb * ncols;
      const size_t at = (size_t)(b0 + bb) * u + j;
      float cn = a[u + j] * p.c[at] + a[j] * a[2 * u + j];
      if (step_kept(p, b0 + bb, t))
        p.c[at] = cn;
      a[2 * u + j] = cn;
    }
    __syncthreads();
    block_activate<A>(acc + 2 * u, nb, u, ncols, p.alpha);
  } else if constexpr (C == Cell::GruResetAfter) {
    block_activate<R>(acc, nb, u, ncols, p.recurrent_alpha);
    block_activate<R>(acc + u, nb, u, ncols, p.recurrent_alpha);
    for (int i = threadIdx.x; i < nb * u; i += blockDim.x) {
      const int bb = i / u, j = i % u, b = b0 + bb;
      const float *xp = p.xproj + ((size_t)b * T + t) * G * u;
      float *a = acc + (size_t)bb * ncols;
      a[2 * u + j] = xp[2 * u + j] + a[u + j] * a[2 * u + j];
    }
    __syncthreads();
    block_activate<A>(acc + 2 * u, nb, u, ncols, p.alpha);
  } else if constexpr (C == Cell::GruResetBefore) {
    block_activate<R>(acc, nb, u, ncols, p.recurrent_alpha);
    block_activate<R>(acc + u, nb, u, ncols, p.recurrent_alpha);
    for (int i = threadIdx.x; i < nb * u; i += blockDim.x) {
      const int bb = i / u, j = i % u;
      const float *a = acc + (size_t)bb * ncols;
      const size_t at = (size_t)(b0 + bb) * u + j;
      p.z[at] = a[j];
      p.rh[at] = a[u + j] * __ldcg(hprev + at);
    }
    __syncthreads();
    return; // h is finished in the second phase
  } else {
    block_activate<A>(acc, nb, u, ncols, p.alpha);
  }
  for (int i = threadIdx.x; i < nb * u; i += blockDim.x) {
    const int bb = i / u, j = i % u, b = b0 + bb;
    const float *a = acc + (size_t)bb * ncols;
    const size_t at = (size_t)b * u + j;
    float hn;
    if constexpr (C == Cell::Lstm)
      hn = a[3 * u + j] * a[2 * u + j];
    else if constexpr (C == Cell::GruResetAfter)
      hn = a[j] * __ldcg(hprev + at) + (1.0f - a[j]) * a[2 * u + j];
    else
      hn = a[j];
    store_state(p, hprev, hnext, b, t, s, j, at, last, hn);
  }
  __syncthreads();
}

/// The end of a step: a grid-wide barrier; a block barrier when one block
/// runs the whole recurrence (it also orders the block's global memory); the
/// cluster's hardware barrier when the grid is one cluster (sm_90 on, which
/// plan_recurrence checks; release/acquire at cluster scope orders the
/// blocks' global memory too).
__device__ __forceinline__ void step_barrier(cg::grid_group &grid, bool cluster) {
  if (gridDim.x == 1) {
    __syncthreads();
    return;
  }
#if defined(SEQC_CPU_SIMULATION) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900)
  if (cluster) {
    cg::this_cluster().sync();
    return;
  }
#endif
  grid.sync();
}

/// The persistent recurrence with its recurrent kernel kept as W says
/// (StagedWeights<true/false>, RegisterWeights).
template <Cell C, Act A, Act R, class W>
__global__ void __launch_bounds__(kRecThreads) recurrence_kernel(RecurrenceArgs p) {
  constexpr int G = gates_of<C>();
  cg::grid_group grid = cg::this_grid();
  SEQC_DYNAMIC_SHARED(float, smem);
  const int u = p.units, B = p.batch, T = p.steps;
  const int j0 = blockIdx.x * p.slice;
  const int ns = max(0, min(p.slice, u - j0));
  W weights(p, smem, G, j0, ns);
  float *acc = weights.acc;
  for (int i = threadIdx.x; i < B * ns; i += blockDim.x) {
    const size_t at = (size_t)(i / ns) * u + j0 + i % ns;
    p.h[at] = p.h0 ? p.h0[at] : 0.0f;
    if (C == Cell::Lstm)
      p.c[at] = p.h0 ? p.h0[(size_t)B * u + at] : 0.0f;
  }
  step_barrier(grid, p.cluster);

  for (int s = 0; s < T; ++s) {
    const int t = p.go_backwards ? T - 1 - s : s;
    const float *hprev = p.h + (size_t)(s & 1) * B * u;
    float *hnext = p.h + (size_t)((s + 1) & 1) * B * u;
    const bool last = s == T - 1;
    for (int b0 = 0; b0 < B; b0 += W::kRows) {
      const int nb = min(W::kRows, B - b0);
      const int g_end = C == Cell::GruResetBefore ? 2 : G;
      // This thread's first (row, unit) of the cell below: its input
      // projections do not depend on h, so their loads are issued now and
      // overlap the recurrent product instead of following it.
      float xfirst[G] = {};
      if constexpr (!row_cell<C, A, R>()) {
        if ((int)threadIdx.x < nb * ns) {
          const int b = b0 + threadIdx.x / ns, j = j0 + threadIdx.x % ns;
          const float *xp = p.xproj + ((size_t)b * T + t) * G * u;
          for (int g = 0; g < G; ++g)
            xfirst[g] = __ldg(xp + g * u + j);
        }
      }
      weights.product(p, hprev, j0, ns, b0, nb, 0, g_end, G);
      const int ncols = g_end * ns;
      if constexpr (row_cell<C, A, R>()) {
        row_cell_step<C, A, R>(p, acc, ncols, hprev, hnext, b0, nb, t, s, last);
        continue;
      }
      for (int i = threadIdx.x; i < nb * ns; i += blockDim.x) {
        const int bb = i / ns, jj = i % ns, b = b0 + bb, j = j0 + jj;
        const float *xp = p.xproj + ((size_t)b * T + t) * G * u;
        float x[G];
        for (int g = 0; g < G; ++g)
          x[g] = i == (int)threadIdx.x ? xfirst[g] : xp[g * u + j];
        const float *hu = acc + bb * ncols;
        const size_t at = (size_t)b * u + j;
        if constexpr (C == Cell::GruResetBefore) {
          float z = activate<R>(x[0] + hu[jj], p.recurrent_alpha);
          float r = activate<R>(x[1] + hu[ns + jj], p.recurrent_alpha);
          p.z[at] = z;
          p.rh[at] = r * __ldcg(hprev + at);
          continue; // h is finished in the second phase below
        } else {
          float hg[G];
          for (int g = 0; g < G; ++g)
            hg[g] = hu[g * ns + jj] + (p.rbias ? p.rbias[g * u + j] : 0.0f);
          float *c = C == Cell::Lstm ? p.c + at : nullptr;
          float hn = cell_output<C, A, R>(x, hg, c, hprev + at, step_kept(p, b, t), p.alpha,
                                          p.recurrent_alpha);
          store_state(p, hprev, hnext, b, t, s, j, at, last, hn);
        }
      }
      __syncthreads(); // acc is reused by the next batch chunk
    }
    if constexpr (C == Cell::GruResetBefore) {
      step_barrier(grid, p.cluster); // every unit's r * h is in p.rh
      for (int b0 = 0; b0 < B; b0 += W::kRows) {
        const int nb = min(W::kRows, B - b0);
        weights.product(p, p.rh, j0, ns, b0, nb, 2, 3, G);
        if constexpr (is_row_act(A)) {
          // One block owns every unit (row_cell): the candidate's row first.
          for (int i = threadIdx.x; i < nb * ns; i += blockDim.x) {
            const int bb = i / ns, jj = i % ns, b = b0 + bb, j = j0 + jj;
            acc[bb * ns + jj] += p.xproj[((size_t)b * T + t) * G * u + 2 * u + j];
          }
          __syncthreads();
          block_activate<A>(acc, nb, ns, ns, p.alpha);
        }
        for (int i = threadIdx.x; i < nb * ns; i += blockDim.x) {
          const int bb = i / ns, jj = i % ns, b = b0 + bb, j = j0 + jj;
          const float *xp = p.xproj + ((size_t)b * T + t) * G * u;
          const size_t at = (size_t)b * u + j;
          float cand = is_row_act(A) ? acc[bb * ns + jj]
                                     : activate<A>(xp[2 * u + j] + acc[bb * ns + jj], p.alpha);
          float z = p.z[at];
          float hn = z * __ldcg(hprev + at) + (1.0f - z) * cand;
          store_state(p, hprev, hnext, b, t, s, j, at, last, hn);
        }
        __syncthreads();
      }
    }
    step_barrier(grid, p.cluster);
  }
  // The final state: this block's units of the last h buffer (and c).
  if (p.state_out)
    for (int i = threadIdx.x; i < B * ns; i += blockDim.x) {
      const size_t at = (size_t)(i / ns) * u + j0 + i % ns;
      p.state_out[at] = p.h[(size_t)(T & 1) * B * u + at];
      if (C == Cell::Lstm)
        p.state_out[(size_t)B * u + at] = p.c[at];
    }
}

/// Whether a tensor descriptor (nd, dims, strides) is one dense row-major
/// rows x cols matrix, as {1, rows, cols} with strides {rows*cols, cols, 1}.
/// Dimensions alone would accept a transposed square matrix.
inline bool is_row_major_matrix(int nd, const int *dims, const int *strides, int rows,
                                int cols) {
  return nd == 3 && dims[0] == 1 && dims[1] == rows && dims[2] == cols && strides[2] == 1 &&
         strides[1] == cols && (int64_t)strides[0] >= (int64_t)rows * cols;
}

#ifndef SEQC_RECURRENCE_MIN_SLICE
#define SEQC_RECURRENCE_MIN_SLICE 1
#endif
#ifndef SEQC_RECURRENCE_CLUSTERS // 0: the GPU benchmark's grid-barrier variant
#define SEQC_RECURRENCE_CLUSTERS 1
#endif

/// How one recurrence is launched on this device; chosen once, at create.
using RecurrenceKernel = void (*)(RecurrenceArgs);

struct RecurrencePlan {
  RecurrenceKernel kernel = nullptr;
  int blocks = 0;
  int slice = 0;
  size_t shared_bytes = 0;
  WeightHome weights = WeightHome::Global;
  bool cluster = false; // the grid is one thread-block cluster, else a cooperative launch
};

/// The most blocks of a cluster that every GPU with clusters runs.
constexpr int kMaxPortableClusterBlocks = 8;

/// The launch of `blocks` blocks as one thread-block cluster.
struct ClusterLaunch {
  cudaLaunchAttribute attribute;
  cudaLaunchConfig_t config;
  ClusterLaunch(int blocks, size_t shared_bytes, cudaStream_t stream) {
    attribute = cudaLaunchAttribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = blocks;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config = cudaLaunchConfig_t{};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(kRecThreads);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch &) = delete; // config points at attribute
};

/// What a persistent recurrence's plan needs of the current GPU.
struct RecurrenceDevice {
  int device = 0, sms = 0, optin = 0; // optin: shared memory per block, opted in
};
inline cudaError_t query_recurrence_device(RecurrenceDevice *d) {
  int coop = 0;
  cudaError_t err;
  if ((err = cudaGetDevice(&d->device)) != cudaSuccess ||
      (err = cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, d->device)) !=
          cudaSuccess ||
      (err = cudaDeviceGetAttribute(&d->optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                    d->device)) != cudaSuccess ||
      (err = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, d->device)) !=
          cudaSuccess)
    return err;
  return coop ? cudaSuccess : cudaErrorNotSupported;
}

/// Lets `entry` launch with `bytes` of dynamic shared memory. The limit is a
/// property of the kernel, and one kernel serves every layer with the same
/// cell and activations, so it is only ever raised: a later, smaller layer
/// must not lower what an earlier layer's launches need. The lock makes the
/// read-and-raise atomic between threads creating models.
inline cudaError_t raise_dynamic_shared_limit(const void *entry, size_t bytes) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  cudaFuncAttributes attributes;
  cudaError_t err = cudaFuncGetAttributes(&attributes, entry);
  if (err != cudaSuccess || (size_t)attributes.maxDynamicSharedSizeBytes >= bytes)
    return err;
  return cudaFuncSetAttribute(entry, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(bytes));
}

/// Whether `blocks` blocks of `kernel` (a recurrence's or a stack's) with
/// `bytes` of shared memory each are resident at once on this GPU (raising
/// the kernel's limit), as a cooperative launch needs; the error says why not.
template <class Args>
cudaError_t fits_co_resident(void (*kernel)(Args), int blocks, size_t bytes,
                             const RecurrenceDevice &d) {
  if (bytes > (size_t)d.optin)
    return cudaErrorInvalidValue;
  const void *entry = reinterpret_cast<const void *>(kernel);
  cudaError_t err = raise_dynamic_shared_limit(entry, bytes);
  if (err != cudaSuccess)
    return err;
  int per_sm = 0;
  if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, entry, kRecThreads, bytes)) !=
      cudaSuccess)
    return err;
  return per_sm * d.sms < blocks ? cudaErrorCooperativeLaunchTooLarge : cudaSuccess;
}

/// Whether this GPU runs thread-block clusters (sm_90 on) and the loaded
/// binary of `kernel` was built for one that does.
inline bool clusters_available(int device, RecurrenceKernel kernel) {
  int major = 0;
  cudaFuncAttributes binary{};
  return SEQC_RECURRENCE_CLUSTERS &&
         cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) ==
             cudaSuccess &&
         major >= 9 &&
         cudaFuncGetAttributes(&binary, reinterpret_cast<const void *>(kernel)) == cudaSuccess &&
         binary.binaryVersion >= 90;
}

/// Whether `blocks` blocks of `kernel` with `bytes` of shared memory each
/// run as one thread-block cluster here (raising the kernel's limit).
inline bool fits_one_cluster(RecurrenceKernel kernel, int blocks, size_t bytes,
                             const RecurrenceDevice &d) {
  const void *entry = reinterpret_cast<const void *>(kernel);
  if (bytes > (size_t)d.optin || raise_dynamic_shared_limit(entry, bytes) != cudaSuccess)
    return false;
  ClusterLaunch launch(blocks, bytes, nullptr);
  int clusters = 0;
  return cudaOccupancyMaxActiveClusters(&clusters, entry, &launch.config) == cudaSuccess &&
         clusters >= 1;
}

/// Picks the slice width and whether the recurrent kernel fits in shared
/// memory: the grid must be co-resident for the grid-wide barrier.
template <Cell C, Act A, Act R>
cudaError_t plan_recurrence(int units, RecurrencePlan *plan) {
  constexpr int G = gates_of<C>();
  RecurrenceDevice d;
  cudaError_t err = query_recurrence_device(&d);
  if (err != cudaSuccess)
    return err;
  const int device = d.device, sms = d.sms;
  auto try_variant = [&](RecurrenceKernel kernel, bool shared_weights, int slice) -> cudaError_t {
    const size_t bytes = recurrence_shared_bytes(G, units, slice, shared_weights);
    const int blocks = (units + slice - 1) / slice;
    if (cudaError_t e = fits_co_resident(kernel, blocks, bytes, d))
      return e;
    *plan = RecurrencePlan{kernel, blocks, slice, bytes,
                           shared_weights ? WeightHome::Shared : WeightHome::Global};
    return cudaSuccess;
  };
  // One block when its shared memory holds the whole recurrent kernel: each
  // step then ends in a block barrier instead of a grid-wide one, which costs
  // more than the step's arithmetic at these sizes. A row activation
  // (softmax) needs all units of a row in one block anyway.
  RecurrenceKernel shared_kernel = &recurrence_kernel<C, A, R, StagedWeights<true>>;
  if (try_variant(shared_kernel, true, units) == cudaSuccess)
    return cudaSuccess;
  cudaGetLastError(); // the failed attempt must not leak into later checks
  // On a GPU with thread-block clusters (sm_90 on), the fewest blocks of one
  // cluster (2, 4 or 8) whose slices fit in shared memory: a step then ends
  // at the cluster's hardware barrier, not a grid-wide one through global
  // memory. The loaded binary must have been built for sm_90 or newer too.
  if (!row_cell<C, A, R>() && SEQC_RECURRENCE_MIN_SLICE == 1 &&
      clusters_available(device, shared_kernel)) {
    for (int blocks = 2; blocks <= kMaxPortableClusterBlocks; blocks *= 2) {
      const int slice = (units + blocks - 1) / blocks;
      const size_t bytes = recurrence_shared_bytes(G, units, slice, true);
      if (fits_one_cluster(shared_kernel, blocks, bytes, d)) {
        *plan = RecurrencePlan{shared_kernel, blocks, slice, bytes, WeightHome::Shared, true};
        return cudaSuccess;
      }
    }
  }
  cudaGetLastError();
  // Else the units spread over the SMs, at least SEQC_RECURRENCE_MIN_SLICE
  // per block (a tuning knob for the GPU benchmark; 1 by default).
  const int slice = row_cell<C, A, R>()
                        ? units
                        : std::max((units + sms - 1) / sms, std::min(units, SEQC_RECURRENCE_MIN_SLICE));
  if (!row_cell<C, A, R>()) {
    if (try_variant(shared_kernel, true, slice) == cudaSuccess)
      return cudaSuccess;
    cudaGetLastError();
  }
  // Large units: weights stay in global memory (L2), more blocks per SM.
  RecurrenceKernel global_kernel = &recurrence_kernel<C, A, R, StagedWeights<false>>;
  const void *global_entry = reinterpret_cast<const void *>(global_kernel);
  size_t bytes = recurrence_shared_bytes(G, units, slice, false);
  if ((err = raise_dynamic_shared_limit(global_entry, bytes)) != cudaSuccess)
    return err;
  int per_sm = 0;
  if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, global_entry, kRecThreads,
                                                           bytes)) != cudaSuccess)
    return err;
  if (per_sm < 1)
    return cudaErrorCooperativeLaunchTooLarge;
  int capacity = per_sm * sms;
  return try_variant(global_kernel, false,
                     row_cell<C, A, R>() ? units : (units + capacity - 1) / capacity);
}

#ifndef SEQC_RECURRENCE_REGISTERS // 0: the GPU benchmark's variant without them
#define SEQC_RECURRENCE_REGISTERS 1
#endif

/// The plan of a model's recurrent layer of kUnits units: the kernel
/// specialised for kUnits with the recurrent kernel in registers
/// (RegisterWeights) when the GPU holds its blocks at once (in one block,
/// one cluster, or else co-resident for grid barriers), else
/// plan_recurrence's.
template <Cell C, Act A, Act R, int kUnits>
cudaError_t plan_model_recurrence(RecurrencePlan *plan) {
  constexpr int G = gates_of<C>();
  using Layout = RegisterLayout<G, kUnits>;
  if constexpr (SEQC_RECURRENCE_REGISTERS && Layout::kFits && !row_cell<C, A, R>()) {
    using W = RegisterWeights<G, kUnits>;
    RecurrenceKernel kernel = &recurrence_kernel<C, A, R, W>;
    RecurrenceDevice d;
    cudaError_t err = query_recurrence_device(&d);
    if (err != cudaSuccess)
      return err;
    RecurrencePlan registers{kernel, Layout::kBlocks, Layout::kSlice, W::kSharedBytes,
                             WeightHome::Registers, false};
    if (Layout::kBlocks > 1 && Layout::kBlocks <= kMaxPortableClusterBlocks &&
        clusters_available(d.device, kernel) &&
        fits_one_cluster(kernel, Layout::kBlocks, W::kSharedBytes, d)) {
      registers.cluster = true;
      *plan = registers;
      return cudaSuccess;
    }
    if (fits_co_resident(kernel, Layout::kBlocks, W::kSharedBytes, d) == cudaSuccess) {
      *plan = registers;
      return cudaSuccess;
    }
    cudaGetLastError(); // the failed attempt must not leak into later checks
  }
  return plan_recurrence<C, A, R>(kUnits, plan);
}

/// With SEQC_CUDA_PLANS set in the environment, create prints how each
/// recurrence runs on this GPU (one line on stderr), for whoever measures.
inline bool plans_reported() {
  const char *v = std::getenv("SEQC_CUDA_PLANS");
  return v && *v && *v != '0';
}

inline void report_plan(const char *layer, const RecurrencePlan &plan) {
  if (!plans_reported())
    return;
  const char *how = plan.blocks == 1 ? "block"
                    : plan.cluster   ? "blocks of one cluster"
                                     : "blocks with grid barriers";
  std::fprintf(stderr, "seqc: layer '%s': recurrence on %d %s (%d units%s)", layer, plan.blocks,
               how, plan.slice, plan.blocks == 1 ? "" : " each");
  std::fprintf(stderr, ", weights in %s, %zu bytes of shared memory per block\n",
               plan.weights == WeightHome::Registers ? "registers"
               : plan.weights == WeightHome::Shared  ? "shared memory"
                                                     : "global memory",
               plan.shared_bytes);
}

/// A cooperative launch of kRecThreads-thread blocks of a persistent kernel
/// (every block resident at once; the simulation's stand-in without a GPU).
template <typename Args>
cudaError_t launch_cooperative(void (*kernel)(Args), int blocks, size_t shared_bytes,
                               cudaStream_t stream, Args args) {
#ifdef SEQC_CPU_SIMULATION
  (void)stream;
  return seqc_sim_launch_cooperative(kernel, dim3(blocks), dim3(kRecThreads), shared_bytes, args);
#else
  void *params[] = {&args};
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(kernel), dim3(blocks),
                                     dim3(kRecThreads), params, shared_bytes, stream);
#endif
}

inline cudaError_t run_recurrence(cudaStream_t stream, const RecurrencePlan &plan,
                                  RecurrenceArgs args) {
  if (args.batch == 0 || args.steps == 0)
    return cudaSuccess;
  args.slice = plan.slice;
  args.cluster = plan.cluster;
  if (plan.cluster) {
    ClusterLaunch launch(plan.blocks, plan.shared_bytes, stream);
    return cudaLaunchKernelEx(&launch.config, plan.kernel, args);
  }
  return launch_cooperative(plan.kernel, plan.blocks, plan.shared_bytes, stream, args);
}

// ---------------------------------------------------------------------------
// Stacked recurrences: a chain of recurrent layers with the same cell, each
// feeding the next its whole output sequence, in one persistent cooperative
// launch. Every layer owns a group of blocks (its units split into slices as
// above, both kernels in shared memory). Layer l starts step s once its own
// blocks have finished step s - 1 and layer l - 1's have finished step s, so
// the layers run as a wavefront: about steps + layers - 1 steps of latency
// instead of layers * steps, and no grid-wide barrier. A layer after the
// first projects its input inside the step (the previous layer's h_t times
// its input kernel). Progress is counted per layer in global memory.
// ---------------------------------------------------------------------------
constexpr int kMaxStackLayers = 16;

struct StackLayer {
  const float *xproj; // first layer: (batch, steps, gates*units), input bias included
  const float *w;     // later layers: (inputs, gates*units) input kernel
  const float *bias;  // later layers: (gates*units) input bias, or null
  const float *u;     // (units, gates*units)
  const float *rbias; // GRU reset_after: (gates*units) recurrent bias, or null
  float *out;         // (batch, steps, units), or (batch, units) without sequences
  float *h;           // 2 x (batch, units), ping-pong state
  float *c;           // LSTM: (batch, units) cell state
  int units, inputs;  // inputs: the previous layer's units (0 for the first)
  int return_sequences;
};

struct StackArgs {
  StackLayer layer[kMaxStackLayers];
  int first_block[kMaxStackLayers + 1]; // layer l runs blocks [first_block[l], first_block[l+1])
  int slice[kMaxStackLayers];
  unsigned *progress; // kMaxStackLayers counters, zeroed by run_stack
  int layers, batch, steps;
  float alpha, recurrent_alpha;
};

/// One count on a progress counter, after every thread of the block has
/// written its part of the step (all threads call it).
__device__ __forceinline__ void signal_progress(unsigned *counter) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence(); // the block's writes before the count (release)
    atomicAdd(counter, 1u);
  }
}

/// Waits until a progress counter reaches `target` (all threads call it);
/// what the counted blocks wrote before signalling is then visible.
__device__ __forceinline__ void wait_progress(const unsigned *counter, unsigned target) {
  if (threadIdx.x == 0) {
    while (*(const volatile unsigned *)counter < target) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
      __nanosleep(32);
#endif
    }
    __threadfence(); // acquire
  }
  __syncthreads();
}

/// Shared memory of a block of a stacked layer: a recurrence block's (its
/// recurrent kernel's slice, one chunk of staged rows, h U), plus the input
/// kernel's slice and x W.
inline size_t stacked_shared_bytes(int gates, int units, int inputs, int slice) {
  size_t floats = (size_t)kRecBatchChunk * gates * slice;
  if (inputs)
    floats += (size_t)gates * slice * weight_column_stride(inputs);
  return recurrence_shared_bytes(gates, units, slice, true) + floats * sizeof(float);
}

template <Cell C, Act A, Act R>
__global__ void __launch_bounds__(kRecThreads) stacked_recurrence_kernel(StackArgs p) {
  static_assert(C != Cell::GruResetBefore, "GRU reset_before needs two phases per step");
  constexpr int G = gates_of<C>();
  SEQC_DYNAMIC_SHARED(float, smem);
  int l = 0;
  while (l + 1 < p.layers && (int)blockIdx.x >= p.first_block[l + 1])
    ++l;
  const StackLayer &L = p.layer[l];
  const int u = L.units, in = L.inputs, B = p.batch, T = p.steps, slice = p.slice[l];
  const int blocks = p.first_block[l + 1] - p.first_block[l];
  const int j0 = ((int)blockIdx.x - p.first_block[l]) * slice;
  const int ns = max(0, min(slice, u - j0));
  float *us = smem;
  float *ws = us + (size_t)G * slice * weight_column_stride(u);
  float *hs = ws + (in ? (size_t)G * slice * weight_column_stride(in) : 0);
  float *hu = hs + kRecBatchChunk * kRecKChunk; // h U, then x W
  float *xw = hu + (size_t)kRecBatchChunk * G * slice;

  load_weight_slice(L.u, u, G, u, j0, ns, us);
  if (in)
    load_weight_slice(L.w, in, G, u, j0, ns, ws);
  for (int i = threadIdx.x; i < B * ns; i += blockDim.x) {
    const size_t at = (size_t)(i / ns) * u + j0 + i % ns;
    L.h[at] = 0.0f;
    if (C == Cell::Lstm)
      L.c[at] = 0.0f;
  }
  signal_progress(&p.progress[l]); // counts as "step -1": h0 is written

  const float *x_seq = l ? p.layer[l - 1].out : nullptr;
  const int prev_blocks = l ? p.first_block[l] - p.first_block[l - 1] : 0;
  for (int s = 0; s < T; ++s) {
    wait_progress(&p.progress[l], (unsigned)blocks * (s + 1));
    if (l)
      wait_progress(&p.progress[l - 1], (unsigned)prev_blocks * (s + 2));
    const float *hprev = L.h + (size_t)(s & 1) * B * u;
    float *hnext = L.h + (size_t)((s + 1) & 1) * B * u;
    for (int b0 = 0; b0 < B; b0 += kRecBatchChunk) {
      const int nb = min(kRecBatchChunk, B - b0);
      slice_product<true>(hprev, u, u, us, weight_column_stride(u), nullptr, 0, 0, hs, hu, ns,
                          b0, nb, 0, G);
      if (in)
        slice_product<true>(x_seq + (size_t)s * in, (size_t)T * in, in, ws,
                            weight_column_stride(in), nullptr, 0, 0, hs, xw, ns, b0, nb, 0, G);
      for (int i = threadIdx.x; i < nb * ns; i += blockDim.x) {
        const int bb = i / ns, jj = i % ns, b = b0 + bb, j = j0 + jj;
        const size_t at = (size_t)b * u + j;
        float x[G], hg[G];
        for (int g = 0; g < G; ++g) {
          const int col = bb * G * ns + g * ns + jj;
          x[g] = in ? xw[col] + (L.bias ? L.bias[g * u + j] : 0.0f)
                    : __ldg(L.xproj + ((size_t)b * T + s) * G * u + g * u + j);
          hg[g] = hu[col] + (L.rbias ? L.rbias[g * u + j] : 0.0f);
        }
        float hn = cell_output<C, A, R>(x, hg, C == Cell::Lstm ? L.c + at : nullptr, hprev + at,
                                        true, p.alpha, p.recurrent_alpha);
        hnext[at] = hn;
        if (L.return_sequences)
          L.out[((size_t)b * T + s) * u + j] = hn;
        else if (s == T - 1)
          L.out[at] = hn;
      }
      __syncthreads(); // hu and xw are reused by the next batch chunk
    }
    signal_progress(&p.progress[l]);
  }
}

using StackKernel = void (*)(StackArgs);

/// How a stack of recurrences is launched on this device, chosen once, at
/// create; blocks == 0 when it cannot run as one launch (then each layer
/// runs on its own).
struct StackPlan {
  StackKernel kernel = nullptr;
  int blocks = 0, layers = 0;
  size_t shared_bytes = 0;
  int first_block[kMaxStackLayers + 1] = {};
  int slice[kMaxStackLayers] = {};
};

/// plan_stack of a cell that runs one phase per step.
template <Cell C, Act A, Act R>
cudaError_t plan_stack_cells(int layers, const int *units, const int *inputs, StackPlan *plan) {
  constexpr int G = gates_of<C>();
  if (layers < 2 || layers > kMaxStackLayers)
    return cudaErrorInvalidValue;
  RecurrenceDevice d;
  cudaError_t err = query_recurrence_device(&d);
  if (err != cudaSuccess)
    return err;
  const int sms = d.sms;
  if (layers > sms)
    return cudaErrorCooperativeLaunchTooLarge;
  double work = 0; // multiply-adds per row and step, all layers
  for (int l = 0; l < layers; ++l)
    work += (double)units[l] * (units[l] + inputs[l]);
  int blocks[kMaxStackLayers], sum = 0;
  for (int l = 0; l < layers; ++l) {
    const int most = (units[l] + SEQC_RECURRENCE_MIN_SLICE - 1) / SEQC_RECURRENCE_MIN_SLICE;
    const double share = sms * ((double)units[l] * (units[l] + inputs[l]) / work);
    blocks[l] = std::max(1, std::min(most, (int)share));
    sum += blocks[l];
  }
  while (sum > sms) { // at least one block each can overshoot: take from the largest
    int *largest = std::max_element(blocks, blocks + layers);
    --*largest;
    --sum;
  }
  size_t bytes = 0;
  plan->first_block[0] = 0;
  for (int l = 0; l < layers; ++l) {
    const int slice = (units[l] + blocks[l] - 1) / blocks[l];
    plan->slice[l] = slice;
    plan->first_block[l + 1] = plan->first_block[l] + (units[l] + slice - 1) / slice;
    bytes = std::max(bytes, stacked_shared_bytes(G, units[l], inputs[l], slice));
  }
  StackKernel kernel = &stacked_recurrence_kernel<C, A, R>;
  if ((err = fits_co_resident(kernel, plan->first_block[layers], bytes, d)) != cudaSuccess)
    return err;
  plan->kernel = kernel;
  plan->blocks = plan->first_block[layers];
  plan->layers = layers;
  plan->shared_bytes = bytes;
  return cudaSuccess;
}

/// Splits the multiprocessors between the layers (units[l], each taking
/// inputs[l] features from the previous layer, 0 for the first) in
/// proportion to their work per step (one block per multiprocessor, each
/// layer at least one, no slice below SEQC_RECURRENCE_MIN_SLICE units) and
/// checks that the slices' kernels fit in shared memory and the grid is
/// co-resident. An error leaves plan->blocks 0.
template <Cell C, Act A, Act R>
cudaError_t plan_stack(int layers, const int *units, const int *inputs, StackPlan *plan) {
  *plan = StackPlan{};
#ifdef SEQC_NO_STACKED_RECURRENCES // the GPU benchmark's layer-by-layer variant
  return cudaErrorNotSupported;
#endif
  if constexpr (row_cell<C, A, R>() || C == Cell::GruResetBefore) {
    return cudaErrorInvalidValue; // a whole row, or two phases, per step
  } else {
    cudaError_t err = plan_stack_cells<C, A, R>(layers, units, inputs, plan);
    if (err != cudaSuccess)
      *plan = StackPlan{};
    return err;
  }
}

inline void report_plan(const char *layer, const StackPlan &plan, int layers) {
  if (!plans_reported())
    return;
  if (!plan.blocks) {
    std::fprintf(stderr,
                 "seqc: layer '%s': stack of %d recurrences: not held by this GPU at once, "
                 "one by one\n",
                 layer, layers);
    return;
  }
  std::fprintf(stderr, "seqc: layer '%s': stack of %d recurrences in one launch of %d blocks (",
               layer, layers, plan.blocks);
  for (int l = 0; l < plan.layers; ++l)
    std::fprintf(stderr, "%s%d x %d units", l ? ", " : "",
                 plan.first_block[l + 1] - plan.first_block[l], plan.slice[l]);
  std::fprintf(stderr, "), %zu bytes of shared memory per block\n", plan.shared_bytes);
}

/// Runs a planned stack: args.layer, batch, steps, progress and the
/// activations' alphas are the caller's; the plan fills in the rest.
inline cudaError_t run_stack(cudaStream_t stream, const StackPlan &plan, StackArgs args) {
  if (args.batch == 0 || args.steps == 0)
    return cudaSuccess;
  args.layers = plan.layers;
  for (int l = 0; l <= plan.layers; ++l)
    args.first_block[l] = plan.first_block[l];
  for (int l = 0; l < plan.layers; ++l)
    args.slice[l] = plan.slice[l];
  cudaError_t err = cudaMemsetAsync(args.progress, 0, kMaxStackLayers * sizeof(unsigned), stream);
  if (err != cudaSuccess)
    return err;
  return launch_cooperative(plan.kernel, plan.blocks, plan.shared_bytes, stream, args);
}

// ---------------------------------------------------------------------------
// The remaining layer-level ops: one thread per output element unless said.
// ---------------------------------------------------------------------------
enum class Padding : int { Valid, Same, Causal };

/// Output length and left padding of a 1-D window along time, as Keras/TF.
struct Window1d {
  int64_t length, pad_left;
};

/// The zeros Keras' `same` padding adds along an axis, both sides together
/// (the lower half before).
__host__ __device__ inline int64_t same_padding_total(int64_t length, int64_t window,
                                                      int64_t stride) {
  int64_t out = (length + stride - 1) / stride;
  int64_t total = (out - 1) * stride + window - length;
  return total > 0 ? total : 0;
}

__host__ __device__ inline Window1d window1d(int64_t length, int64_t window, int64_t stride,
                                             Padding padding) {
  switch (padding) {
  case Padding::Same:
    return {(length + stride - 1) / stride, same_padding_total(length, window, stride) / 2};
  case Padding::Causal:
    return {length >= 1 ? (length - 1) / stride + 1 : 0, window - 1};
  case Padding::Valid:
  default:
    return {length >= window ? (length - window) / stride + 1 : 0, 0};
  }
}

template <Act A>
__global__ void conv1d_kernel(const float *__restrict__ x, const float *__restrict__ kernel,
                              const float *__restrict__ bias, float *__restrict__ y, int batch,
                              int steps, int channels, int width, int filters, int out_steps,
                              int stride, int dilation, int pad_left, float alpha) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int64_t)batch * out_steps * filters)
    return;
  int f = i % filters;
  int o = (i / filters) % out_steps;
  int b = i / ((int64_t)filters * out_steps);
  float sum = bias ? bias[f] : 0.0f;
  for (int k = 0; k < width; ++k) {
    int t = o * stride - pad_left + k * dilation;
    if (t < 0 || t >= steps)
      continue; // zero padding
    const float *xr = x + ((size_t)b * steps + t) * channels;
    const float *kr = kernel + (size_t)k * channels * filters + f;
    for (int c = 0; c < channels; ++c)
      sum = fmaf(xr[c], kr[(size_t)c * filters], sum);
  }
  y[i] = activate<A>(sum, alpha);
}

template <Act A>
cudaError_t conv1d(cudaStream_t stream, const float *x, const float *kernel, const float *bias,
                   float *y, int64_t batch, int64_t steps, int channels, int width, int filters,
                   int stride, int dilation, Padding padding, float alpha) {
  Window1d w = window1d(steps, (int64_t)dilation * (width - 1) + 1, stride, padding);
  int64_t n = batch * w.length * filters;
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(conv1d_kernel<A>, blocks_for(n, 256), 256, 0, stream)(
      x, kernel, bias, y, (int)batch, (int)steps, channels, width, filters, (int)w.length,
      stride, dilation, (int)w.pad_left, alpha);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess)
    err = softmax_rows<A>(stream, y, batch * w.length, filters);
  return err;
}

/// Max or average pooling; padded positions never win the max and do not
/// count towards the average's divisor.
template <bool kMax>
__global__ void pool1d_kernel(const float *__restrict__ x, float *__restrict__ y, int batch,
                              int steps, int channels, int out_steps, int pool, int stride,
                              int pad_left) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int64_t)batch * out_steps * channels)
    return;
  int c = i % channels;
  int o = (i / channels) % out_steps;
  int b = i / ((int64_t)channels * out_steps);
  int first = max(o * stride - pad_left, 0);
  int last = min(o * stride - pad_left + pool, steps);
  float m = -INFINITY, sum = 0.0f;
  for (int t = first; t < last; ++t) {
    float v = x[((size_t)b * steps + t) * channels + c];
    m = fmaxf(m, v);
    sum += v;
  }
  y[i] = kMax ? m : sum / (float)(last - first);
}

template <bool kMax>
cudaError_t pool1d(cudaStream_t stream, const float *x, float *y, int64_t batch, int64_t steps,
                   int channels, int pool, int stride, Padding padding) {
  Window1d w = window1d(steps, pool, stride, padding);
  int64_t n = batch * w.length * channels;
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(pool1d_kernel<kMax>, blocks_for(n, 256), 256, 0, stream)(
      x, y, (int)batch, (int)steps, channels, (int)w.length, pool, stride, (int)w.pad_left);
  return cudaGetLastError();
}

/// The average of a masked input is over the steps whose mask is nonzero.
template <bool kMax>
__global__ void global_pool1d_kernel(const float *__restrict__ x, const float *__restrict__ mask,
                                     float *__restrict__ y, int batch, int steps, int channels) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int64_t)batch * channels)
    return;
  int c = i % channels, b = i / channels;
  float m = -INFINITY, sum = 0.0f, count = 0.0f;
  for (int t = 0; t < steps; ++t) {
    float v = x[((size_t)b * steps + t) * channels + c];
    float w = mask ? mask[(size_t)b * steps + t] : 1.0f;
    m = fmaxf(m, v);
    sum += v * w;
    count += w;
  }
  y[i] = kMax ? m : sum / count;
}

template <bool kMax>
cudaError_t global_pool1d(cudaStream_t stream, const float *x, const float *mask, float *y,
                          int64_t batch, int64_t steps, int channels) {
  int64_t n = batch * channels;
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(global_pool1d_kernel<kMax>, blocks_for(n, 256), 256, 0, stream)(
      x, mask, y, (int)batch, (int)steps, channels);
  return cudaGetLastError();
}

/// Keras' timestep mask (batch, steps): 1 where any of the step's `features`
/// values (1 for ids) differs from mask_value.
cudaError_t sequence_mask(cudaStream_t stream, const float *x, float *mask, int64_t rows,
                          int features, float mask_value);

/// Keras Masking's output: x (rows, inner) times mask (rows).
cudaError_t apply_mask(cudaStream_t stream, const float *x, const float *mask, float *y,
                       int64_t rows, int64_t inner);

/// Keras' elementwise merge layers, one input at a time onto the result:
/// y = x0 op x1, then y = y op x2, ...; Average divides the sum at the end.
/// Divide is an operation's (a tensor divided by a tensor), no layer's.
enum class MergeKind : int { Add, Subtract, Multiply, Average, Maximum, Minimum, Divide };

/// y = a op b over n values; `divisor` (0: none) divides the result (the
/// last step of an Average). y may be a.
cudaError_t merge(cudaStream_t stream, const float *a, const float *b, float *y, int64_t n,
                  MergeKind kind, float divisor);

/// Concatenate: x (outer, width) into columns [offset, offset + width) of
/// y (outer, total).
cudaError_t concat_into(cudaStream_t stream, const float *x, float *y, int64_t outer,
                        int64_t width, int64_t total, int64_t offset);

/// LayerNormalization over rows of length n: one warp per row, biased
/// variance, two passes over the row.
cudaError_t layer_norm(cudaStream_t stream, const float *x, const float *gamma,
                       const float *beta, float *y, int64_t rows, int n, float epsilon);

/// GroupNormalization: one warp per (sample, group), whose values are the
/// group's `per_group` channels at each of `positions` positions; biased
/// variance, two passes.
cudaError_t group_norm(cudaStream_t stream, const float *x, const float *gamma,
                       const float *beta, float *y, int64_t batch, int64_t positions,
                       int channels, int groups, float epsilon);

/// UnitNormalization (no scale; 1 / sqrt(max(sum, epsilon))) and
/// RMSNormalization (1 / sqrt(sum / n + epsilon), times scale) over rows of
/// length n: one warp per row.
/// `scale` null for UnitNormalization.
cudaError_t rms_norm(cudaStream_t stream, const float *x, const float *scale, float *y,
                     int64_t rows, int n, float epsilon, bool unit);

/// BatchNormalization at inference: per channel of the last axis.
cudaError_t batch_norm(cudaStream_t stream, const float *x, const float *gamma,
                       const float *beta, const float *mean, const float *variance,
                       float *y, int64_t n, int channels, float epsilon);

/// Embedding lookup; ids are integral floats. A bad id writes its flat
/// index + 1 to *bad_id (read back after the run) and yields zeros.
cudaError_t embedding(cudaStream_t stream, const float *ids, const float *table, float *y,
                      int64_t count, int vocab, int dim, unsigned long long *bad_id);

/// Truncation toward zero (seq.truncate: Keras' cast of an input to an
/// integer dtype).
cudaError_t truncate(cudaStream_t stream, const float *x, float *y, int64_t count);

/// Discretization: the number of boundaries b with !(x < b) (TensorFlow's
/// Bucketize), as float.
cudaError_t discretize(cudaStream_t stream, const float *x, const float *bounds, float *y,
                       int64_t count, int n);

/// CategoryEncoding of (batch, k) ids, one thread per output element: with
/// `rows` (one_hot, k != 1) y[b, j, t] = (x[b, j] == t); else y[b, t] is the
/// count (`count`) or the presence of t among x[b, :].
cudaError_t category_encoding(cudaStream_t stream, const float *x, float *y, int64_t batch,
                              int k, int n, bool rows, bool count);

/// RepeatVector: (batch, f) -> (batch, n, f).
cudaError_t repeat_vector(cudaStream_t stream, const float *x, float *y, int64_t batch,
                          int n, int f);

template <Act A>
__global__ void activation_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t n,
                                  float alpha) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = activate<A>(x[i], alpha);
}

/// The Activation layer; softmax normalises rows of length `row`.
template <Act A>
cudaError_t activation(cudaStream_t stream, const float *x, float *y, int64_t n, int row,
                       float alpha) {
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(activation_kernel<A>, blocks_for(n, 256), 256, 0, stream)(x, y, n, alpha);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess)
    err = softmax_rows<A>(stream, y, n / row, row);
  return err;
}

/// Softmax / log_softmax over a middle axis of `n` elements, `inner`
/// elements apart (the Softmax layer with an axis other than the last);
/// one thread per line.
template <bool kLog>
__global__ void softmax_axis_kernel(const float *__restrict__ x, float *__restrict__ y,
                                    int64_t outer, int n, int64_t inner) {
  int64_t line = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (line >= outer * inner)
    return;
  int64_t base = (line / inner) * n * inner + line % inner;
  float m = -INFINITY;
  for (int i = 0; i < n; ++i)
    m = fmaxf(m, x[base + i * inner]);
  float sum = 0.0f;
  for (int i = 0; i < n; ++i)
    sum += expf(x[base + i * inner] - m);
  float log_sum = logf(sum);
  for (int i = 0; i < n; ++i) {
    float v = x[base + i * inner];
    y[base + i * inner] = kLog ? v - m - log_sum : expf(v - m) / sum;
  }
}

template <Act A>
cudaError_t softmax_axis(cudaStream_t stream, const float *x, float *y, int64_t outer, int n,
                         int64_t inner) {
  static_assert(is_row_act(A), "softmax_axis takes Softmax or LogSoftmax");
  if (outer * inner == 0)
    return cudaSuccess;
  SEQC_LAUNCH(softmax_axis_kernel<A == Act::LogSoftmax>, blocks_for(outer * inner, 256), 256, 0,
              stream)(x, y, outer, n, inner);
  return cudaGetLastError();
}

/// The Keras ReLU layer: p = x > threshold ? x : 0 (max(x, 0) when the
/// threshold is 0), clipped to [0, max_value] when has_max, minus
/// slope * max(threshold - x, 0).
cudaError_t relu_layer(cudaStream_t stream, const float *x, float *y, int64_t n,
                       float slope, float threshold, int has_max, float max_value);

/// tf.clip_by_value: y = max(min(x, hi), lo); a NaN stays NaN.
cudaError_t clip(cudaStream_t stream, const float *x, float *y, int64_t n, float lo, float hi);

/// PReLU's alpha, per sample: the sample's axes (at most 6) and alpha's
/// strides along them, 0 where alpha is shared (size 1).
struct PreluShape {
  int rank;
  int64_t dims[6];
  int64_t alpha_strides[6];
};

cudaError_t prelu(cudaStream_t stream, const float *x, const float *alpha, float *y,
                  int64_t n, int64_t per_sample, PreluShape s);

enum class Merge : int { Concat, Sum, Mul, Ave };

/// Bidirectional merge of fwd (.., ff) and bwd (.., fb). `bwd` came from a
/// go_backwards RNN; a sequence (steps > 0) is flipped back along time
/// first, as Keras does. Concat puts forward first; the other modes need
/// ff == fb.
template <Merge M>
__global__ void bidirectional_kernel(const float *__restrict__ fwd, const float *__restrict__ bwd,
                                     float *__restrict__ y, int batch, int steps, int ff,
                                     int fb) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int T = steps > 0 ? steps : 1;
  const int out_f = M == Merge::Concat ? ff + fb : ff;
  if (i >= (int64_t)batch * T * out_f)
    return;
  int k = i % out_f;
  int t = (i / out_f) % T;
  int b = i / ((int64_t)out_f * T);
  int tb = steps > 0 ? T - 1 - t : 0;
  if constexpr (M == Merge::Concat) {
    y[i] = k < ff ? fwd[((size_t)b * T + t) * ff + k] : bwd[((size_t)b * T + tb) * fb + k - ff];
  } else {
    float a = fwd[((size_t)b * T + t) * ff + k], c = bwd[((size_t)b * T + tb) * fb + k];
    y[i] = M == Merge::Sum ? a + c : M == Merge::Mul ? a * c : (a + c) / 2.0f;
  }
}

template <Merge M>
cudaError_t bidirectional(cudaStream_t stream, const float *fwd, const float *bwd, float *y,
                          int64_t batch, int64_t steps, int ff, int fb) {
  int64_t n = batch * (steps > 0 ? steps : 1) * (M == Merge::Concat ? ff + fb : ff);
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(bidirectional_kernel<M>, blocks_for(n, 256), 256, 0, stream)(
      fwd, bwd, y, (int)batch, (int)steps, ff, fb);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------
// Spatial layers: Conv2D/3D, the 2-D/3-D poolings (channels last, up to three
// spatial axes; unused axes have size 1), and the shape layers on tensors of
// rank <= 5. One thread per output element.
// ---------------------------------------------------------------------------

/// Sizes of up to three spatial axes (n of them; the rest are 1).
struct Sizes3 {
  int n;
  int v[3];
};

/// The output size and left padding of every spatial axis.
struct Windows3 {
  int out[3], pad[3];
};

__host__ __device__ inline Windows3 windows3(const Sizes3 &in, const Sizes3 &span,
                                             const Sizes3 &stride, Padding padding) {
  Windows3 w{{1, 1, 1}, {0, 0, 0}};
  for (int i = 0; i < in.n; ++i) {
    Window1d one = window1d(in.v[i], span.v[i], stride.v[i], padding);
    w.out[i] = (int)one.length;
    w.pad[i] = (int)one.pad_left;
  }
  return w;
}

struct ConvShape {
  int batch, channels, filters, groups;
  Sizes3 in, kernel, stride, dilation;
  Windows3 w;
};

template <Act A>
__global__ void conv_nd_kernel(const float *__restrict__ x, const float *__restrict__ kernel,
                               const float *__restrict__ bias, float *__restrict__ y, ConvShape s,
                               float alpha) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t positions = (int64_t)s.w.out[0] * s.w.out[1] * s.w.out[2];
  if (i >= (int64_t)s.batch * positions * s.filters)
    return;
  int f = i % s.filters;
  int64_t p = (i / s.filters) % positions;
  int b = i / ((int64_t)s.filters * positions);
  int o[3] = {(int)(p / ((int64_t)s.w.out[1] * s.w.out[2])), (int)(p / s.w.out[2] % s.w.out[1]),
              (int)(p % s.w.out[2])};
  int in1 = s.in.n > 1 ? s.in.v[1] : 1, in2 = s.in.n > 2 ? s.in.v[2] : 1;
  int k1 = s.in.n > 1 ? s.kernel.v[1] : 1, k2 = s.in.n > 2 ? s.kernel.v[2] : 1;
  int group_channels = s.channels / s.groups;
  int first_channel = f / (s.filters / s.groups) * group_channels;
  float sum = bias ? bias[f] : 0.0f;
  for (int a = 0; a < s.kernel.v[0]; ++a) {
    int t0 = o[0] * s.stride.v[0] - s.w.pad[0] + a * s.dilation.v[0];
    if (t0 < 0 || t0 >= s.in.v[0])
      continue; // zero padding
    for (int c1 = 0; c1 < k1; ++c1) {
      int t1 = s.in.n > 1 ? o[1] * s.stride.v[1] - s.w.pad[1] + c1 * s.dilation.v[1] : 0;
      if (t1 < 0 || t1 >= in1)
        continue;
      for (int c2 = 0; c2 < k2; ++c2) {
        int t2 = s.in.n > 2 ? o[2] * s.stride.v[2] - s.w.pad[2] + c2 * s.dilation.v[2] : 0;
        if (t2 < 0 || t2 >= in2)
          continue;
        const float *xr =
            x + ((((size_t)b * s.in.v[0] + t0) * in1 + t1) * in2 + t2) * s.channels + first_channel;
        const float *kr =
            kernel + (((size_t)a * k1 + c1) * k2 + c2) * group_channels * s.filters + f;
        for (int c = 0; c < group_channels; ++c)
          sum = fmaf(xr[c], kr[(size_t)c * s.filters], sum);
      }
    }
  }
  y[i] = activate<A>(sum, alpha);
}

/// x (batch, in..., channels), kernel (k..., channels / groups, filters).
template <Act A>
cudaError_t conv_nd(cudaStream_t stream, const float *x, const float *kernel, const float *bias,
                    float *y, int64_t batch, Sizes3 in, int channels, Sizes3 kernel_size,
                    int filters, int groups, Sizes3 stride, Sizes3 dilation, Padding padding,
                    float alpha) {
  Sizes3 span = kernel_size;
  for (int i = 0; i < in.n; ++i)
    span.v[i] = dilation.v[i] * (kernel_size.v[i] - 1) + 1;
  ConvShape s{(int)batch, channels, filters, groups, in, kernel_size, stride, dilation,
              windows3(in, span, stride, padding)};
  int64_t rows = batch * s.w.out[0] * s.w.out[1] * s.w.out[2];
  if (rows * filters == 0)
    return cudaSuccess;
  SEQC_LAUNCH(conv_nd_kernel<A>, blocks_for(rows * filters, 256), 256, 0, stream)(
      x, kernel, bias, y, s, alpha);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess)
    err = softmax_rows<A>(stream, y, rows, filters);
  return err;
}

// ConvLSTM (seq.conv_lstm): the input convolution of every step is one
// conv_nd over the batch * steps frames; each step then convolves h with the
// recurrent kernel ("same", stride 1) into the gates and runs this
// pointwise cell, one thread per (row, position, unit).
struct ConvLstmCellArgs {
  const float *xproj; // (batch, steps, positions, 4 units): input convolution + bias
  const float *hu;    // (batch, positions, 4 units): h convolved with the recurrent kernel
  float *h, *c;       // (batch, positions, units)
  float *out;         // (batch, steps, positions, units) with return_sequences, else null
  int batch, steps, units;
  int64_t positions;
  int t, s; // input step, processing step
  float alpha, recurrent_alpha;
};

template <Act A, Act R> __global__ void conv_lstm_cell_kernel(ConvLstmCellArgs p) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (int64_t)p.batch * p.positions * p.units)
    return;
  const int u = p.units, j = i % u;
  const int64_t row = i / u; // b * positions + position
  const int64_t b = row / p.positions, position = row % p.positions;
  const float *x = p.xproj + ((b * p.steps + p.t) * p.positions + position) * 4 * u;
  const float *r = p.hu + row * 4 * u;
  const float ig = activate<R>(x[j] + r[j], p.recurrent_alpha);
  const float fg = activate<R>(x[u + j] + r[u + j], p.recurrent_alpha);
  const float g = activate<A>(x[2 * u + j] + r[2 * u + j], p.alpha);
  const float og = activate<R>(x[3 * u + j] + r[3 * u + j], p.recurrent_alpha);
  const float c = fg * p.c[i] + ig * g;
  const float h = og * activate<A>(c, p.alpha);
  p.c[i] = c;
  p.h[i] = h;
  if (p.out)
    p.out[((b * p.steps + p.s) * p.positions + position) * u + j] = h;
}

template <Act A, Act R> cudaError_t conv_lstm_cell(cudaStream_t stream, const ConvLstmCellArgs &p) {
  int64_t n = (int64_t)p.batch * p.positions * p.units;
  if (n == 0)
    return cudaSuccess;
  void (*kernel)(ConvLstmCellArgs) = &conv_lstm_cell_kernel<A, R>; // one macro argument
  SEQC_LAUNCH(kernel, blocks_for(n, 256), 256, 0, stream)(p);
  return cudaGetLastError();
}

struct ConvTransposeShape {
  int batch, channels, filters;
  Sizes3 in, out, kernel, stride, dilation, pad;
};

/// Gathers every (input position, tap) pair that reaches one output: along
/// each axis t * stride + j * dilation == o + pad.
template <Act A>
__global__ void conv_transpose_nd_kernel(const float *__restrict__ x,
                                         const float *__restrict__ kernel,
                                         const float *__restrict__ bias, float *__restrict__ y,
                                         ConvTransposeShape s, float alpha) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int n = s.in.n;
  int out1 = n > 1 ? s.out.v[1] : 1, out2 = n > 2 ? s.out.v[2] : 1;
  int64_t positions = (int64_t)s.out.v[0] * out1 * out2;
  if (i >= (int64_t)s.batch * positions * s.filters)
    return;
  int f = i % s.filters;
  int64_t p = (i / s.filters) % positions;
  int b = i / ((int64_t)s.filters * positions);
  int o[3] = {(int)(p / ((int64_t)out1 * out2)), (int)(p / out2 % out1), (int)(p % out2)};
  int in[3] = {s.in.v[0], n > 1 ? s.in.v[1] : 1, n > 2 ? s.in.v[2] : 1};
  int k[3] = {s.kernel.v[0], n > 1 ? s.kernel.v[1] : 1, n > 2 ? s.kernel.v[2] : 1};
  float sum = bias ? bias[f] : 0.0f;
  for (int a0 = 0; a0 < k[0]; ++a0) {
    int u0 = o[0] + s.pad.v[0] - a0 * s.dilation.v[0];
    if (u0 < 0 || u0 % s.stride.v[0] != 0 || u0 / s.stride.v[0] >= in[0])
      continue;
    for (int a1 = 0; a1 < k[1]; ++a1) {
      int u1 = n > 1 ? o[1] + s.pad.v[1] - a1 * s.dilation.v[1] : 0;
      if (n > 1 && (u1 < 0 || u1 % s.stride.v[1] != 0 || u1 / s.stride.v[1] >= in[1]))
        continue;
      for (int a2 = 0; a2 < k[2]; ++a2) {
        int u2 = n > 2 ? o[2] + s.pad.v[2] - a2 * s.dilation.v[2] : 0;
        if (n > 2 && (u2 < 0 || u2 % s.stride.v[2] != 0 || u2 / s.stride.v[2] >= in[2]))
          continue;
        int t0 = u0 / s.stride.v[0], t1 = n > 1 ? u1 / s.stride.v[1] : 0,
            t2 = n > 2 ? u2 / s.stride.v[2] : 0;
        const float *xr = x + ((((size_t)b * in[0] + t0) * in[1] + t1) * in[2] + t2) * s.channels;
        const float *kr =
            kernel + ((((size_t)a0 * k[1] + a1) * k[2] + a2) * s.filters + f) * s.channels;
        for (int c = 0; c < s.channels; ++c)
          sum = fmaf(xr[c], kr[c], sum);
      }
    }
  }
  y[i] = activate<A>(sum, alpha);
}

/// x (batch, in..., channels), kernel (k..., filters, channels) (Keras'
/// Conv*Transpose layout); `out` and `pad` per axis as seq's shape rules give
/// them.
template <Act A>
cudaError_t conv_transpose_nd(cudaStream_t stream, const float *x, const float *kernel,
                              const float *bias, float *y, int64_t batch, Sizes3 in,
                              int channels, Sizes3 kernel_size, int filters, Sizes3 stride,
                              Sizes3 dilation, Sizes3 out, Sizes3 pad, float alpha) {
  ConvTransposeShape s{(int)batch, channels, filters, in, out, kernel_size, stride, dilation, pad};
  int64_t rows = batch;
  for (int i = 0; i < in.n; ++i)
    rows *= out.v[i];
  if (rows * filters == 0)
    return cudaSuccess;
  SEQC_LAUNCH(conv_transpose_nd_kernel<A>, blocks_for(rows * filters, 256), 256, 0, stream)(
      x, kernel, bias, y, s, alpha);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess)
    err = softmax_rows<A>(stream, y, rows, filters);
  return err;
}

/// Max or average pooling; padded positions never win the max and do not
/// count towards the average's divisor.
template <bool kMax>
__global__ void pool_nd_kernel(const float *__restrict__ x, float *__restrict__ y, int batch,
                               Sizes3 in, int channels, Sizes3 pool, Sizes3 stride, Windows3 w) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t positions = (int64_t)w.out[0] * w.out[1] * w.out[2];
  if (i >= (int64_t)batch * positions * channels)
    return;
  int c = i % channels;
  int64_t p = (i / channels) % positions;
  int b = i / ((int64_t)channels * positions);
  int o[3] = {(int)(p / ((int64_t)w.out[1] * w.out[2])), (int)(p / w.out[2] % w.out[1]),
              (int)(p % w.out[2])};
  int size[3] = {in.v[0], in.n > 1 ? in.v[1] : 1, in.n > 2 ? in.v[2] : 1};
  int first[3] = {0, 0, 0}, last[3] = {1, 1, 1};
  for (int a = 0; a < in.n; ++a) {
    int start = o[a] * stride.v[a] - w.pad[a];
    first[a] = max(start, 0);
    last[a] = min(start + pool.v[a], size[a]);
  }
  float m = -INFINITY, sum = 0.0f;
  for (int t0 = first[0]; t0 < last[0]; ++t0)
    for (int t1 = first[1]; t1 < last[1]; ++t1)
      for (int t2 = first[2]; t2 < last[2]; ++t2) {
        float v = x[((((size_t)b * size[0] + t0) * size[1] + t1) * size[2] + t2) * channels + c];
        m = fmaxf(m, v);
        sum += v;
      }
  int count = (last[0] - first[0]) * (last[1] - first[1]) * (last[2] - first[2]);
  y[i] = kMax ? m : sum / (float)count;
}

template <bool kMax>
cudaError_t pool_nd(cudaStream_t stream, const float *x, float *y, int64_t batch, Sizes3 in,
                    int channels, Sizes3 pool, Sizes3 stride, Padding padding) {
  Windows3 w = windows3(in, pool, stride, padding);
  int64_t n = batch * w.out[0] * w.out[1] * w.out[2] * channels;
  if (n == 0)
    return cudaSuccess;
  SEQC_LAUNCH(pool_nd_kernel<kMax>, blocks_for(n, 256), 256, 0, stream)(
      x, y, (int)batch, in, channels, pool, stride, w);
  return cudaGetLastError();
}

/// The sizes of every axis of a tensor of rank <= 5, batch axis first
/// (also used for per-axis offsets, factors and permutations).
struct Shape5 {
  int rank;
  int64_t d[5];
};

__host__ __device__ inline int64_t numel5(const Shape5 &s) {
  int64_t n = 1;
  for (int i = 0; i < s.rank; ++i)
    n *= s.d[i];
  return n;
}

/// y[i] = x[i - offset] where that is inside x, else 0: ZeroPadding
/// (offset = low) and Cropping (offset = -low).
cudaError_t shift_copy(cudaStream_t stream, const float *x, float *y, Shape5 in,
                       Shape5 out, Shape5 offset);

/// UpSampling, nearest: y[..., o, ...] = x[..., o / factor, ...] on every axis.
cudaError_t upsample_nearest(cudaStream_t stream, const float *x, float *y, Shape5 in,
                             Shape5 factor);

/// UpSampling2D, bilinear, along one axis: linear interpolation with
/// half-pixel centres and clamped borders (tf.image.resize).
cudaError_t upsample_linear(cudaStream_t stream, const float *x, float *y, int64_t outer,
                            int length, int64_t inner, int factor);

/// Resizing along one axis (seq.resize): TensorFlow's half-pixel nearest or
/// linear rule with scale = length / out_length.
cudaError_t resize_axis(cudaStream_t stream, const float *x, float *y, int64_t outer,
                        int length, int out_length, int64_t inner, bool bilinear);

/// Adaptive pooling along one axis (seq.adaptive_max_pool / adaptive_avg_pool):
/// output t is the max or mean of inputs floor(t*length/out_length) up to
/// ceil((t+1)*length/out_length), exclusive.
cudaError_t adaptive_pool_axis(cudaStream_t stream, const float *x, float *y,
                               int64_t outer, int length, int out_length,
                               int64_t inner, bool is_max);

/// seq.reverse, and the input of a go_backwards RNN on cuDNN: y[o, t, i] =
/// x[o, length - 1 - t, i] for (outer, length, inner) tensors.
cudaError_t reverse_axis(cudaStream_t stream, const float *x, float *y, int64_t outer,
                         int64_t length, int64_t inner);

/// Permute: output axis a is input axis perm.d[a] (perm.d[0] = 0).
cudaError_t permute(cudaStream_t stream, const float *x, float *y, Shape5 in, Shape5 perm);

/// seq.matmul: y[s, i, j] = sum over l of a[s, i, l] * b[s, l, j] (b read
/// as (s, j, l) with transpose_b); one thread per output.
cudaError_t matmul(cudaStream_t stream, const float *a, const float *b, float *y,
                   int64_t batch, int64_t m, int64_t n, int64_t k, bool transpose_b);

/// seq.attention's sizes and options (see its description in SeqOps.td):
/// query (batch, tq, heads, d), key (batch, tk, heads / group, d), value
/// (batch, tk, heads / group, dv). `scale` multiplies dot scores (1 when
/// absent) or the additive sum inside tanh; `score_weight` multiplies
/// additive scores; `window` 0: none.
struct AttentionShape {
  int64_t batch, tq, tk, heads, group, d, dv;
  int additive, causal;
  int64_t window;
  float scale, score_weight;
  /// A hidden score is the score plus mask_offset where has_mask_offset,
  /// else -0.7 * FLT_MAX (seq.attention's mask_offset).
  int has_mask_offset;
  float mask_offset;
  /// A hidden score's weight is 0 after the softmax (seq.attention's
  /// zero_hidden).
  int zero_hidden;
};

/// The masks of seq.attention: query (batch, tq), key (batch, tk) and
/// attention (batch, tq, tk), each null when absent.
struct AttentionMasks {
  const float *query, *key, *attention;
};

/// Whether query step i sees key step j (`row_seen`: the query mask's).
__device__ inline bool attention_sees(const AttentionMasks &masks, bool row_seen,
                                      const AttentionShape &s, int64_t b, int64_t i, int64_t j) {
  return row_seen && !(s.causal && j > i) &&
         !(s.window > 0 && (i - j >= s.window || j - i >= s.window)) &&
         !(masks.key && masks.key[b * s.tk + j] == 0.0f) &&
         !(masks.attention && masks.attention[(b * s.tq + i) * s.tk + j] == 0.0f);
}

/// The score of query step i against key step j, or Keras' masked score.
__device__ inline float attention_score(const float *__restrict__ qrow, const float *__restrict__ k,
                                        const float *__restrict__ feature_scale,
                                        const AttentionMasks &masks, bool row_seen,
                                        const AttentionShape &s, int64_t b, int64_t kh,
                                        int64_t i, int64_t j) {
  const float hidden = -0.7f * 3.40282347e+38f;
  bool seen = attention_sees(masks, row_seen, s, b, i, j);
  if (!seen && !s.has_mask_offset)
    return hidden;
  const float *krow = k + ((b * s.tk + j) * (s.heads / s.group) + kh) * s.d;
  float acc = 0.0f;
  for (int64_t f = 0; f < s.d; ++f) {
    if (!s.additive) {
      acc += qrow[f] * krow[f];
      continue;
    }
    float t = tanhf(s.scale * (qrow[f] + krow[f]));
    acc += feature_scale ? feature_scale[f] * t : t;
  }
  float score = s.additive ? acc * s.score_weight : acc * s.scale;
  return seen ? score : score + s.mask_offset;
}

/// seq.attention: its output into y, or with `weights` its softmax weights.
/// One thread per (batch row, query step, head): the scores twice (their
/// maximum, then the softmax weights), the weighted values summed into y
/// (when y is not null), the weights written to `weights` (batch, heads, tq,
/// tk) (when it is not null).
cudaError_t attention(cudaStream_t stream, const float *q, const float *k, const float *v,
                      const float *feature_scale, AttentionMasks masks, float *y,
                      float *weights, AttentionShape s);

// ---------------------------------------------------------------------------
// Measured choices. Where two ways compute the same layer and which is faster
// depends on the GPU and the shape (seqc's direct convolution or cuDNN's,
// `--conv-backend=auto`), the first call with each input shape times both,
// as cuDNN's own benchmark mode times its algorithms, and from then on only
// the faster one runs for that shape.
// ---------------------------------------------------------------------------

/// The shapes met so far and which way won for each (the last kShapes).
struct MeasuredChoice {
  static constexpr int kShapes = 8, kKey = 4, kRounds = 3;
  struct Entry {
    int64_t key[kKey];
    int pick;
  };
  Entry entries[kShapes] = {};
  int used = 0, next = 0;
};

/// The time one call of `run` takes on `stream`, in ms, or a failure.
template <typename Run>
inline const char *time_once(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, Run &run,
                             float *ms) {
  if (cudaError_t e = cudaEventRecord(start, stream))
    return cudaGetErrorString(e);
  if (const char *failure = run())
    return failure;
  if (cudaError_t e = cudaEventRecord(stop, stream))
    return cudaGetErrorString(e);
  if (cudaError_t e = cudaEventSynchronize(stop))
    return cudaGetErrorString(e);
  if (cudaError_t e = cudaEventElapsedTime(ms, start, stop))
    return cudaGetErrorString(e);
  return nullptr;
}

/// Runs the faster of `first` and `second` (callables returning nullptr or
/// a failure message) for the input shape `key` (batch, spatial sizes;
/// `spatial` of them). A new shape runs each way once (set-up, caches),
/// then times them alternately kRounds times and keeps each one's best; a
/// way that fails meanwhile is not chosen (when both fail, the first's
/// message is returned). The output is the chosen way's own. With
/// SEQC_CUDA_PLANS set, says on stderr what was measured and chosen.
template <typename First, typename Second>
inline const char *run_faster(cudaStream_t stream, MeasuredChoice &choice,
                              const int64_t (&key)[MeasuredChoice::kKey], int spatial,
                              const char *layer, const char *first_name,
                              const char *second_name, First first, Second second) {
  for (int i = 0; i < choice.used; ++i)
    if (std::equal(key, key + MeasuredChoice::kKey, choice.entries[i].key))
      return choice.entries[i].pick == 0 ? first() : second();
  cudaEvent_t start = nullptr, stop = nullptr;
  if (cudaError_t e = cudaEventCreate(&start))
    return cudaGetErrorString(e);
  if (cudaError_t e = cudaEventCreate(&stop)) {
    cudaEventDestroy(start);
    return cudaGetErrorString(e);
  }
  const char *failed[2] = {first(), second()};
  float best[2] = {INFINITY, INFINITY};
  for (int round = 0; round < MeasuredChoice::kRounds; ++round) {
    float ms = 0.0f;
    if (!failed[0] && !(failed[0] = time_once(stream, start, stop, first, &ms)))
      best[0] = std::min(best[0], ms);
    if (!failed[1] && !(failed[1] = time_once(stream, start, stop, second, &ms)))
      best[1] = std::min(best[1], ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (failed[0] && failed[1])
    return failed[0];
  const int pick = failed[1] ? 0 : failed[0] ? 1 : best[1] < best[0] ? 1 : 0;
  MeasuredChoice::Entry &entry = choice.entries[choice.next];
  std::copy(key, key + MeasuredChoice::kKey, entry.key);
  entry.pick = pick;
  choice.next = (choice.next + 1) % MeasuredChoice::kShapes;
  choice.used = std::min(choice.used + 1, MeasuredChoice::kShapes);
  if (plans_reported()) {
    std::fprintf(stderr, "seqc: layer '%s': batch %lld, input ", layer, (long long)key[0]);
    for (int i = 1; i <= spatial; ++i)
      std::fprintf(stderr, "%s%lld", i > 1 ? "x" : "", (long long)key[i]);
    const char *names[2] = {first_name, second_name};
    for (int way = 0; way < 2; ++way)
      if (failed[way])
        std::fprintf(stderr, "%s%s failed (%s)", way ? ", " : ": ", names[way], failed[way]);
      else
        std::fprintf(stderr, "%s%s %.3f ms", way ? ", " : ": ", names[way], best[way]);
    std::fprintf(stderr, ": runs on %s\n", names[pick]);
  }
  // The last way to run was the second, unless it had failed.
  return pick == 1 ? nullptr : first();
}

} // namespace seqc

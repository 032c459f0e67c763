// A CPU stand-in for the small part of CUDA that seqc's generated code uses,
// so that the emitted .cu can be compiled with a host C++ compiler and its
// numbers checked against Keras on machines without a GPU (the CI):
//
//   g++ -std=c++17 -x c++ -DSEQC_CPU_SIMULATION -include seqc_cuda_sim.h model.cu
//
// Every CUDA thread is a fiber scheduled cooperatively on one OS
// thread: __syncthreads, warp shuffles and the cooperative grid barrier are
// real barriers, so races between phases of a kernel show up as wrong
// numbers, as they would on a GPU. Plain launches run one block at a time
// (static __shared__ arrays are then per block); cooperative launches run
// all blocks at once, each with its own dynamic shared memory. "Device"
// memory is host memory. It is slow, and meant for small test models only.
#ifndef SEQC_CUDA_SIM_H
#define SEQC_CUDA_SIM_H

// Fibers switch by ucontext on other CPUs, under sanitizers (which know
// swapcontext's stack changes, not the register switch's), with shadow
// stacks possible (-fcf-protection: the switch's return into a fresh
// fiber was never a call) and with -DSEQC_SIM_UCONTEXT (which tests it).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                  \
    __has_feature(memory_sanitizer)
#define SEQC_SIM_UCONTEXT 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__x86_64__) ||     \
    (defined(__CET__) && (__CET__ & 2))
#define SEQC_SIM_UCONTEXT 1
#endif
#if defined(SEQC_SIM_UCONTEXT)
#include <ucontext.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <math.h>
#include <memory>
#include <tuple>
#include <type_traits>
#include <vector>

// ---- qualifiers ------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
/// The running launch's grid and block (set by seqc_sim::launch). Variables,
/// not macros: cudaLaunchConfig_t has members of these names.
inline dim3 gridDim, blockDim;

// ---- runtime types -----------------------------------------------------------
enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInsufficientDriver = 35,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorCooperativeLaunchTooLarge = 720,
  cudaErrorNotSupported = 801,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorIllegalState = 401,
};
typedef void *cudaStream_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
enum cudaDeviceAttr {
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
struct cudaFuncAttributes {
  int maxDynamicSharedSizeBytes = 0;
  int maxThreadsPerBlock = 1024;
  int binaryVersion = 0; // the architecture the kernel was built for, 90 = sm_90
};
enum cudaLaunchAttributeID { cudaLaunchAttributeClusterDimension = 4 };
union cudaLaunchAttributeValue {
  struct {
    unsigned x, y, z;
  } clusterDim;
};
struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  cudaLaunchAttributeValue val;
};
struct cudaLaunchConfig_t {
  dim3 gridDim, blockDim;
  size_t dynamicSmemBytes;
  void *stream;
  cudaLaunchAttribute *attrs;
  unsigned numAttrs;
};
#define cudaStreamNonBlocking 0x01
#define CUDART_VERSION 13000

namespace seqc_sim {

/// Simulated device limits; SEQC_SIM_SMS / SEQC_SIM_SHARED_BYTES override
/// them so that tests can force the recurrence kernel's fallbacks.
inline int env_or(const char *name, int fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
inline int multiprocessors() { return env_or("SEQC_SIM_SMS", 4); }
/// Compute capability times 10 (SEQC_SIM_COMPUTE, 90 by default: an sm_90
/// GPU running an sm_90 binary, so thread-block clusters are available).
inline int compute_capability() { return env_or("SEQC_SIM_COMPUTE", 90); }
inline int shared_bytes_optin() { return env_or("SEQC_SIM_SHARED_BYTES", 232448); }
/// Resident blocks per SM are capped (1 by default) to keep the number of
/// fibers of a cooperative launch small; the real limits below still apply.
inline int blocks_per_sm_cap() { return env_or("SEQC_SIM_BLOCKS_PER_SM", 1); }
/// Simulated GPUs (SEQC_SIM_DEVICES, 1 by default), the calling thread's
/// current one, and how many launches ran on each.
inline int device_count() { return env_or("SEQC_SIM_DEVICES", 1); }
inline int &current_device() {
  static thread_local int device = 0;
  return device;
}
inline std::map<int, long> &launches_by_device() {
  static std::map<int, long> launches;
  return launches;
}

// ---- launch limits -----------------------------------------------------------
// A GPU refuses a launch that breaks these before running anything; the
// simulation refuses it the same way, so a wrong limit fails a CPU test.
// (Registers per thread are not modelled: ptxas reports them, and the
// kernels' __launch_bounds__ keep them within one block's share.)
constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kMaxThreadsPerSm = 2048;
constexpr int kMaxBlocksPerSm = 32;
constexpr int kDefaultDynamicShared = 48 * 1024; // without the attribute
constexpr int kReservedSharedPerBlock = 1024;
constexpr int kMaxClusterBlocks = 8; // portable; larger ones are not modelled

/// cudaFuncAttributeMaxDynamicSharedMemorySize of every kernel set so far.
inline std::map<const void *, int> &dynamic_shared_limits() {
  static std::map<const void *, int> limits;
  return limits;
}
inline int dynamic_shared_limit(const void *kernel) {
  auto it = dynamic_shared_limits().find(kernel);
  return it == dynamic_shared_limits().end() ? kDefaultDynamicShared : it->second;
}

/// What cudaOccupancyMaxActiveBlocksPerMultiprocessor reports.
inline int blocks_per_sm(int threads, size_t shared) {
  if (threads < 1 || threads > kMaxThreadsPerBlock || shared > (size_t)shared_bytes_optin())
    return 0;
  const int warps = (threads + 31) / 32;
  int blocks = std::min(kMaxBlocksPerSm, kMaxThreadsPerSm / (warps * 32));
  const size_t per_sm = (size_t)shared_bytes_optin() + kReservedSharedPerBlock;
  blocks = std::min<size_t>(blocks, per_sm / (shared + kReservedSharedPerBlock));
  return std::min(blocks, blocks_per_sm_cap());
}

/// The checks of a launch of `kernel`, as the CUDA runtime makes them.
inline cudaError_t check_launch(const void *kernel, dim3 grid, dim3 block, size_t shared,
                                bool cooperative) {
  const long threads = (long)block.x * block.y * block.z;
  if (threads < 1 || threads > kMaxThreadsPerBlock || block.z > 64 || grid.x < 1 ||
      grid.y < 1 || grid.z < 1 || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535)
    return cudaErrorInvalidConfiguration;
  if (shared > (size_t)dynamic_shared_limit(kernel))
    return cudaErrorInvalidValue;
  if (cooperative && (long)grid.x * grid.y * grid.z >
                         (long)blocks_per_sm((int)threads, shared) * multiprocessors())
    return cudaErrorCooperativeLaunchTooLarge;
  return cudaSuccess;
}

/// The blocks of a cluster launch's clusters (1 without the attribute).
inline unsigned cluster_blocks(const cudaLaunchConfig_t &config) {
  for (unsigned i = 0; i < config.numAttrs; ++i)
    if (config.attrs[i].id == cudaLaunchAttributeClusterDimension) {
      const auto &d = config.attrs[i].val.clusterDim;
      return d.x * d.y * d.z;
    }
  return 1;
}

/// The checks of a cluster launch: clusters need sm_90, at most 8 blocks
/// each, a grid of whole clusters, and (in the simulation, which runs every
/// cluster at once) every block resident.
inline cudaError_t check_cluster_launch(const void *kernel, const cudaLaunchConfig_t &config) {
  const unsigned n = cluster_blocks(config);
  const dim3 grid = config.gridDim;
  if (n > 1 && (compute_capability() < 90 || n > (unsigned)kMaxClusterBlocks ||
                grid.y != 1 || grid.z != 1 || grid.x % n != 0))
    return cudaErrorInvalidValue;
  return check_launch(kernel, grid, config.blockDim, config.dynamicSmemBytes, n > 1);
}

/// The error a plain launch leaves for cudaGetLastError.
inline cudaError_t &last_error() {
  static cudaError_t error = cudaSuccess;
  return error;
}

// ---- fiber switches ----------------------------------------------------------
// On x86-64 a switch pushes the callee-saved registers (and MXCSR and the x87
// control word) onto the stack it leaves and pops them from the one it
// enters: no system call. swapcontext saves and restores the signal mask
// with one each time, which was most of the simulation's time.
#if !defined(SEQC_SIM_UCONTEXT)
struct Context {
  void *sp = nullptr;
};

/// Saves the running context into `from` and resumes `to`.
extern "C" inline __attribute__((naked, noinline)) void seqc_sim_switch(Context *from,
                                                                         Context *to) {
  asm("pushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n\t"
      "subq $8, %rsp\n\tstmxcsr (%rsp)\n\tfnstcw 4(%rsp)\n\t"
      "movq %rsp, (%rdi)\n\tmovq (%rsi), %rsp\n\t"
      "ldmxcsr (%rsp)\n\tfldcw 4(%rsp)\n\taddq $8, %rsp\n\t"
      "popq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n\t"
      "ret");
}
inline void switch_context(Context &from, Context &to) { seqc_sim_switch(&from, &to); }

/// A context that, switched to, calls `entry` (which must never return) on
/// `stack`: the frame seqc_sim_switch pops, returning into `entry` as if
/// called (its stack pointer then 8 past a 16-byte boundary).
inline void make_context(Context &c, char *stack, size_t size, void (*entry)()) {
  void **sp = reinterpret_cast<void **>((reinterpret_cast<uintptr_t>(stack) + size) & ~uintptr_t(15));
  *--sp = nullptr; // entry's return address
  *--sp = reinterpret_cast<void *>(entry);
  for (int i = 0; i < 6; ++i) // rbp, rbx, r12-r15
    *--sp = nullptr;
  uint32_t mxcsr;
  uint16_t fcw;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fcw));
  *--sp = reinterpret_cast<void *>(uintptr_t(mxcsr) | uintptr_t(fcw) << 32);
  c.sp = sp;
}
#else
struct Context {
  ucontext_t uc;
};
inline void switch_context(Context &from, Context &to) { swapcontext(&from.uc, &to.uc); }
inline void make_context(Context &c, char *stack, size_t size, void (*entry)()) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = stack;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, entry, 0);
}
#endif

/// Fiber stacks (uninitialized, so only the pages a fiber touches are ever
/// mapped), kept from one launch for the next.
constexpr size_t kStackBytes = 128 * 1024;
inline std::vector<std::unique_ptr<char[]>> &spare_stacks() {
  thread_local std::vector<std::unique_ptr<char[]>> stacks;
  return stacks;
}

struct Fiber {
  Context context;
  dim3 thread_idx, block_idx;
  int block = 0;  // linear block index within the launch
  int linear = 0; // linear thread index within the block
  bool done = false;
};

struct Barrier {
  int arrived = 0;
  unsigned long generation = 0;
};

struct Launch {
  dim3 grid, block;
  std::function<void()> body;
  std::vector<Fiber> fibers;
  std::vector<std::unique_ptr<char[]>> stacks; // taken from spare_stacks, given back at the end
  std::vector<std::vector<char>> dynamic_shared; // one per resident block
  std::vector<Barrier> block_barriers, warp_barriers, cluster_barriers;
  std::vector<float> warp_slots;
  Barrier grid_barrier;
  int threads_per_block = 0, resident_blocks = 0, first_block = 0, cluster_size = 1;
  Context scheduler;
  Fiber *current = nullptr;

  ~Launch() {
    for (auto &stack : stacks)
      spare_stacks().push_back(std::move(stack));
  }
};

inline Launch *&active() {
  static Launch *launch = nullptr;
  return launch;
}
inline Fiber &current_fiber() { return *active()->current; }

inline void yield() {
  Launch &l = *active();
  switch_context(l.current->context, l.scheduler);
}

/// Waits until `count` fibers have arrived at `b`.
inline void arrive(Barrier &b, int count) {
  unsigned long gen = b.generation;
  if (++b.arrived == count) {
    b.arrived = 0;
    ++b.generation;
    return;
  }
  while (b.generation == gen)
    yield();
}

inline void trampoline() {
  Launch &l = *active();
  l.body();
  l.current->done = true;
  switch_context(l.current->context, l.scheduler);
}

/// Runs blocks [first, first + count) of `l` concurrently to completion.
inline void run_blocks(Launch &l, int first, int count) {
  const int tpb = l.threads_per_block;
  const size_t n = (size_t)count * tpb;
  for (auto &spare = spare_stacks(); l.stacks.size() < n;) {
    if (spare.empty()) {
      l.stacks.emplace_back(new char[kStackBytes]);
    } else {
      l.stacks.push_back(std::move(spare.back()));
      spare.pop_back();
    }
  }
  l.fibers.assign(n, Fiber());
  l.block_barriers.assign(count, Barrier());
  l.cluster_barriers.assign((count + l.cluster_size - 1) / l.cluster_size, Barrier());
  l.warp_barriers.assign((size_t)count * ((tpb + 31) / 32), Barrier());
  l.warp_slots.assign((size_t)count * ((tpb + 31) / 32) * 32, 0.0f);
  l.first_block = first;
  l.resident_blocks = count;
  for (size_t i = 0; i < n; ++i) {
    Fiber &f = l.fibers[i];
    f.block = first + (int)(i / tpb);
    f.linear = (int)(i % tpb);
    f.block_idx = dim3(f.block % l.grid.x, (f.block / l.grid.x) % l.grid.y,
                       f.block / (l.grid.x * l.grid.y));
    f.thread_idx = dim3(f.linear % l.block.x, (f.linear / l.block.x) % l.block.y,
                        f.linear / (l.block.x * l.block.y));
    make_context(f.context, l.stacks[i].get(), kStackBytes, trampoline);
  }
  for (size_t remaining = n; remaining;) {
    remaining = 0;
    for (Fiber &f : l.fibers) {
      if (f.done)
        continue;
      l.current = &f;
      switch_context(l.scheduler, f.context);
      remaining += !f.done;
    }
  }
}

/// A stream capture in progress (one stream, as the simulation has): what it
/// recorded, and whether something it cannot hold invalidated it.
struct Capture {
  bool active = false, invalidated = false;
  std::vector<std::function<void()>> work;
};
inline Capture &capture() {
  static Capture c;
  return c;
}
/// Runs `work` now, or records it into the capture in progress.
inline void run_or_record(std::function<void()> work) {
  if (capture().active)
    capture().work.push_back(std::move(work));
  else
    work();
}
/// What a host wait during a capture does on a GPU: it fails and
/// invalidates the capture.
inline cudaError_t refuse_while_capturing() {
  if (!capture().active)
    return cudaSuccess;
  capture().invalidated = true;
  return cudaErrorStreamCaptureUnsupported;
}
inline long &graph_launches() {
  static long n = 0;
  return n;
}

inline void launch(dim3 grid, dim3 block, size_t shared, bool cooperative,
                   std::function<void()> body, int cluster_size = 1) {
  if (capture().active) {
    capture().work.push_back([=] { launch(grid, block, shared, cooperative, body, cluster_size); });
    return;
  }
  ++launches_by_device()[current_device()];
  Launch l;
  l.cluster_size = cluster_size;
  l.grid = grid;
  l.block = block;
  l.body = std::move(body);
  l.threads_per_block = (int)(block.x * block.y * block.z);
  const int blocks = (int)(grid.x * grid.y * grid.z);
  Launch *outer = active();
  const dim3 outer_grid = gridDim, outer_block = blockDim;
  active() = &l;
  gridDim = grid;
  blockDim = block;
  if (cooperative) {
    l.dynamic_shared.assign(blocks, std::vector<char>(shared + 16));
    run_blocks(l, 0, blocks);
  } else {
    l.dynamic_shared.assign(1, std::vector<char>(shared + 16));
    for (int b = 0; b < blocks; ++b)
      run_blocks(l, b, 1);
  }
  active() = outer;
  gridDim = outer_grid;
  blockDim = outer_block;
}

template <typename... Params> struct Launcher {
  void (*kernel)(Params...);
  dim3 grid, block;
  size_t shared;
  template <typename... Args> void operator()(Args &&...args) const {
    cudaError_t error =
        check_launch(reinterpret_cast<const void *>(kernel), grid, block, shared, false);
    if (error != cudaSuccess) {
      last_error() = error;
      return;
    }
    std::tuple<std::decay_t<Params>...> copied(std::forward<Args>(args)...);
    auto k = kernel;
    launch(grid, block, shared, false, [k, copied] { std::apply(k, copied); });
  }
};
template <typename... Params>
Launcher<Params...> make_launcher(void (*kernel)(Params...), dim3 grid, dim3 block,
                                  size_t shared) {
  return Launcher<Params...>{kernel, grid, block, shared};
}

inline void *dynamic_shared() {
  Launch &l = *active();
  return l.dynamic_shared[l.dynamic_shared.size() == 1 ? 0 : l.current->block].data();
}

inline int warp_index() {
  Launch &l = *active();
  Fiber &f = *l.current;
  return (f.block - l.first_block) * ((l.threads_per_block + 31) / 32) + f.linear / 32;
}

/// All 32 lanes publish `v`, then each reads lane `source(lane)`.
template <typename Source> float exchange(float v, Source source) {
  Launch &l = *active();
  const int warp = warp_index(), lane = l.current->linear % 32;
  float *slots = &l.warp_slots[(size_t)warp * 32];
  slots[lane] = v;
  arrive(l.warp_barriers[warp], 32);
  float r = slots[source(lane)];
  arrive(l.warp_barriers[warp], 32);
  return r;
}

} // namespace seqc_sim

#define SEQC_LAUNCH(kernel, grid, block, shared, stream)                                   \
  ((void)(stream), ::seqc_sim::make_launcher(kernel, dim3(grid), dim3(block), shared))
#define SEQC_DYNAMIC_SHARED(type, name) type *name = (type *)::seqc_sim::dynamic_shared()
#define SEQC_UNROLL

#define threadIdx (::seqc_sim::current_fiber().thread_idx)
#define blockIdx (::seqc_sim::current_fiber().block_idx)

inline void __syncthreads() {
  seqc_sim::Launch &l = *seqc_sim::active();
  seqc_sim::arrive(l.block_barriers[l.current->block - l.first_block], l.threads_per_block);
}

inline float __shfl_down_sync(unsigned, float v, int delta, int width = 32) {
  return seqc_sim::exchange(v, [&](int lane) {
    int src = lane + delta;
    return (src / width == lane / width) ? src : lane;
  });
}
inline float __shfl_xor_sync(unsigned, float v, int mask, int width = 32) {
  return seqc_sim::exchange(v, [&](int lane) {
    int src = lane ^ mask;
    return (src / width == lane / width) ? src : lane;
  });
}

template <typename T> inline T __ldcg(const T *p) { return *p; }
template <typename T> inline T __ldg(const T *p) { return *p; }
inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long compare,
                                    unsigned long long value) {
  unsigned long long old = *p; // fibers never interleave inside this call
  if (old == compare)
    *p = value;
  return old;
}
inline unsigned atomicAdd(unsigned *p, unsigned value) {
  unsigned old = *p; // fibers never interleave inside this call
  *p = old + value;
  return old;
}
/// Fibers share one OS thread, so memory is always coherent between them.
inline void __threadfence() {}
/// A spinning thread lets the other fibers run (they would otherwise never
/// make the progress it waits for).
inline void __nanosleep(unsigned) { seqc_sim::yield(); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }

namespace cooperative_groups {
struct grid_group {
  void sync() {
    seqc_sim::Launch &l = *seqc_sim::active();
    seqc_sim::arrive(l.grid_barrier, l.threads_per_block * l.resident_blocks);
  }
};
inline grid_group this_grid() { return grid_group(); }
/// The blocks of one cluster meet at its barrier (a launch without clusters
/// has clusters of one block).
struct cluster_group {
  void sync() {
    seqc_sim::Launch &l = *seqc_sim::active();
    const int cluster = (l.current->block - l.first_block) / l.cluster_size;
    seqc_sim::arrive(l.cluster_barriers[cluster], l.threads_per_block * l.cluster_size);
  }
};
inline cluster_group this_cluster() { return cluster_group(); }
} // namespace cooperative_groups

namespace seqc_sim {
/// A float rounded to `bits` mantissa bits (round to nearest even).
inline float round_mantissa(float v, int bits) {
  const int drop = 23 - bits;
  uint32_t u;
  std::memcpy(&u, &v, 4);
  u = (u + (1u << (drop - 1)) - 1u + ((u >> drop) & 1u)) & ~((1u << drop) - 1u);
  std::memcpy(&v, &u, 4);
  return v;
}
/// As a tensor core takes its operands: TF32 keeps 10 bits, BF16 7.
inline float tf32(float v) { return round_mantissa(v, 10); }
inline float bf16(float v) { return round_mantissa(v, 7); }
} // namespace seqc_sim

/// cuda_bf16.h's type, holding its value as the float it stands for.
struct __nv_bfloat16 {
  float value;
  operator float() const { return value; }
};
inline __nv_bfloat16 __float2bfloat16(float v) { return {seqc_sim::bf16(v)}; }

// Warp matrix operations (TF32 m16n16k8, BF16 m16n16k16, any shape): every lane
// holds the whole tile, and a collective operation is each lane doing all of
// it. The results are a GPU's; which lane holds which element is not
// modelled (code that indexes fragment elements by position would not be
// checked).
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
namespace precision {
struct tf32 {};
} // namespace precision
enum layout_t { mem_row_major, mem_col_major };
template <typename Use, int M, int N, int K> struct tile_shape;
template <int M, int N, int K> struct tile_shape<matrix_a, M, N, K> {
  static constexpr int rows = M, cols = K;
};
template <int M, int N, int K> struct tile_shape<matrix_b, M, N, K> {
  static constexpr int rows = K, cols = N;
};
template <int M, int N, int K> struct tile_shape<accumulator, M, N, K> {
  static constexpr int rows = M, cols = N;
};
template <typename Use, int M, int N, int K, typename T, typename Layout = void>
struct fragment {
  static constexpr int rows = tile_shape<Use, M, N, K>::rows,
                       cols = tile_shape<Use, M, N, K>::cols;
  static constexpr int num_elements = rows * cols;
  float x[num_elements]; // row-major
};
template <typename Use, int M, int N, int K, typename T, typename L>
inline void fill_fragment(fragment<Use, M, N, K, T, L> &f, float v) {
  for (float &e : f.x)
    e = v;
}
template <typename Use, int M, int N, int K, typename T, typename L, typename E>
inline void load_matrix_sync(fragment<Use, M, N, K, T, L> &f, const E *p, unsigned ldm) {
  using F = fragment<Use, M, N, K, T, L>;
  const bool column = std::is_same<L, col_major>::value;
  for (int r = 0; r < F::rows; ++r)
    for (int c = 0; c < F::cols; ++c)
      f.x[r * F::cols + c] = column ? (float)p[(size_t)c * ldm + r] : (float)p[(size_t)r * ldm + c];
}
template <int M, int N, int K, typename T>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T> &f, const float *p, unsigned ldm,
                             layout_t layout) {
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c)
      f.x[r * N + c] = layout == mem_row_major ? p[(size_t)r * ldm + c] : p[(size_t)c * ldm + r];
}
template <int M, int N, int K, typename T>
inline void store_matrix_sync(float *p, const fragment<accumulator, M, N, K, T> &f, unsigned ldm,
                              layout_t layout) {
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c)
      (layout == mem_row_major ? p[(size_t)r * ldm + c] : p[(size_t)c * ldm + r]) =
          f.x[r * N + c];
}
template <int M, int N, int K, typename TA, typename LA, typename TB, typename LB, typename T>
inline void mma_sync(fragment<accumulator, M, N, K, T> &d,
                     const fragment<matrix_a, M, N, K, TA, LA> &a,
                     const fragment<matrix_b, M, N, K, TB, LB> &b,
                     const fragment<accumulator, M, N, K, T> &c) {
  float out[M * N];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = c.x[i * N + j];
      for (int k = 0; k < K; ++k)
        sum = fmaf(a.x[i * K + k], b.x[k * N + j], sum);
      out[i * N + j] = sum;
    }
  std::memcpy(d.x, out, sizeof out);
}
inline float __float_to_tf32(float v) { return seqc_sim::tf32(v); }
} // namespace wmma
} // namespace nvcuda

// ---- runtime API -------------------------------------------------------------
inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
  case cudaSuccess:
    return "no error";
  case cudaErrorInvalidValue:
    return "invalid argument";
  case cudaErrorInvalidConfiguration:
    return "invalid configuration argument";
  case cudaErrorMemoryAllocation:
    return "out of memory";
  case cudaErrorCooperativeLaunchTooLarge:
    return "too many blocks in cooperative launch";
  case cudaErrorNotSupported:
    return "operation not supported";
  case cudaErrorStreamCaptureUnsupported:
    return "operation not permitted when stream is capturing";
  case cudaErrorStreamCaptureInvalidated:
    return "operation failed due to a previous error during capture";
  case cudaErrorIllegalState:
    return "the operation cannot be performed in the present state";
  case cudaErrorInvalidDevice:
    return "invalid device ordinal";
  default:
    return "unknown error";
  }
}
inline const char *cudaGetErrorName(cudaError_t e) { return cudaGetErrorString(e); }
inline cudaError_t cudaGetLastError() {
  cudaError_t error = seqc_sim::last_error();
  seqc_sim::last_error() = cudaSuccess;
  return error;
}
inline cudaError_t cudaGetDeviceCount(int *n) {
  *n = seqc_sim::device_count();
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int *d) {
  *d = seqc_sim::current_device();
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int d) {
  if (d < 0 || d >= seqc_sim::device_count())
    return cudaErrorInvalidDevice;
  seqc_sim::current_device() = d;
  return cudaSuccess;
}
inline cudaError_t cudaDriverGetVersion(int *v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
inline cudaError_t cudaRuntimeGetVersion(int *v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int) {
  switch (attr) {
  case cudaDevAttrMultiProcessorCount:
    *value = seqc_sim::multiprocessors();
    break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin:
    *value = seqc_sim::shared_bytes_optin();
    break;
  case cudaDevAttrCooperativeLaunch:
    *value = 1;
    break;
  case cudaDevAttrComputeCapabilityMajor:
    *value = seqc_sim::compute_capability() / 10;
    break;
  case cudaDevAttrComputeCapabilityMinor:
    *value = seqc_sim::compute_capability() % 10;
    break;
  }
  return cudaSuccess;
}
inline cudaError_t cudaFuncSetAttribute(const void *kernel, cudaFuncAttribute attribute,
                                        int value) {
  if (attribute != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 ||
      value > seqc_sim::shared_bytes_optin())
    return cudaErrorInvalidValue;
  seqc_sim::dynamic_shared_limits()[kernel] = value;
  return cudaSuccess;
}
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attributes, const void *kernel) {
  *attributes = cudaFuncAttributes();
  attributes->maxDynamicSharedSizeBytes = seqc_sim::dynamic_shared_limit(kernel);
  attributes->binaryVersion = seqc_sim::compute_capability();
  return cudaSuccess;
}
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *,
                                                                 int threads, size_t shared) {
  *blocks = seqc_sim::blocks_per_sm(threads, shared);
  return cudaSuccess;
}
inline cudaError_t cudaOccupancyMaxActiveClusters(int *clusters, const void *kernel,
                                                  const cudaLaunchConfig_t *config) {
  *clusters = 0;
  if (seqc_sim::check_cluster_launch(kernel, *config) != cudaSuccess)
    return cudaSuccess;
  const int threads = (int)(config->blockDim.x * config->blockDim.y * config->blockDim.z);
  *clusters = seqc_sim::blocks_per_sm(threads, config->dynamicSmemBytes) *
              seqc_sim::multiprocessors() / (int)seqc_sim::cluster_blocks(*config);
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) {
  *s = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return seqc_sim::refuse_while_capturing();
}
inline cudaError_t cudaDeviceSynchronize() { return seqc_sim::refuse_while_capturing(); }
inline cudaError_t cudaMalloc(void **p, size_t bytes) {
  *p = std::calloc(1, bytes ? bytes : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <typename T> inline cudaError_t cudaMalloc(T **p, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void **>(p), bytes);
}
inline cudaError_t cudaFree(void *p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind,
                                   cudaStream_t = nullptr) {
  seqc_sim::run_or_record([=] { std::memmove(dst, src, bytes); });
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind k) {
  if (cudaError_t e = seqc_sim::refuse_while_capturing())
    return e;
  return cudaMemcpyAsync(dst, src, bytes, k);
}
inline cudaError_t cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t = nullptr) {
  seqc_sim::run_or_record([=] { std::memset(dst, value, bytes); });
  return cudaSuccess;
}

/// Events hold the host time they were recorded at: launches run to
/// completion when they are made, so the time between two events is what
/// the work between them took (in the simulation).
struct CUevent_st {
  std::chrono::steady_clock::time_point at;
  bool recorded = false;
};
typedef CUevent_st *cudaEvent_t;
inline cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = new CUevent_st();
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = nullptr) {
  seqc_sim::run_or_record([e] {
    e->at = std::chrono::steady_clock::now();
    e->recorded = true;
  });
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return seqc_sim::refuse_while_capturing(); }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  if (cudaError_t e = seqc_sim::refuse_while_capturing())
    return e;
  if (!start->recorded || !end->recorded)
    return cudaErrorInvalidValue;
  *ms = std::chrono::duration<float, std::milli>(end->at - start->at).count();
  return cudaSuccess;
}

/// CUDA graphs: a capture records the stream's work (launches, copies,
/// fills, cuDNN calls) instead of doing it; a graph launch does it.
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
struct CUgraph_st {
  std::vector<std::function<void()>> work;
};
typedef CUgraph_st *cudaGraph_t;
typedef CUgraph_st *cudaGraphExec_t;
inline cudaError_t cudaStreamBeginCapture(cudaStream_t, cudaStreamCaptureMode) {
  if (seqc_sim::capture().active)
    return cudaErrorIllegalState;
  seqc_sim::capture() = seqc_sim::Capture();
  seqc_sim::capture().active = true;
  return cudaSuccess;
}
inline cudaError_t cudaStreamEndCapture(cudaStream_t, cudaGraph_t *graph) {
  seqc_sim::Capture &c = seqc_sim::capture();
  if (!c.active)
    return cudaErrorIllegalState;
  c.active = false;
  *graph = nullptr;
  if (c.invalidated)
    return cudaErrorStreamCaptureInvalidated;
  *graph = new CUgraph_st{std::move(c.work)};
  return cudaSuccess;
}
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                        unsigned long long = 0) {
  *exec = new CUgraph_st(*graph);
  return cudaSuccess;
}
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t) {
  ++seqc_sim::graph_launches();
  for (const std::function<void()> &work : exec->work)
    seqc_sim::run_or_record(work);
  return cudaSuccess;
}
inline cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete graph;
  return cudaSuccess;
}
inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete exec;
  return cudaSuccess;
}

/// Cooperative launch of a typed kernel (the library calls it through
/// seqc::launch_cooperative).
template <typename Arg>
inline cudaError_t seqc_sim_launch_cooperative(void (*kernel)(Arg), dim3 grid, dim3 block,
                                               size_t shared, Arg arg) {
  cudaError_t error = seqc_sim::check_launch(reinterpret_cast<const void *>(kernel), grid,
                                             block, shared, true);
  if (error != cudaSuccess)
    return error;
  seqc_sim::launch(grid, block, shared, true, [kernel, arg] { kernel(arg); });
  return cudaSuccess;
}

/// A launch with attributes (thread-block clusters): the blocks of every
/// cluster run at once, each cluster with its own barrier.
template <typename... Params, typename... Args>
inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(Params...),
                                      Args &&...args) {
  cudaError_t error =
      seqc_sim::check_cluster_launch(reinterpret_cast<const void *>(kernel), *config);
  if (error != cudaSuccess)
    return error;
  const int n = (int)seqc_sim::cluster_blocks(*config);
  std::tuple<std::decay_t<Params>...> copied(std::forward<Args>(args)...);
  if (n > 1)
    seqc_sim::launch(config->gridDim, config->blockDim, config->dynamicSmemBytes, true,
                     [kernel, copied] { std::apply(kernel, copied); }, n);
  else
    seqc_sim::launch(config->gridDim, config->blockDim, config->dynamicSmemBytes, false,
                     [kernel, copied] { std::apply(kernel, copied); });
  return cudaSuccess;
}

// cuDNN's convolution API, for models that run convolutions on cuDNN.
#include "seqc_cudnn_sim.h"

#endif // SEQC_CUDA_SIM_H

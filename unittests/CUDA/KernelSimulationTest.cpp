// The CUDA kernel library (lib/Target/CUDA/kernels/seqc_kernels.cuh) run on
// the CPU through seqc_cuda_sim.h, against the reference kernels (Keras
// semantics). Shapes are chosen to hit the edges of every tiling: GEMM
// tiles, the recurrence's batch chunks (16 rows) and h chunks (128 units),
// slices smaller than a warp, and the global-memory weight fallback.
#include "seq/Runtime/ReferenceKernels.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <random>
#include <string>

#define SEQC_CPU_SIMULATION 1
#include "seqc_cuda_sim.h"
#include "seqc_kernels.cuh"
#include "seqc_fixed_kernels.cu"
#include "seqc_call_graphs.cuh"

using seq::rt::Activation;
using seq::rt::Tensor;

namespace {

Tensor random(std::vector<int64_t> shape, unsigned seed, float scale = 1.0f) {
  Tensor t = Tensor::zeros(std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  for (float &v : t.data)
    v = dist(rng);
  return t;
}

void expectClose(const std::vector<float> &actual, const Tensor &expected, double tolerance,
                 const std::string &what) {
  ASSERT_EQ(actual.size(), expected.data.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i)
    ASSERT_NEAR(actual[i], expected.data[i], tolerance) << what << " at flat index " << i;
}

static_assert(static_cast<int>(Activation::Exponential) ==
                  static_cast<int>(seqc::Act::Exponential),
              "the two activation enums list the same functions in the same order");

/// Sets a simulated device limit for the lifetime of the object.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name(name) {
    if (const char *old = std::getenv(name))
      previous = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (previous.empty())
      unsetenv(name);
    else
      setenv(name, previous.c_str(), 1);
  }

private:
  const char *name;
  std::string previous;
};

//===----------------------------------------------------------------------===//
// seq.linear
//===----------------------------------------------------------------------===//

template <seqc::Act A>
void checkLinear(int64_t m, int n, int k, Activation act, float alpha, bool withBias,
                 int64_t rowsPerLaunch = seqc::kGemmMaxRowsPerLaunch) {
  Tensor x = random({m, k}, 1 + m, 2.0f), w = random({k, n}, 2 + n), b = random({n}, 3);
  Tensor want = seq::rt::dense(x, w, withBias ? &b : nullptr, act, alpha);
  std::vector<float> got(m * n, -7.0f);
  ASSERT_EQ(seqc::linear<A>(nullptr, x.data.data(), w.data.data(),
                            withBias ? b.data.data() : nullptr, got.data(), m, n, k, alpha,
                            rowsPerLaunch),
            cudaSuccess);
  expectClose(got, want, 2e-5,
              "linear " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
}

/// The tensor-core GEMM against the float32 reference: operands keep 10
/// (TF32) or 7 (BF16) mantissa bits, so each product is within 2^-10 or
/// 2^-7 of the exact one (relative), and the sum within that of the sum of
/// |products|; a float32 result would be about 2^-23 of it, which the lower
/// bound rules out.
template <seqc::Act A>
void checkTensorCoreLinear(seqc::GemmMath math, int64_t m, int n, int k, Activation act,
                           bool withBias, int64_t rowsPerLaunch = seqc::kGemmMaxRowsPerLaunch) {
  const int bits = math == seqc::GemmMath::Tf32 ? 10 : 7;
  Tensor x = random({m, k}, 1 + m, 2.0f), w = random({k, n}, 2 + n), b = random({n}, 3);
  Tensor want = seq::rt::dense(x, w, withBias ? &b : nullptr, act, 0.0f);
  std::vector<float> got(m * n, -7.0f);
  ASSERT_EQ(seqc::linear_with<A>(math, nullptr, x.data.data(), w.data.data(),
                                 withBias ? b.data.data() : nullptr, got.data(), m, n, k, 0.0f,
                                 rowsPerLaunch),
            cudaSuccess);
  double worst = 0.0;
  for (int64_t i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double magnitude = 0.0;
      for (int kk = 0; kk < k; ++kk)
        magnitude += std::fabs((double)x.data[i * k + kk] * w.data[(size_t)kk * n + j]);
      double error = std::fabs((double)got[i * n + j] - want.data[i * n + j]);
      ASSERT_LE(error, magnitude * std::ldexp(1.0, -bits) + 1e-6)
          << "row " << i << " column " << j << " of " << m << "x" << k << "x" << n;
      if (magnitude > 0)
        worst = std::max(worst, error / magnitude);
    }
  // float32 stays near 2^-23 of the magnitude; 10 or 7 bits show.
  if (k >= 8) {
    EXPECT_GT(worst, 1e-5) << "the result looks float32, not TF32";
  }
}

/// seqc::activate<A> against the reference on the far tails, relative to
/// the value: where 1 + erf, 1 + tanh or x + sqrt(x^2 + 4) cancel, a
/// kernel written that way returns 0 (or inf) instead of a tiny number.
template <seqc::Act A> void checkTails(Activation act) {
  const float xs[] = {-60.0f, -30.0f, -12.0f, -7.5f, -3.0f, 3.0f, 12.0f, 1e20f, -1e20f};
  Tensor want = Tensor::zeros({int64_t(std::size(xs))});
  want.data.assign(std::begin(xs), std::end(xs));
  seq::rt::applyActivation(act, 0.0f, want);
  for (size_t i = 0; i < std::size(xs); ++i) {
    float got = seqc::activate<A>(xs[i], 0.0f);
    float expected = want.data[i];
    if (expected == 0.0f || std::fabs(expected) < 1e-37f) // below float's normals
      EXPECT_LE(std::fabs(got), 1e-37f) << "x = " << xs[i];
    else
      EXPECT_NEAR(got / expected, 1.0f, 1e-5f) << "x = " << xs[i] << ": " << got
                                                << " vs " << expected;
  }
}

TEST(CudaKernelSimulation, ActivationsKeepTheirTails) {
  checkTails<seqc::Act::Gelu>(Activation::Gelu);
  checkTails<seqc::Act::GeluTanh>(Activation::GeluTanh);
  checkTails<seqc::Act::Squareplus>(Activation::Squareplus);
  checkTails<seqc::Act::Sigmoid>(Activation::Sigmoid);
  checkTails<seqc::Act::Swish>(Activation::Swish);
}

TEST(CudaKernelSimulation, LinearMatchesDenseAcrossTileEdges) {
  checkLinear<seqc::Act::Linear>(1, 1, 1, Activation::Linear, 0, true);
  checkLinear<seqc::Act::Relu>(70, 37, 19, Activation::Relu, 0, true);
  checkLinear<seqc::Act::Tanh>(65, 130, 33, Activation::Tanh, 0, false);
  checkLinear<seqc::Act::Sigmoid>(3, 64, 16, Activation::Sigmoid, 0, true);
}

// More rows than one launch's grid can hold (65535 row tiles, 4.19 M rows)
// are split into launches; shown here with small launches.
TEST(CudaKernelSimulation, LinearSplitsRowsAcrossLaunches) {
  static_assert(seqc::kGemmMaxRowsPerLaunch / seqc::kGemmTileM <= 65535,
                "one launch's row tiles fit in grid.y");
  checkLinear<seqc::Act::Relu>(200, 37, 19, Activation::Relu, 0, true, 3 * seqc::kGemmTileM);
  checkLinear<seqc::Act::Softmax>(150, 10, 7, Activation::Softmax, 0, true, seqc::kGemmTileM);
}

// --cuda-math=tf32|bf16: the same GEMM on tensor cores, across the tile
// edges (M, N, K not multiples of 64, 64, 16; K below one k-step) and split
// launches.
TEST(CudaKernelSimulation, LinearOnTensorCores) {
  for (seqc::GemmMath math : {seqc::GemmMath::Tf32, seqc::GemmMath::Bf16}) {
    SCOPED_TRACE(math == seqc::GemmMath::Tf32 ? "tf32" : "bf16");
    checkTensorCoreLinear<seqc::Act::Linear>(math, 1, 1, 1, Activation::Linear, true);
    checkTensorCoreLinear<seqc::Act::Linear>(math, 70, 37, 19, Activation::Linear, true);
    checkTensorCoreLinear<seqc::Act::Linear>(math, 65, 130, 40, Activation::Linear, false);
    checkTensorCoreLinear<seqc::Act::Linear>(math, 200, 37, 5, Activation::Linear, true,
                                             seqc::kGemmTileM);
  }
}

TEST(CudaKernelSimulation, LinearEpilogueActivations) {
  checkLinear<seqc::Act::Gelu>(5, 7, 9, Activation::Gelu, 0, true);
  checkLinear<seqc::Act::GeluTanh>(5, 7, 9, Activation::GeluTanh, 0, true);
  checkLinear<seqc::Act::Elu>(5, 7, 9, Activation::Elu, 1.0f, true);
  checkLinear<seqc::Act::Selu>(5, 7, 9, Activation::Selu, 0, true);
  checkLinear<seqc::Act::LeakyRelu>(5, 7, 9, Activation::LeakyRelu, 0.2f, true);
  checkLinear<seqc::Act::Swish>(5, 7, 9, Activation::Swish, 0, true);
  checkLinear<seqc::Act::Softplus>(5, 7, 9, Activation::Softplus, 0, true);
  checkLinear<seqc::Act::Softsign>(5, 7, 9, Activation::Softsign, 0, true);
  checkLinear<seqc::Act::HardSigmoidKeras2>(5, 7, 9, Activation::HardSigmoidKeras2, 0, true);
  checkLinear<seqc::Act::HardSigmoidKeras3>(5, 7, 9, Activation::HardSigmoidKeras3, 0, true);
  checkLinear<seqc::Act::Exponential>(5, 7, 9, Activation::Exponential, 0, true);
  checkLinear<seqc::Act::Softmax>(5, 70, 9, Activation::Softmax, 0, true);
  checkLinear<seqc::Act::LogSoftmax>(5, 70, 9, Activation::LogSoftmax, 0, true);
  checkLinear<seqc::Act::Relu6>(5, 7, 9, Activation::Relu6, 0, true);
  checkLinear<seqc::Act::HardSilu>(5, 7, 9, Activation::HardSilu, 0, true);
  checkLinear<seqc::Act::Mish>(5, 7, 9, Activation::Mish, 0, true);
  checkLinear<seqc::Act::Celu>(5, 7, 9, Activation::Celu, 0.7f, true);
  checkLinear<seqc::Act::HardTanh>(5, 7, 9, Activation::HardTanh, 0, true);
  checkLinear<seqc::Act::LogSigmoid>(5, 7, 9, Activation::LogSigmoid, 0, true);
  checkLinear<seqc::Act::SparsePlus>(5, 7, 9, Activation::SparsePlus, 0, true);
  checkLinear<seqc::Act::Squareplus>(5, 7, 9, Activation::Squareplus, 0, true);
  checkLinear<seqc::Act::TanhShrink>(5, 7, 9, Activation::TanhShrink, 0, true);
  checkLinear<seqc::Act::SoftShrink>(5, 7, 9, Activation::SoftShrink, 0, true);
  checkLinear<seqc::Act::HardShrink>(5, 7, 9, Activation::HardShrink, 0, true);
  checkLinear<seqc::Act::SparseSigmoid>(5, 7, 9, Activation::SparseSigmoid, 0, true);
  checkLinear<seqc::Act::ThresholdedRelu>(5, 7, 9, Activation::ThresholdedRelu, 0.3f, true);
  checkLinear<seqc::Act::Abs>(5, 7, 9, Activation::Abs, 0, true);
}

//===----------------------------------------------------------------------===//
// Recurrences
//===----------------------------------------------------------------------===//

struct RecurrenceCase {
  int64_t units, batch, steps;
  bool goBackwards, returnSequences;
};

std::string describe(const char *cell, const RecurrenceCase &c) {
  return std::string(cell) + " units=" + std::to_string(c.units) +
         " batch=" + std::to_string(c.batch) + " steps=" + std::to_string(c.steps) +
         (c.goBackwards ? " go_backwards" : "") + (c.returnSequences ? " sequences" : "");
}

/// Runs a recurrence with `plan` as it is and returns its output.
std::vector<float> runPlannedRecurrence(const RecurrenceCase &c, const Tensor &xproj,
                                        const Tensor &u, const Tensor *rbias,
                                        const seqc::RecurrencePlan &plan, float alpha = 0,
                                        float recurrentAlpha = 0) {
  const int64_t B = c.batch, T = c.steps, U = c.units;
  std::vector<float> out((c.returnSequences ? B * T : B) * U, -7.0f), h(2 * B * U, -7.0f),
      cell(B * U, -7.0f), z(B * U), rh(B * U);
  seqc::RecurrenceArgs args{};
  args.xproj = xproj.data.data();
  args.u = u.data.data();
  args.rbias = rbias ? rbias->data.data() : nullptr;
  args.out = out.data();
  args.h = h.data();
  args.c = cell.data();
  args.z = z.data();
  args.rh = rh.data();
  args.batch = static_cast<int>(B);
  args.steps = static_cast<int>(T);
  args.units = static_cast<int>(U);
  args.go_backwards = c.goBackwards;
  args.return_sequences = c.returnSequences;
  args.alpha = alpha;
  args.recurrent_alpha = recurrentAlpha;
  EXPECT_EQ(seqc::run_recurrence(nullptr, plan, args), cudaSuccess);
  return out;
}

/// Plans and runs the recurrence kernel for cell C; returns output and plan.
template <seqc::Cell C, seqc::Act A, seqc::Act R>
std::vector<float> runRecurrence(const RecurrenceCase &c, const Tensor &xproj, const Tensor &u,
                                 const Tensor *rbias, seqc::RecurrencePlan &plan,
                                 float alpha = 0, float recurrentAlpha = 0) {
  EXPECT_EQ((seqc::plan_recurrence<C, A, R>(static_cast<int>(c.units), &plan)), cudaSuccess);
  return runPlannedRecurrence(c, xproj, u, rbias, plan, alpha, recurrentAlpha);
}

seq::rt::RnnOptions optionsFor(const RecurrenceCase &c, Activation act, Activation rec,
                               float alpha = 0, float recurrentAlpha = 0) {
  seq::rt::RnnOptions o;
  o.alpha = alpha;
  o.recurrentAlpha = recurrentAlpha;
  o.returnSequences = c.returnSequences;
  o.goBackwards = c.goBackwards;
  o.activation = act;
  o.recurrentActivation = rec;
  return o;
}

template <seqc::Act A = seqc::Act::Tanh, seqc::Act R = seqc::Act::Sigmoid>
seqc::RecurrencePlan checkLstm(const RecurrenceCase &c, Activation act = Activation::Tanh,
                               Activation rec = Activation::Sigmoid, bool expectShared = true) {
  Tensor xproj = random({c.batch, c.steps, 4 * c.units}, 11 + c.units);
  Tensor u = random({c.units, 4 * c.units}, 12 + c.units, 1.5f / std::sqrt(float(c.units)));
  Tensor want = seq::rt::lstmRecurrence(xproj, u, optionsFor(c, act, rec));
  seqc::RecurrencePlan plan;
  std::vector<float> got = runRecurrence<seqc::Cell::Lstm, A, R>(c, xproj, u, nullptr, plan);
  EXPECT_EQ(plan.weights, expectShared ? seqc::WeightHome::Shared : seqc::WeightHome::Global)
      << describe("lstm", c);
  expectClose(got, want, 2e-5, describe("lstm", c));
  return plan;
}

TEST(CudaKernelSimulation, LstmRecurrence) {
  checkLstm({37, 3, 4, false, false});
  checkLstm({1, 1, 3, false, true});
  // Two batch chunks and two h chunks per step.
  checkLstm({150, 20, 3, true, true});
  checkLstm<seqc::Act::Relu, seqc::Act::HardSigmoidKeras2>(
      {9, 2, 5, false, false}, Activation::Relu, Activation::HardSigmoidKeras2);
  checkLstm<seqc::Act::Tanh, seqc::Act::HardSigmoidKeras3>(
      {9, 2, 5, true, true}, Activation::Tanh, Activation::HardSigmoidKeras3);
}

TEST(CudaKernelSimulation, LstmRecurrenceWithWeightsInGlobalMemory) {
  // Too little shared memory for the recurrent kernel's slice: the kernel
  // reads it from global memory, with more blocks.
  ScopedEnv shared("SEQC_SIM_SHARED_BYTES", "24000");
  ScopedEnv sms("SEQC_SIM_SMS", "3");
  checkLstm({150, 18, 3, false, true}, Activation::Tanh, Activation::Sigmoid,
            /*expectShared=*/false);
}

// A recurrence whose whole recurrent kernel fits one block's shared memory
// runs in one block (a block barrier per step, not a grid-wide one).
TEST(CudaKernelSimulation, SmallRecurrenceRunsInOneBlock) {
  EXPECT_EQ(checkLstm({24, 5, 4, false, true}).blocks, 1);
  EXPECT_EQ(checkLstm({37, 3, 4, true, false}).blocks, 1);
}

TEST(CudaKernelSimulation, LstmRecurrenceWithManyBlocks) {
  // Too little shared memory for the whole recurrent kernel, enough for a
  // slice of 2 units: 12 blocks and a grid-wide barrier per step, on a GPU
  // without thread-block clusters (sm_80).
  ScopedEnv shared("SEQC_SIM_SHARED_BYTES", "16000");
  ScopedEnv sms("SEQC_SIM_SMS", "12");
  ScopedEnv compute("SEQC_SIM_COMPUTE", "80");
  for (RecurrenceCase c : {RecurrenceCase{24, 5, 4, false, true}, RecurrenceCase{24, 3, 19, true, false}}) {
    seqc::RecurrencePlan plan = checkLstm(c);
    EXPECT_EQ(plan.blocks, 12);
    EXPECT_FALSE(plan.cluster);
  }
}

// Layers of the same cell share one kernel, and the dynamic shared memory
// limit is the kernel's: planning a smaller layer after a larger one must not
// lower the limit the larger one launches with (LSTM(150) -> LSTM(20)).
TEST(CudaKernelSimulation, LaterSmallerLayerKeepsTheSharedMemoryLimit) {
  RecurrenceCase big{150, 2, 3, false, true}, small{20, 2, 3, false, false};
  Tensor xproj = random({big.batch, big.steps, 4 * big.units}, 41);
  Tensor u = random({big.units, 4 * big.units}, 42, 0.1f);
  seqc::RecurrencePlan bigPlan, smallPlan;
  ASSERT_EQ((seqc::plan_recurrence<seqc::Cell::Lstm, seqc::Act::Tanh, seqc::Act::Sigmoid>(
                static_cast<int>(big.units), &bigPlan)),
            cudaSuccess);
  ASSERT_EQ((seqc::plan_recurrence<seqc::Cell::Lstm, seqc::Act::Tanh, seqc::Act::Sigmoid>(
                static_cast<int>(small.units), &smallPlan)),
            cudaSuccess);
  ASSERT_EQ(bigPlan.kernel, smallPlan.kernel);
  ASSERT_GT(bigPlan.shared_bytes, smallPlan.shared_bytes);
  Tensor want = seq::rt::lstmRecurrence(
      xproj, u, optionsFor(big, Activation::Tanh, Activation::Sigmoid));
  std::vector<float> got = runPlannedRecurrence(big, xproj, u, nullptr, bigPlan);
  expectClose(got, want, 2e-5, describe("lstm after a smaller plan", big));
}

// cuDNN's matrix of one gate must be exactly the row-major layout the gate
// transpose writes; a square matrix in the other order has the same dims.
TEST(CudaKernelSimulation, CudnnMatrixLayoutCheck) {
  int dims[3] = {1, 8, 5}, rowMajor[3] = {40, 5, 1}, columnMajor[3] = {40, 1, 8};
  EXPECT_TRUE(seqc::is_row_major_matrix(3, dims, rowMajor, 8, 5));
  EXPECT_FALSE(seqc::is_row_major_matrix(3, dims, columnMajor, 8, 5));
  EXPECT_FALSE(seqc::is_row_major_matrix(3, dims, rowMajor, 5, 8));
  int square[3] = {1, 6, 6}, squareRow[3] = {36, 6, 1}, squareTransposed[3] = {36, 1, 6};
  EXPECT_TRUE(seqc::is_row_major_matrix(3, square, squareRow, 6, 6));
  EXPECT_FALSE(seqc::is_row_major_matrix(3, square, squareTransposed, 6, 6));
  EXPECT_FALSE(seqc::is_row_major_matrix(2, square + 1, squareRow + 1, 6, 6));
}

// The simulation refuses launches a GPU refuses, before running anything.
TEST(CudaKernelSimulation, LaunchLimitsAreEnforced) {
  RecurrenceCase c{40, 1, 2, false, false};
  seqc::RecurrencePlan plan;
  ASSERT_EQ((seqc::plan_recurrence<seqc::Cell::SimpleRnn, seqc::Act::Tanh, seqc::Act::Sigmoid>(
                static_cast<int>(c.units), &plan)),
            cudaSuccess);
  std::vector<float> out(c.units), h(2 * c.units), xproj(c.steps * c.units), u(c.units * c.units);
  seqc::RecurrenceArgs args{};
  args.xproj = xproj.data();
  args.u = u.data();
  args.out = out.data();
  args.h = h.data();
  args.batch = 1;
  args.steps = static_cast<int>(c.steps);
  args.units = static_cast<int>(c.units);
  // More dynamic shared memory than the kernel's attribute allows.
  seqc::RecurrencePlan tooMuchShared = plan;
  tooMuchShared.shared_bytes = plan.shared_bytes + 64 * 1024;
  EXPECT_EQ(seqc::run_recurrence(nullptr, tooMuchShared, args), cudaErrorInvalidValue);
  // A cooperative grid larger than what can be resident at once.
  seqc::RecurrencePlan tooManyBlocks = plan;
  tooManyBlocks.blocks = seqc_sim::multiprocessors() + 1;
  EXPECT_EQ(seqc::run_recurrence(nullptr, tooManyBlocks, args),
            cudaErrorCooperativeLaunchTooLarge);
  // Plain launches report through cudaGetLastError, and nothing runs.
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<float> x(4, 1.0f), y(4, -1.0f);
  SEQC_LAUNCH(seqc::activation_kernel<seqc::Act::Relu>, 1, 2048, 0, nullptr)(x.data(), y.data(),
                                                                              4, 0.0f);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(cudaFuncSetAttribute(reinterpret_cast<const void *>(plan.kernel),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 seqc_sim::shared_bytes_optin() + 1),
            cudaErrorInvalidValue);
}

template <bool kResetAfter>
void checkGru(const RecurrenceCase &c, bool withRecurrentBias) {
  Tensor xproj = random({c.batch, c.steps, 3 * c.units}, 21 + c.units);
  Tensor u = random({c.units, 3 * c.units}, 22 + c.units, 1.5f / std::sqrt(float(c.units)));
  Tensor rbias = random({3 * c.units}, 23);
  const Tensor *rb = withRecurrentBias ? &rbias : nullptr;
  seq::rt::RnnOptions options = optionsFor(c, Activation::Tanh, Activation::Sigmoid);
  Tensor want = seq::rt::gruRecurrence(xproj, u, rb, kResetAfter, options);
  seqc::RecurrencePlan plan;
  constexpr seqc::Cell C = kResetAfter ? seqc::Cell::GruResetAfter : seqc::Cell::GruResetBefore;
  std::vector<float> got =
      runRecurrence<C, seqc::Act::Tanh, seqc::Act::Sigmoid>(c, xproj, u, rb, plan);
  expectClose(got, want, 2e-5, describe(kResetAfter ? "gru reset_after" : "gru", c));
}

TEST(CudaKernelSimulation, GruRecurrenceResetAfter) {
  checkGru<true>({70, 17, 3, false, true}, true);
  checkGru<true>({4, 2, 5, true, false}, false);
}

TEST(CudaKernelSimulation, GruRecurrenceResetBefore) {
  // Two grid barriers per step: r * h of every unit feeds the candidate.
  checkGru<false>({33, 2, 5, true, true}, false);
  checkGru<false>({130, 18, 2, false, false}, false);
}

// On sm_90, a recurrence whose kernel does not fit one block but fits the
// blocks of one cluster (2, 4 or 8: the fewest) runs in one cluster, with its
// hardware barrier each step. The simulation makes a cluster barrier that is
// not taken (or taken by too few blocks) show up as wrong numbers.
TEST(CudaKernelSimulation, RecurrenceInOneCluster) {
  ScopedEnv shared("SEQC_SIM_SHARED_BYTES", "120000");
  ScopedEnv sms("SEQC_SIM_SMS", "8");
  // LSTM(150): one block would need 362 KB, two 181 KB, four 109 KB.
  seqc::RecurrencePlan plan = checkLstm({150, 18, 3, true, true});
  EXPECT_TRUE(plan.cluster);
  EXPECT_EQ(plan.blocks, 4);
  EXPECT_EQ(plan.slice, 38);
  // LSTM(200): four blocks would need 182 KB each, eight (the most in a
  // portable cluster) 95 KB.
  plan = checkLstm({200, 2, 3, false, false});
  EXPECT_TRUE(plan.cluster);
  EXPECT_EQ(plan.blocks, 8);
  // GRU reset_before meets at the barrier twice per step.
  checkGru<false>({130, 17, 3, false, true}, false);
  seqc::RecurrencePlan gru;
  ASSERT_EQ((seqc::plan_recurrence<seqc::Cell::GruResetBefore, seqc::Act::Tanh,
                                   seqc::Act::Sigmoid>(130, &gru)),
            cudaSuccess);
  EXPECT_TRUE(gru.cluster);
  {
    // Not on sm_80, nor when eight blocks cannot hold it.
    ScopedEnv compute("SEQC_SIM_COMPUTE", "80");
    EXPECT_FALSE(checkLstm({150, 2, 3, false, true}).cluster);
  }
  ScopedEnv smaller("SEQC_SIM_SHARED_BYTES", "40000");
  EXPECT_FALSE(checkLstm({150, 2, 3, false, true}, Activation::Tanh, Activation::Sigmoid,
                         /*expectShared=*/false)
                   .cluster);
}

//===----------------------------------------------------------------------===//
// Recurrences specialised for their unit count, weights in registers
//===----------------------------------------------------------------------===//

// What the GPU benchmark's layers get: few blocks (one cluster for 256 LSTM
// units), at most 128 weights per thread, and no register layout past 4096.
using Lstm64 = seqc::RegisterLayout<4, 64>;
using Lstm256 = seqc::RegisterLayout<4, 256>;
using Lstm1024 = seqc::RegisterLayout<4, 1024>;
static_assert(Lstm64::kBlocks == 1 && Lstm64::kParts == 1 && Lstm64::kPerThread == 64);
static_assert(Lstm256::kBlocks == 8 && Lstm256::kParts == 2 && Lstm256::kPerThread == 128);
static_assert(Lstm1024::kBlocks == 128 && Lstm1024::kSlice == 8 && Lstm1024::kRows == 7);
static_assert(seqc::RegisterLayout<3, 1024>::kBlocks == 103);
static_assert(!seqc::RegisterLayout<4, 4097>::kFits && seqc::RegisterLayout<1, 4096>::kFits);

/// The recurrence of cell C with kUnits units as a model plans it
/// (plan_model_recurrence), against the reference kernels.
template <seqc::Cell C, int kUnits, seqc::Act A = seqc::Act::Tanh,
          seqc::Act R = seqc::Act::Sigmoid>
seqc::RecurrencePlan checkModelRecurrence(RecurrenceCase c, bool withRecurrentBias = false,
                                          Activation act = Activation::Tanh) {
  c.units = kUnits;
  constexpr int G = seqc::gates_of<C>();
  Tensor xproj = random({c.batch, c.steps, G * c.units}, 51 + kUnits);
  Tensor u = random({c.units, G * c.units}, 52 + kUnits, 1.5f / std::sqrt(float(kUnits)));
  Tensor rbias = random({G * c.units}, 53);
  const Tensor *rb = withRecurrentBias ? &rbias : nullptr;
  seq::rt::RnnOptions options = optionsFor(c, act, Activation::Sigmoid);
  Tensor want = C == seqc::Cell::Lstm        ? seq::rt::lstmRecurrence(xproj, u, options)
                : C == seqc::Cell::SimpleRnn ? seq::rt::simpleRnnRecurrence(xproj, u, options)
                                             : seq::rt::gruRecurrence(
                                                   xproj, u, rb,
                                                   C == seqc::Cell::GruResetAfter, options);
  seqc::RecurrencePlan plan;
  EXPECT_EQ((seqc::plan_model_recurrence<C, A, R, kUnits>(&plan)), cudaSuccess);
  std::vector<float> got = runPlannedRecurrence(c, xproj, u, rb, plan);
  expectClose(got, want, 2e-5, describe("model recurrence", c));
  return plan;
}

TEST(CudaKernelSimulation, RecurrenceWithWeightsInRegisters) {
  using seqc::Cell;
  // One block holds the whole recurrent kernel: one column per thread.
  seqc::RecurrencePlan plan = checkModelRecurrence<Cell::Lstm, 37>({0, 3, 4, false, false});
  EXPECT_EQ(plan.weights, seqc::WeightHome::Registers);
  EXPECT_EQ(plan.blocks, 1);
  checkModelRecurrence<Cell::Lstm, 1>({0, 1, 3, true, true});
  checkModelRecurrence<Cell::GruResetAfter, 70>({0, 17, 3, false, true}, true);
  checkModelRecurrence<Cell::GruResetBefore, 33>({0, 2, 5, true, true});
  ScopedEnv sms("SEQC_SIM_SMS", "8");
  // Two lanes per column, 68 k each (131 padded with zeros to a multiple of
  // 4 per lane), 5 blocks of 32 units as one cluster, two batch passes.
  plan = checkModelRecurrence<Cell::Lstm, 131>({0, 20, 3, true, true});
  EXPECT_EQ(plan.weights, seqc::WeightHome::Registers);
  EXPECT_EQ(plan.blocks, 5);
  EXPECT_EQ(plan.slice, 32);
  EXPECT_TRUE(plan.cluster);
  // GRU reset_before: the candidate's product takes gate 2's columns only.
  plan = checkModelRecurrence<Cell::GruResetBefore, 130>({0, 17, 3, false, true});
  EXPECT_EQ(plan.weights, seqc::WeightHome::Registers);
  EXPECT_EQ(plan.blocks, 4);
  checkModelRecurrence<Cell::SimpleRnn, 300, seqc::Act::Relu>({0, 3, 4, true, false}, false,
                                                             Activation::Relu);
  {
    // Without clusters (sm_80): grid barriers between the co-resident blocks.
    ScopedEnv compute("SEQC_SIM_COMPUTE", "80");
    plan = checkModelRecurrence<Cell::Lstm, 131>({0, 2, 4, false, false});
    EXPECT_EQ(plan.weights, seqc::WeightHome::Registers);
    EXPECT_FALSE(plan.cluster);
  }
}

// Where the register layout's blocks cannot all be resident, the model's
// plan is plan_recurrence's (here one block with the weights in shared
// memory); a softmax cell never uses registers (one block owns each row).
TEST(CudaKernelSimulation, RecurrenceFallsBackFromRegisters) {
  ScopedEnv sms("SEQC_SIM_SMS", "2");
  ScopedEnv compute("SEQC_SIM_COMPUTE", "80");
  seqc::RecurrencePlan plan = checkModelRecurrence<seqc::Cell::Lstm, 150>({0, 3, 3, false, true});
  EXPECT_NE(plan.weights, seqc::WeightHome::Registers);
  ASSERT_EQ((seqc::plan_model_recurrence<seqc::Cell::SimpleRnn, seqc::Act::Softmax,
                                         seqc::Act::Sigmoid, 8>(&plan)),
            cudaSuccess);
  EXPECT_EQ(plan.weights, seqc::WeightHome::Shared);
}

TEST(CudaKernelSimulation, SimpleRnnRecurrence) {
  for (RecurrenceCase c : {RecurrenceCase{5, 1, 6, false, true}, RecurrenceCase{40, 3, 4, true, false}}) {
    Tensor xproj = random({c.batch, c.steps, c.units}, 31 + c.units);
    Tensor u = random({c.units, c.units}, 32 + c.units, 1.0f / std::sqrt(float(c.units)));
    Tensor want = seq::rt::simpleRnnRecurrence(xproj, u, optionsFor(c, Activation::Relu,
                                                                     Activation::Sigmoid));
    seqc::RecurrencePlan plan;
    std::vector<float> got =
        runRecurrence<seqc::Cell::SimpleRnn, seqc::Act::Relu, seqc::Act::Sigmoid>(c, xproj, u,
                                                                                  nullptr, plan);
    expectClose(got, want, 2e-5, describe("simple_rnn", c));
  }
}

//===----------------------------------------------------------------------===//
// Stacked recurrences (one launch, layers as a wavefront)
//===----------------------------------------------------------------------===//

/// Layer sizes of a stack: the first layer's input projection is given,
/// each later layer projects the previous layer's sequence itself.
struct StackCase {
  std::vector<int> units;
  int64_t batch, steps;
  bool lastReturnsSequences;
};

/// Plans and runs a stack of cell C against the reference layers run one
/// after the other; returns the plan.
template <seqc::Cell C, seqc::Act A = seqc::Act::Tanh, seqc::Act R = seqc::Act::Sigmoid>
seqc::StackPlan checkStack(const StackCase &c, Activation act = Activation::Tanh,
                           Activation rec = Activation::Sigmoid) {
  constexpr int G = seqc::gates_of<C>();
  const int layers = static_cast<int>(c.units.size());
  const int64_t B = c.batch, T = c.steps;
  std::vector<Tensor> kernels, biases, recurrents, rbiases, outputs;
  std::vector<std::vector<float>> hs, cells;
  std::vector<int> inputs;
  Tensor xproj0 = random({B, T, G * c.units[0]}, 71);
  Tensor want = xproj0;
  for (int l = 0; l < layers; ++l) {
    const int u = c.units[l], in = l ? c.units[l - 1] : 0;
    inputs.push_back(in);
    kernels.push_back(random({std::max(in, 1), G * u}, 72 + l, 1.0f / std::sqrt(float(in + 1))));
    biases.push_back(random({G * u}, 73 + l, 0.5f));
    recurrents.push_back(random({u, G * u}, 74 + l, 1.5f / std::sqrt(float(u))));
    rbiases.push_back(random({G * u}, 75 + l, 0.5f));
    const bool sequences = l + 1 < layers || c.lastReturnsSequences;
    RecurrenceCase rc{u, B, T, false, sequences};
    Tensor xproj = l ? seq::rt::dense(want, kernels[l], &biases[l], Activation::Linear, 0) : want;
    seq::rt::RnnOptions o = optionsFor(rc, act, rec);
    const Tensor *rb = C == seqc::Cell::GruResetAfter ? &rbiases[l] : nullptr;
    want = C == seqc::Cell::Lstm        ? seq::rt::lstmRecurrence(xproj, recurrents[l], o)
           : C == seqc::Cell::SimpleRnn ? seq::rt::simpleRnnRecurrence(xproj, recurrents[l], o)
                                        : seq::rt::gruRecurrence(xproj, recurrents[l], rb, true, o);
    outputs.push_back(Tensor::zeros(sequences ? std::vector<int64_t>{B, T, u}
                                              : std::vector<int64_t>{B, u}));
    std::fill(outputs.back().data.begin(), outputs.back().data.end(), -7.0f);
    hs.emplace_back(2 * B * u, -7.0f);
    cells.emplace_back(B * u, -7.0f);
  }
  seqc::StackPlan plan;
  EXPECT_EQ((seqc::plan_stack<C, A, R>(layers, c.units.data(), inputs.data(), &plan)),
            cudaSuccess);
  std::vector<unsigned> progress(seqc::kMaxStackLayers, 99u);
  seqc::StackArgs args{};
  for (int l = 0; l < layers; ++l) {
    seqc::StackLayer &L = args.layer[l];
    L.xproj = l ? nullptr : xproj0.data.data();
    L.w = l ? kernels[l].data.data() : nullptr;
    L.bias = l ? biases[l].data.data() : nullptr;
    L.u = recurrents[l].data.data();
    L.rbias = C == seqc::Cell::GruResetAfter ? rbiases[l].data.data() : nullptr;
    L.out = outputs[l].data.data();
    L.h = hs[l].data();
    L.c = cells[l].data();
    L.units = c.units[l];
    L.inputs = inputs[l];
    L.return_sequences = l + 1 < layers || c.lastReturnsSequences;
  }
  args.progress = progress.data();
  args.batch = static_cast<int>(B);
  args.steps = static_cast<int>(T);
  EXPECT_EQ(seqc::run_stack(nullptr, plan, args), cudaSuccess);
  expectClose(outputs.back().data, want, 5e-5, "stack of " + std::to_string(layers));
  return plan;
}

TEST(CudaKernelSimulation, StackedLstmMatchesLayerByLayer) {
  // Two batch chunks; a 150-unit layer stages its h and its input in two chunks.
  ScopedEnv sms("SEQC_SIM_SMS", "8");
  seqc::StackPlan plan = checkStack<seqc::Cell::Lstm>({{37, 150, 9}, 18, 4, false});
  EXPECT_EQ(plan.layers, 3);
  // Blocks in proportion to each layer's work per step, at least one each.
  EXPECT_EQ(plan.first_block[0], 0);
  EXPECT_EQ(plan.first_block[3], plan.blocks);
  EXPECT_LE(plan.blocks, 8);
  EXPECT_GT(plan.first_block[2] - plan.first_block[1], plan.first_block[1] - plan.first_block[0])
      << "the 150-unit layer gets the most blocks";
  EXPECT_EQ(plan.first_block[3] - plan.first_block[2], 1);
  checkStack<seqc::Cell::Lstm, seqc::Act::Relu, seqc::Act::HardSigmoidKeras3>(
      {{5, 6}, 2, 7, true}, Activation::Relu, Activation::HardSigmoidKeras3);
}

TEST(CudaKernelSimulation, StackedGruAndSimpleRnn) {
  checkStack<seqc::Cell::GruResetAfter>({{12, 20, 7}, 3, 5, true});
  checkStack<seqc::Cell::SimpleRnn, seqc::Act::Relu>({{8, 8}, 2, 6, false}, Activation::Relu);
}

// The GPU benchmark's ten LSTM(256) on an H200 (132 SMs, 227 KiB of shared
// memory per block): 6 blocks of 43 units for the first layer (its input
// projection is hoisted), 13 of 20 for each later one, one block per SM.
TEST(CudaKernelSimulation, StackPlanForTenLstm256OnAnH200) {
  ScopedEnv sms("SEQC_SIM_SMS", "132");
  ScopedEnv shared("SEQC_SIM_SHARED_BYTES", "232448");
  std::vector<int> units(10, 256), inputs(10, 256);
  inputs[0] = 0;
  seqc::StackPlan plan;
  ASSERT_EQ((seqc::plan_stack<seqc::Cell::Lstm, seqc::Act::Tanh, seqc::Act::Sigmoid>(
                10, units.data(), inputs.data(), &plan)),
            cudaSuccess);
  EXPECT_EQ(plan.slice[0], 43);
  EXPECT_EQ(plan.first_block[1], 6);
  for (int l = 1; l < 10; ++l) {
    EXPECT_EQ(plan.slice[l], 20) << "layer " << l;
    EXPECT_EQ(plan.first_block[l + 1] - plan.first_block[l], 13) << "layer " << l;
  }
  EXPECT_EQ(plan.blocks, 123);
  EXPECT_LE(plan.shared_bytes, 207u * 1024);
}

// More layers than multiprocessors, a slice's kernels beyond shared memory,
// a softmax cell or GRU reset_before: no stack plan (each layer then runs
// on its own).
TEST(CudaKernelSimulation, StackPlanRefusals) {
  using seqc::Act;
  using seqc::Cell;
  seqc::StackPlan plan;
  std::vector<int> units(5, 4), inputs{0, 4, 4, 4, 4};
  EXPECT_EQ((seqc::plan_stack<Cell::Lstm, Act::Tanh, Act::Sigmoid>(5, units.data(), inputs.data(),
                                                                  &plan)),
            cudaErrorCooperativeLaunchTooLarge);
  EXPECT_EQ(plan.blocks, 0);
  {
    ScopedEnv shared("SEQC_SIM_SHARED_BYTES", "20000");
    std::vector<int> big{100, 100}, bigInputs{0, 100};
    EXPECT_NE((seqc::plan_stack<Cell::Lstm, Act::Tanh, Act::Sigmoid>(2, big.data(),
                                                                    bigInputs.data(), &plan)),
              cudaSuccess);
    EXPECT_EQ(plan.blocks, 0);
  }
  std::vector<int> two{4, 4}, twoInputs{0, 4};
  EXPECT_NE((seqc::plan_stack<Cell::Lstm, Act::Softmax, Act::Sigmoid>(2, two.data(),
                                                                     twoInputs.data(), &plan)),
            cudaSuccess);
  EXPECT_NE((seqc::plan_stack<Cell::GruResetBefore, Act::Tanh, Act::Sigmoid>(
                2, two.data(), twoInputs.data(), &plan)),
            cudaSuccess);
  EXPECT_EQ((seqc::plan_stack<Cell::Lstm, Act::Tanh, Act::Sigmoid>(2, two.data(),
                                                                  twoInputs.data(), &plan)),
            cudaSuccess);
}

/// A cell with activations A/R (alphas as the recurrent ops pass them)
/// against the reference recurrence.
template <seqc::Cell C, seqc::Act A, seqc::Act R>
void checkCell(const RecurrenceCase &c, Activation act, Activation rec, float alpha = 0,
               float recurrentAlpha = 0) {
  constexpr int G = seqc::gates_of<C>();
  Tensor xproj = random({c.batch, c.steps, G * c.units}, 61 + c.units);
  Tensor u = random({c.units, G * c.units}, 62 + c.units, 1.5f / std::sqrt(float(c.units)));
  Tensor rbias = random({G * c.units}, 63);
  const Tensor *rb = C == seqc::Cell::GruResetAfter ? &rbias : nullptr;
  seq::rt::RnnOptions o = optionsFor(c, act, rec, alpha, recurrentAlpha);
  Tensor want = C == seqc::Cell::Lstm ? seq::rt::lstmRecurrence(xproj, u, o)
                : C == seqc::Cell::SimpleRnn
                    ? seq::rt::simpleRnnRecurrence(xproj, u, o)
                    : seq::rt::gruRecurrence(xproj, u, rb,
                                             C == seqc::Cell::GruResetAfter, o);
  seqc::RecurrencePlan plan;
  std::vector<float> got =
      runRecurrence<C, A, R>(c, xproj, u, rb, plan, alpha, recurrentAlpha);
  if (seqc::row_cell<C, A, R>()) {
    EXPECT_EQ(plan.blocks, 1) << "a softmax row needs one block for all units";
  }
  expectClose(got, want, 2e-5, describe("cell", c));
}

TEST(CudaKernelSimulation, ElementwiseCellActivationsWithAlpha) {
  using seqc::Act;
  using seqc::Cell;
  checkCell<Cell::Lstm, Act::Elu, Act::LeakyRelu>({9, 3, 4, false, true}, Activation::Elu,
                                                  Activation::LeakyRelu, 1.0f, 0.2f);
  checkCell<Cell::GruResetAfter, Act::Celu, Act::HardSilu>(
      {9, 3, 4, true, false}, Activation::Celu, Activation::HardSilu, 1.0f, 0.0f);
  checkCell<Cell::GruResetBefore, Act::Mish, Act::SparseSigmoid>(
      {6, 2, 4, false, true}, Activation::Mish, Activation::SparseSigmoid);
  checkCell<Cell::SimpleRnn, Act::LeakyRelu, Act::Sigmoid>(
      {5, 2, 3, false, true}, Activation::LeakyRelu, Activation::Sigmoid, 0.2f);
}

TEST(CudaKernelSimulation, SoftmaxCellsRunInOneBlock) {
  using seqc::Act;
  using seqc::Cell;
  // 40 units: a row is longer than a warp; 18 rows: two batch chunks.
  checkCell<Cell::Lstm, Act::Softmax, Act::Sigmoid>({40, 18, 3, false, true},
                                                    Activation::Softmax, Activation::Sigmoid);
  checkCell<Cell::Lstm, Act::Tanh, Act::LogSoftmax>({7, 3, 4, true, false}, Activation::Tanh,
                                                    Activation::LogSoftmax);
  checkCell<Cell::GruResetAfter, Act::Softmax, Act::Softmax>(
      {40, 18, 3, false, true}, Activation::Softmax, Activation::Softmax);
  checkCell<Cell::GruResetBefore, Act::LogSoftmax, Act::Sigmoid>(
      {5, 3, 4, true, true}, Activation::LogSoftmax, Activation::Sigmoid);
  checkCell<Cell::GruResetBefore, Act::Tanh, Act::Softmax>(
      {5, 3, 4, false, false}, Activation::Tanh, Activation::Softmax);
  checkCell<Cell::SimpleRnn, Act::Softmax, Act::Sigmoid>({6, 2, 5, false, true},
                                                         Activation::Softmax,
                                                         Activation::Sigmoid);
}

//===----------------------------------------------------------------------===//
// The other ops
//===----------------------------------------------------------------------===//

TEST(CudaKernelSimulation, SoftmaxOverAMiddleAxis) {
  Tensor x = random({3, 5, 4}, 71, 4.0f);
  for (bool log : {false, true}) {
    Tensor want = x;
    seq::rt::applyRowActivation(log ? Activation::LogSoftmax : Activation::Softmax, 1, want);
    std::vector<float> got(x.data.size(), -7.0f);
    cudaError_t err = log ? seqc::softmax_axis<seqc::Act::LogSoftmax>(
                                nullptr, x.data.data(), got.data(), 3, 5, 4)
                          : seqc::softmax_axis<seqc::Act::Softmax>(
                                nullptr, x.data.data(), got.data(), 3, 5, 4);
    ASSERT_EQ(err, cudaSuccess);
    expectClose(got, want, 1e-6, log ? "log_softmax axis 1" : "softmax axis 1");
  }
}

TEST(CudaKernelSimulation, ClipMatchesTheReference) {
  Tensor x = random({2, 3, 4}, 83, 3.0f);
  x.data[5] = NAN;
  Tensor want = x;
  seq::rt::clip(-0.5f, 1.25f, want);
  std::vector<float> got(x.data.size(), -7.0f);
  ASSERT_EQ(seqc::clip(nullptr, x.data.data(), got.data(), (int64_t)x.data.size(), -0.5f, 1.25f),
            cudaSuccess);
  EXPECT_TRUE(std::isnan(got[5]));
  got[5] = want.data[5] = 0.0f;
  expectClose(got, want, 0.0, "clip");
}

TEST(CudaKernelSimulation, ReluLayerAndPRelu) {
  Tensor x = random({2, 3, 4}, 81, 3.0f);
  struct Case {
    float slope, threshold;
    std::optional<float> max;
  };
  for (Case c : {Case{0.1f, 0.2f, 1.5f}, Case{0.0f, 0.0f, 6.0f}, Case{0.3f, -0.5f, {}}}) {
    Tensor want = x;
    seq::rt::reluLayer(c.slope, c.threshold, c.max, want);
    std::vector<float> got(x.data.size(), -7.0f);
    ASSERT_EQ(seqc::relu_layer(nullptr, x.data.data(), got.data(), (int64_t)x.data.size(),
                               c.slope, c.threshold, c.max ? 1 : 0, c.max.value_or(0.0f)),
              cudaSuccess);
    expectClose(got, want, 1e-7, "relu layer");
  }
  // alpha (1, 4): shared over time.
  Tensor alpha = random({1, 4}, 82);
  Tensor want = seq::rt::prelu(x, alpha);
  std::vector<float> got(x.data.size(), -7.0f);
  seqc::PreluShape shape{2, {3, 4}, {0, 1}};
  ASSERT_EQ(seqc::prelu(nullptr, x.data.data(), alpha.data.data(), got.data(),
                        (int64_t)x.data.size(), 12, shape),
            cudaSuccess);
  expectClose(got, want, 1e-7, "prelu");
}

TEST(CudaKernelSimulation, Conv1dPaddingsStridesDilations) {
  struct Case {
    int64_t steps, channels, width, filters, stride, dilation;
    seq::rt::Padding padding;
  };
  for (Case c : {Case{6, 3, 3, 4, 1, 1, seq::rt::Padding::Valid},
                 Case{5, 3, 3, 4, 2, 1, seq::rt::Padding::Same},
                 Case{6, 2, 3, 2, 1, 2, seq::rt::Padding::Causal},
                 Case{9, 4, 2, 3, 3, 2, seq::rt::Padding::Same}}) {
    Tensor x = random({2, c.steps, c.channels}, 41), k = random({c.width, c.channels, c.filters}, 42),
           b = random({c.filters}, 43);
    Tensor want = seq::rt::conv1d(x, k, &b, c.stride, c.dilation, c.padding, Activation::Tanh, 0);
    std::vector<float> got(want.data.size(), -7.0f);
    ASSERT_EQ(seqc::conv1d<seqc::Act::Tanh>(
                  nullptr, x.data.data(), k.data.data(), b.data.data(), got.data(), 2, c.steps,
                  c.channels, c.width, c.filters, c.stride, c.dilation,
                  static_cast<seqc::Padding>(static_cast<int>(c.padding)), 0.0f),
              cudaSuccess);
    expectClose(got, want, 1e-5, "conv1d");
  }
}

TEST(CudaKernelSimulation, Pooling) {
  Tensor x = random({2, 5, 3}, 51);
  for (auto padding : {seq::rt::Padding::Valid, seq::rt::Padding::Same})
    for (int64_t stride : {1, 2}) {
      seqc::Padding p = static_cast<seqc::Padding>(static_cast<int>(padding));
      Tensor maxWant = seq::rt::maxPool1d(x, 2, stride, padding);
      std::vector<float> got(maxWant.data.size());
      ASSERT_EQ(seqc::pool1d<true>(nullptr, x.data.data(), got.data(), 2, 5, 3, 2, stride, p),
                cudaSuccess);
      expectClose(got, maxWant, 0, "max_pool1d");
      Tensor avgWant = seq::rt::avgPool1d(x, 2, stride, padding);
      got.assign(avgWant.data.size(), 0);
      ASSERT_EQ(seqc::pool1d<false>(nullptr, x.data.data(), got.data(), 2, 5, 3, 2, stride, p),
                cudaSuccess);
      expectClose(got, avgWant, 1e-6, "avg_pool1d");
    }
  std::vector<float> got(6);
  ASSERT_EQ(seqc::global_pool1d<true>(nullptr, x.data.data(), nullptr, got.data(), 2, 5, 3),
            cudaSuccess);
  expectClose(got, seq::rt::globalMaxPool1d(x), 0, "global_max_pool1d");
  ASSERT_EQ(seqc::global_pool1d<false>(nullptr, x.data.data(), nullptr, got.data(), 2, 5, 3),
            cudaSuccess);
  expectClose(got, seq::rt::globalAvgPool1d(x), 1e-6, "global_avg_pool1d");
  Tensor mask{{2, 5}, {1, 1, 0, 1, 0, 0, 1, 1, 1, 1}};
  ASSERT_EQ(seqc::global_pool1d<false>(nullptr, x.data.data(), mask.data.data(), got.data(), 2,
                                       5, 3),
            cudaSuccess);
  expectClose(got, seq::rt::globalAvgPool1d(x, &mask), 1e-6, "masked global_avg_pool1d");
}

TEST(CudaKernelSimulation, Truncate) {
  Tensor x = random({3, 7}, 81, 4.0f);
  std::vector<float> got(x.data.size());
  ASSERT_EQ(seqc::truncate(nullptr, x.data.data(), got.data(), 21), cudaSuccess);
  expectClose(got, seq::rt::truncate(x), 0, "truncate");
}

TEST(CudaKernelSimulation, AdaptivePooling) {
  // One axis of (2, L, 3) pooled to n, down, up, to 1 and from 1.
  for (auto [length, out] : {std::pair<int, int>{9, 5}, {5, 7}, {6, 1}, {1, 3}})
    for (bool isMax : {true, false}) {
      Tensor x = random({2, length, 3}, 71);
      Tensor want = seq::rt::adaptivePooling(x, {out}, isMax);
      std::vector<float> got(want.data.size(), -7.0f);
      ASSERT_EQ(seqc::adaptive_pool_axis(nullptr, x.data.data(), got.data(), 2, length, out,
                                         3, isMax),
                cudaSuccess);
      expectClose(got, want, isMax ? 0 : 1e-6, "adaptive_pool_axis");
    }
}

TEST(CudaKernelSimulation, Normalization) {
  Tensor x = random({3, 4, 37}, 61, 3.0f), gamma = random({37}, 62), beta = random({37}, 63);
  Tensor mean = random({37}, 64), variance = random({37}, 65);
  for (float &v : variance.data)
    v = std::fabs(v) + 0.5f;
  std::vector<float> got(x.data.size());
  ASSERT_EQ(seqc::layer_norm(nullptr, x.data.data(), gamma.data.data(), beta.data.data(),
                             got.data(), 12, 37, 1e-3f),
            cudaSuccess);
  expectClose(got, seq::rt::layerNorm(x, &gamma, &beta, 1e-3f), 1e-5, "layer_norm");
  ASSERT_EQ(seqc::batch_norm(nullptr, x.data.data(), gamma.data.data(), beta.data.data(),
                             mean.data.data(), variance.data.data(), got.data(),
                             (int64_t)x.data.size(), 37, 1e-3f),
            cudaSuccess);
  expectClose(got, seq::rt::batchNorm(x, &gamma, &beta, mean, variance, 1e-3f), 1e-5,
              "batch_norm");
}

TEST(CudaKernelSimulation, EmbeddingAndBadIds) {
  Tensor table = random({10, 4}, 71);
  Tensor ids{{2, 3}, {0, 9, 3, 3, 1, 7}};
  std::vector<float> got(24);
  unsigned long long bad = 0;
  ASSERT_EQ(seqc::embedding(nullptr, ids.data.data(), table.data.data(), got.data(), 6, 10, 4,
                            &bad),
            cudaSuccess);
  EXPECT_EQ(bad, 0u);
  llvm::Expected<Tensor> want = seq::rt::embedding(ids, table);
  ASSERT_TRUE(bool(want)) << llvm::toString(want.takeError());
  expectClose(got, *want, 0, "embedding");
  ids.data[4] = 10; // out of range
  ASSERT_EQ(seqc::embedding(nullptr, ids.data.data(), table.data.data(), got.data(), 6, 10, 4,
                            &bad),
            cudaSuccess);
  EXPECT_EQ(bad, 5u) << "the flat index of the bad id, plus one";
  bad = 0;
  ids.data[4] = 1.5f; // not an integer
  seqc::embedding(nullptr, ids.data.data(), table.data.data(), got.data(), 6, 10, 4, &bad);
  EXPECT_EQ(bad, 5u);
}

TEST(CudaKernelSimulation, BidirectionalMerges) {
  Tensor f = random({2, 4, 3}, 81), b = random({2, 4, 3}, 82), b5 = random({2, 4, 5}, 83);
  std::vector<float> got(2 * 4 * 8);
  ASSERT_EQ(seqc::bidirectional<seqc::Merge::Concat>(nullptr, f.data.data(), b5.data.data(),
                                                     got.data(), 2, 4, 3, 5),
            cudaSuccess);
  expectClose(got, seq::rt::bidirectionalMerge(f, b5, seq::rt::MergeMode::Concat, true), 0,
              "concat of unequal widths");
  got.resize(24);
  for (auto [mode, merge] : {std::pair{seq::rt::MergeMode::Sum, 0}, std::pair{seq::rt::MergeMode::Mul, 1},
                             std::pair{seq::rt::MergeMode::Ave, 2}}) {
    cudaError_t err =
        merge == 0   ? seqc::bidirectional<seqc::Merge::Sum>(nullptr, f.data.data(), b.data.data(), got.data(), 2, 4, 3, 3)
        : merge == 1 ? seqc::bidirectional<seqc::Merge::Mul>(nullptr, f.data.data(), b.data.data(), got.data(), 2, 4, 3, 3)
                     : seqc::bidirectional<seqc::Merge::Ave>(nullptr, f.data.data(), b.data.data(), got.data(), 2, 4, 3, 3);
    ASSERT_EQ(err, cudaSuccess);
    expectClose(got, seq::rt::bidirectionalMerge(f, b, mode, true), 1e-7, "merge");
  }
  Tensor f2 = random({3, 6}, 84), b2 = random({3, 6}, 85);
  got.resize(18);
  ASSERT_EQ(seqc::bidirectional<seqc::Merge::Sum>(nullptr, f2.data.data(), b2.data.data(),
                                                  got.data(), 3, 0, 6, 6),
            cudaSuccess);
  expectClose(got, seq::rt::bidirectionalMerge(f2, b2, seq::rt::MergeMode::Sum, false), 1e-7,
              "last-state merge");
}

TEST(CudaKernelSimulation, ActivationLayerAndSoftmaxRows) {
  Tensor x = random({4, 3, 11}, 91, 4.0f);
  Tensor want = x;
  seq::rt::applyActivation(Activation::Softmax, 0, want);
  std::vector<float> got(x.data.size());
  ASSERT_EQ(seqc::activation<seqc::Act::Softmax>(nullptr, x.data.data(), got.data(),
                                                 (int64_t)x.data.size(), 11, 0.0f),
            cudaSuccess);
  expectClose(got, want, 1e-6, "softmax");
  want = x;
  seq::rt::applyActivation(Activation::Elu, 0.7f, want);
  ASSERT_EQ(seqc::activation<seqc::Act::Elu>(nullptr, x.data.data(), got.data(),
                                             (int64_t)x.data.size(), 11, 0.7f),
            cudaSuccess);
  expectClose(got, want, 1e-6, "elu");
}

TEST(CudaKernelSimulation, RepeatVectorAndReverseAxis) {
  Tensor x = random({2, 3}, 95);
  std::vector<float> got(2 * 4 * 3);
  ASSERT_EQ(seqc::repeat_vector(nullptr, x.data.data(), got.data(), 2, 4, 3), cudaSuccess);
  expectClose(got, seq::rt::repeatVector(x, 4), 0, "repeat_vector");
  Tensor seq3 = random({2, 4, 3}, 96);
  ASSERT_EQ(seqc::reverse_axis(nullptr, seq3.data.data(), got.data(), 2, 4, 3), cudaSuccess);
  expectClose(got, seq::rt::reverse(seq3, 1), 0, "reverse_axis (steps)");
  ASSERT_EQ(seqc::reverse_axis(nullptr, seq3.data.data(), got.data(), 8, 3, 1), cudaSuccess);
  expectClose(got, seq::rt::reverse(seq3, 2), 0, "reverse_axis (features)");
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t t = 0; t < 4; ++t)
      for (int64_t k = 0; k < 3; ++k)
        EXPECT_EQ(got[(b * 4 + t) * 3 + k], seq3.at({b, t, 2 - k}));
}

} // namespace

//===----------------------------------------------------------------------===//
// seq.matmul and seq.attention
//===----------------------------------------------------------------------===//

TEST(CudaKernelSimulation, Matmul) {
  Tensor a = random({3, 5, 4}, 11), b = random({3, 4, 6}, 12), bt = random({3, 6, 4}, 13);
  std::vector<float> got(3 * 5 * 6, -7.0f);
  ASSERT_EQ(seqc::matmul(nullptr, a.data.data(), b.data.data(), got.data(), 3, 5, 6, 4, false),
            cudaSuccess);
  expectClose(got, seq::rt::matmul(a, b, false), 1e-5, "matmul");
  ASSERT_EQ(seqc::matmul(nullptr, a.data.data(), bt.data.data(), got.data(), 3, 5, 6, 4, true),
            cudaSuccess);
  expectClose(got, seq::rt::matmul(a, bt, true), 1e-5, "matmul transpose_b");
}

namespace {

/// Runs seqc::attention on (batch, tq, heads, d) queries against keys and
/// values with heads / group heads, compared with the reference: with
/// `masks` query and key masks and an attention mask (one query row sees
/// nothing at all), with `options.weights` the softmax weights.
void checkAttention(const seq::rt::AttentionOptions &options, int64_t group, bool masks,
                    const std::string &what) {
  int64_t batch = 2, tq = 5, tk = 7, heads = 4, d = 3, dv = 6;
  Tensor q = random({batch, tq, heads, d}, 21), k = random({batch, tk, heads / group, d}, 22),
         v = random({batch, tk, heads / group, dv}, 23), fs = random({d}, 24);
  Tensor queryMask = Tensor::zeros({batch, tq}), keyMask = Tensor::zeros({batch, tk});
  Tensor attentionMask = Tensor::zeros({batch, tq, tk});
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < tq; ++i) {
      queryMask.at({b, i}) = (b == 1 && i == 4) ? 0.0f : 1.0f; // one row sees nothing
      for (int64_t j = 0; j < tk; ++j)
        attentionMask.at({b, i, j}) = (i + j + b) % 3 == 0 ? 0.0f : 1.0f;
    }
    for (int64_t j = 0; j < tk; ++j)
      keyMask.at({b, j}) = j < 5 - b ? 1.0f : 0.0f;
  }
  seq::rt::AttentionOptions reference = options;
  if (options.additive)
    reference.featureScale = &fs;
  if (masks) {
    reference.queryMask = &queryMask;
    reference.keyMask = &keyMask;
    reference.attentionMask = &attentionMask;
  }
  Tensor want = seq::rt::attention(q, k, v, reference);
  seqc::AttentionShape shape{batch, tq, tk, heads, group, d, dv,
                             options.additive ? 1 : 0, options.causal ? 1 : 0, options.window,
                             options.scale.value_or(1.0f), options.scoreWeight.value_or(1.0f)};
  seqc::AttentionMasks kernelMasks{masks ? queryMask.data.data() : nullptr,
                                   masks ? keyMask.data.data() : nullptr,
                                   masks ? attentionMask.data.data() : nullptr};
  std::vector<float> got(want.data.size(), -7.0f);
  float *y = options.weights ? nullptr : got.data();
  float *weights = options.weights ? got.data() : nullptr;
  ASSERT_EQ(seqc::attention(nullptr, q.data.data(), k.data.data(), v.data.data(),
                            options.additive ? fs.data.data() : nullptr, kernelMasks, y, weights,
                            shape),
            cudaSuccess);
  expectClose(got, want, 2e-5, what);
}

} // namespace

TEST(CudaKernelSimulation, AttentionWeightsMasked) {
  seq::rt::AttentionOptions options;
  options.weights = true;
  checkAttention(options, 2, true, "dot weights, masked");
  options.additive = true;
  options.scale = 1.5f;
  checkAttention(options, 1, false, "additive weights");
}

TEST(CudaKernelSimulation, AttentionDotGroupedCausalMasked) {
  seq::rt::AttentionOptions options;
  options.scale = 0.5f;
  checkAttention(options, 1, false, "dot");
  options.causal = true;
  checkAttention(options, 2, true, "dot grouped causal masked");
  options.window = 2;
  checkAttention(options, 4, true, "dot sliding window");
}

TEST(CudaKernelSimulation, AttentionAdditive) {
  seq::rt::AttentionOptions options;
  options.additive = true;
  options.scale = 1.5f;
  options.scoreWeight = 2.0f;
  checkAttention(options, 1, true, "additive");
}

// --conv-backend=auto: a new input shape times both ways (one warm-up run
// each, then kRounds timed runs each) and keeps the faster; the same shape
// again runs only that one; the output is always the chosen way's.
namespace {
struct FakeWay {
  int runs = 0;
  int spinMicros = 0;
  const char *failure = nullptr;
  int *lastRun = nullptr, id = 0;
  const char *operator()() {
    ++runs;
    *lastRun = id;
    auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spinMicros);
    while (std::chrono::steady_clock::now() < until) {
    }
    return failure;
  }
};

struct TwoWays {
  int lastRun = -1;
  FakeWay first{0, 0, nullptr, &lastRun, 0}, second{0, 0, nullptr, &lastRun, 1};
  seqc::MeasuredChoice choice;
  const char *run(int64_t batch) {
    const int64_t key[seqc::MeasuredChoice::kKey] = {batch, 8, 8, 1};
    return seqc::run_faster(nullptr, choice, key, 2, "conv", "direct", "cuDNN",
                            [&] { return first(); }, [&] { return second(); });
  }
};
} // namespace

TEST(CudaKernelSimulation, MeasuredChoiceKeepsTheFasterWayPerShape) {
  constexpr int timed = 1 + seqc::MeasuredChoice::kRounds;
  TwoWays slowFirst;
  slowFirst.first.spinMicros = 2000;
  EXPECT_EQ(slowFirst.run(4), nullptr);
  EXPECT_EQ(slowFirst.first.runs, timed);
  EXPECT_EQ(slowFirst.second.runs, timed);
  EXPECT_EQ(slowFirst.lastRun, 1);
  EXPECT_EQ(slowFirst.run(4), nullptr); // known shape: the faster only
  EXPECT_EQ(slowFirst.first.runs, timed);
  EXPECT_EQ(slowFirst.second.runs, timed + 1);

  TwoWays slowSecond;
  slowSecond.second.spinMicros = 2000;
  EXPECT_EQ(slowSecond.run(4), nullptr);
  EXPECT_EQ(slowSecond.first.runs, timed + 1); // once more, for its own output
  EXPECT_EQ(slowSecond.lastRun, 0);
  EXPECT_EQ(slowSecond.run(4), nullptr);
  EXPECT_EQ(slowSecond.second.runs, timed);
  EXPECT_EQ(slowSecond.lastRun, 0);
  EXPECT_EQ(slowSecond.run(5), nullptr); // a new batch size is timed again
  EXPECT_EQ(slowSecond.second.runs, 2 * timed);
}

TEST(CudaKernelSimulation, MeasuredChoiceAvoidsAFailingWay) {
  TwoWays cudnnFails;
  cudnnFails.second.failure = "CUDNN_STATUS_NOT_SUPPORTED";
  cudnnFails.first.spinMicros = 2000;
  EXPECT_EQ(cudnnFails.run(2), nullptr);
  EXPECT_EQ(cudnnFails.second.runs, 1); // failed at its warm-up, never again
  EXPECT_EQ(cudnnFails.lastRun, 0);
  EXPECT_EQ(cudnnFails.run(2), nullptr);
  EXPECT_EQ(cudnnFails.second.runs, 1);

  TwoWays bothFail;
  bothFail.first.failure = "first broke";
  bothFail.second.failure = "second broke";
  EXPECT_STREQ(bothFail.run(2), "first broke");
  EXPECT_STREQ(bothFail.run(2), "first broke"); // nothing was remembered
  EXPECT_EQ(bothFail.second.runs, 2);
}

TEST(CudaKernelSimulation, MeasuredChoiceRemembersTheLastShapes) {
  constexpr int timed = 1 + seqc::MeasuredChoice::kRounds;
  TwoWays ways;
  ways.second.spinMicros = 200;
  for (int64_t batch = 1; batch <= seqc::MeasuredChoice::kShapes; ++batch)
    ways.run(batch);
  EXPECT_EQ(ways.second.runs, seqc::MeasuredChoice::kShapes * timed);
  ways.run(3); // still known
  EXPECT_EQ(ways.second.runs, seqc::MeasuredChoice::kShapes * timed);
  ways.run(100); // replaces the oldest, batch 1
  ways.run(1);
  EXPECT_EQ(ways.second.runs, (seqc::MeasuredChoice::kShapes + 2) * timed);
}

// A call's launches as a CUDA graph per input shape: the first call with a
// shape runs them one by one, the second records and launches them, later
// ones only launch the graph (the launches still run, forward is not
// called); a recording that fails leaves that shape one by one for good.
namespace {
__global__ void add_one_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += 1.0f;
}

struct GraphedCalls {
  seqc::CallGraphs graphs;
  float *x = nullptr;
  int forwards = 0;
  bool syncInside = false;
  GraphedCalls() { cudaMalloc(&x, 4 * sizeof(float)); }
  ~GraphedCalls() {
    seqc::destroy_graphs(graphs);
    cudaFree(x);
  }
  int call(int64_t shape) {
    const int64_t key[2] = {shape, 7};
    return seqc::run_graphed(nullptr, graphs, key, sizeof key, [&] {
      ++forwards;
      SEQC_LAUNCH(add_one_kernel, 1, 4, 0, nullptr)(x, 4);
      if (syncInside && cudaStreamSynchronize(nullptr) != cudaSuccess)
        return 1; // what seqc_forward does with a failed call
      return 0;
    });
  }
};
} // namespace

TEST(CudaKernelSimulation, CallsBecomeOneGraphPerShape) {
  GraphedCalls calls;
  const long graphLaunches = seqc_sim::graph_launches();
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(calls.call(2), 0);
  EXPECT_EQ(calls.forwards, 2); // one by one, then recorded
  EXPECT_EQ(seqc_sim::graph_launches() - graphLaunches, 3);
  EXPECT_EQ(calls.x[0], 4.0f); // every call's launch ran once
  EXPECT_EQ(calls.call(3), 0); // a new shape starts one by one
  EXPECT_EQ(calls.forwards, 3);
  EXPECT_EQ(calls.x[3], 5.0f);
  // A graph launch's failure is that call's only.
  calls.graphs.error = cudaErrorInvalidValue;
  EXPECT_EQ(calls.call(2), 0);
  EXPECT_EQ(calls.graphs.error, cudaSuccess);
}

TEST(CudaKernelSimulation, AShapeThatCannotBeRecordedRunsOneByOne) {
  GraphedCalls calls;
  calls.syncInside = true;
  const long graphLaunches = seqc_sim::graph_launches();
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(calls.call(2), 0);
  // The failed recording ran nothing; its call ran again one by one.
  EXPECT_EQ(calls.forwards, 5);
  EXPECT_EQ(calls.x[0], 4.0f);
  EXPECT_EQ(seqc_sim::graph_launches(), graphLaunches);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(CudaKernelSimulation, GraphsRememberTheLastShapesAndCanBeTurnedOff) {
  GraphedCalls calls;
  for (int64_t shape = 0; shape <= seqc::CallGraphs::kShapes; ++shape)
    for (int i = 0; i < 3; ++i)
      calls.call(shape);
  EXPECT_EQ(calls.forwards, 2 * (seqc::CallGraphs::kShapes + 1));
  calls.call(0); // forgotten: one by one again
  EXPECT_EQ(calls.forwards, 2 * (seqc::CallGraphs::kShapes + 1) + 1);

  setenv("SEQC_CUDA_GRAPHS", "0", 1);
  GraphedCalls off;
  for (int i = 0; i < 3; ++i)
    off.call(2);
  unsetenv("SEQC_CUDA_GRAPHS");
  EXPECT_EQ(off.forwards, 3);
}

// The GEMM micro-kernel (lib/Target/CPU/GemmKernel.cpp) on the shapes where
// its blocking has edges: N below, at and above one panel with every kind
// of tail, K over several depth slices, M below one register block, between
// blocks and over several row chunks; with and without a bias (the two ways
// C starts) and a relu (applied to the accumulators after the last slice); through the JIT (this machine's vectors) and through AOT
// libraries built for AVX2 (x86-64-v3), against a double-precision product.
#include "seq/Dialect/Seq/IR/SeqDialect.h"
#include "seq/Runtime/Engine.h"
#include "seq/Target/CPU/JitEngine.h"

#include "KernelTestSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cmath>

using seq::rt::Tensor;
using seq::test::denseLiteral;
using seq::test::randomValues;

namespace {

struct Shape {
  int64_t k, n;
  bool bias;
  bool relu = false; // applied in the kernel before C is stored
};

/// One Dense layer (K -> N), weights as literals.
std::string denseModel(const Shape &s, const std::vector<float> &w,
                       const std::vector<float> &b) {
  const char *activation = s.relu ? "relu" : "linear";
  std::string text = llvm::formatv(
      "func.func @predict(%x: tensor<?x{0}xf32> {{seq.input = \"x\"}) -> "
      "(tensor<?x{1}xf32> {{seq.output = \"y\"}) {{\n"
      "  %w = arith.constant dense<{2}> : tensor<{3}xf32>\n",
      s.k, s.n, denseLiteral(w), llvm::formatv("{0}x{1}", s.k, s.n).str());
  if (s.bias)
    text += llvm::formatv("  %b = arith.constant dense<{0}> : tensor<{1}xf32>\n"
                          "  %y = seq.dense %x, %w, %b activation({3}) : "
                          "(tensor<?x{2}xf32>, tensor<{2}x{1}xf32>, "
                          "tensor<{1}xf32>) -> tensor<?x{1}xf32>\n",
                          denseLiteral(b), s.n, s.k, activation)
                .str();
  else
    text += llvm::formatv("  %y = seq.dense %x, %w activation({2}) : "
                          "(tensor<?x{0}xf32>, tensor<{0}x{1}xf32>) -> "
                          "tensor<?x{1}xf32>\n",
                          s.k, s.n, activation)
                .str();
  return "module {\n" + text + "  return %y : tensor<?x" + std::to_string(s.n) +
         "xf32>\n}\n}\n";
}

/// x @ w + b in double; each element's tolerance is a few float roundings
/// of the sum of |terms|.
void expectProduct(const std::vector<float> &y, const std::vector<float> &x,
                   const std::vector<float> &w, const std::vector<float> &b,
                   int64_t m, const Shape &s, const std::string &what) {
  ASSERT_EQ(y.size(), size_t(m * s.n)) << what;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      double sum = s.bias ? b[j] : 0, magnitude = s.bias ? std::fabs(b[j]) : 0;
      for (int64_t k = 0; k < s.k; ++k) {
        double term = double(x[i * s.k + k]) * w[k * s.n + j];
        sum += term;
        magnitude += std::fabs(term);
      }
      if (s.relu)
        sum = std::max(sum, 0.0);
      double got = y[i * s.n + j];
      ASSERT_NEAR(got, sum, 1e-6 * (magnitude + 1) * std::sqrt(double(s.k)))
          << what << ": row " << i << ", column " << j;
    }
}

const Shape kShapes[] = {
    {3, 1, true},     // one column: a masked vector, a 16-wide tail panel
    {5, 40, false},   // a full panel and an 8-column tail; C starts at zero
    {1100, 33, true, true}, // two depth slices (relu after the last); a 1-column tail
    {1025, 64, true},  // two full panels; two depth slices (513 and 512)
    {64, 1000, true, true}, // 31 panels and an 8-column tail (GEMV groups + rest)
    {2100, 17, false, true}, // three depth slices, tail only; relu
    {16, 128, true},  // exactly four panels (one GEMV group)
    {1030, 160, true}, // 644 KiB packed: blocks prefetch the next panel (the last its own)
};
// Rows left over from the register blocks: none, one at a time (1, 3, 9,
// 17), as one block whose extra rows repeat the last (5: no full block
// before it, 14, 261).
const int64_t kBatches[] = {1, 3, 5, 8, 9, 14, 17, 130, 261};

class GemmKernelTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { seq::registerJitEngine(); }
  GemmKernelTest() {
    context.loadDialect<seq::SeqDialect, mlir::arith::ArithDialect,
                        mlir::func::FuncDialect, mlir::tensor::TensorDialect>();
  }
  /// A Dense layer of shape `s` with random weights (from `seed` on).
  struct DenseCase {
    std::vector<float> w, b;
    mlir::OwningOpRef<mlir::ModuleOp> module;
  };
  DenseCase denseCase(const Shape &s, unsigned &seed) {
    DenseCase c{randomValues(s.k * s.n, seed), randomValues(s.n, seed + 1), {}};
    seed += 2;
    c.module = mlir::parseSourceString<mlir::ModuleOp>(denseModel(s, c.w, c.b), &context);
    EXPECT_TRUE(c.module) << "does not parse";
    return c;
  }
  mlir::MLIRContext context;
};

TEST_F(GemmKernelTest, JitMatchesTheProduct) {
  unsigned seed = 1;
  for (const Shape &s : kShapes) {
    DenseCase c = denseCase(s, seed);
    ASSERT_TRUE(c.module);
    auto engine = seq::rt::createEngine("jit", *c.module);
    ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
    for (int64_t m : kBatches) {
      Tensor x = Tensor::zeros({m, s.k});
      x.data = randomValues(m * s.k, seed++);
      llvm::Expected<std::vector<Tensor>> y = (*engine)->runAll(x);
      ASSERT_TRUE(bool(y)) << llvm::toString(y.takeError());
      expectProduct(y->front().data, x.data, c.w, c.b, m, s,
                    llvm::formatv("jit K={0} N={1} M={2}", s.k, s.n, m).str());
    }
  }
}

/// An AOT library built for x86-64-v3 (AVX2 blocks), run through its C API.
TEST_F(GemmKernelTest, Avx2LibraryMatchesTheProduct) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("seqc-gemm-test", dir));
  unsigned seed = 100;
  int index = 0;
  for (const Shape &s : kShapes) {
    DenseCase c = denseCase(s, seed);
    ASSERT_TRUE(c.module);
    std::string library = (dir + "/libgemm" + std::to_string(index++) + ".so").str();
    seq::test::AotLibrary aot(*c.module, library, "x86-64-v3", 261);
    ASSERT_TRUE(aot.error.empty()) << aot.error;
    for (int64_t m : kBatches) {
      std::vector<float> x = randomValues(m * s.k, seed++), y(m * s.n);
      ASSERT_EQ(aot.run(x.data(), m, 0, y.data()), 0);
      expectProduct(y, x, c.w, c.b, m, s,
                    llvm::formatv("avx2 K={0} N={1} M={2}", s.k, s.n, m).str());
    }
  }
  llvm::sys::fs::remove_directories(dir);
}

} // namespace

// The convolutions as implicit GEMMs (GemmKernel.cpp's emitConvolutionGemm)
// on the shapes where their blocking has edges: C one vector wide (twice the
// rows) on output lines that hold whole blocks and on lines that do not,
// strides and dilations, more than 256 channels (each tap's channels in
// slices), a full panel plus a tail, a kernel read in place (a grouped
// convolution's slices), a dynamic time axis, 1-D, 2-D and 3-D; through the
// JIT (this machine's vectors) and an AOT library built for AVX2
// (x86-64-v3), against the eager reference interpreter.
#include "seq/Dialect/Seq/IR/SeqDialect.h"
#include "seq/Runtime/Eager.h"
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

#include <gtest/gtest.h>

#include <cmath>

using seq::rt::Tensor;
using seq::test::denseLiteral;
using seq::test::randomValues;

namespace {

/// One convolution layer: `op` (seq.conv1d/2d/3d), the input's shape
/// without the batch (-1: the dynamic time axis, run at `steps`), the
/// kernel's shape and the op's attributes as written in the IR.
struct ConvCase {
  const char *name, *op;
  std::vector<int64_t> input, kernel, output;
  const char *attributes;
  int64_t steps = 0;
};

const ConvCase kCases[] = {
    {"rgb_same_relu", "seq.conv2d", {8, 16, 3}, {3, 3, 3, 16}, {8, 16, 16},
     "padding(same) activation(relu) {dilation_rate = array<i64: 1, 1>, "
     "strides = array<i64: 1, 1>}"},
    {"strided_dilated", "seq.conv2d", {7, 9, 8}, {3, 2, 8, 40}, {3, 7, 40},
     "padding(valid) activation(linear) {dilation_rate = array<i64: 1, 2>, "
     "strides = array<i64: 2, 1>}"},
    {"wide_channels", "seq.conv2d", {3, 5, 300}, {2, 2, 300, 20}, {2, 4, 20},
     "padding(valid) activation(tanh) {dilation_rate = array<i64: 1, 1>, "
     "strides = array<i64: 1, 1>}"},
    {"groups", "seq.conv2d", {6, 6, 16}, {3, 3, 8, 32}, {4, 4, 32},
     "padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, "
     "groups = 2 : i64, strides = array<i64: 1, 1>}"},
    {"conv1d_dynamic_causal", "seq.conv1d", {-1, 6}, {5, 6, 33}, {-1, 33},
     "padding(causal) activation(relu) {dilation_rate = 2 : i64, strides = 1 : i64}",
     20},
    {"conv3d", "seq.conv3d", {4, 5, 6, 8}, {2, 2, 2, 8, 17}, {3, 2, 5, 17},
     "padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1, 1>, "
     "strides = array<i64: 1, 2, 1>}"},
};
const int64_t kBatches[] = {1, 3, 9};

int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// tensor<?xAxBxf32> for a shape without the batch (-1 printed as ?).
std::string tensorType(const std::vector<int64_t> &shape, bool batch = true) {
  std::string text = batch ? "tensor<?x" : "tensor<";
  for (int64_t d : shape)
    text += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return text + "f32>";
}

/// The model of one case with random weights and a bias.
std::string convModel(const ConvCase &c, unsigned seed) {
  int64_t filters = c.kernel.back();
  std::string in = tensorType(c.input), out = tensorType(c.output);
  std::string kernel = tensorType(c.kernel, false),
              bias = tensorType({filters}, false);
  return llvm::formatv(
             "module {{\n"
             "func.func @predict(%x: {0} {{seq.input = \"x\"}) -> ({1} {{seq.output = \"y\"}) {{\n"
             "  %k = arith.constant dense<{2}> : {3}\n"
             "  %b = arith.constant dense<{4}> : {5}\n"
             "  %y = {6} %x, %k, %b {7} : ({0}, {3}, {5}) -> {1}\n"
             "  return %y : {1}\n}\n}\n",
             in, out, denseLiteral(randomValues(product(c.kernel), seed)), kernel,
             denseLiteral(randomValues(filters, seed + 1)), bias, c.op, c.attributes)
      .str();
}

std::vector<int64_t> inputShape(const ConvCase &c, int64_t batch) {
  std::vector<int64_t> shape{batch};
  for (int64_t d : c.input)
    shape.push_back(d < 0 ? c.steps : d);
  return shape;
}

/// Every element of `got` within a few float roundings of `want` (an
/// indexing mistake is off by O(1)).
void expectClose(const std::vector<float> &got, const std::vector<float> &want,
                 const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i])))
        << what << ": element " << i;
}

class ConvolutionGemmTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    seq::registerJitEngine();
    seq::rt::registerEagerEngine();
  }
  ConvolutionGemmTest() {
    context.loadDialect<seq::SeqDialect, mlir::arith::ArithDialect,
                        mlir::func::FuncDialect, mlir::tensor::TensorDialect>();
  }
  mlir::OwningOpRef<mlir::ModuleOp> parse(const ConvCase &c, unsigned seed) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(convModel(c, seed), &context);
    EXPECT_TRUE(module) << c.name << " does not parse";
    return module;
  }
  /// The eager interpreter's output for `x`.
  std::vector<float> reference(mlir::ModuleOp module, const Tensor &x) {
    auto eager = seq::rt::createEngine("eager", module);
    EXPECT_TRUE(bool(eager)) << llvm::toString(eager.takeError());
    llvm::Expected<std::vector<Tensor>> y = (*eager)->runAll(x);
    EXPECT_TRUE(bool(y)) << llvm::toString(y.takeError());
    return y->front().data;
  }
  mlir::MLIRContext context;
};

TEST_F(ConvolutionGemmTest, JitMatchesTheEagerInterpreter) {
  unsigned seed = 1;
  for (const ConvCase &c : kCases) {
    mlir::OwningOpRef<mlir::ModuleOp> module = parse(c, seed);
    seed += 2;
    ASSERT_TRUE(module);
    auto engine = seq::rt::createEngine("jit", *module);
    ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
    for (int64_t batch : kBatches) {
      Tensor x = Tensor::zeros(inputShape(c, batch));
      x.data = randomValues(x.data.size(), seed++);
      llvm::Expected<std::vector<Tensor>> y = (*engine)->runAll(x);
      ASSERT_TRUE(bool(y)) << llvm::toString(y.takeError());
      expectClose(y->front().data, reference(*module, x),
                  llvm::formatv("jit {0} batch {1}", c.name, batch).str());
    }
  }
}

/// An AOT library built for x86-64-v3 (AVX2 blocks: 3 rows, 6 when C is
/// one vector), run through its C API.
TEST_F(ConvolutionGemmTest, Avx2LibraryMatchesTheEagerInterpreter) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("seqc-conv-test", dir));
  unsigned seed = 100;
  int index = 0;
  for (const ConvCase &c : kCases) {
    mlir::OwningOpRef<mlir::ModuleOp> module = parse(c, seed);
    seed += 2;
    ASSERT_TRUE(module);
    std::string library = (dir + "/libconv" + std::to_string(index++) + ".so").str();
    seq::test::AotLibrary aot(*module, library, "x86-64-v3", 9);
    ASSERT_TRUE(aot.error.empty()) << c.name << ": " << aot.error;
    for (int64_t batch : kBatches) {
      Tensor x = Tensor::zeros(inputShape(c, batch));
      x.data = randomValues(x.data.size(), seed++);
      std::vector<float> want = reference(*module, x);
      std::vector<float> y(want.size());
      ASSERT_EQ(aot.run(x.data.data(), batch, c.steps, y.data()), 0) << c.name;
      expectClose(y, want, llvm::formatv("avx2 {0} batch {1}", c.name, batch).str());
    }
  }
  llvm::sys::fs::remove_directories(dir);
}

} // namespace

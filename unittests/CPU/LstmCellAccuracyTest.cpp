// The LSTM cell's pointwise update (lstmCellState / lstmCellOutput in
// lib/Conversion/SeqToLinalg/LinalgBuilder.cpp), compiled by the CPU backend
// (the jit engine for this machine, and an AOT library for x86-64-v3: AVX2
// vectors) and interpreted by the eager engine, against a double-precision reference
// on gate preactivations over the ranges real models reach and far beyond
// (saturated gates, tails to +-100, values down to 1e-30).
//
// With Keras' default activations the compiled cell multiplies sigmoid and
// tanh as fractions and divides once per product; this checks that doing so
// costs no accuracy that matters: every h within a few ulps of the
// reference, plus what the rounding of c (a sum, a few ulps of its terms)
// moves it by, where a product below 1.5e-30 may come out 0.
#include "KernelTestSupport.h"

#include "seq/Dialect/Seq/IR/SeqDialect.h"
#include "seq/Runtime/Eager.h"
#include "seq/Runtime/Engine.h"
#include "seq/Target/CPU/JitEngine.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <iostream>

using seq::rt::Tensor;

namespace {

constexpr int64_t kUnits = 16, kSteps = 2, kRows = 4096;
constexpr double kMaxUlp = 4;
/// A product of sigmoid and tanh below this comes out 0 (its fraction's
/// denominator overflows: 1 + e^88 times e^20 + 1), as subnormals flush.
constexpr double kFlushed = 1.5e-30;

using seq::test::sigmoid;

double ulp(double v) {
  return v == 0 ? std::ldexp(1.0, -149)
                : std::ldexp(1.0, std::max(std::ilogb(v), -126) - 23);
}

/// Preactivations of every kind: moderate, saturating, far tails, tiny.
std::vector<float> preactivations() {
  uint64_t state = 0x9E3779B97F4A7C15u;
  auto uniform = [&] {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return double(state >> 11) / double(uint64_t(1) << 53);
  };
  std::vector<float> xs(kRows * kSteps * 4 * kUnits);
  for (float &x : xs) {
    double kind = uniform(), u = uniform();
    if (kind < 0.5)
      x = float(16 * u - 8);
    else if (kind < 0.7)
      x = float(40 * u - 20);
    else if (kind < 0.85)
      x = float(200 * u - 100);
    else
      x = float((uniform() < 0.5 ? -1 : 1) * std::pow(10.0, -30 * u));
  }
  return xs;
}

TEST(LstmCellAccuracy, WithinFewUlpsOfDoublePrecision) {
  seq::rt::registerEagerEngine();
  seq::registerJitEngine();
  mlir::MLIRContext context;
  context.loadDialect<seq::SeqDialect, mlir::arith::ArithDialect,
                      mlir::func::FuncDialect>();
  // A zero recurrent kernel: each step's gates are its input projection.
  std::string gates = std::to_string(4 * kUnits);
  std::string in = "tensor<?x" + std::to_string(kSteps) + "x" + gates + "xf32>";
  std::string out = "tensor<?x" + std::to_string(kSteps) + "x" +
                    std::to_string(kUnits) + "xf32>";
  std::string kernel = "tensor<" + std::to_string(kUnits) + "x" + gates + "xf32>";
  std::string source =
      "func.func @predict(%xp: " + in + ") -> " + out + " {\n" +
      "  %wr = arith.constant dense<0.0> : " + kernel + "\n" +
      "  %h = seq.lstm_recurrence %xp, %wr activation(tanh, sigmoid) "
      "{return_sequences} : (" + in + ", " + kernel + ") -> " + out + "\n" +
      "  return %h : " + out + "\n}\n";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  ASSERT_TRUE(module) << source;
  std::vector<float> xs = preactivations();
  Tensor input{{kRows, kSteps, 4 * kUnits}, xs};

  auto check = [&](llvm::StringRef engineName, const std::vector<float> &ys) {
    ASSERT_EQ(ys.size(), size_t(kRows * kSteps * kUnits));
    double worst = 0;
    int64_t checked = 0;
    for (int64_t row = 0; row < kRows; ++row) {
      for (int64_t j = 0; j < kUnits; ++j) {
        double c = 0;
        for (int64_t t = 0; t < kSteps; ++t) {
          auto gate = [&](int64_t g) {
            return double(xs[(row * kSteps + t) * 4 * kUnits + g * kUnits + j]);
          };
          double kept = sigmoid(gate(1)) * c;
          double added = sigmoid(gate(0)) * std::tanh(gate(2));
          c = kept + added;
          double o = sigmoid(gate(3)), th = std::tanh(c);
          double h = o * th;
          float y = ys[(row * kSteps + t) * kUnits + j];
          // A few ulps of h, plus c's rounding and flushed products (one
          // per step so far) moved through o tanh'(c), plus h's own flush.
          double allowed =
              kMaxUlp * ulp(h) +
              o * (1 - th * th) *
                  (kMaxUlp * ulp(std::abs(kept) + std::abs(added)) +
                   (t + 1) * kFlushed) +
              kFlushed;
          double error = std::abs(double(y) - h);
          ASSERT_FALSE(std::isnan(y)) << engineName.str() << " row " << row;
          worst = std::max(worst, error / allowed);
          ++checked;
          EXPECT_LE(error, allowed)
              << engineName.str() << " row " << row << " unit " << j
              << " step " << t << " (gates i, f, g, o " << gate(0) << ", "
              << gate(1) << ", " << gate(2) << ", " << gate(3) << "): got "
              << y << ", want " << h;
        }
      }
    }
    std::cout << engineName.str() << ": " << checked
              << " outputs, largest error " << worst
              << " of the allowance\n";
  };

  for (llvm::StringRef engineName : {"jit", "eager"}) {
    auto engine = seq::rt::createEngine(engineName, *module);
    ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
    llvm::Expected<Tensor> output = (*engine)->run(input);
    ASSERT_TRUE(bool(output)) << llvm::toString(output.takeError());
    check(engineName, output->data);
  }

  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("seqc-lstm-cell-test", dir));
  {
    seq::test::AotLibrary aot(*module, (dir + "/libcell.so").str(), "x86-64-v3",
                              kRows);
    ASSERT_TRUE(aot.error.empty()) << aot.error;
    std::vector<float> ys(kRows * kSteps * kUnits);
    ASSERT_EQ(aot.run(xs.data(), kRows, 0, ys.data()), 0);
    check("x86-64-v3 library", ys);
  }
  llvm::sys::fs::remove_directories(dir);
}

} // namespace

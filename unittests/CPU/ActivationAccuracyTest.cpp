// Every elementwise activation, compiled by the CPU backend (engine jit, the
// lowering AOT shares) and interpreted by the eager engine, against a double
// precision reference over the whole float range: every binade from the
// smallest subnormal to the largest float (16 mantissas each, both signs),
// the infinities and NaN, dense sampling of [-20, 20] and of the tails
// [-120, 120].
//
// The error of a result y against the reference r (rounded-to-float ulps of
// r) must stay within a few ulps wherever r is a normal float. A reference
// below the normal range (a subnormal) may come back as 0: TensorFlow flushes
// denormals on the CPU, and so do the exp approximations.
#include "KernelTestSupport.h"

#include "seq/Dialect/Seq/IR/SeqDialect.h"
#include "seq/Runtime/Eager.h"
#include "seq/Runtime/Engine.h"
#include "seq/Target/CPU/JitEngine.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>

using seq::rt::Tensor;

namespace {

constexpr int64_t kWidth = 16;

using seq::test::sigmoid;
double softplus(double x) {
  return std::log1p(std::exp(-std::abs(x))) + std::max(x, 0.0);
}

/// The spacing of floats at |v| (normal range).
double ulp(double v) { return std::ldexp(1.0, std::ilogb(v) - 23); }

struct Case {
  const char *name;
  /// The op's alpha attribute ("" when it takes none).
  const char *alpha;
  std::function<double(double)> reference;
  /// Largest error in ulps of the reference.
  double maxUlp = 4;
  /// An absolute error that is accepted whatever the ulps, for results that
  /// are small by cancellation in Keras' own formula (0 when none).
  std::function<double(double x)> absolute = nullptr;
  /// More ulps allowed at x where the result is ill-conditioned in the
  /// float32 argument of an exp or erfc (rounded by Keras' float32 formula
  /// as well): exp(z) moves by |z| ulps per ulp of z (0 when none).
  std::function<double(double x)> conditioning = nullptr;
};

std::vector<Case> cases() {
  constexpr double kSeluAlpha = 1.6732632423543772;
  constexpr double kSeluScale = 1.0507009873554805;
  constexpr double kSqrt2OverPi = 0.7978845608028654;
  return {
      {"sigmoid", "", sigmoid},
      {"tanh", "", [](double x) { return std::tanh(x); }},
      {"exponential", "", [](double x) { return std::exp(x); }},
      {"swish", "", [](double x) { return x * sigmoid(x); }},
      {"softplus", "", softplus},
      {"log_sigmoid", "", [](double x) { return -softplus(-x); }},
      {"elu", "{alpha = 1.0 : f32}",
       [](double x) { return x > 0 ? x : std::expm1(x); }},
      {"elu", "{alpha = 0.3 : f32}",
       [](double x) { return x > 0 ? x : 0.3f * std::expm1(x); }},
      {"selu", "",
       [=](double x) {
         return kSeluScale * (x > 0 ? x : kSeluAlpha * std::expm1(x));
       }},
      {"celu", "{alpha = 1.0 : f32}",
       [](double x) {
         return std::max(x, 0.0) + std::expm1(std::min(x, 0.0));
       }},
      {"celu", "{alpha = 0.5 : f32}",
       [](double x) {
         return std::max(x, 0.0) + 0.5 * std::expm1(std::min(x, 0.0) / 0.5);
       }},
      // 0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2), exact in the
      // negative tail.
      // erfc(z) moves by 2 z^2 ulps per ulp of z = x / sqrt 2.
      {"gelu", "", [](double x) { return 0.5 * x * std::erfc(-x / M_SQRT2); },
       4, nullptr, [](double x) { return x < 0 ? 2 * x * x : 0; }},
      // 0.5 x (1 + tanh(u)) = x sigmoid(2u).
      {"gelu_tanh", "",
       [=](double x) {
         return x * sigmoid(2 * kSqrt2OverPi * (x + 0.044715 * x * x * x));
       },
       // The float32 argument z = 2u: x^3, a product, a sum: a few ulps of z.
       4, nullptr, [=](double x) {
         return x < 0 ? 4 * 2 * kSqrt2OverPi * std::abs(x + 0.044715 * x * x * x)
                      : 0;
       }},
      {"mish", "", [](double x) { return x * std::tanh(softplus(x)); }},
      {"softsign", "", [](double x) { return x / (1 + std::abs(x)); }},
      {"squareplus", "",
       [](double x) {
         // (x + sqrt(x^2 + 4)) / 2 without cancellation or overflow.
         double r = std::hypot(x, 2.0);
         return x >= 0 ? (x + r) / 2 : 2 / (r - x);
       }},
      {"tanh_shrink", "",
       [](double x) {
         if (std::abs(x) > 1e-2)
           return x - std::tanh(x);
         double x2 = x * x;
         return x * x2 *
                (1.0 / 3 + x2 * (-2.0 / 15 + x2 * (17.0 / 315 - x2 * 62.0 / 2835)));
       },
       // x - tanh(x) cancels for small x in Keras' float32 formula too: a
       // few ulps of x.
       4, [](double x) { return 4 * ulp(x); }},
      // 0.2 x + 0.5 cancels near x = -2.5 in Keras' float32 formula too.
      {"hard_sigmoid_keras2", "",
       [](double x) { return std::clamp(double(0.2f) * x + 0.5, 0.0, 1.0); },
       4, [](double) { return std::ldexp(1.0, -22); }},
      {"hard_sigmoid_keras3", "",
       [](double x) { return std::clamp(x + 3, 0.0, 6.0) / 6; }},
      {"hard_silu", "",
       [](double x) { return x * std::clamp(x + 3, 0.0, 6.0) / 6; }},
      {"hard_tanh", "", [](double x) { return std::clamp(x, -1.0, 1.0); }},
      {"relu", "", [](double x) { return std::max(x, 0.0); }},
      {"relu6", "", [](double x) { return std::clamp(x, 0.0, 6.0); }},
      {"leaky_relu", "{alpha = 0.3 : f32}",
       [](double x) { return x >= 0 ? x : double(0.3f) * x; }},
  };
}

/// Inputs over the whole float range.
std::vector<float> sweep() {
  std::vector<float> xs{0.0f,     -0.0f,    INFINITY, -INFINITY,
                        FLT_MAX,  -FLT_MAX, NAN};
  for (int e = -149; e <= 127; ++e)
    for (int m = 0; m < 16; ++m)
      for (float sign : {1.0f, -1.0f})
        xs.push_back(sign * std::ldexp(1.0f + m / 16.0f, e));
  for (int i = -20 * 1024; i <= 20 * 1024; ++i)
    xs.push_back(i / 1024.0f);
  for (int i = -120 * 64; i <= 120 * 64; ++i)
    xs.push_back(i / 64.0f + 1 / 128.0f);
  while (xs.size() % kWidth)
    xs.push_back(0.0f);
  return xs;
}

struct Worst {
  double ulps = 0;
  float x = 0, y = 0;
  double reference = 0;
  size_t points = 0;
  /// The largest error / c.absolute(x) of the points it accepted.
  double ofAbsolute = 0;
};

/// The largest error of `ys` in ulps of the reference, leaving out points
/// whose reference is NaN, those within `c.absolute`, and results within
/// max(1, |x|) FLT_MIN of a reference below max(1, |x|) FLT_MIN: a value
/// below the normal range (or x times one: swish, gelu, mish far in the
/// negative tail) may flush to 0.
Worst measure(const Case &c, const std::vector<float> &xs,
              const std::vector<float> &ys) {
  Worst worst;
  for (size_t i = 0; i < xs.size(); ++i) {
    double r = c.reference(xs[i]);
    double y = ys[i];
    // NaN in, NaN out; other NaN references (inf - inf) are left out.
    if (std::isnan(r) && !(std::isnan(xs[i]) && !std::isnan(y)))
      continue;
    ++worst.points;
    double error = std::abs(y - r);
    double ulps;
    if (std::isnan(r)) {
      ulps = INFINITY;
    } else if (std::isinf(r) || std::abs(r) > FLT_MAX) {
      ulps = y == float(r) ? 0 : INFINITY;
    } else if (std::isnan(y)) {
      ulps = INFINITY;
    } else if (double flush = std::max(1.0, std::abs(double(xs[i]))) * FLT_MIN;
               std::abs(r) < flush && error <= flush) {
      continue;
    } else if (c.absolute && error <= c.absolute(xs[i])) {
      worst.ofAbsolute = std::max(worst.ofAbsolute, error / c.absolute(xs[i]));
      continue;
    } else {
      ulps = std::abs(r) < FLT_MIN ? INFINITY : error / ulp(r);
      if (c.conditioning)
        ulps = ulps * c.maxUlp / (c.maxUlp + c.conditioning(xs[i]));
    }
    if (getenv("SEQ_ULP_PROFILE") && ulps > 1)
      std::cout << "  x = " << xs[i] << ": " << ulps << " ulp\n";
    if (!(ulps <= worst.ulps)) {
      worst.ulps = ulps;
      worst.x = xs[i];
      worst.y = ys[i];
      worst.reference = r;
    }
  }
  return worst;
}

void PrintTo(const Case &c, std::ostream *os) { *os << c.name << c.alpha; }

class ActivationAccuracy : public ::testing::TestWithParam<Case> {
protected:
  static void SetUpTestSuite() {
    seq::rt::registerEagerEngine();
    seq::registerJitEngine();
  }
  ActivationAccuracy() {
    context.loadDialect<seq::SeqDialect, mlir::arith::ArithDialect,
                        mlir::func::FuncDialect>();
  }
  mlir::MLIRContext context;
};

TEST_P(ActivationAccuracy, WithinFewUlpsOverTheWholeRange) {
  const Case &c = GetParam();
  std::string type = "tensor<?x" + std::to_string(kWidth) + "xf32>";
  std::string source = "func.func @predict(%x: " + type + ") -> " + type +
                       " {\n  %y = seq.activation " + c.name + " %x " +
                       c.alpha + " : " + type + "\n  return %y : " + type +
                       "\n}\n";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  ASSERT_TRUE(module) << source;
  std::vector<float> xs = sweep();
  Tensor input{{int64_t(xs.size()) / kWidth, kWidth}, xs};
  for (llvm::StringRef engineName : {"jit", "eager"}) {
    auto engine = seq::rt::createEngine(engineName, *module);
    ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
    llvm::Expected<Tensor> output = (*engine)->run(input);
    ASSERT_TRUE(bool(output)) << llvm::toString(output.takeError());
    ASSERT_EQ(output->data.size(), xs.size());
    Worst worst = measure(c, xs, output->data);
    std::cout << engineName.str() << " " << c.name << " " << c.alpha
              << ": max " << worst.ulps << " ulp at x = " << worst.x
              << " (got " << worst.y << ", want " << worst.reference
              << "), " << worst.points << " points";
    if (c.absolute)
      std::cout << "; within " << worst.ofAbsolute
                << " of the absolute tolerance elsewhere";
    std::cout << "\n";
    EXPECT_GT(worst.points, xs.size() / 2);
    EXPECT_LE(worst.ulps, engineName == "eager" ? 1.0 : c.maxUlp)
        << engineName.str() << " " << c.name << " at x = " << worst.x
        << ": got " << worst.y << ", want " << worst.reference;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Activations, ActivationAccuracy, ::testing::ValuesIn(cases()),
    [](const ::testing::TestParamInfo<Case> &info) {
      std::string name = info.param.name;
      for (char ch : std::string(info.param.alpha))
        if (std::isdigit(static_cast<unsigned char>(ch)))
          name += ch;
      return name;
    });

} // namespace

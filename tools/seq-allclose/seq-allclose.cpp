// seq-allclose: compares two .npy arrays as numpy.allclose does,
// |actual - expected| <= atol + rtol * |expected| everywhere (NaN never
// matches, equal infinities do), and prints one line: the verdict, the max
// absolute and relative error, and the worst element.
// Exit codes: 0 close, 1 mismatch / different shapes / unreadable file,
// 2 bad usage.
#include "seq/Runtime/Npy.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace llvm;
using seq::rt::Tensor;

namespace {

cl::OptionCategory category("seq-allclose options");
cl::opt<std::string> actualPath(cl::Positional, cl::Required,
                                cl::desc("<actual.npy>"), cl::cat(category));
cl::opt<std::string> expectedPath(cl::Positional, cl::Required,
                                  cl::desc("<expected.npy>"),
                                  cl::cat(category));
cl::opt<double> absTolerance("atol",
                             cl::desc("Absolute tolerance (default 1e-5)"),
                             cl::init(1e-5), cl::cat(category));
cl::opt<double> relTolerance(
    "rtol", cl::desc("Relative tolerance, times |expected| (default 1e-5)"),
    cl::init(1e-5), cl::cat(category));

int fail(const Twine &message, int code) {
  errs() << "seq-allclose: error: " << message << "\n";
  return code;
}

/// "(1, 0, 2)" for the flat index `flat` of an array of `shape`.
std::string indexString(const std::vector<int64_t> &shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string text = "(";
  for (size_t d = 0; d < index.size(); ++d)
    text += (d ? ", " : "") + std::to_string(index[d]);
  return text + (index.size() == 1 ? ",)" : ")");
}

struct Comparison {
  int64_t mismatches = 0;
  double maxAbsError = 0;
  double maxRelError = 0; ///< Over finite, nonzero expected values.
  int64_t worst = 0;      ///< The element furthest beyond its tolerance.
};

/// Raises `maximum` to `value`; a NaN, once seen, sticks.
void raise(double &maximum, double value) {
  if (!std::isnan(maximum) && (std::isnan(value) || value > maximum))
    maximum = value;
}

Comparison compare(const Tensor &actual, const Tensor &expected) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Comparison c;
  double worstRatio = -1;
  for (size_t i = 0; i < actual.data.size(); ++i) {
    double a = actual.data[i], e = expected.data[i];
    double diff, ratio;
    bool close;
    if (a == e) { // also equal infinities
      diff = 0;
      ratio = 0;
      close = true;
    } else if (!std::isfinite(a) || !std::isfinite(e)) {
      diff = std::isnan(a) || std::isnan(e) ? std::nan("") : kInf;
      ratio = kInf;
      close = false;
    } else {
      diff = std::fabs(a - e);
      double tolerance = absTolerance + relTolerance * std::fabs(e);
      close = diff <= tolerance;
      ratio = tolerance > 0 ? diff / tolerance : kInf;
    }
    if (!close)
      ++c.mismatches;
    raise(c.maxAbsError, diff);
    if (std::isnan(diff) || (e != 0 && std::isfinite(e)))
      raise(c.maxRelError, diff / std::fabs(e));
    if (ratio > worstRatio) {
      worstRatio = ratio;
      c.worst = static_cast<int64_t>(i);
    }
  }
  return c;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "seq-allclose: passes when |actual - expected| <= atol + rtol * "
          "|expected| everywhere\n",
          &errs()))
    return 2;
  if (!(absTolerance >= 0) || !(relTolerance >= 0))
    return fail("--atol and --rtol must be >= 0", 2);

  Expected<Tensor> actual = seq::rt::readNpy(actualPath);
  if (!actual)
    return fail(toString(actual.takeError()), 1);
  Expected<Tensor> expected = seq::rt::readNpy(expectedPath);
  if (!expected)
    return fail(toString(expected.takeError()), 1);
  if (actual->shape != expected->shape)
    return fail("shapes differ: actual " + actual->shapeString() + " ('" +
                    actualPath + "'), expected " + expected->shapeString() +
                    " ('" + expectedPath + "')",
                1);

  Comparison c = compare(*actual, *expected);
  raw_ostream &os = c.mismatches ? errs() : outs();
  os << "seq-allclose: ";
  if (c.mismatches)
    os << "mismatch: " << c.mismatches << " of " << actual->data.size()
       << " elements";
  else
    os << "ok: " << actual->data.size() << " elements";
  os << " of shape " << actual->shapeString() << " (atol "
     << format("%g", absTolerance.getValue()) << ", rtol "
     << format("%g", relTolerance.getValue()) << "): max abs error "
     << format("%.3g", c.maxAbsError) << ", max rel error "
     << format("%.3g", c.maxRelError);
  if (!actual->data.empty())
    os << ", worst at " << indexString(actual->shape, c.worst) << " (actual "
       << format("%.9g", actual->data[c.worst]) << ", expected "
       << format("%.9g", expected->data[c.worst]) << ")";
  os << "\n";
  return c.mismatches ? 1 : 0;
}

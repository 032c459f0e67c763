#include "seq/Runtime/Compare.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <unistd.h>

namespace seq::rt {

bool CompareReport::passed() const {
  for (const Verdict &v : verdicts)
    if (!v.passed)
      return false;
  return true;
}

namespace {

constexpr size_t kMinSpeedSamples = 8;

LatencyStats latency(const EngineRun &run) {
  std::vector<double> us;
  for (const Sample &s : run.samples)
    us.push_back(s.latencyUs);
  return {percentile(us, 0.5), percentile(us, 0.99)};
}

/// Growth per iteration fitted over the second half of the run, after
/// allocators and caches have settled.
void growth(const EngineRun &run, double &rss, double &heap) {
  std::vector<double> x, r, h;
  for (size_t i = run.samples.size() / 2; i < run.samples.size(); ++i) {
    x.push_back(static_cast<double>(run.samples[i].iteration));
    r.push_back(static_cast<double>(run.samples[i].rssBytes));
    h.push_back(static_cast<double>(run.samples[i].heapBytes));
  }
  rss = fitSlope(x, r);
  heap = fitSlope(x, h);
}

} // namespace

CompareReport judge(EngineRun compiled, EngineRun eager, const Thresholds &t) {
  CompareReport report;
  report.compiled = std::move(compiled);
  report.eager = std::move(eager);
  const EngineRun &c = report.compiled, &e = report.eager;

  bool compiledOk = !c.crashed && c.output;
  report.verdicts.push_back(
      {VerdictKind::Crash, compiledOk,
       compiledOk ? "the " + c.engine + " engine ran every iteration"
                  : "the " + c.engine + " engine " + c.failure});
  if (e.crashed || !e.output) {
    report.verdicts.push_back({VerdictKind::Crash, false, "the eager engine " + e.failure});
    return report;
  }

  report.compiledLatency = latency(c);
  report.eagerLatency = latency(e);
  growth(c, report.compiledRssGrowth, report.compiledHeapGrowth);
  growth(e, report.eagerRssGrowth, report.eagerHeapGrowth);
  if (!compiledOk)
    return report;

  const Tensor &got = *c.output, &want = *e.output;
  if (got.shape != want.shape) {
    report.verdicts.push_back({VerdictKind::Numerics, false,
                               "output shape " + got.shapeString() +
                                   " differs from eager's " + want.shapeString()});
  } else {
    bool close = true;
    for (size_t i = 0; i < got.data.size(); ++i) {
      double diff = std::fabs(static_cast<double>(got.data[i]) - want.data[i]);
      double scale = std::fabs(static_cast<double>(want.data[i]));
      report.maxAbsError = std::max(report.maxAbsError, diff);
      if (scale > 0)
        report.maxRelError = std::max(report.maxRelError, diff / scale);
      close &= diff <= t.atol + t.rtol * scale && !std::isnan(got.data[i]);
    }
    std::string detail =
        llvm::formatv("max abs error {0:e2}, max rel error {1:e2} (allowed: "
                      "atol {2:e1} + rtol {3:e1} * |eager|)",
                      report.maxAbsError, report.maxRelError, t.atol, t.rtol);
    // Every call of an engine computes the same bits: a call that does not
    // reads memory it should not (a stale arena, state left from the last
    // call), even when its numbers happen to stay close.
    for (const EngineRun *run : {&c, &e})
      if (!run->changed.empty())
        detail += "; the " + run->engine + " engine's output changed between calls: " +
                  run->changed;
    report.verdicts.push_back(
        {VerdictKind::Numerics, close && c.changed.empty() && e.changed.empty(), detail});
  }

  report.latencyRatio = report.eagerLatency.medianUs > 0
                            ? report.compiledLatency.medianUs / report.eagerLatency.medianUs
                            : 0;
  std::vector<double> compiledUs, eagerUs;
  for (const Sample &s : c.samples)
    compiledUs.push_back(s.latencyUs);
  for (const Sample &s : e.samples)
    eagerUs.push_back(s.latencyUs);
  report.speed = decideSpeed(compiledUs, eagerUs, t);
  const SpeedDecision &speed = report.speed;
  std::string medians = llvm::formatv(
      "compiled median {0:f1} us vs eager {1:f1} us: ratio {2:f3} (allowed <= {3:f2})",
      report.compiledLatency.medianUs, report.eagerLatency.medianUs,
      report.latencyRatio, t.maxSlowdown);
  double p = speed.outcome == SpeedDecision::Faster     ? speed.pFaster
             : speed.outcome == SpeedDecision::Slower ? speed.pSlower
                                                      : speed.pAbove;
  std::string test = p >= 1e-3 ? llvm::formatv("Mann-Whitney p = {0:f3}", p).str()
                               : llvm::formatv("Mann-Whitney p = {0:e1}", p).str();
  std::string detail;
  switch (speed.outcome) {
  case SpeedDecision::Slower:
    detail = llvm::formatv("{0}: {1:f1} us slower than allowed, significantly more than the "
                           "minimum meaningful difference of {2:f1} us ({3})",
                           medians, speed.excessUs, speed.minimumUs, test);
    break;
  case SpeedDecision::Negligible:
    detail = llvm::formatv("{0}: {1:f1} us slower than allowed, not significantly more than the "
                           "minimum meaningful difference of {2:f1} us ({3})",
                           medians, speed.excessUs, speed.minimumUs, test);
    break;
  case SpeedDecision::Faster:
    detail = medians + " (" + test + ")";
    break;
  case SpeedDecision::None:
    detail = "no measurable difference: " + medians + " (" + test + ")";
    // With 7 or fewer samples a side, the rank test cannot reach p < 0.001.
    if (std::min(c.samples.size(), e.samples.size()) < kMinSpeedSamples)
      detail += llvm::formatv("; too few iterations to tell, the test needs at "
                              "least {0}",
                              kMinSpeedSamples);
    break;
  }
  report.verdicts.push_back(
      {VerdictKind::Speed, speed.outcome != SpeedDecision::Slower, detail});

  // The RSS moves in whole pages: one page over the fitted window is slack,
  // not a leak. The heap is counted in bytes and gets none.
  size_t window = std::max<size_t>(c.samples.size() - c.samples.size() / 2, 1);
  double rssSlack = static_cast<double>(sysconf(_SC_PAGESIZE)) / window;
  bool steady = report.compiledHeapGrowth <= t.maxGrowthBytes &&
                report.compiledRssGrowth <= t.maxGrowthBytes + rssSlack;
  report.verdicts.push_back(
      {VerdictKind::Memory, steady,
       llvm::formatv("compiled memory grows {0:f0} B/iteration of RSS and {1:f0} "
                     "B/iteration of heap (allowed <= {2:f0})",
                     report.compiledRssGrowth, report.compiledHeapGrowth,
                     t.maxGrowthBytes)});
  return report;
}

} // namespace seq::rt

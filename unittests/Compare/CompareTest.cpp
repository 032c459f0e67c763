#include "seq/Runtime/Compare.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace seq::rt;

namespace {

/// A run of `n` iterations at `latencyUs`, memory growing by `growth` bytes
/// per iteration, with `output` as its result.
EngineRun makeRun(const std::string &engine, int n, double latencyUs,
                  int64_t growth, std::vector<float> output) {
  EngineRun run;
  run.engine = engine;
  for (int i = 0; i < n; ++i)
    run.samples.push_back({i, latencyUs + (i % 3), 1 << 20 | (growth * i),
                           4096 + growth * i});
  run.output = Tensor{{1, static_cast<int64_t>(output.size())}, output};
  return run;
}

const Verdict &verdict(const CompareReport &report, VerdictKind kind) {
  for (const Verdict &v : report.verdicts)
    if (v.kind == kind)
      return v;
  static Verdict missing{kind, false, "missing"};
  return missing;
}

TEST(Statistics, Percentile) {
  EXPECT_DOUBLE_EQ(percentile({3, 1, 2}, 0.5), 2);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(percentile({5}, 0.99), 5);
  EXPECT_DOUBLE_EQ(percentile({}, 0.5), 0);
}

TEST(Statistics, Slope) {
  EXPECT_DOUBLE_EQ(fitSlope({0, 1, 2, 3}, {10, 12, 14, 16}), 2);
  EXPECT_DOUBLE_EQ(fitSlope({0, 1, 2}, {5, 5, 5}), 0);
  EXPECT_DOUBLE_EQ(fitSlope({1}, {1}), 0);
}

TEST(Statistics, MannWhitneyU) {
  // Every a above every b: U is na * nb, and the test says so.
  RankTest apart = mannWhitneyU({10, 11, 12, 13, 14, 15, 16, 17},
                                {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_DOUBLE_EQ(apart.u, 64);
  EXPECT_LT(apart.pGreater, 0.001);
  EXPECT_GT(apart.pLess, 0.99);
  // Ties share their rank: identical samples give U = na * nb / 2.
  RankTest same = mannWhitneyU({1, 2, 2, 3}, {1, 2, 2, 3});
  EXPECT_DOUBLE_EQ(same.u, 8);
  EXPECT_GT(same.pGreater, 0.4);
  EXPECT_GT(same.pLess, 0.4);
  // All values equal, or an empty side: nothing to tell apart.
  RankTest flat = mannWhitneyU({5, 5, 5}, {5, 5});
  EXPECT_EQ(flat.pGreater, 1);
  EXPECT_EQ(flat.pLess, 1);
  EXPECT_EQ(mannWhitneyU({}, {1, 2}).pGreater, 1);
  // A textbook value: U = 3 for a = {1, 2, 4}, b = {3, 5, 6}.
  EXPECT_DOUBLE_EQ(mannWhitneyU({1, 2, 4}, {3, 5, 6}).u, 1);
  EXPECT_DOUBLE_EQ(mannWhitneyU({3, 5, 6}, {1, 2, 4}).u, 8);
}

/// `n` latencies around `medianUs` as a busy machine gives them: log-normal
/// jitter, and now and then a preemption several times as long.
std::vector<double> noisyLatencies(std::mt19937 &random, size_t n, double medianUs) {
  std::lognormal_distribution<double> jitter(0, 0.15);
  std::bernoulli_distribution preempted(0.03);
  std::exponential_distribution<double> stall(1.0 / 40);
  std::vector<double> us;
  for (size_t i = 0; i < n; ++i)
    us.push_back(medianUs * jitter(random) + (preempted(random) ? stall(random) : 0));
  return us;
}

TEST(Statistics, EqualEnginesNeverFailTheSpeedVerdict) {
  // The shape of issue 15: two engines equally fast (~11 us), 24 runs and
  // many more; none may fail. Faster and slower medians alike.
  for (double medianUs : {1.0, 11.0, 100.0, 5000.0})
    for (size_t n : {20, 100, 1000})
      for (unsigned seed = 0; seed < 200; ++seed) {
        std::mt19937 random(seed);
        std::vector<double> compiled = noisyLatencies(random, n, medianUs);
        std::vector<double> eager = noisyLatencies(random, n, medianUs);
        SpeedDecision d = decideSpeed(compiled, eager, Thresholds{});
        ASSERT_NE(d.outcome, SpeedDecision::Slower)
            << "median " << medianUs << " us, n " << n << ", seed " << seed
            << ": p " << d.pSlower << ", excess " << d.excessUs << " us";
      }
}

TEST(Statistics, EqualEnginesMostlyShowNoMeasurableDifference) {
  unsigned none = 0;
  for (unsigned seed = 0; seed < 200; ++seed) {
    std::mt19937 random(seed);
    std::vector<double> compiled = noisyLatencies(random, 100, 11);
    std::vector<double> eager = noisyLatencies(random, 100, 11);
    none += decideSpeed(compiled, eager, Thresholds{}).outcome == SpeedDecision::None;
  }
  // The test's level is 1% on each side.
  EXPECT_GE(none, 190u);
}

TEST(Statistics, ClearSlowdownAlwaysFails) {
  for (double medianUs : {11.0, 100.0, 5000.0})
    for (size_t n : {20, 100})
      for (unsigned seed = 0; seed < 200; ++seed) {
        std::mt19937 random(seed);
        std::vector<double> compiled = noisyLatencies(random, n, 2 * medianUs);
        std::vector<double> eager = noisyLatencies(random, n, medianUs);
        SpeedDecision d = decideSpeed(compiled, eager, Thresholds{});
        ASSERT_EQ(d.outcome, SpeedDecision::Slower)
            << "median " << medianUs << " us, n " << n << ", seed " << seed;
        EXPECT_LT(d.pSlower, 1e-3);
      }
}

TEST(Statistics, MinimumMeaningfulDifferenceAndAllowance) {
  // 10% slower on 1 us is significant but below 2 us: not a failure.
  std::mt19937 random(7);
  std::vector<double> compiled = noisyLatencies(random, 1000, 1.1);
  std::vector<double> eager = noisyLatencies(random, 1000, 1.0);
  SpeedDecision small = decideSpeed(compiled, eager, Thresholds{});
  EXPECT_EQ(small.outcome, SpeedDecision::Negligible);
  EXPECT_DOUBLE_EQ(small.minimumUs, 2.0);
  // The same 10% on 1000 us is more than 5% and fails.
  compiled = noisyLatencies(random, 1000, 1100);
  eager = noisyLatencies(random, 1000, 1000);
  SpeedDecision large = decideSpeed(compiled, eager, Thresholds{});
  EXPECT_EQ(large.outcome, SpeedDecision::Slower);
  EXPECT_NEAR(large.minimumUs, 50, 5);
  // A 2x slowdown within --max-slowdown 3 passes, as faster than allowed.
  compiled = noisyLatencies(random, 100, 200);
  eager = noisyLatencies(random, 100, 100);
  Thresholds generous;
  generous.maxSlowdown = 3;
  EXPECT_EQ(decideSpeed(compiled, eager, generous).outcome, SpeedDecision::Faster);
  // Compiled twice as fast: faster, not "no measurable difference".
  EXPECT_EQ(decideSpeed(eager, compiled, Thresholds{}).outcome, SpeedDecision::Faster);
}

TEST(Judge, SpeedVerdictWords) {
  CompareReport same = judge(makeRun("jit", 30, 100, 0, {1}),
                             makeRun("eager", 30, 100, 0, {1}), Thresholds{});
  EXPECT_TRUE(verdict(same, VerdictKind::Speed).passed);
  EXPECT_EQ(verdict(same, VerdictKind::Speed).detail.rfind("no measurable difference", 0), 0u)
      << verdict(same, VerdictKind::Speed).detail;
  CompareReport slow = judge(makeRun("jit", 30, 300, 0, {1}),
                             makeRun("eager", 30, 100, 0, {1}), Thresholds{});
  EXPECT_NE(verdict(slow, VerdictKind::Speed).detail.find("significantly more than the minimum"),
            std::string::npos);
}

TEST(Judge, CleanRunPasses) {
  CompareReport r = judge(makeRun("jit", 50, 10, 0, {1, 2}),
                          makeRun("eager", 50, 100, 0, {1, 2}), Thresholds{});
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.verdicts.size(), 4u);
  EXPECT_NEAR(r.latencyRatio, 0.1, 0.02);
}

TEST(Judge, NumericalMismatch) {
  CompareReport r = judge(makeRun("jit", 10, 10, 0, {1, 2.001f}),
                          makeRun("eager", 10, 100, 0, {1, 2}), Thresholds{});
  EXPECT_FALSE(verdict(r, VerdictKind::Numerics).passed);
  EXPECT_NEAR(r.maxAbsError, 0.001, 1e-6);
  EXPECT_FALSE(r.passed());
}

TEST(Judge, ShapeMismatchIsNumericalFailure) {
  CompareReport r = judge(makeRun("jit", 10, 10, 0, {1, 2, 3}),
                          makeRun("eager", 10, 100, 0, {1, 2}), Thresholds{});
  EXPECT_FALSE(verdict(r, VerdictKind::Numerics).passed);
}

// An engine whose calls differ fails numerics, even when the last output
// is right, and the detail says which engine and where.
TEST(Judge, OutputThatChangedBetweenCalls) {
  for (const char *which : {"jit", "eager"}) {
    EngineRun jit = makeRun("jit", 10, 10, 0, {1, 2});
    EngineRun eager = makeRun("eager", 10, 100, 0, {1, 2});
    (which == std::string("jit") ? jit : eager).changed =
        "call 5 differs from call 1: element 0 is 1, was 1.0000001";
    CompareReport r = judge(jit, eager, Thresholds{});
    const Verdict &numerics = verdict(r, VerdictKind::Numerics);
    EXPECT_FALSE(numerics.passed) << which;
    EXPECT_NE(numerics.detail.find(std::string("the ") + which +
                                   " engine's output changed between calls: call 5"),
              std::string::npos)
        << numerics.detail;
    llvm::Expected<llvm::json::Value> json = llvm::json::parse(reportJson(r));
    ASSERT_TRUE(static_cast<bool>(json));
    const llvm::json::Object *run = json->getAsObject()->getObject(
        which == std::string("jit") ? "compiled" : "eager");
    EXPECT_EQ(run->getString("changed").value_or(""),
              "call 5 differs from call 1: element 0 is 1, was 1.0000001");
  }
}

TEST(BitwiseDifference, FirstDifferingBitNamed) {
  Tensor first{{1, 3}, {1, 0.0f, 3}};
  EXPECT_FALSE(bitwiseDifference(first, first));
  Tensor signedZero{{1, 3}, {1, -0.0f, 3}};
  EXPECT_EQ(bitwiseDifference(first, signedZero).value_or(""),
            "element 1 is -0.00000000e+00, was 0.00000000e+00");
  Tensor nan{{1, 3}, {1, 0.0f, NAN}};
  EXPECT_FALSE(bitwiseDifference(nan, nan)) << "the same NaN is the same bits";
  Tensor wider{{1, 4}, {1, 0.0f, 3, 4}};
  EXPECT_EQ(bitwiseDifference(first, wider).value_or(""), "its shape is (1, 4), was (1, 3)");
}

TEST(RepeatCheck, FirstDifferingCallNamedOnce) {
  RepeatCheck repeats;
  Tensor one{{1, 2}, {1, 2}}, other{{1, 2}, {1, 3}};
  EXPECT_FALSE(repeats.next(one)) << "the first call";
  EXPECT_FALSE(repeats.next(one));
  EXPECT_EQ(repeats.next(other).value_or(""),
            "call 3 differs from call 1: element 1 is 3.00000000e+00, was 2.00000000e+00");
  EXPECT_FALSE(repeats.next(other)) << "described once";
  EXPECT_FALSE(repeats.next(one));
}

TEST(Judge, Slowdown) {
  CompareReport r = judge(makeRun("jit", 10, 300, 0, {1}),
                          makeRun("eager", 10, 100, 0, {1}), Thresholds{});
  EXPECT_FALSE(verdict(r, VerdictKind::Speed).passed);
  EXPECT_TRUE(verdict(r, VerdictKind::Numerics).passed);
}

TEST(Judge, MemoryGrowth) {
  CompareReport r = judge(makeRun("jit", 40, 10, 65536, {1}),
                          makeRun("eager", 40, 100, 0, {1}), Thresholds{});
  EXPECT_FALSE(verdict(r, VerdictKind::Memory).passed);
  EXPECT_NEAR(r.compiledHeapGrowth, 65536, 1);
}

TEST(Judge, CrashIsAVerdict) {
  EngineRun crashed = makeRun("jit", 3, 10, 0, {});
  crashed.output.reset();
  crashed.crashed = true;
  crashed.signal = 6;
  crashed.failure = "killed by signal 6 (Aborted) after 3 iterations";
  CompareReport r = judge(crashed, makeRun("eager", 10, 100, 0, {1}), Thresholds{});
  EXPECT_FALSE(verdict(r, VerdictKind::Crash).passed);
  EXPECT_NE(verdict(r, VerdictKind::Crash).detail.find("signal 6"), std::string::npos);
  EXPECT_FALSE(r.passed());
}

TEST(Report, JsonAndHtml) {
  CompareReport r = judge(makeRun("jit", 5, 10, 0, {1}),
                          makeRun("eager", 5, 100, 0, {1}), Thresholds{});
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(reportJson(r));
  ASSERT_TRUE(static_cast<bool>(json));
  EXPECT_EQ(json->getAsObject()->getBoolean("passed"), true);
  EXPECT_EQ(json->getAsObject()->getObject("compiled")->getArray("samples")->size(), 5u);
  std::string html = reportHtml(r, "seed <model>");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("seed &lt;model&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(Faults, Environment) {
  setenv("SEQC_INJECT_FAULT", "corrupt", 1);
  llvm::Expected<Fault> fault = faultFromEnvironment();
  ASSERT_TRUE(static_cast<bool>(fault));
  EXPECT_EQ(*fault, Fault::Corrupt);
  Tensor t{{1}, {1}};
  injectFault(*fault, 0, t);
  EXPECT_EQ(t.data[0], 2.0f);
  setenv("SEQC_INJECT_FAULT", "flaky", 1);
  fault = faultFromEnvironment();
  ASSERT_TRUE(static_cast<bool>(fault));
  EXPECT_EQ(*fault, Fault::Flaky);
  Tensor flaky{{1}, {1}};
  injectFault(*fault, 1, flaky, /*timed=*/false);
  EXPECT_EQ(flaky.data[0], 1.0f);
  injectFault(*fault, 2, flaky, /*timed=*/false);
  EXPECT_EQ(flaky.data[0], std::nextafter(1.0f, 2.0f)) << "untimed calls too";
  setenv("SEQC_INJECT_FAULT", "bogus", 1);
  llvm::Expected<Fault> bad = faultFromEnvironment();
  EXPECT_FALSE(static_cast<bool>(bad));
  llvm::consumeError(bad.takeError());
  unsetenv("SEQC_INJECT_FAULT");
}

TEST(ChildProcess, ExitCodeAndSignal) {
  llvm::Expected<ChildStatus> ok = runChild({"/bin/sh", "-c", "exit 3"});
  ASSERT_TRUE(static_cast<bool>(ok));
  EXPECT_FALSE(ok->signaled);
  EXPECT_EQ(ok->code, 3);
  llvm::Expected<ChildStatus> killed = runChild({"/bin/sh", "-c", "kill -SEGV $$"});
  ASSERT_TRUE(static_cast<bool>(killed));
  EXPECT_TRUE(killed->signaled);
  EXPECT_EQ(killed->code, 11);
}

} // namespace

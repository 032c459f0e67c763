#include "seq/Runtime/Compare.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

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

#include "seq/Runtime/Compare.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

namespace seq::rt {

namespace {

const char *outcomeName(SpeedDecision::Outcome outcome) {
  switch (outcome) {
  case SpeedDecision::None:
    return "no measurable difference";
  case SpeedDecision::Slower:
    return "slower";
  case SpeedDecision::Negligible:
    return "slower within the minimum difference";
  case SpeedDecision::Faster:
    return "faster";
  }
  return "?";
}

const char *kindName(VerdictKind kind) {
  switch (kind) {
  case VerdictKind::Numerics:
    return "numerics";
  case VerdictKind::Speed:
    return "speed";
  case VerdictKind::Memory:
    return "memory";
  case VerdictKind::Crash:
    return "crash";
  }
  return "?";
}

llvm::json::Array samplesJson(const EngineRun &run) {
  llvm::json::Array samples;
  for (const Sample &s : run.samples)
    samples.push_back(llvm::json::Object{{"iteration", s.iteration},
                                         {"latency_us", s.latencyUs},
                                         {"rss", s.rssBytes},
                                         {"heap", s.heapBytes}});
  return samples;
}

llvm::json::Object runJson(const EngineRun &run, const LatencyStats &latency,
                           double rssGrowth, double heapGrowth) {
  llvm::json::Object o{{"engine", run.engine},
                       {"iterations", static_cast<int64_t>(run.samples.size())},
                       {"crashed", run.crashed},
                       {"latency_median_us", latency.medianUs},
                       {"latency_p99_us", latency.p99Us},
                       {"rss_growth_bytes_per_iteration", rssGrowth},
                       {"heap_growth_bytes_per_iteration", heapGrowth},
                       {"samples", samplesJson(run)}};
  if (run.crashed) {
    o["failure"] = run.failure;
    o["signal"] = run.signal;
  }
  return o;
}

/// One SVG line chart: a polyline per series, axes labelled with the range.
struct Series {
  std::string name, color;
  std::vector<double> x, y;
};

std::string chart(llvm::StringRef title, llvm::StringRef xLabel,
                  llvm::StringRef yLabel, const std::vector<Series> &series) {
  const double w = 640, h = 260, left = 70, right = 20, top = 30, bottom = 40;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  bool first = true;
  for (const Series &s : series)
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (first) {
        x0 = x1 = s.x[i];
        y0 = y1 = s.y[i];
        first = false;
      }
      x0 = std::min(x0, s.x[i]);
      x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, s.y[i]);
      y1 = std::max(y1, s.y[i]);
    }
  if (x1 == x0)
    x1 = x0 + 1;
  if (y1 == y0)
    y1 = y0 + 1;
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * (w - left - right); };
  auto py = [&](double y) { return h - bottom - (y - y0) / (y1 - y0) * (h - top - bottom); };
  std::string svg = llvm::formatv(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{0}' height='{1}' "
      "role='img' aria-label='{2}'>\n<text x='{3}' y='18' font-weight='bold'>{2}</text>\n"
      "<line x1='{3}' y1='{4}' x2='{5}' y2='{4}' stroke='#333'/>\n"
      "<line x1='{3}' y1='{6}' x2='{3}' y2='{4}' stroke='#333'/>\n"
      "<text x='{3}' y='{7}' font-size='12'>{8:g}</text>"
      "<text x='{5}' y='{7}' font-size='12' text-anchor='end'>{9:g}</text>"
      "<text x='{10}' y='{7}' font-size='12' text-anchor='middle'>{11}</text>\n"
      "<text x='{12}' y='{4}' font-size='12' text-anchor='end'>{13:g}</text>"
      "<text x='{12}' y='{14}' font-size='12' text-anchor='end'>{15:g}</text>"
      "<text x='{12}' y='{16}' font-size='12' text-anchor='end'>{17}</text>\n",
      w, h, title, left, h - bottom, w - right, top, h - bottom + 16, x0, x1,
      (left + w - right) / 2, xLabel, left - 4, y0, top + 10, y1,
      (top + h - bottom) / 2, yLabel);
  double legendX = left + 10;
  for (const Series &s : series) {
    std::string points;
    for (size_t i = 0; i < s.x.size(); ++i)
      points += llvm::formatv("{0:f1},{1:f1} ", px(s.x[i]), py(s.y[i])).str();
    svg += llvm::formatv("<polyline fill='none' stroke='{0}' stroke-width='2' "
                         "points='{1}'><title>{2}</title></polyline>\n"
                         "<text x='{3}' y='{4}' fill='{0}' font-size='12'>{2}</text>\n",
                         s.color, points, s.name, legendX, top + 14)
               .str();
    legendX += 9 * s.name.size() + 30;
  }
  return svg + "</svg>\n";
}

Series memorySeries(const EngineRun &run, bool heap, std::string color) {
  Series s{run.engine + (heap ? " heap" : " RSS") + " (KiB)", std::move(color), {}, {}};
  for (const Sample &sample : run.samples) {
    s.x.push_back(static_cast<double>(sample.iteration));
    s.y.push_back(static_cast<double>(heap ? sample.heapBytes : sample.rssBytes) / 1024);
  }
  return s;
}

/// Latency distribution as a CDF: sorted latencies against their rank.
Series latencySeries(const EngineRun &run, std::string color) {
  Series s{run.engine + " latency (us)", std::move(color), {}, {}};
  std::vector<double> us;
  for (const Sample &sample : run.samples)
    us.push_back(sample.latencyUs);
  std::sort(us.begin(), us.end());
  for (size_t i = 0; i < us.size(); ++i) {
    s.x.push_back(us[i]);
    s.y.push_back(100.0 * static_cast<double>(i + 1) / us.size());
  }
  return s;
}

std::string escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

} // namespace

void printReport(const CompareReport &report, llvm::raw_ostream &os) {
  const EngineRun &c = report.compiled, &e = report.eager;
  os << "compare: " << c.engine << " vs eager, " << c.samples.size() << " / "
     << e.samples.size() << " iterations\n";
  os << llvm::formatv("  latency   {0}: median {1:f1} us, p99 {2:f1} us; eager: "
                      "median {3:f1} us, p99 {4:f1} us\n",
                      c.engine, report.compiledLatency.medianUs,
                      report.compiledLatency.p99Us, report.eagerLatency.medianUs,
                      report.eagerLatency.p99Us);
  os << llvm::formatv("  memory    {0}: {1:f0} B/iter RSS, {2:f0} B/iter heap; "
                      "eager: {3:f0} B/iter RSS, {4:f0} B/iter heap\n",
                      c.engine, report.compiledRssGrowth, report.compiledHeapGrowth,
                      report.eagerRssGrowth, report.eagerHeapGrowth);
  for (const Verdict &v : report.verdicts)
    os << llvm::formatv("  {0,-9} {1}  {2}\n", kindName(v.kind),
                        v.passed ? "PASS" : "FAIL", v.detail);
  os << "verdict: " << (report.passed() ? "PASS" : "FAIL") << "\n";
}

std::string reportJson(const CompareReport &report) {
  llvm::json::Array verdicts;
  for (const Verdict &v : report.verdicts)
    verdicts.push_back(llvm::json::Object{
        {"kind", kindName(v.kind)}, {"passed", v.passed}, {"detail", v.detail}});
  llvm::json::Object root{
      {"passed", report.passed()},
      {"max_abs_error", report.maxAbsError},
      {"max_rel_error", report.maxRelError},
      {"latency_ratio", report.latencyRatio},
      {"speed", llvm::json::Object{{"test", "mann-whitney-u"},
                                   {"outcome", outcomeName(report.speed.outcome)},
                                   {"p_slower", report.speed.pSlower},
                                   {"p_above_allowed", report.speed.pAbove},
                                   {"p_faster", report.speed.pFaster},
                                   {"excess_us", report.speed.excessUs},
                                   {"minimum_difference_us", report.speed.minimumUs}}},
      {"verdicts", std::move(verdicts)},
      {"compiled", runJson(report.compiled, report.compiledLatency,
                           report.compiledRssGrowth, report.compiledHeapGrowth)},
      {"eager", runJson(report.eager, report.eagerLatency, report.eagerRssGrowth,
                        report.eagerHeapGrowth)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return text;
}

std::string reportHtml(const CompareReport &report, llvm::StringRef title) {
  const EngineRun &c = report.compiled, &e = report.eager;
  std::string summary;
  llvm::raw_string_ostream os(summary);
  printReport(report, os);
  std::string html =
      "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
      "<title>seqc compare: " + escape(title) + "</title>"
      "<style>body{font-family:sans-serif;margin:2em}pre{background:#f4f4f4;"
      "padding:1em}.pass{color:#070}.fail{color:#b00}</style></head><body>\n"
      "<h1>seqc compare: " + escape(title) + "</h1>\n<p class='" +
      (report.passed() ? "pass'>PASS" : "fail'>FAIL") + "</p>\n<pre>" +
      escape(summary) + "</pre>\n<h2>Memory per iteration</h2>\n" +
      chart("Memory per iteration", "iteration", "KiB",
            {memorySeries(c, false, "#d62728"), memorySeries(c, true, "#ff7f0e"),
             memorySeries(e, false, "#1f77b4"), memorySeries(e, true, "#17becf")}) +
      "<h2>Latency distribution</h2>\n" +
      chart("Latency distribution (CDF)", "latency (us)", "% of iterations",
            {latencySeries(c, "#d62728"), latencySeries(e, "#1f77b4")}) +
      "</body></html>\n";
  return html;
}

} // namespace seq::rt

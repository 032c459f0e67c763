#include "seq/Runtime/Compare.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>

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
  if (!run.changed.empty())
    o["changed"] = run.changed;
  return o;
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

/// One SVG line chart: a polyline per series, ticked axes (logarithmic where
/// the data span more than a decade), the axis labels and a legend, all
/// inside the viewBox. The margins come from the widths of the labels, and
/// the SVG scales to its container (viewBox, width 100%), so nothing is cut
/// at any window size.
struct Series {
  std::string name, color;
  std::vector<double> x, y;
};

// Text widths are estimated, not measured (no scripts in the page): 0.65 em
// per character is above the average advance of common sans-serif faces
// (DejaVu Sans digits are 0.64 em), so the estimate errs on the roomy side.
constexpr double kFontSize = 12, kCharWidth = 0.65 * kFontSize;
double textWidth(llvm::StringRef text) { return kCharWidth * text.size(); }

std::string number(double v) {
  if (v == 0)
    return "0";
  return llvm::formatv("{0}", llvm::format("%g", v)).str();
}

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks;
  /// Position of `v` along the axis, 0 at lo and 1 at hi.
  double fraction(double v) const {
    if (log)
      return (std::log10(std::max(v, lo)) - std::log10(lo)) /
             (std::log10(hi) - std::log10(lo));
    return (v - lo) / (hi - lo);
  }
};

/// A linear axis with 1-2-5 ticks, or a logarithmic one with decade ticks
/// when every value is positive and they span more than a decade.
Axis makeAxis(const std::vector<double> &values, bool allowLog) {
  Axis axis;
  if (values.empty())
    return axis;
  double lo = *std::min_element(values.begin(), values.end());
  double hi = *std::max_element(values.begin(), values.end());
  if (allowLog && lo > 0 && hi / lo > 10) {
    axis.log = true;
    int first = static_cast<int>(std::floor(std::log10(lo)));
    int last = static_cast<int>(std::ceil(std::log10(hi)));
    axis.lo = std::pow(10.0, first);
    axis.hi = std::pow(10.0, last);
    for (int e = first; e <= last; ++e)
      for (double m : {1.0, 2.0, 5.0})
        if (double t = m * std::pow(10.0, e); t <= axis.hi &&
                                              (m == 1 || last - first <= 2))
          axis.ticks.push_back(t);
    return axis;
  }
  if (hi == lo) {
    lo -= lo == 0 ? 1 : std::fabs(lo) * 0.1;
    hi += hi == 0 ? 1 : std::fabs(hi) * 0.1;
  }
  double raw = (hi - lo) / 5;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  axis.lo = std::floor(lo / step) * step;
  axis.hi = std::ceil(hi / step) * step;
  for (double t = axis.lo; t <= axis.hi + step / 2; t += step)
    axis.ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return axis;
}

std::string chart(llvm::StringRef title, llvm::StringRef xLabel,
                  llvm::StringRef yLabel, const std::vector<Series> &series,
                  bool logX, bool logY) {
  std::vector<double> xs, ys;
  for (const Series &s : series) {
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
  }
  Axis ax = makeAxis(xs, logX), ay = makeAxis(ys, logY);
  std::string xName = (xLabel + (ax.log ? " (log scale)" : "")).str();
  std::string yName = (yLabel + (ay.log ? " (log scale)" : "")).str();

  const double w = 720, pad = 10, plotHeight = 220, gap = 6;
  double tickWidth = 0;
  for (double t : ay.ticks)
    tickWidth = std::max(tickWidth, textWidth(number(t)));
  // Left: the rotated y label, then the tick labels, then the plot.
  const double left = pad + kFontSize + gap + tickWidth + gap;
  const double lastTick = ax.ticks.empty() ? 0 : textWidth(number(ax.ticks.back()));
  const double right = pad + std::max(lastTick / 2, 4.0);
  const double top = pad + 14 + gap + 4; // Title, then a little air.
  const double plotLeft = left, plotRight = w - right;
  const double plotTop = top, plotBottom = top + plotHeight;
  auto px = [&](double x) { return plotLeft + ax.fraction(x) * (plotRight - plotLeft); };
  auto py = [&](double y) { return plotBottom - ay.fraction(y) * (plotBottom - plotTop); };

  // Legend under the x label, wrapped into rows that fit the width.
  struct Entry {
    double x, y;
    const Series *series;
  };
  std::vector<Entry> legend;
  double legendTop = plotBottom + 16 + 4 + kFontSize + 12;
  double cx = plotLeft, cy = legendTop;
  const double swatch = 12, rowHeight = 20;
  for (const Series &s : series) {
    double width = swatch + 5 + textWidth(s.name);
    if (cx > plotLeft && cx + width > w - pad) {
      cx = plotLeft;
      cy += rowHeight;
    }
    legend.push_back({cx, cy, &s});
    cx += width + 18;
  }
  const double h = cy + swatch + pad;

  std::string svg;
  llvm::raw_string_ostream os(svg);
  os << llvm::formatv(
      "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {0:f0} {1:f0}' width='100%' "
      "preserveAspectRatio='xMinYMin meet' class='chart' role='img' "
      "aria-label='{2}' font-family='sans-serif' font-size='{3:f0}'>\n"
      "<rect x='0' y='0' width='{0:f0}' height='{1:f0}' fill='#fafafa'/>\n"
      "<text x='{4:f1}' y='{5:f1}' font-weight='bold' font-size='14'>{2}</text>\n",
      w, h, escape(title), kFontSize, plotLeft, pad + 12);
  // Grid and ticks.
  for (double t : ax.ticks) {
    double x = px(t);
    os << llvm::formatv("<line x1='{0:f1}' y1='{1:f1}' x2='{0:f1}' y2='{2:f1}' stroke='#ddd'/>"
                        "<text x='{0:f1}' y='{3:f1}' text-anchor='middle'>{4}</text>\n",
                        x, plotTop, plotBottom, plotBottom + 16, number(t));
  }
  for (double t : ay.ticks) {
    double y = py(t);
    os << llvm::formatv("<line x1='{0:f1}' y1='{1:f1}' x2='{2:f1}' y2='{1:f1}' stroke='#ddd'/>"
                        "<text x='{3:f1}' y='{4:f1}' text-anchor='end'>{5}</text>\n",
                        plotLeft, y, plotRight, plotLeft - gap, y + 4, number(t));
  }
  os << llvm::formatv("<rect x='{0:f1}' y='{1:f1}' width='{2:f1}' height='{3:f1}' fill='none' "
                      "stroke='#333'/>\n",
                      plotLeft, plotTop, plotRight - plotLeft, plotBottom - plotTop);
  // Axis labels: x centred under the ticks, y rotated along the left edge.
  os << llvm::formatv("<text x='{0:f1}' y='{1:f1}' text-anchor='middle'>{2}</text>\n",
                      (plotLeft + plotRight) / 2, plotBottom + 16 + 4 + kFontSize,
                      escape(xName));
  double yMid = (plotTop + plotBottom) / 2;
  os << llvm::formatv("<text x='{0:f1}' y='{1:f1}' text-anchor='middle' "
                      "transform='rotate(-90 {0:f1} {1:f1})'>{2}</text>\n",
                      pad + kFontSize - 2, yMid, escape(yName));
  for (const Series &s : series) {
    os << llvm::formatv("<polyline fill='none' stroke='{0}' stroke-width='2' points='",
                        s.color);
    for (size_t i = 0; i < s.x.size(); ++i)
      os << llvm::formatv("{0:f1},{1:f1} ", px(s.x[i]), py(s.y[i]));
    os << "'><title>" << escape(s.name) << "</title></polyline>\n";
  }
  for (const Entry &e : legend)
    os << llvm::formatv("<g class='legend'><rect x='{0:f1}' y='{1:f1}' width='{2:f0}' "
                        "height='{2:f0}' fill='{3}'/><text x='{4:f1}' y='{5:f1}'>{6}</text></g>\n",
                        e.x, e.y, swatch, e.series->color, e.x + swatch + 5,
                        e.y + swatch - 2, escape(e.series->name));
  os << "</svg>\n";
  return svg;
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
      "<meta name='viewport' content='width=device-width, initial-scale=1'>"
      "<style>body{font-family:sans-serif;margin:1em auto;padding:0 1em;"
      "max-width:760px;background:#fff}pre{background:#f4f4f4;padding:1em;"
      "white-space:pre-wrap;overflow-wrap:anywhere}svg.chart{display:block;"
      "width:100%;height:auto}.pass{color:#070}.fail{color:#b00}</style>"
      "</head><body>\n"
      "<h1>seqc compare: " + escape(title) + "</h1>\n<p class='" +
      (report.passed() ? "pass'>PASS" : "fail'>FAIL") + "</p>\n<pre>" +
      escape(summary) + "</pre>\n<h2>Memory per iteration</h2>\n" +
      chart("Memory per iteration", "iteration", "KiB",
            {memorySeries(c, false, "#d62728"), memorySeries(c, true, "#ff7f0e"),
             memorySeries(e, false, "#1f77b4"), memorySeries(e, true, "#17becf")},
            /*logX=*/false, /*logY=*/true) +
      "<h2>Latency distribution</h2>\n" +
      chart("Latency distribution (CDF)", "latency (us)", "% of iterations",
            {latencySeries(c, "#d62728"), latencySeries(e, "#1f77b4")},
            /*logX=*/true, /*logY=*/false) +
      "</body></html>\n";
  return html;
}

} // namespace seq::rt

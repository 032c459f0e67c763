#include "seq/Runtime/Compare.h"

#include <algorithm>
#include <cmath>

namespace seq::rt {

double percentile(std::vector<double> values, double fraction) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  double position = fraction * static_cast<double>(values.size() - 1);
  size_t below = static_cast<size_t>(std::floor(position));
  size_t above = std::min(below + 1, values.size() - 1);
  double weight = position - static_cast<double>(below);
  return values[below] * (1 - weight) + values[above] * weight;
}

double fitSlope(const std::vector<double> &x, const std::vector<double> &y) {
  size_t n = std::min(x.size(), y.size());
  if (n < 2)
    return 0;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx == 0 ? 0 : sxy / sxx;
}

RankTest mannWhitneyU(const std::vector<double> &a, const std::vector<double> &b) {
  RankTest test;
  const size_t na = a.size(), nb = b.size(), n = na + nb;
  if (na == 0 || nb == 0)
    return test;
  // Ranks of the pooled sample, ties sharing their average rank.
  std::vector<std::pair<double, bool>> pooled; // (value, from a)
  pooled.reserve(n);
  for (double x : a)
    pooled.push_back({x, true});
  for (double x : b)
    pooled.push_back({x, false});
  std::sort(pooled.begin(), pooled.end(),
            [](const auto &l, const auto &r) { return l.first < r.first; });
  double rankSumA = 0, tieTerm = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first)
      ++j;
    double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second)
        rankSumA += rank;
    double t = static_cast<double>(j - i);
    tieTerm += t * t * t - t;
    i = j;
  }
  const double dna = static_cast<double>(na), dnb = static_cast<double>(nb),
               dn = static_cast<double>(n);
  test.u = rankSumA - dna * (dna + 1) / 2;
  double mean = dna * dnb / 2;
  double variance = dna * dnb / 12 * ((dn + 1) - tieTerm / (dn * (dn - 1)));
  if (variance <= 0)
    return test; // Every value ties: nothing tells the samples apart.
  double sigma = std::sqrt(variance);
  test.z = (test.u - mean) / sigma;
  // Continuity correction: U moves in steps of 1/2 or 1.
  auto upperTail = [](double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); };
  test.pGreater = std::min(1.0, upperTail((test.u - mean - 0.5) / sigma));
  test.pLess = std::min(1.0, upperTail((mean - test.u - 0.5) / sigma));
  return test;
}

SpeedDecision decideSpeed(const std::vector<double> &compiledUs,
                          const std::vector<double> &eagerUs, const Thresholds &t) {
  SpeedDecision d;
  double eagerMedian = percentile(eagerUs, 0.5);
  d.excessUs = percentile(compiledUs, 0.5) - eagerMedian * t.maxSlowdown;
  d.minimumUs = std::max(t.minSlowdownFraction * eagerMedian, t.minSlowdownUs);
  // H0 of the failing test: compiled is no slower than the allowed latency
  // plus the minimum meaningful difference. Testing against the shifted
  // sample, rather than checking the medians' difference afterwards, keeps
  // equal engines from failing on a chance excess of the median.
  std::vector<double> allowed, allowedPlusMinimum;
  for (double us : eagerUs) {
    allowed.push_back(us * t.maxSlowdown);
    allowedPlusMinimum.push_back(us * t.maxSlowdown + d.minimumUs);
  }
  RankTest againstAllowed = mannWhitneyU(compiledUs, allowed);
  d.pAbove = againstAllowed.pGreater;
  d.pFaster = againstAllowed.pLess;
  d.pSlower = mannWhitneyU(compiledUs, allowedPlusMinimum).pGreater;
  if (d.pSlower < t.significance)
    d.outcome = SpeedDecision::Slower;
  else if (d.pAbove < t.significance)
    d.outcome = SpeedDecision::Negligible;
  else if (d.pFaster < t.significance)
    d.outcome = SpeedDecision::Faster;
  else
    d.outcome = SpeedDecision::None;
  return d;
}

} // namespace seq::rt

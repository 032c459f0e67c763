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

} // namespace seq::rt

#include "report/chart_axes.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "report/html_text.hpp"
#include "report/svg_markup.hpp"

namespace rateperf::report {

double Axis::map(double value) const {
  double share = 0;
  if (log) {
    const double v = value > 0 ? std::log10(value) : std::log10(low);
    share = (v - std::log10(low)) / (std::log10(high) - std::log10(low));
  } else {
    share = (value - low) / (high - low);
  }
  return from_px + std::clamp(share, 0.0, 1.0) * (to_px - from_px);
}

Axis x_axis_of(const Chart& chart, double from_px, double to_px) {
  double low = 0;
  double high = 0;
  bool any = false;
  const auto include = [&](double v) {
    low = any ? std::min(low, v) : v;
    high = any ? std::max(high, v) : v;
    any = true;
  };
  for (double v : chart.x) include(v);
  for (const Marker& m : chart.markers) {
    include(m.x);
    if (m.band_high > m.band_low) {
      include(m.band_low);
      include(m.band_high);
    }
  }
  if (high <= low) {
    // One x value: a unit either side, but no negative time or rate.
    low = low >= 1 ? low - 1 : 0;
    high = low + 2;
  }
  // The data's own range, not rounded out to ticks: a run's time axis ends where the run did.
  return {low, high, false, from_px, to_px};
}

Axis y_axis_of(const Chart& chart, double from_px, double to_px) {
  double low = 0;
  double high = 0;
  bool any = false;
  for (const Series& s : chart.series) {
    for (double v : s.y) {
      if (chart.log_y && v <= 0) continue;
      low = any ? std::min(low, v) : v;
      high = any ? std::max(high, v) : v;
      any = true;
    }
  }
  if (chart.log_y) {
    if (!any) low = high = 1;
    const std::vector<double> decades = log_decades(low, high);
    return {decades.front(), decades.back(), true, from_px, to_px};
  }
  // Counts and rates start at 0, so that the height of a line means its size.
  low = std::min(low, 0.0);
  if (high <= low) high = low + 1;
  const std::vector<double> ticks = linear_ticks(low, high);
  return {ticks.front(), ticks.back(), false, from_px, to_px};
}

void draw_x_axis(const Axis& x, const Axis& y, const std::string& title, double title_y,
                 std::string& out) {
  out += "<g class=\"axis x\">";
  const double slack = (x.high - x.low) * 1e-9;
  for (double tick : linear_ticks(x.low, x.high, 8)) {
    if (tick < x.low - slack || tick > x.high + slack) continue;
    const double at = x.map(tick);
    line_element(out, at, y.to_px, at, y.from_px, {{"class", "grid"}});
    text_element(out, {{"x", px(at)}, {"y", px(y.from_px + 16)}, {"text-anchor", "middle"}},
                 format_number(tick));
  }
  text_element(out,
               {{"class", "title"},
                {"x", px((x.from_px + x.to_px) / 2)},
                {"y", px(title_y)},
                {"text-anchor", "middle"}},
               title);
  out += "</g>";
}

namespace {

void draw_y_tick(const Axis& x, const Axis& y, double tick, bool label, bool minor,
                 std::string& out) {
  const double at = y.map(tick);
  line_element(out, x.from_px, at, x.to_px, at, {{"class", minor ? "grid minor" : "grid"}});
  if (label) {
    text_element(out, {{"x", px(x.from_px - 6)}, {"y", px(at + 4)}, {"text-anchor", "end"}},
                 format_number(tick));
  }
}

}  // namespace

void draw_y_axis(const Axis& x, const Axis& y, const std::string& title, std::string& out) {
  out += "<g class=\"axis y\">";
  if (y.log) {
    const std::vector<double> decades = log_decades(y.low, y.high);
    // Minor lines at 2 and 5 of each decade; labelled too when there are few decades, where
    // the decades alone leave the reader guessing.
    const bool label_minor = decades.size() <= 3;
    for (std::size_t i = 0; i < decades.size(); ++i) {
      draw_y_tick(x, y, decades[i], true, false, out);
      if (i + 1 == decades.size()) break;
      for (double factor : {2.0, 5.0})
        draw_y_tick(x, y, decades[i] * factor, label_minor, true, out);
    }
  } else {
    for (double tick : linear_ticks(y.low, y.high)) draw_y_tick(x, y, tick, true, false, out);
  }
  const std::string middle = px((y.from_px + y.to_px) / 2);
  std::string rotation = "rotate(-90 16 ";
  rotation += middle;
  rotation += ')';
  text_element(out,
               {{"class", "title"},
                {"x", "16"},
                {"y", middle},
                {"text-anchor", "middle"},
                {"transform", rotation}},
               title);
  out += "</g>";
}

std::vector<double> linear_ticks(double low, double high, int target) {
  if (!(high > low)) high = low + 1;
  const double rough = (high - low) / std::max(target, 1);
  const double decade = std::pow(10.0, std::floor(std::log10(rough)));
  double step = decade * 10;
  for (double factor : {1.0, 2.0, 5.0}) {
    if (decade * factor >= rough) {
      step = decade * factor;
      break;
    }
  }
  // Whole multiples of the step, counted as integers so that no sum drifts (0.1 + 0.2).
  const auto first = static_cast<long long>(std::floor(low / step + 1e-9));
  const auto last = static_cast<long long>(std::ceil(high / step - 1e-9));
  std::vector<double> ticks;
  for (long long k = first; k <= last; ++k) ticks.push_back(static_cast<double>(k) * step);
  if (ticks.size() < 2) ticks.push_back(ticks.back() + step);
  return ticks;
}

std::vector<double> log_decades(double low, double high) {
  if (!(low > 0)) low = 1;
  if (!(high > low)) high = low;
  const auto first = static_cast<int>(std::floor(std::log10(low) + 1e-9));
  auto last = static_cast<int>(std::ceil(std::log10(high) - 1e-9));
  if (last <= first) last = first + 1;
  std::vector<double> decades;
  for (int k = first; k <= last; ++k) decades.push_back(std::pow(10.0, k));
  return decades;
}

}  // namespace rateperf::report

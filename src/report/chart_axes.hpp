#pragma once

#include <string>
#include <vector>

#include "report/svg_chart.hpp"

// The axes of a chart: the range of its data, the ticks, and their lines and labels.
namespace rateperf::report {

// One axis's mapping from data to pixels.
struct Axis {
  double low = 0;
  double high = 1;
  bool log = false;
  double from_px = 0;  // where low is drawn
  double to_px = 1;    // where high is drawn

  // The pixel of a value; values outside the range are drawn at its ends, and a value with no
  // logarithm (latency 0: no replies in an interval) on a log axis's floor.
  double map(double value) const;
};

// The x axis over the range the data and the markers span, drawn from from_px to to_px.
Axis x_axis_of(const Chart& chart, double from_px, double to_px);

// The y axis: from 0 (or below, for negative values) to a tick above the largest value; on a
// log scale, the decades around the positive values. Drawn from from_px (low) up to to_px.
Axis y_axis_of(const Chart& chart, double from_px, double to_px);

// The x axis's grid lines, tick labels and its title (centred at title_y).
void draw_x_axis(const Axis& x, const Axis& y, const std::string& title, double title_y,
                 std::string& out);

// The y axis's grid lines, tick labels (a log axis's decades, and 2 and 5 of each) and title.
void draw_y_axis(const Axis& x, const Axis& y, const std::string& title, std::string& out);

// Tick values of a linear axis over [low, high]: multiples of 1, 2 or 5 x 10^k, about
// `target` of them, covering the range (the first <= low, the last >= high).
std::vector<double> linear_ticks(double low, double high, int target = 5);

// Decades of a logarithmic axis over [low, high] (both > 0): the powers of ten from the one at
// or below low to the one at or above high (at least two).
std::vector<double> log_decades(double low, double high);

}  // namespace rateperf::report

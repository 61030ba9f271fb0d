#pragma once

#include <string>
#include <vector>

// The charts of the HTML report (docs/report.md): a chart is plain data (its x values, its
// series, its markers), drawn as inline SVG by render_svg. Pure: no I/O, and the same chart
// always gives the same bytes, so that a test can read the page as a browser would.
namespace rateperf::report {

// One line of a chart: a y value for each of the chart's x values.
struct Series {
  std::string label;      // the legend's and the tooltips' name ("p99", "replies/s")
  std::vector<double> y;  // as many as the chart's x values
  bool guide = false;     // a reference line (the offered rate, y = x): drawn dashed and grey
};

// A vertical line at one x, with its label: the overload onset of a run, the capacity of a
// sweep or a search.
struct Marker {
  std::string kind;   // data-marker: "onset" or "capacity"
  double x = 0;       // where, in the x axis's unit
  std::string label;  // the text beside the line
  // A shaded band around it (a search's capacity +- its uncertainty); none when equal to x.
  double band_low = 0;
  double band_high = 0;
};

struct Chart {
  std::string name;     // data-chart: a stable identifier ("latency", "reply-rate")
  std::string title;    // the heading above it
  std::string x_title;  // the x axis's title, with its unit
  std::string y_title;  // the y axis's title, with its unit
  bool log_y = false;   // a logarithmic y axis (latencies); values <= 0 sit on its floor
  std::vector<double> x;
  std::vector<Series> series;
  // A verdict for each x value ("pass", "fail", "client-limited"), which colours its points;
  // empty: none (a run, a sweep).
  std::vector<std::string> verdicts;
  std::vector<Marker> markers;
};

// The chart as one <svg class="chart" data-chart="NAME"> element: axes with tick labels and
// titles, a legend, one <g class="series"> per series holding a polyline and one
// <circle class="point"> per value (with a <title> tooltip), and a <g class="marker"> per
// marker.
std::string render_svg(const Chart& chart);

}  // namespace rateperf::report

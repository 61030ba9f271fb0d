#include "report/svg_chart.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

#include "report/chart_axes.hpp"
#include "report/html_text.hpp"
#include "report/svg_markup.hpp"

namespace rateperf::report {

namespace {

// The drawing's size in CSS pixels; the page scales it down to narrow windows.
constexpr double kWidth = 900;
constexpr double kHeight = 340;
constexpr double kLeft = 72;  // room for the y tick labels and the y title
constexpr double kRight = 24;
constexpr double kBottom = 52;  // room for the x tick labels and the x title
constexpr double kLegendRow = 18;

// Colours distinguishable on white and, most of them, by the colour-blind (Tableau's 10).
constexpr std::array<const char*, 10> kPalette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                  "#9467bd", "#8c564b", "#e377c2", "#17becf",
                                                  "#bcbd22", "#7f7f7f"};
constexpr const char* kGuideColour = "#888888";

const char* verdict_colour(const std::string& verdict) {
  if (verdict == "pass") return "#2ca02c";
  if (verdict == "fail") return "#d62728";
  return "#9a9a9a";  // client-limited, or a verdict this rateperf does not know
}

struct LegendEntry {
  std::string label;
  std::string colour;
  bool dashed = false;
  bool dot = false;  // a verdict's colour: a dot, not a line
};

double legend_width(const LegendEntry& entry) {
  // About 6.6 px a character at 12 px sans-serif, plus the swatch and a gap.
  return 34 + 6.6 * static_cast<double>(entry.label.size());
}

std::vector<LegendEntry> legend_of(const Chart& chart) {
  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    entries.push_back(
        {s.label, s.guide ? kGuideColour : kPalette[i % kPalette.size()], s.guide, false});
  }
  for (const char* verdict : {"pass", "fail", "client-limited"}) {
    if (std::find(chart.verdicts.begin(), chart.verdicts.end(), verdict) != chart.verdicts.end())
      entries.push_back({verdict, verdict_colour(verdict), false, true});
  }
  return entries;
}

// Where each legend entry goes, in rows across the top: (x, baseline y) each.
std::vector<std::pair<double, double>> legend_layout(const std::vector<LegendEntry>& entries) {
  std::vector<std::pair<double, double>> places;
  double x = kLeft;
  double y = 14;
  for (const LegendEntry& entry : entries) {
    if (x + legend_width(entry) > kWidth - kRight && x > kLeft) {
      x = kLeft;
      y += kLegendRow;
    }
    places.emplace_back(x, y);
    x += legend_width(entry);
  }
  return places;
}

void draw_legend(const std::vector<LegendEntry>& entries, std::string& out) {
  out += "<g class=\"legend\">";
  const auto places = legend_layout(entries);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const LegendEntry& entry = entries[i];
    const auto [x, y] = places[i];
    if (entry.dot) {
      open_tag(out, "circle",
               {{"cx", px(x + 10)}, {"cy", px(y - 4)}, {"r", "4"}, {"fill", entry.colour}}, true);
    } else {
      line_element(out, x, y - 4, x + 20, y - 4,
                   {{"stroke", entry.colour},
                    {"stroke-width", "2"},
                    {"stroke-dasharray", entry.dashed ? "5 3" : "none"}});
    }
    text_element(out, {{"x", px(x + 26)}, {"y", px(y)}}, entry.label);
  }
  out += "</g>";
}

// A point's tooltip: the series' value, the x value, and the verdict when there is one.
std::string tooltip(const Chart& chart, const Series& s, std::size_t i) {
  std::string text = s.label;
  text += ": ";
  text += format_number(s.y[i]);
  text += '\n';
  text += chart.x_title;
  text += ": ";
  text += format_number(chart.x[i]);
  if (i < chart.verdicts.size()) {
    text += "\nverdict: ";
    text += chart.verdicts[i];
  }
  return text;
}

void draw_series(const Chart& chart, std::size_t index, const Axis& x, const Axis& y,
                 std::string& out) {
  const Series& s = chart.series[index];
  const std::string colour = s.guide ? kGuideColour : kPalette[index % kPalette.size()];
  const std::size_t n = std::min(chart.x.size(), s.y.size());
  open_tag(out, "g",
           {{"class", "series"}, {"data-series", s.label}, {"data-points", std::to_string(n)}});
  // One polyline per unbroken stretch: a value with no place on a log axis (0) breaks it.
  const auto drawn = [&](std::size_t i) { return !chart.log_y || s.y[i] > 0; };
  for (std::size_t i = 0; i < n;) {
    if (!drawn(i)) {
      ++i;
      continue;
    }
    std::string points;
    for (; i < n && drawn(i); ++i) {
      if (!points.empty()) points += ' ';
      points += px(x.map(chart.x[i]));
      points += ',';
      points += px(y.map(s.y[i]));
    }
    open_tag(out, "polyline",
             {{"fill", "none"},
              {"stroke", colour},
              {"stroke-width", "1.5"},
              {"stroke-dasharray", s.guide ? "5 3" : "none"},
              {"points", points}},
             true);
  }
  // Small dots where there are many points, so that the line stays readable.
  // Verdicts are read from the dots' fill, so those are larger.
  const char* radius = n > 120 ? "1.5" : (chart.verdicts.empty() ? "3" : "4.5");
  for (std::size_t i = 0; i < n; ++i) {
    const std::string cx = px(x.map(chart.x[i]));
    const std::string cy = px(y.map(s.y[i]));
    if (i < chart.verdicts.size()) {
      open_tag(out, "circle",
               {{"class", "point"},
                {"cx", cx},
                {"cy", cy},
                {"r", radius},
                {"stroke", colour},
                {"fill", verdict_colour(chart.verdicts[i])},
                {"data-verdict", chart.verdicts[i]}});
    } else {
      // A value off the log axis is drawn hollow on its floor.
      open_tag(out, "circle",
               {{"class", "point"},
                {"cx", cx},
                {"cy", cy},
                {"r", radius},
                {"stroke", colour},
                {"fill", drawn(i) ? colour : "#ffffff"}});
    }
    out += "<title>";
    out += escape_html(tooltip(chart, s, i));
    out += "</title></circle>";
  }
  out += "</g>";
}

void draw_marker(const Marker& marker, const Axis& x, const Axis& y, std::string& out) {
  open_tag(out, "g", {{"class", "marker"}, {"data-marker", marker.kind}});
  if (marker.band_high > marker.band_low) {
    const double left = x.map(marker.band_low);
    open_tag(out, "rect",
             {{"class", "band"},
              {"x", px(left)},
              {"y", px(y.to_px)},
              {"width", px(x.map(marker.band_high) - left)},
              {"height", px(y.from_px - y.to_px)}},
             true);
  }
  const double at = x.map(marker.x);
  line_element(out, at, y.to_px, at, y.from_px, {{"stroke-dasharray", "6 4"}});
  // The label goes on the side with room: left of a line in the right third of the plot.
  const bool right_side = at > x.from_px + (x.to_px - x.from_px) * 2 / 3;
  text_element(out,
               {{"x", px(right_side ? at - 5 : at + 5)},
                {"y", px(y.to_px + 14)},
                {"text-anchor", right_side ? "end" : "start"}},
               marker.label);
  out += "</g>";
}

}  // namespace

std::string render_svg(const Chart& chart) {
  const std::vector<LegendEntry> legend = legend_of(chart);
  const auto places = legend_layout(legend);
  const double top = (places.empty() ? 14 : places.back().second) + 12;
  const Axis x = x_axis_of(chart, kLeft, kWidth - kRight);
  const Axis y = y_axis_of(chart, kHeight - kBottom, top);
  std::string view_box = "0 0 ";
  view_box += px(kWidth);
  view_box += ' ';
  view_box += px(kHeight);
  std::string out;
  open_tag(out, "svg",
           {{"class", "chart"},
            {"data-chart", chart.name},
            {"viewBox", view_box},
            {"width", px(kWidth)},
            {"height", px(kHeight)},
            {"role", "img"},
            {"aria-label", chart.title}});
  open_tag(out, "rect",
           {{"class", "plot"},
            {"x", px(x.from_px)},
            {"y", px(y.to_px)},
            {"width", px(x.to_px - x.from_px)},
            {"height", px(y.from_px - y.to_px)}},
           true);
  draw_x_axis(x, y, chart.x_title, kHeight - 10, out);
  draw_y_axis(x, y, chart.y_title, out);
  for (const Marker& marker : chart.markers) draw_marker(marker, x, y, out);
  // Guides first, so that the measured lines are drawn over them.
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    if (chart.series[i].guide) draw_series(chart, i, x, y, out);
  }
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    if (!chart.series[i].guide) draw_series(chart, i, x, y, out);
  }
  draw_legend(legend, out);
  out += "</svg>";
  return out;
}

}  // namespace rateperf::report

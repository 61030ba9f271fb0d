#include "report/run_charts.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "report/html_text.hpp"

namespace rateperf::report {

namespace {

using nlohmann::json;

// The error kinds that are the client's own limits (descriptors, local ports, the file table):
// they say nothing about the server, so they do not mark its overload.
constexpr std::array<std::string_view, 3> kClientKinds = {"fd_unavail", "addrunavail", "ftab_full"};

bool client_kind(std::string_view key) {
  return std::find(kClientKinds.begin(), kClientKinds.end(), key) != kClientKinds.end();
}

SeriesPoint point_of(const json& p) {
  SeriesPoint point;
  point.start_s = p.at("start_s").get<double>();
  point.length_s = p.at("length_s").get<double>();
  point.arrivals = p.at("arrivals").get<double>();
  point.replies = p.at("replies").get<double>();
  const json& errors = p.at("errors");
  point.errors_total = errors.at("total").get<double>();
  for (const auto& [key, value] : errors.items()) {
    if (key != "total") point.errors.emplace_back(key, value.get<double>());
  }
  point.open_connections = p.at("open_connections").get<double>();
  const json& latency = p.at("latency");
  point.p50_ms = latency.at("p50_ms").get<double>();
  point.p90_ms = latency.at("p90_ms").get<double>();
  point.p99_ms = latency.at("p99_ms").get<double>();
  point.max_ms = latency.at("max_ms").get<double>();
  return point;
}

double server_errors(const SeriesPoint& point) {
  double client = 0;
  for (const auto& [key, count] : point.errors) {
    if (client_kind(key)) client += count;
  }
  return point.errors_total - client;
}

double per_s(double count, double length_s) {
  return length_s > 0 ? count / length_s : 0;
}

// The kinds of error that occur anywhere in the run, in the document's order.
std::vector<std::string> kinds_seen(const std::vector<SeriesPoint>& points) {
  std::vector<std::string> kinds;
  for (const SeriesPoint& p : points) {
    for (const auto& [key, count] : p.errors) {
      if (count > 0 && std::find(kinds.begin(), kinds.end(), key) == kinds.end())
        kinds.push_back(key);
    }
  }
  return kinds;
}

double count_of_kind(const SeriesPoint& point, const std::string& kind) {
  for (const auto& [key, count] : point.errors) {
    if (key == kind) return count;
  }
  return 0;
}

// The report's label of a JSON key: "client_timo" is the text report's "client-timo".
std::string label_of(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

Chart time_chart(std::string name, std::string title, std::string y_title,
                 const std::vector<SeriesPoint>& points) {
  Chart chart;
  chart.name = std::move(name);
  chart.title = std::move(title);
  chart.x_title = "time since start [s]";
  chart.y_title = std::move(y_title);
  for (const SeriesPoint& p : points) chart.x.push_back(p.start_s);
  return chart;
}

// A series of one figure of every point.
template <typename Figure>
Series series_of(std::string label, const std::vector<SeriesPoint>& points, Figure figure) {
  Series series{std::move(label), {}, false};
  for (const SeriesPoint& p : points) series.y.push_back(figure(p));
  return series;
}

Chart errors_chart(const std::vector<SeriesPoint>& points) {
  Chart chart = time_chart("errors", "Errors by kind", "errors in the interval", points);
  for (const std::string& kind : kinds_seen(points)) {
    chart.series.push_back(series_of(
        label_of(kind), points, [&kind](const SeriesPoint& p) { return count_of_kind(p, kind); }));
  }
  // A run without errors still shows its (flat) chart, so that "no errors" is seen, not guessed.
  if (chart.series.empty()) {
    chart.series.push_back(
        series_of("errors total", points, [](const SeriesPoint& p) { return p.errors_total; }));
  }
  return chart;
}

}  // namespace

std::vector<SeriesPoint> series_points(const json& run) {
  std::vector<SeriesPoint> points;
  for (const json& p : run.at("series").at("points")) points.push_back(point_of(p));
  return points;
}

std::optional<Onset> overload_onset(const std::vector<SeriesPoint>& points) {
  if (points.empty()) return std::nullopt;
  std::vector<double> first;
  const std::size_t head = std::max<std::size_t>(1, points.size() / 10);
  for (std::size_t i = 0; i < head; ++i) first.push_back(points[i].open_connections);
  std::sort(first.begin(), first.end());
  const double baseline = first.size() % 2 == 1
                              ? first[first.size() / 2]
                              : (first[first.size() / 2 - 1] + first[first.size() / 2]) / 2;
  const double limit = 2 * baseline + 10;

  // Every run ends with its connections closed: the points after the last arrivals show the
  // queue draining, not the server catching up, so the connections need to stay above the
  // limit only until then.
  std::size_t last_arrivals = points.size();
  for (std::size_t i = points.size(); i-- > 0;) {
    if (points[i].arrivals > 0) {
      last_arrivals = i;
      break;
    }
  }
  std::optional<std::size_t> growth;
  if (last_arrivals < points.size()) {
    for (std::size_t i = last_arrivals + 1; i-- > 0;) {
      if (points[i].open_connections <= limit) break;
      growth = i;
    }
  }
  std::optional<std::size_t> errors;
  for (std::size_t i = 0; i < points.size() && !errors; ++i) {
    if (server_errors(points[i]) > 0) errors = i;
  }
  if (!growth && !errors) return std::nullopt;

  Onset onset;
  if (growth && (!errors || *growth <= *errors)) {
    onset.index = *growth;
    onset.cause = "open connections above 2 x ";
    onset.cause += format_number(baseline);
    onset.cause += " + 10 = ";
    onset.cause += format_number(limit);
    onset.cause += " from here on";
  } else {
    onset.index = *errors;
    onset.cause = "the first errors of the server's making";
  }
  onset.start_s = points[onset.index].start_s;
  return onset;
}

std::vector<Chart> run_charts(const std::vector<SeriesPoint>& points,
                              const std::optional<Onset>& onset) {
  std::vector<Chart> charts;
  Chart rates = time_chart("rates", "Offered and replies per second", "per second", points);
  rates.series.push_back(series_of(
      "offered/s", points, [](const SeriesPoint& p) { return per_s(p.arrivals, p.length_s); }));
  rates.series.push_back(series_of(
      "replies/s", points, [](const SeriesPoint& p) { return per_s(p.replies, p.length_s); }));
  charts.push_back(std::move(rates));

  Chart latency =
      time_chart("latency", "Latency from the intended start (log scale)", "latency [ms]", points);
  latency.log_y = true;
  latency.series.push_back(series_of("p50", points, [](const SeriesPoint& p) { return p.p50_ms; }));
  latency.series.push_back(series_of("p90", points, [](const SeriesPoint& p) { return p.p90_ms; }));
  latency.series.push_back(series_of("p99", points, [](const SeriesPoint& p) { return p.p99_ms; }));
  latency.series.push_back(series_of("max", points, [](const SeriesPoint& p) { return p.max_ms; }));
  charts.push_back(std::move(latency));

  Chart connections =
      time_chart("connections", "Open connections", "open at the interval's end", points);
  connections.series.push_back(series_of("open connections", points,
                                         [](const SeriesPoint& p) { return p.open_connections; }));
  charts.push_back(std::move(connections));

  charts.push_back(errors_chart(points));

  if (onset) {
    std::string label = "overload onset ";
    label += format_number(onset->start_s);
    label += " s";
    for (Chart& chart : charts) chart.markers.push_back({"onset", onset->start_s, label, 0, 0});
  }
  return charts;
}

}  // namespace rateperf::report

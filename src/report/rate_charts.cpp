#include "report/rate_charts.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <stdexcept>
#include <utility>

namespace rateperf::report {

namespace {

using nlohmann::json;

// A share of the offered rate the replies must reach for a sweep's run to count as keeping up:
// short of 1, for the replies still in flight at the end of a run.
constexpr double kKeptUpShare = 0.98;

// The fields of one CSV row by column name.
class Row {
 public:
  Row(const json& columns, const json& cells, std::size_t number)
      : columns_(columns), cells_(cells), number_(number) {}

  bool has(const std::string& column) const { return index_of(column) < cells_.size(); }

  double number(const std::string& column) const {
    const std::size_t i = index_of(column);
    if (i >= cells_.size()) fail(column, "missing");
    const std::string text = cells_[i].get<std::string>();
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || stop != end || text.empty()) {
      std::string problem = "'";
      problem += text;
      problem += "' is not a number";
      fail(column, problem);
    }
    return value;
  }

 private:
  std::size_t index_of(const std::string& column) const {
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i] == column) return i;
    }
    return cells_.size();
  }

  [[noreturn]] void fail(const std::string& column, const std::string& problem) const {
    std::string message = "row ";
    message += std::to_string(number_);
    message += ", column ";
    message += column;
    message += ": ";
    message += problem;
    throw std::runtime_error(message);
  }

  const json& columns_;
  const json& cells_;
  std::size_t number_;
};

RatePoint point_of_row(const Row& row) {
  RatePoint point;
  point.offered_per_s = row.number("offered_rate_per_s");
  const double duration_s = row.number("duration_s");
  const double replies = row.number("replies");
  point.reply_rate_per_s = row.number("reply_rate_samples") > 0
                               ? row.number("reply_rate_avg_per_s")
                               : (duration_s > 0 ? replies / duration_s : 0);
  point.p50_ms = row.number("latency_p50_ms");
  point.p90_ms = row.number("latency_p90_ms");
  point.p99_ms = row.number("latency_p99_ms");
  point.errors_total = row.number("errors_total");
  // "calls" came with keep-alive (issue 15); before it every call was a reply or an error.
  point.calls = row.has("calls") ? row.number("calls") : replies + point.errors_total;
  return point;
}

RatePoint point_of_run(const json& run) {
  RatePoint point;
  const json& totals = run.at("totals");
  const double duration_s = totals.at("duration_s").get<double>();
  const double replies = totals.at("replies").get<double>();
  const json& reply_rate = run.at("reply_rate");
  point.reply_rate_per_s = reply_rate.at("samples").get<double>() > 0
                               ? reply_rate.at("avg_per_s").get<double>()
                               : (duration_s > 0 ? replies / duration_s : 0);
  const json& latency = run.at("latency_intended");
  point.p50_ms = latency.at("p50_ms").get<double>();
  point.p90_ms = latency.at("p90_ms").get<double>();
  point.p99_ms = latency.at("p99_ms").get<double>();
  point.errors_total = run.at("errors").at("total").get<double>();
  point.calls = totals.at("calls").get<double>();
  return point;
}

Chart rate_chart(std::string name, std::string title, std::string y_title,
                 const std::vector<RatePoint>& points) {
  Chart chart;
  chart.name = std::move(name);
  chart.title = std::move(title);
  chart.x_title = "offered rate [1/s]";
  chart.y_title = std::move(y_title);
  for (const RatePoint& p : points) {
    chart.x.push_back(p.offered_per_s);
    if (!p.verdict.empty()) chart.verdicts.push_back(p.verdict);
  }
  // Verdicts colour every point or none.
  if (chart.verdicts.size() != points.size()) chart.verdicts.clear();
  return chart;
}

template <typename Figure>
Series series_of(std::string label, const std::vector<RatePoint>& points, Figure figure,
                 bool guide = false) {
  Series series{std::move(label), {}, guide};
  for (const RatePoint& p : points) series.y.push_back(figure(p));
  return series;
}

}  // namespace

std::vector<RatePoint> table_points(const json& table) {
  std::vector<RatePoint> points;
  const json& columns = table.at("columns");
  std::size_t number = 0;
  for (const json& cells : table.at("rows")) {
    points.push_back(point_of_row(Row(columns, cells, ++number)));
  }
  return points;
}

std::vector<RatePoint> search_points(const json& search) {
  std::vector<RatePoint> points;
  for (const json& step : search.at("steps")) {
    RatePoint point = point_of_run(step.at("run"));
    point.offered_per_s = step.at("rate_per_s").get<double>();
    point.verdict = step.at("verdict").get<std::string>();
    points.push_back(std::move(point));
  }
  return points;
}

std::optional<double> sweep_capacity_per_s(const std::vector<RatePoint>& points) {
  std::optional<double> capacity;
  for (const RatePoint& p : points) {
    const bool kept_up = p.offered_per_s > 0 && p.errors_total == 0 &&
                         p.reply_rate_per_s >= kKeptUpShare * p.offered_per_s;
    if (kept_up && (!capacity || p.offered_per_s > *capacity)) capacity = p.offered_per_s;
  }
  return capacity;
}

std::vector<Chart> rate_charts(std::vector<RatePoint> points,
                               const std::optional<Marker>& capacity) {
  std::stable_sort(points.begin(), points.end(), [](const RatePoint& a, const RatePoint& b) {
    return a.offered_per_s < b.offered_per_s;
  });
  std::vector<Chart> charts;
  Chart replies =
      rate_chart("reply-rate", "Reply rate against the offered rate", "replies per second", points);
  replies.series.push_back(
      series_of("replies/s", points, [](const RatePoint& p) { return p.reply_rate_per_s; }));
  replies.series.push_back(series_of(
      "offered", points, [](const RatePoint& p) { return p.offered_per_s; }, true));
  charts.push_back(std::move(replies));

  Chart latency =
      rate_chart("latency", "Latency from the intended start (log scale)", "latency [ms]", points);
  latency.log_y = true;
  latency.series.push_back(series_of("p50", points, [](const RatePoint& p) { return p.p50_ms; }));
  latency.series.push_back(series_of("p90", points, [](const RatePoint& p) { return p.p90_ms; }));
  latency.series.push_back(series_of("p99", points, [](const RatePoint& p) { return p.p99_ms; }));
  charts.push_back(std::move(latency));

  Chart errors =
      rate_chart("errors", "Errors against the offered rate", "errors [% of calls]", points);
  errors.series.push_back(
      series_of("errors %", points, [](const RatePoint& p) { return p.error_percent(); }));
  charts.push_back(std::move(errors));

  if (capacity) {
    for (Chart& chart : charts) chart.markers.push_back(*capacity);
  }
  return charts;
}

}  // namespace rateperf::report

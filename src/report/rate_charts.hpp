#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/svg_chart.hpp"

// The charts of many runs against their offered rate (docs/report.md, "A sweep or a search"):
// the rows of a sweep's or a search's CSV, or the steps of a search's JSON.
namespace rateperf::report {

// One run's figures at its offered rate.
struct RatePoint {
  double offered_per_s = 0;
  // The reply-rate samples' mean, or replies / duration for a run too short for samples.
  double reply_rate_per_s = 0;
  double p50_ms = 0;
  double p90_ms = 0;
  double p99_ms = 0;
  double errors_total = 0;
  double calls = 0;     // replies + errors
  std::string verdict;  // a search step's: "pass", "fail", "client-limited"; empty otherwise

  double error_percent() const { return calls > 0 ? 100 * errors_total / calls : 0; }
};

// The rows of a CSV input ({"columns": [...], "rows": [[...], ...]}, the --csv columns).
// Throws std::runtime_error naming the row and the column of a field that is not a number, or
// a column that is missing.
std::vector<RatePoint> table_points(const nlohmann::json& table);

// The steps of a search's JSON document (docs/search.md), each from its run document. Throws
// nlohmann::json::exception when a field is missing or mistyped.
std::vector<RatePoint> search_points(const nlohmann::json& search);

// A sweep's capacity, for want of a search's: the highest offered rate whose reply rate is at
// least 98 % of it and which has no errors. None when no run qualifies.
std::optional<double> sweep_capacity_per_s(const std::vector<RatePoint>& points);

// The three charts against the offered rate: "reply-rate" (with the offered rate, y = x),
// "latency" (p50, p90, p99; log scale) and "errors" (percent of calls), each marked at the
// capacity when there is one. The points are drawn sorted by offered rate; equal rates (a
// search's repeated steps) stay separate points.
std::vector<Chart> rate_charts(std::vector<RatePoint> points,
                               const std::optional<Marker>& capacity);

}  // namespace rateperf::report

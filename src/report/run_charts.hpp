#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/svg_chart.hpp"

// The charts of one run's time series (docs/report.md, "A run"), and where its overload began.
namespace rateperf::report {

// One interval of a run's time series (docs/json.md, /series/points[]).
struct SeriesPoint {
  double start_s = 0;   // since the start of the run
  double length_s = 0;  // the last interval may be shorter
  double arrivals = 0;
  double replies = 0;
  double errors_total = 0;
  // Errors by kind: the JSON key ("client_timo") and the count, every kind of /errors but
  // "total", in the document's order.
  std::vector<std::pair<std::string, double>> errors;
  double open_connections = 0;  // at the interval's end
  double p50_ms = 0;
  double p90_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

// /series/points of a run's JSON document. Throws nlohmann::json::exception when a field is
// missing or not a number.
std::vector<SeriesPoint> series_points(const nlohmann::json& run);

// Where the run's overload began (docs/report.md, "Overload onset").
struct Onset {
  std::size_t index = 0;  // the first point of the overload
  double start_s = 0;     // its start
  std::string cause;      // why, one phrase: "open connections above 2 x 12 + 10 = 34 from here on"
};

// The overload onset: the earliest point from which the open connections stay above
// 2 x baseline + 10 until the schedule's last arrivals (baseline: the median of the first
// max(1, n/10) points), or the first point with errors of the server's making (every kind but
// fd_unavail, addrunavail and ftab_full, which are the client's own limits), whichever comes
// first. None for a run without either.
std::optional<Onset> overload_onset(const std::vector<SeriesPoint>& points);

// The four charts of a run, against time: "rates" (offered and replies per second),
// "latency" (p50, p90, p99, max; log scale), "connections" (open), "errors" (by kind), each
// marked at the onset when there is one.
std::vector<Chart> run_charts(const std::vector<SeriesPoint>& points,
                              const std::optional<Onset>& onset);

}  // namespace rateperf::report

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stats/summary.hpp"

namespace rateperf::search {

// What one term of an SLO measures in a step (docs/search.md lists the terms).
enum class Metric {
  latency_percentile,  // a percentile of the latency from the intended start, in ms
  latency_max,         // the largest latency, in ms
  latency_mean,        // the mean latency, in ms
  errors,              // calls that ended in an error, percent of calls
  timeouts,            // client-timo + socket-timo, percent of calls
  non_2xx,             // replies whose status is not 2xx, percent of replies
};

// One term, `METRIC OP VALUE`: the step meets it when its figure is at most (<=) or below (<)
// the bound.
struct SloTerm {
  Metric metric = Metric::errors;
  double percentile = 0;  // latency_percentile: 50, 90, 99, 99.9, ...
  bool strict = false;    // `<` rather than `<=`
  double bound = 0;       // ms for the latencies, percent for the shares
  std::string text;       // the term normalised, e.g. "p99<=100ms"
};

// A service-level objective: every term must hold.
struct Slo {
  std::vector<SloTerm> terms;
  std::string text() const;  // the terms normalised, joined by commas
};

// The SLO a search uses without --slo.
inline constexpr std::string_view kDefaultSlo = "p99<=100ms,errors<=0.1%";

// Parses `TERM[,TERM...]`. Throws UsageError naming --slo, the token that does not parse and
// what was expected, e.g. "--slo: 'p99<=100': a latency needs a unit (us, ms or s)".
Slo parse_slo(std::string_view text);

// One term checked against a step.
struct Check {
  const SloTerm* term = nullptr;
  double value = 0;  // the step's figure, in the term's unit
  bool passed = false;
  std::string describe() const;  // e.g. "p99 312.5 ms > 100 ms"
};

// Checks every term against a step's figures, in the SLO's order.
std::vector<Check> check_slo(const Slo& slo, const stats::Summary& step);

// The latency bound of the SLO's largest latency term in ms; 0 when it has none.
double largest_latency_bound_ms(const Slo& slo);

}  // namespace rateperf::search

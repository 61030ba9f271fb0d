#pragma once

#include <string>

#include "stats/summary.hpp"

namespace rateperf::report {

// Formats a finished run's Summary as httperf's report: the same lines, labels and order (see
// README "The report"), then rateperf's own lines. Pure: it only formats, it computes nothing.
std::string format_text(const stats::Summary& summary);

// The time series as a table, one line an interval (what --verbose adds on stderr after the
// report).
std::string format_series(const stats::Summary& summary);

}  // namespace rateperf::report

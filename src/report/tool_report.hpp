#pragma once

#include <string>

#include "options/config.hpp"
#include "stats/summary.hpp"

namespace rateperf::report {

// The text report in the shape --format asks for: httperf's (format_text), ab's or siege's.
std::string format_report(const stats::Summary& summary, const options::Config& config);

// ApacheBench's report: its labels, layout and figures (docs/closed-loop.md says how each is
// measured), from "Server Software:" to the percentage table, so that scripts written for ab's
// output read it unchanged. Pure: it only formats.
std::string format_ab(const stats::Summary& summary, const options::Config& config);

// siege's report: "Transactions:" to "Shortest transaction:", with siege's labels and units.
std::string format_siege(const stats::Summary& summary);

}  // namespace rateperf::report

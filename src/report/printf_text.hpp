#pragma once

#include <array>
#include <string>

#include "stats/summary.hpp"

namespace rateperf::report {

// Appends printf-formatted text. The reports' lines are the formats of the tools they mirror
// (httperf's, ab's, siege's), kept as formats (not streams) so that each line can be checked
// against that tool's source at a glance and the compiler checks the arguments against them.
[[gnu::format(printf, 2, 3)]] void appendf(std::string& out, const char* format, ...);

// ab's table "Percentage of the requests served within a certain time (ms)", one line a
// percent of stats::kServedWithinPercents, in ab's exact layout (header, spacing, "(longest
// request)"), after a blank line.
void append_within_table(std::string& out,
                         const std::array<double, stats::kServedWithinPercents.size()>& ms);

}  // namespace rateperf::report

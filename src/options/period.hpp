#pragma once

#include <string>
#include <string_view>

#include "options/config.hpp"

namespace rateperf::options {

// Parses --period [d|u|e|v]T1[,T2...], every number in seconds, into the Period it names with
// its mean rate. Zero gaps are refused except for d0 (httperf's "sequential"): for e, u and v
// they would ask for an infinite rate. Throws UsageError naming --period.
Period parse_period(std::string_view text);

// A --rate value: connections per second, 0 for sequential, as a deterministic Period.
Period period_of_rate(std::string_view text);

// How the echoed command line shows a period: "--rate=R" for a fixed gap (httperf echoes the
// rate it amounts to), "--period=..." for the others, nothing for sequential.
std::string echo_period(const Period& period);

}  // namespace rateperf::options

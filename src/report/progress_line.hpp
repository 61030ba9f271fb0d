#pragma once

#include <string>

#include "stats/progress.hpp"

namespace rateperf::report {

// The live progress line (without line ending), e.g.
// "12.0 s  issued 3600/12000  replies 3590  300.0 replies/s  errors 0  open 3".
// `reply_rate_per_s` is the current rate (replies over the last interval).
std::string format_progress(const stats::Progress& progress, double reply_rate_per_s);

}  // namespace rateperf::report

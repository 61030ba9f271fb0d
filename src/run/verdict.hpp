#pragma once

#include <string>
#include <vector>

#include "options/config.hpp"
#include "stats/summary.hpp"

namespace rateperf::run {

// Whether a finished run crossed a threshold the user set (--max-lag, --max-error-rate).
struct Verdict {
  int status = 0;                    // kExitOk, or kExitThresholdCrossed
  std::vector<std::string> crossed;  // one line per threshold crossed, for stderr
};

Verdict judge(const options::Config& config, const stats::Summary& summary);

}  // namespace rateperf::run

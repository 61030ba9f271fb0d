#include "run/verdict.hpp"

#include <cstdio>

#include "core/failure.hpp"

namespace rateperf::run {

Verdict judge(const options::Config& config, const stats::Summary& summary) {
  Verdict verdict;
  char line[256];
  const double max_lag_ms = to_ms(config.max_lag);
  if (config.max_lag > Duration::zero() && summary.lag_p99_ms > max_lag_ms) {
    std::snprintf(line, sizeof line,
                  "rateperf: threshold crossed: lag p99 %.3f ms > --max-lag %g ms",
                  summary.lag_p99_ms, max_lag_ms);
    verdict.crossed.emplace_back(line);
    verdict.status = kExitThresholdCrossed;
  }
  // Every call ends as a reply or an error, so the rate is over the calls (with one call per
  // connection, the arrivals).
  if (config.max_error_rate_percent >= 0 && summary.calls > 0) {
    const double error_percent =
        100.0 * static_cast<double>(summary.errors_total) / static_cast<double>(summary.calls);
    if (error_percent > config.max_error_rate_percent) {
      std::snprintf(line, sizeof line,
                    "rateperf: threshold crossed: %.2f %% of the calls failed > "
                    "--max-error-rate %g %%",
                    error_percent, config.max_error_rate_percent);
      verdict.crossed.emplace_back(line);
      verdict.status = kExitThresholdCrossed;
    }
  }
  return verdict;
}

}  // namespace rateperf::run

#include "report/live.hpp"

#include <unistd.h>

#include <cstdio>
#include <memory>

#include "report/progress_line.hpp"

namespace rateperf::report {

run::Listeners live_listeners(const options::Config& config) {
  run::Listeners listeners;
  if (config.verbose > 0) {
    listeners.on_sample = [](const stats::IntervalSample& sample) {
      std::fprintf(stderr, "reply-rate = %.1f\n", sample.reply_rate_per_s());
    };
  }
  if (!config.quiet && ::isatty(STDERR_FILENO)) {
    auto shown = std::make_shared<bool>(false);
    listeners.on_progress = [shown](const stats::Progress& progress, double rate) {
      // Carriage return and erase-to-end-of-line: the line is rewritten in place.
      std::fprintf(stderr, "\r%s\033[K", format_progress(progress, rate).c_str());
      *shown = true;
    };
    listeners.on_end = [shown] {
      if (*shown) std::fputs("\r\033[K", stderr);
    };
  }
  return listeners;
}

}  // namespace rateperf::report

#include "report/progress_line.hpp"

#include <cinttypes>
#include <cstdio>

namespace rateperf::report {

std::string format_progress(const stats::Progress& p, double reply_rate_per_s) {
  char line[160];
  std::snprintf(line, sizeof line,
                "%.1f s  issued %" PRIu64 "/%" PRIu64 "  replies %" PRIu64
                "  %.1f replies/s  errors %" PRIu64 "  open %" PRIu64,
                to_s(p.elapsed), p.issued, p.total, p.replies, reply_rate_per_s, p.errors, p.open);
  return line;
}

}  // namespace rateperf::report

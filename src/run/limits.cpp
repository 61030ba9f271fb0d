#include "run/limits.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace rateperf::run {

namespace {

// Descriptors the process holds besides its connections: stdio, each worker's epoll, eventfd
// and timerfd, the watcher's signalfd and eventfd, export files.
constexpr std::uint64_t kReservedDescriptors = 16;

}  // namespace

std::uint64_t raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur == RLIM_INFINITY ? 0 : static_cast<std::uint64_t>(limit.rlim_cur);
}

void warn_if_descriptors_short(const options::Config& config, std::uint64_t limit) {
  if (limit == 0 || config.period.sequential() || config.timeout <= Duration::zero()) return;
  // A shard holds its part: 1/N of the rate and of the arrivals.
  const double rate = config.period.rate_per_s / config.shard_count;
  const double worst = rate * to_s(config.timeout);
  const std::uint64_t per_arrival = config.sessions > 0 ? config.max_connections : 1;
  const double needed =
      std::min(worst, static_cast<double>(config.shard_arrivals() * per_arrival));
  if (needed + kReservedDescriptors <= static_cast<double>(limit)) return;
  std::fprintf(stderr,
               "rateperf: warning: --rate %g%s with --timeout %g s may keep %.0f connections "
               "open at once, more than the %" PRIu64
               " descriptors allowed (ulimit -n); arrivals that find none count as fd-unavail\n",
               config.period.rate_per_s, config.shard_count > 1 ? " (this shard's part)" : "",
               to_s(config.timeout), needed, limit);
}

}  // namespace rateperf::run

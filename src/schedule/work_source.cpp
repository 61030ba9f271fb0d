#include "schedule/work_source.hpp"

#include <cassert>
#include <cmath>
#include <limits>

namespace rateperf::schedule {

std::optional<TimePoint> OpenLoop::next_due() const {
  if (timeline_.done()) return std::nullopt;
  return timeline_.next_due();
}

ClosedLoop::ClosedLoop(std::uint64_t slots, std::uint64_t total, TimePoint start)
    : slots_(slots), total_(total), free_since_(slots, start) {
  assert(slots > 0);
}

bool ClosedLoop::finished(TimePoint now) {
  if (done()) return false;
  free_since_.push_back(now);
  return true;
}

std::optional<TimePoint> ClosedLoop::next_due() const {
  if (done() || free_since_.empty()) return std::nullopt;
  return free_since_.front();
}

TimePoint ClosedLoop::take() {
  assert(!done() && !free_since_.empty());
  const TimePoint intended = free_since_.front();
  free_since_.pop_front();
  ++issued_;
  return intended;
}

std::unique_ptr<WorkSource> make_work_source(const options::Config& config, TimePoint start,
                                             std::uint64_t share, std::uint64_t shares) {
  if (config.period.sequential()) {
    // One slot in all: the one worker with share 0 runs them.
    const std::uint64_t total = share == 0 ? config.arrivals() : 0;
    return std::make_unique<ClosedLoop>(1, total, start);
  }
  // Request mode schedules --requests requests, or those intended within --duration: for a
  // fixed gap, the duration times the rate (a sum of gaps rounded to the nanosecond would let
  // one more in), otherwise whatever the draw puts before the end.
  std::uint64_t total = config.arrivals();
  bool by_time = false;
  if (config.request_mode) {
    total = config.requests;
    if (total == 0 && config.period.kind == options::PeriodKind::deterministic) {
      total = static_cast<std::uint64_t>(std::llround(to_s(config.duration) * config.period.rate_per_s));
    } else if (total == 0) {
      total = std::numeric_limits<std::uint64_t>::max();
      by_time = true;
    }
  }
  Timeline timeline(config.period, config.seed, total, start, share, shares);
  if (by_time) timeline.end_at(start + config.duration);
  return std::make_unique<OpenLoop>(std::move(timeline));
}

}  // namespace rateperf::schedule

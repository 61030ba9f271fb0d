#include "schedule/work_source.hpp"

#include <cassert>
#include <cmath>
#include <limits>

namespace rateperf::schedule {

std::optional<TimePoint> OpenLoop::next_due() const {
  if (timeline_.done()) return std::nullopt;
  return timeline_.next_due();
}

ClosedLoop::ClosedLoop(std::uint64_t slots, std::uint64_t total, TimePoint start, Duration think,
                       std::optional<TimePoint> end)
    : slots_(slots), total_(total), think_(think), end_(end), free_since_(slots, start) {
  if (end_ && start >= *end_) {
    slots_ = 0;
    free_since_.clear();
  }
}

bool ClosedLoop::finished(TimePoint now) {
  if (done()) return false;
  const TimePoint due = now + think_;
  if (end_ && due >= *end_) {
    --slots_;
    return false;
  }
  free_since_.push_back(due);
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

namespace {

// Share k's part of `amount` split in proportion to the slots: the shares before it hold
// `before` of the `slots`, it holds `mine`.
std::uint64_t in_proportion(std::uint64_t amount, std::uint64_t slots, std::uint64_t before,
                            std::uint64_t mine) {
  __extension__ using Wide = unsigned __int128;
  const auto upto = [&](std::uint64_t held) {
    return static_cast<std::uint64_t>(Wide{amount} * held / slots);
  };
  return upto(before + mine) - upto(before);
}

std::unique_ptr<WorkSource> closed_loop(const options::Config& config, TimePoint start,
                                        std::uint64_t share, std::uint64_t shares) {
  const std::uint64_t c = config.concurrency;
  const std::uint64_t mine = share_of(c, share, shares);
  const std::uint64_t before = share * (c / shares) + std::min(share, c % shares);
  if (config.duration > Duration::zero()) {
    return std::make_unique<ClosedLoop>(mine, std::numeric_limits<std::uint64_t>::max(), start,
                                        config.think, start + config.duration);
  }
  const std::uint64_t total = config.request_mode ? config.requests : config.num_conns;
  return std::make_unique<ClosedLoop>(mine, in_proportion(total, c, before, mine), start,
                                      config.think);
}

}  // namespace

std::unique_ptr<WorkSource> make_work_source(const options::Config& config, TimePoint start,
                                             std::uint64_t share, std::uint64_t shares) {
  if (config.closed_loop()) return closed_loop(config, start, share, shares);
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

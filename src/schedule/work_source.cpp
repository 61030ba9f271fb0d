#include "schedule/work_source.hpp"

#include <cassert>

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
    const std::uint64_t total = share == 0 ? config.num_conns : 0;
    return std::make_unique<ClosedLoop>(1, total, start);
  }
  return std::make_unique<OpenLoop>(
      Timeline(config.period, config.seed, config.num_conns, start, share, shares));
}

}  // namespace rateperf::schedule

#include "engine/pacing.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace rateperf::engine {

namespace {

using namespace std::chrono_literals;

// The margins stay within these bounds whatever the measurements say: a wake-up is never
// asked for less than a few microseconds ahead, and a machine that stalls for seconds does not
// turn the loop into a spin loop.
constexpr Duration kMinMargin = 5us;
constexpr Duration kMaxMargin = 2ms;
// Hybrid's safety beyond the p99 lateness.
constexpr Duration kHybridSafety = 10us;
// The quantiles are recomputed after each of the first this many samples (a few early ones
// must not set the margins for long), then after every this many more.
constexpr std::uint64_t kUpdateEvery = 32;

Duration clamp_margin(Duration d) { return std::clamp(d, kMinMargin, kMaxMargin); }

}  // namespace

void LatenessTracker::record(Duration lateness) {
  ring_[count_ % kWindow] = std::max(lateness, Duration::zero());
  ++count_;
}

Duration LatenessTracker::quantile(double q) const {
  if (count_ == 0) return kAssumed;
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(count_, kWindow));
  std::vector<Duration> sorted(ring_.begin(), ring_.begin() + static_cast<std::ptrdiff_t>(n));
  const auto rank = static_cast<std::size_t>(
      std::clamp(std::ceil(q * static_cast<double>(n)) - 1, 0.0, static_cast<double>(n - 1)));
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(rank),
                   sorted.end());
  return sorted[rank];
}

Pacer::Pacer(options::Timing mode) : mode_(mode) { update(); }

void Pacer::woke(Duration lateness, TimePoint now) {
  last_woke_ = now;
  lateness_.record(lateness);
  if (lateness_.samples() % kUpdateEvery == 0 || lateness_.samples() < kUpdateEvery) update();
}

void Pacer::update() {
  switch (mode_) {
    case options::Timing::hybrid:
      margin_ = clamp_margin(lateness_.quantile(0.99) + kHybridSafety);
      poll_below_ = margin_;
      break;
    case options::Timing::automatic:
      margin_ = clamp_margin(lateness_.quantile(0.5));
      poll_below_ = margin_;
      break;
    case options::Timing::sleep:
    case options::Timing::spin:
    case options::Timing::batch:
      break;
  }
}

Duration Pacer::margin() const { return margin_; }

Duration Pacer::margin_for(Duration left) const {
  if (mode_ == options::Timing::automatic && left > kNearLateness * margin_) return Duration::zero();
  return margin_;
}

Duration Pacer::poll_below() const {
  switch (mode_) {
    case options::Timing::hybrid:
    case options::Timing::automatic:
      return poll_below_;
    case options::Timing::sleep:
    case options::Timing::batch:
      return Duration::zero();
    case options::Timing::spin:
      break;
  }
  return Duration::max();
}

Wait Pacer::plan(TimePoint now, std::optional<TimePoint> next, bool busy) const {
  if (mode_ == options::Timing::spin) return Wait{};
  if (busy && mode_ == options::Timing::automatic) return Wait{};
  // Nothing scheduled: only a socket event can bring work.
  if (!next) return Wait{.sleep = true, .wake_at = std::nullopt};
  const Duration left = *next - now;
  if (left <= Duration::zero()) return Wait{};  // due: serve it at once
  const bool stale = mode_ != options::Timing::sleep && mode_ != options::Timing::batch &&
                     (!last_woke_ || now - *last_woke_ > kRefresh);
  if (left <= poll_below() && !stale) return Wait{};
  // A refresh sleep for a deadline nearer than the margin sleeps to the deadline itself: a
  // timer set in the past would measure nothing.
  const Duration margin = margin_for(left);
  return Wait{.sleep = true, .wake_at = left > margin ? *next - margin : *next};
}

}  // namespace rateperf::engine

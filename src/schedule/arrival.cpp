#include "schedule/arrival.hpp"

#include <cassert>
#include <cmath>

namespace rateperf::schedule {

ArrivalProcess::ArrivalProcess(const options::Period& period, std::uint64_t seed)
    : period_(period), rng_(seed) {}

double ArrivalProcess::uniform01() {
  // The top 53 bits of the generator's output, scaled by 2^-53, fill a double's mantissa exactly:
  // every value is a multiple of 2^-53 in [0, 1), identical on every platform.
  return static_cast<double>(rng_() >> 11) * 0x1.0p-53;
}

Duration ArrivalProcess::next_gap(Duration since_start) {
  switch (period_.kind) {
    case options::PeriodKind::deterministic:
      return period_.mean;

    case options::PeriodKind::uniform: {
      const Duration::rep span = (period_.high - period_.low).count();
      if (span <= 0) return period_.low;
      auto offset = static_cast<Duration::rep>(std::floor(uniform01() * static_cast<double>(span)));
      // A span beyond 2^53 ns cannot be represented exactly, so the product may round up to the
      // span itself; the interval is half-open, so keep the gap below `high`.
      if (offset >= span) offset = span - 1;
      return period_.low + Duration(offset);
    }

    case options::PeriodKind::exponential: {
      // Inverse transform: for u uniform in [0, 1), -mean * ln(1 - u) is exponential with that
      // mean. log1p keeps precision for small u, where the short gaps come from.
      const double u = uniform01();
      const double gap_ns = -static_cast<double>(period_.mean.count()) * std::log1p(-u);
      return Duration(std::llround(gap_ns));
    }

    case options::PeriodKind::variable: {
      const auto& steps = period_.steps;
      if (steps.empty()) return Duration::zero();
      Duration cycle{};
      for (const auto& step : steps) cycle += step.length;
      if (cycle <= Duration::zero()) return steps.front().gap;
      // Arrivals before the start (never the case for a timeline) count as the first step.
      Duration position = since_start < Duration::zero() ? Duration::zero() : since_start % cycle;
      for (const auto& step : steps) {
        if (position < step.length) return step.gap;
        position -= step.length;
      }
      return steps.back().gap;  // unreachable: position < cycle
    }
  }
  return period_.mean;
}

namespace {

// The arrivals of share `share` of `shares` among `total`: indexes share, share + shares, ...
std::uint64_t share_size(std::uint64_t total, std::uint64_t share, std::uint64_t shares) {
  return share < total ? (total - share - 1) / shares + 1 : 0;
}

}  // namespace

Timeline::Timeline(const options::Period& period, std::uint64_t seed, std::uint64_t total,
                   TimePoint start, std::uint64_t share, std::uint64_t shares)
    : process_(period, seed),
      start_(start),
      next_due_(start),
      shares_(shares),
      total_(share_size(total, share, shares)) {
  assert(shares > 0 && share < shares);
  if (total_ > 0) skip(share);
}

void Timeline::skip(std::uint64_t count) {
  // Each gap follows from the intended time of the arrival before it (only v looks at it),
  // never from the time an arrival was actually taken, so late wake-ups do not stretch the
  // schedule.
  for (std::uint64_t i = 0; i < count; ++i) next_due_ += process_.next_gap(next_due_ - start_);
}

TimePoint Timeline::take() {
  assert(!done());
  const TimePoint intended = next_due_;
  ++issued_;
  if (!done()) skip(shares_);
  return intended;
}

}  // namespace rateperf::schedule

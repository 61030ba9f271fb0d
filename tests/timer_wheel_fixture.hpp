#pragma once

// The "timer_wheel" suite's fake clock and timers: a set of timers known by index that records
// when each fired, and an event loop that sleeps until the wheel's next deadline.

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "schedule/timer_wheel.hpp"

namespace rateperf::test::wheel {

using schedule::TimerWheel;
using schedule::WheelTimer;

// The fake clock is just time points; the origin is far from zero, as steady_clock's is.
inline const TimePoint kStart = TimePoint{} + std::chrono::seconds(1000);
inline constexpr Duration kTick = std::chrono::milliseconds(1);
inline constexpr std::size_t kSlots = 64;
inline constexpr Duration kRevolution = kTick * static_cast<std::int64_t>(kSlots);

// A set of timers, each known by its index, with the time each one fired.
struct Fixture {
  explicit Fixture(std::size_t n) : timers(n), fired_at(n) {}

  std::size_t index(const WheelTimer& timer) const {
    return static_cast<std::size_t>(&timer - timers.data());
  }

  std::size_t advance(TimerWheel& wheel, TimePoint now) {
    return wheel.advance(now, [&](WheelTimer& timer) {
      auto& record = fired_at[index(timer)];
      CHECK(timer.deadline <= now);
      CHECK_FALSE(timer.armed());
      CHECK_FALSE(record.has_value());  // fires once
      record = now;
    });
  }

  std::vector<WheelTimer> timers;
  std::vector<std::optional<TimePoint>> fired_at;
};

// The true earliest deadline among armed timers, computed the slow way.
inline std::optional<TimePoint> earliest_armed(const std::vector<WheelTimer>& timers) {
  std::optional<TimePoint> best;
  for (const auto& timer : timers) {
    if (timer.armed() && (!best || timer.deadline < *best)) best = timer.deadline;
  }
  return best;
}

// Runs an event loop on the fake clock: sleeps until next_deadline(), advances, repeats. Every
// timer must then fire exactly at its deadline. Returns the number of wake-ups.
inline std::size_t run_loop(TimerWheel& wheel, Fixture& fixture) {
  std::size_t wakeups = 0;
  TimePoint last = kStart;
  while (auto next = wheel.next_deadline()) {
    const auto truth = earliest_armed(fixture.timers);
    REQUIRE(truth.has_value());
    REQUIRE(*next <= *truth);
    // A wake-up must make progress: the loop never spins on the same time.
    const TimePoint now = std::max(*next, last);
    fixture.advance(wheel, now);
    last = now;
    ++wakeups;
    REQUIRE(wakeups < 1000000);
  }
  CHECK(wheel.size() == 0);
  return wakeups;
}

}  // namespace rateperf::test::wheel

// TimerWheel inside an event loop on a fake clock: callbacks that cancel, defer or schedule timers
// during an advance, a periodic timer re-armed from its own callback, and random schedules and
// operations against the slow truth (every timer fires once, at or after its deadline, and
// next_deadline() is never later than the earliest one).

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "core/clock.hpp"
#include "schedule/timer_wheel.hpp"
#include "timer_wheel_fixture.hpp"

using namespace std::chrono_literals;
using rateperf::Duration;
using rateperf::TimePoint;
using rateperf::schedule::TimerWheel;
using rateperf::schedule::WheelTimer;
using rateperf::test::wheel::earliest_armed;
using rateperf::test::wheel::Fixture;
using rateperf::test::wheel::kRevolution;
using rateperf::test::wheel::kSlots;
using rateperf::test::wheel::kStart;
using rateperf::test::wheel::kTick;
using rateperf::test::wheel::run_loop;

TEST_SUITE("timer_wheel") {
  TEST_CASE("a callback that cancels another due timer stops it from firing") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(2);
    wheel.schedule(f.timers[0], kStart + 2ms);
    wheel.schedule(f.timers[1], kStart + 2ms);
    std::size_t calls = 0;
    // Whichever fires first cancels the other, as a connection closing on one timer would
    // cancel its second one.
    const std::size_t fired = wheel.advance(kStart + 2ms, [&](WheelTimer& timer) {
      ++calls;
      wheel.cancel(f.timers[1 - f.index(timer)]);
    });
    CHECK(fired == 1);
    CHECK(calls == 1);
    CHECK(wheel.size() == 0);
    CHECK(f.advance(wheel, kStart + 1s) == 0);
  }

  TEST_CASE("a callback that reschedules another due timer defers it") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(2);
    wheel.schedule(f.timers[0], kStart + 2ms);
    wheel.schedule(f.timers[1], kStart + 2ms);
    int first = -1;
    const std::size_t fired = wheel.advance(kStart + 2ms, [&](WheelTimer& timer) {
      if (first < 0) {
        first = static_cast<int>(f.index(timer));
        wheel.rearm(f.timers[1 - f.index(timer)], kStart + 40ms);
      }
    });
    CHECK(fired == 1);
    CHECK(wheel.size() == 1);
    CHECK(wheel.next_deadline() == kStart + 40ms);
    CHECK(f.advance(wheel, kStart + 40ms - 1ns) == 0);
    CHECK(f.advance(wheel, kStart + 40ms) == 1);
    CHECK(f.fired_at[static_cast<std::size_t>(first)] == std::nullopt);
    CHECK(f.fired_at[1 - static_cast<std::size_t>(first)] == kStart + 40ms);
  }

  TEST_CASE("a timer scheduled as already due from a callback fires now or at the next advance") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(2);
    wheel.schedule(f.timers[0], kStart + 5ms);
    const TimePoint now = kStart + 7ms;
    std::size_t fired = wheel.advance(now, [&](WheelTimer& timer) {
      if (f.index(timer) == 0) wheel.schedule(f.timers[1], kStart + 6ms);
    });
    if (f.timers[1].armed()) {
      CHECK(fired == 1);
      const auto next = wheel.next_deadline();
      REQUIRE(next.has_value());
      CHECK(*next <= now);
      fired += f.advance(wheel, now);
    }
    CHECK(fired == 2);
    CHECK_FALSE(f.timers[1].armed());
    CHECK(wheel.size() == 0);
  }

  TEST_CASE("a periodic timer re-armed from its own callback keeps its exact period") {
    // How arrivals use the wheel: each firing re-arms the timer at the next intended time, so
    // after a stall the missed arrivals all come out, each with its own time.
    TimerWheel wheel(kStart, kTick, kSlots);
    WheelTimer timer;
    const Duration period = 333us;
    std::vector<TimePoint> intended;
    auto on_expire = [&](WheelTimer& t) {
      intended.push_back(t.deadline);
      if (intended.size() < 1000) wheel.schedule(t, t.deadline + period);
    };
    wheel.schedule(timer, kStart);
    TimePoint now = kStart;
    std::mt19937_64 rng(11);
    while (wheel.size() > 0) {
      // Wake at the next deadline, sometimes late by up to 5 ms (a stalled loop).
      now = std::max(now, *wheel.next_deadline()) + Duration(rng() % 2 == 0 ? 0 : rng() % 5000000);
      while (wheel.advance(now, on_expire) > 0) {
      }
    }
    REQUIRE(intended.size() == 1000);
    for (std::size_t i = 0; i < intended.size(); ++i) {
      CHECK(intended[i] == kStart + static_cast<std::int64_t>(i) * period);
    }
  }

  TEST_CASE(
      "random deadlines and random steps: each timer fires once, in the first advance at or "
      "after its deadline") {
    std::mt19937_64 rng(2024);
    for (std::size_t slots : {std::size_t{1}, std::size_t{8}, std::size_t{64}, std::size_t{1024}}) {
      CAPTURE(slots);
      TimerWheel wheel(kStart, kTick, slots);
      Fixture f(3000);
      const auto horizon_ns = static_cast<std::uint64_t>((20 * kRevolution).count());
      for (auto& timer : f.timers) {
        wheel.schedule(timer, kStart + Duration(static_cast<Duration::rep>(rng() % horizon_ns)));
      }
      CHECK(wheel.size() == f.timers.size());
      TimePoint previous = kStart - 1ns;
      TimePoint now = kStart;
      std::size_t fired = 0;
      while (now < kStart + 21 * kRevolution) {
        const auto truth = earliest_armed(f.timers);
        const auto next = wheel.next_deadline();
        REQUIRE(next.has_value() == truth.has_value());
        if (truth) REQUIRE(*next <= *truth);
        fired += f.advance(wheel, now);
        for (std::size_t i = 0; i < f.timers.size(); ++i) {
          const auto& timer = f.timers[i];
          if (f.fired_at[i] == now) {
            REQUIRE(timer.deadline > previous);  // not due at the previous advance
          } else if (!f.fired_at[i]) {
            REQUIRE(timer.deadline > now);  // not due yet
          }
        }
        CHECK(wheel.size() == f.timers.size() - fired);
        previous = now;
        // Mostly small steps, sometimes a jump of up to three revolutions.
        const auto step_ns = rng() % 8 == 0
                                 ? rng() % static_cast<std::uint64_t>((3 * kRevolution).count())
                                 : rng() % 700000;
        now += Duration(static_cast<Duration::rep>(step_ns));
      }
      f.advance(wheel, now);
      CHECK(wheel.size() == 0);
      for (const auto& at : f.fired_at) CHECK(at.has_value());
    }
  }

  TEST_CASE("an event loop driven by next_deadline() fires every timer exactly at its deadline") {
    // Random schedules, lazy and eager re-arms, cancels, deadlines many revolutions ahead, and
    // more timers than next_deadline() looks at in one call.
    std::mt19937_64 rng(77);
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(2000);
    const auto horizon_ns = static_cast<std::uint64_t>((30 * kRevolution).count());
    auto random_deadline = [&] {
      return kStart + Duration(static_cast<Duration::rep>(rng() % horizon_ns));
    };
    for (auto& timer : f.timers) wheel.schedule(timer, random_deadline());
    for (std::size_t i = 0; i < f.timers.size(); ++i) {
      switch (rng() % 4) {
        case 0:
          wheel.rearm(f.timers[i], f.timers[i].deadline +
                                       Duration(static_cast<Duration::rep>(rng() % horizon_ns)));
          break;
        case 1:
          wheel.rearm(f.timers[i], random_deadline());
          break;
        case 2:
          if (rng() % 4 == 0) wheel.cancel(f.timers[i]);
          break;
        default:
          break;
      }
    }
    std::vector<std::optional<TimePoint>> expected(f.timers.size());
    for (std::size_t i = 0; i < f.timers.size(); ++i) {
      if (f.timers[i].armed()) expected[i] = f.timers[i].deadline;
    }
    const std::size_t wakeups = run_loop(wheel, f);
    CHECK(f.fired_at == expected);
    // Early wake-ups are allowed, not a busy loop: a bounded number per timer and per slot.
    CHECK(wakeups <= f.timers.size() + 60 * kSlots);
  }

  TEST_CASE("next_deadline() never exceeds the earliest deadline under random operations") {
    std::mt19937_64 rng(5);
    TimerWheel wheel(kStart, 100us, 16);
    Fixture f(200);
    TimePoint now = kStart;
    for (int round = 0; round < 20000; ++round) {
      auto& timer = f.timers[rng() % f.timers.size()];
      const Duration offset(static_cast<Duration::rep>(rng() % 50000000));  // up to 50 ms
      switch (rng() % 5) {
        case 0:
          wheel.schedule(timer, now + offset);
          break;
        case 1:
        case 2:
          wheel.rearm(timer, now + offset);
          break;
        case 3:
          wheel.cancel(timer);
          break;
        default: {
          now += Duration(static_cast<Duration::rep>(rng() % 3000000));
          wheel.advance(now, [&](WheelTimer& t) { REQUIRE(t.deadline <= now); });
          for (const auto& other : f.timers) {
            if (other.armed()) REQUIRE(other.deadline > now);
          }
          break;
        }
      }
      const auto truth = earliest_armed(f.timers);
      const auto next = wheel.next_deadline();
      REQUIRE(next.has_value() == truth.has_value());
      if (truth) REQUIRE(*next <= *truth);
      std::size_t armed = 0;
      for (const auto& other : f.timers) armed += other.armed() ? 1 : 0;
      REQUIRE(wheel.size() == armed);
    }
  }
}

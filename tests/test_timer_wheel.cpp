// TimerWheel's operations one at a time on a fake clock: a timer fires exactly at its deadline
// and once; cancel, schedule and rearm move or disarm it; deadlines behind the current tick fire
// at once and those several revolutions ahead at their own revolution.

#include <doctest/doctest.h>

#include <chrono>

#include "core/clock.hpp"
#include "schedule/timer_wheel.hpp"
#include "timer_wheel_fixture.hpp"

using namespace std::chrono_literals;
using rateperf::TimePoint;
using rateperf::schedule::TimerWheel;
using rateperf::test::wheel::Fixture;
using rateperf::test::wheel::kRevolution;
using rateperf::test::wheel::kSlots;
using rateperf::test::wheel::kStart;
using rateperf::test::wheel::kTick;
using rateperf::test::wheel::run_loop;

TEST_SUITE("timer_wheel") {
  TEST_CASE("a timer fires exactly at its deadline, not one nanosecond before") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(1);
    const TimePoint deadline = kStart + 5ms + 123456ns;
    CHECK_FALSE(wheel.next_deadline().has_value());
    wheel.schedule(f.timers[0], deadline);
    CHECK(f.timers[0].armed());
    CHECK(wheel.size() == 1);
    CHECK(wheel.next_deadline() == deadline);

    CHECK(f.advance(wheel, kStart + 5ms) == 0);  // same tick, before the deadline
    CHECK(f.advance(wheel, deadline - 1ns) == 0);
    CHECK(wheel.next_deadline() == deadline);
    CHECK(f.advance(wheel, deadline) == 1);
    CHECK(f.fired_at[0] == deadline);
    CHECK(wheel.size() == 0);
    CHECK_FALSE(wheel.next_deadline().has_value());
    CHECK(f.advance(wheel, deadline + 1s) == 0);
  }

  TEST_CASE("a late advance fires everything that is due, once") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(3);
    wheel.schedule(f.timers[0], kStart + 1ms);
    wheel.schedule(f.timers[1], kStart + 30ms);
    wheel.schedule(f.timers[2], kStart + 31ms);
    CHECK(f.advance(wheel, kStart + 30ms) == 2);
    CHECK(f.fired_at[0] == kStart + 30ms);
    CHECK(f.fired_at[1] == kStart + 30ms);
    CHECK_FALSE(f.fired_at[2].has_value());
    CHECK(wheel.size() == 1);
    CHECK(wheel.next_deadline() == kStart + 31ms);
  }

  TEST_CASE("deadlines before the wheel's start or behind its current tick fire at once") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(2);
    wheel.schedule(f.timers[0], kStart - 5ms);
    CHECK(wheel.next_deadline() == kStart - 5ms);
    CHECK(f.advance(wheel, kStart) == 1);

    CHECK(f.advance(wheel, kStart + 20ms) == 0);
    wheel.schedule(f.timers[1], kStart + 3ms);  // overdue when armed
    CHECK(wheel.next_deadline() == kStart + 3ms);
    CHECK(f.advance(wheel, kStart + 20ms) == 1);
  }

  TEST_CASE("cancel disarms, and cancelling twice is harmless") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(2);
    wheel.schedule(f.timers[0], kStart + 2ms);
    wheel.schedule(f.timers[1], kStart + 4ms);
    wheel.cancel(f.timers[0]);
    wheel.cancel(f.timers[0]);
    CHECK_FALSE(f.timers[0].armed());
    CHECK(wheel.size() == 1);
    CHECK(wheel.next_deadline() == kStart + 4ms);
    CHECK(f.advance(wheel, kStart + 10ms) == 1);
    CHECK_FALSE(f.fired_at[0].has_value());
    CHECK(f.fired_at[1] == kStart + 10ms);
    wheel.cancel(f.timers[1]);  // no longer armed: a no-op
    CHECK(wheel.size() == 0);
  }

  TEST_CASE("scheduling an armed timer again moves it") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(1);
    wheel.schedule(f.timers[0], kStart + 2ms);
    wheel.schedule(f.timers[0], kStart + 9ms);
    CHECK(wheel.size() == 1);
    CHECK(f.advance(wheel, kStart + 8ms) == 0);
    CHECK(f.advance(wheel, kStart + 9ms) == 1);
  }

  TEST_CASE("rearm to a later deadline: the timer fires at the new deadline only") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(1);
    wheel.schedule(f.timers[0], kStart + 5ms);
    wheel.rearm(f.timers[0], kStart + 50ms + 7ns);
    CHECK(wheel.size() == 1);
    CHECK(f.timers[0].deadline == kStart + 50ms + 7ns);
    CHECK(f.advance(wheel, kStart + 5ms) == 0);
    CHECK(f.advance(wheel, kStart + 50ms + 6ns) == 0);
    CHECK(f.advance(wheel, kStart + 50ms + 7ns) == 1);
  }

  TEST_CASE("a watchdog pushed back on every event fires once, a timeout after the last") {
    // The engine's use: a 20 ms inactivity watchdog re-armed every 3 ms for 200 ms, longer than
    // three revolutions of this wheel, then left alone.
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(1);
    TimePoint now = kStart;
    wheel.schedule(f.timers[0], now + 20ms);
    while (now < kStart + 200ms) {
      now += 3ms;
      CHECK(f.advance(wheel, now) == 0);
      wheel.rearm(f.timers[0], now + 20ms);
      const auto next = wheel.next_deadline();
      REQUIRE(next.has_value());
      CHECK(*next <= now + 20ms);
    }
    const TimePoint last_event = now;
    run_loop(wheel, f);
    CHECK(f.fired_at[0] == last_event + 20ms);
  }

  TEST_CASE("rearm to an earlier deadline moves the timer") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(1);
    wheel.schedule(f.timers[0], kStart + 50ms);
    wheel.rearm(f.timers[0], kStart + 5ms);
    CHECK(wheel.next_deadline() == kStart + 5ms);
    CHECK(f.advance(wheel, kStart + 5ms) == 1);
    CHECK(f.advance(wheel, kStart + 60ms) == 0);  // not again at the old deadline
    CHECK(wheel.size() == 0);
  }

  TEST_CASE("rearm of an unarmed timer schedules it") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(1);
    wheel.rearm(f.timers[0], kStart + 3ms);
    CHECK(wheel.size() == 1);
    CHECK(f.advance(wheel, kStart + 3ms) == 1);
  }

  TEST_CASE("deadlines several revolutions ahead fire on time, not at an earlier revolution") {
    TimerWheel wheel(kStart, kTick, kSlots);
    Fixture f(4);
    const TimePoint far = kStart + 10 * kRevolution + 3ms + 500us;
    wheel.schedule(f.timers[0], far);
    wheel.schedule(f.timers[1], far + kRevolution);     // same slot, one revolution later
    wheel.schedule(f.timers[2], kStart + 3ms + 500us);  // same slot, this revolution
    wheel.schedule(f.timers[3], kStart + 100 * kRevolution);
    CHECK(wheel.next_deadline() == kStart + 3ms + 500us);

    // Step through tick by tick: every revolution passes the shared slot.
    TimePoint now = kStart;
    while (now < far + 2 * kRevolution) {
      now += kTick / 2;
      f.advance(wheel, now);
    }
    CHECK(f.fired_at[2] == kStart + 3ms + 500us);
    CHECK(f.fired_at[0] == far);
    CHECK(f.fired_at[1] == far + kRevolution);
    CHECK_FALSE(f.fired_at[3].has_value());
    CHECK(wheel.next_deadline() == kStart + 100 * kRevolution);

    // One jump over many revolutions.
    CHECK(f.advance(wheel, kStart + 100 * kRevolution - 1ns) == 0);
    CHECK(f.advance(wheel, kStart + 1000 * kRevolution) == 1);
    CHECK(wheel.size() == 0);
  }
}

// The pacing policy of --timing, on a fake clock: what each mode does about the next deadline,
// and what hybrid and auto learn from the wake-ups' lateness.

#include <chrono>
#include <optional>

#include <doctest/doctest.h>

#include "engine/pacing.hpp"

namespace {

using namespace std::chrono_literals;
using rateperf::Duration;
using rateperf::TimePoint;
using rateperf::engine::LatenessTracker;
using rateperf::engine::Pacer;
using rateperf::engine::Wait;
using rateperf::options::Timing;

const TimePoint kNow = TimePoint{} + 1000s;

// A pacer of `mode` that has seen 128 wake-ups (its margins are recomputed every 32), late by
// 40 us but for the last two, late by 300 us.
Pacer learned(Timing mode) {
  Pacer pacer(mode);
  for (int i = 0; i < 128; ++i) pacer.woke(i < 126 ? 40us : 300us);
  return pacer;
}

bool polls(const Wait& w) { return !w.sleep; }

}  // namespace

TEST_SUITE("pacing") {
  TEST_CASE("the lateness tracker answers quantiles of its last 256 samples") {
    LatenessTracker tracker;
    CHECK(tracker.quantile(0.5) == LatenessTracker::kAssumed);
    for (int i = 1; i <= 100; ++i) tracker.record(std::chrono::microseconds(i));
    CHECK(tracker.samples() == 100);
    CHECK(tracker.quantile(0.5) == 50us);
    CHECK(tracker.quantile(0.99) == 99us);
    CHECK(tracker.quantile(1.0) == 100us);
    // Older samples leave the window: 256 of 2 ms replace them all.
    for (int i = 0; i < 256; ++i) tracker.record(2ms);
    CHECK(tracker.quantile(0.01) == 2ms);
    // A negative lateness (a clock read before the timer's time) counts as none.
    tracker.record(-5us);
    CHECK(tracker.quantile(0.001) == Duration::zero());
  }

  TEST_CASE("sleep: sleeps until each deadline, polls only for one already due") {
    Pacer pacer(Timing::sleep);
    const Wait far = pacer.plan(kNow, kNow + 3ms);
    CHECK(far.sleep);
    CHECK(far.wake_at == kNow + 3ms);
    // Even a deadline 1 us away is slept for: the mode never polls ahead of time.
    CHECK(pacer.plan(kNow, kNow + 1us).wake_at == kNow + 1us);
    CHECK(polls(pacer.plan(kNow, kNow)));
    // Nothing scheduled: sleep until a socket event, no wake-up timer.
    const Wait idle = pacer.plan(kNow, std::nullopt);
    CHECK(idle.sleep);
    CHECK_FALSE(idle.wake_at.has_value());
    CHECK(pacer.margin() == Duration::zero());
  }

  TEST_CASE("spin: never sleeps") {
    Pacer pacer(Timing::spin);
    CHECK(polls(pacer.plan(kNow, kNow + 1s)));
    CHECK(polls(pacer.plan(kNow, std::nullopt)));
  }

  TEST_CASE("hybrid: sleeps until the p99 lateness plus 10 us before a deadline, then polls") {
    const Pacer pacer = learned(Timing::hybrid);
    // p99 of the samples is 300 us: the margin is 310 us.
    CHECK(pacer.margin() == 310us);
    const Wait far = pacer.plan(kNow, kNow + 5ms);
    CHECK(far.sleep);
    CHECK(far.wake_at == kNow + 5ms - 310us);
    // Within the margin it polls: a sleep would come back after the deadline.
    CHECK(polls(pacer.plan(kNow, kNow + 300us)));
    CHECK(polls(pacer.plan(kNow, kNow + 310us)));
    CHECK(pacer.plan(kNow, kNow + 311us).sleep);
  }

  TEST_CASE("auto: polls for deadlines nearer than the median lateness, sleeps to it") {
    const Pacer pacer = learned(Timing::automatic);
    CHECK(pacer.margin() == 40us);
    CHECK(pacer.poll_below() == 40us);
    CHECK(polls(pacer.plan(kNow, kNow + 30us)));
    CHECK(polls(pacer.plan(kNow, kNow + 40us)));
    CHECK(pacer.plan(kNow, kNow + 41us).sleep);
    const Wait far = pacer.plan(kNow, kNow + 3ms);
    CHECK(far.sleep);
    CHECK(far.wake_at == kNow + 3ms - 40us);
    // At 40,000 conn/s (25 us apart) every turn polls: no sleep and no timer per arrival.
    for (int i = 0; i < 100; ++i) CHECK(polls(pacer.plan(kNow, kNow + 25us)));
  }

  TEST_CASE("auto and hybrid assume 100 us before they measure, and keep their margins bounded") {
    const Pacer fresh(Timing::automatic);
    CHECK(fresh.margin() == 100us);
    CHECK(fresh.poll_below() == 100us);
    // A machine that stalls for a second does not make the loop poll for a second.
    Pacer stalled(Timing::hybrid);
    for (int i = 0; i < 64; ++i) stalled.woke(1s);
    CHECK(stalled.margin() == 2ms);
    // Nor does a perfect one ask for a wake-up with no margin at all.
    Pacer perfect(Timing::automatic);
    for (int i = 0; i < 64; ++i) perfect.woke(Duration::zero());
    CHECK(perfect.margin() == 5us);
  }

  TEST_CASE("the margins follow the lateness as it changes") {
    Pacer pacer(Timing::hybrid);
    for (int i = 0; i < 256; ++i) pacer.woke(50us);
    CHECK(pacer.margin() == 60us);
    for (int i = 0; i < 256; ++i) pacer.woke(500us);
    CHECK(pacer.margin() == 510us);
  }
}

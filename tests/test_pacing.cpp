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
  for (int i = 0; i < 128; ++i) pacer.woke(i < 126 ? 40us : 300us, kNow);
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

  TEST_CASE("auto: polls for deadlines nearer than the median lateness; sleeps to it before near ones, to far ones themselves") {
    const Pacer pacer = learned(Timing::automatic);
    CHECK(pacer.margin() == 40us);
    CHECK(pacer.poll_below() == 40us);
    CHECK(polls(pacer.plan(kNow, kNow + 30us)));
    CHECK(polls(pacer.plan(kNow, kNow + 40us)));
    CHECK(pacer.plan(kNow, kNow + 41us).sleep);
    // Within 8 median latenesses (320 us) the lateness is a large part of the gap: it sleeps
    // to the margin before the deadline and polls the rest.
    CHECK(pacer.plan(kNow, kNow + 41us).wake_at == kNow + 41us - 40us);
    CHECK(pacer.plan(kNow, kNow + 320us).wake_at == kNow + 320us - 40us);
    // Farther, it sleeps to the deadline itself: no polling before it.
    CHECK(pacer.plan(kNow, kNow + 321us).wake_at == kNow + 321us);
    const Wait far = pacer.plan(kNow, kNow + 3ms);
    CHECK(far.sleep);
    CHECK(far.wake_at == kNow + 3ms);
    // At 40,000 conn/s (25 us apart) every turn polls: no sleep and no timer per arrival.
    for (int i = 0; i < 100; ++i) CHECK(polls(pacer.plan(kNow, kNow + 25us)));
  }

  TEST_CASE("auto polls while the sockets are busy, whatever the deadline; the others ignore it") {
    const Pacer automatic = learned(Timing::automatic);
    CHECK(automatic.plan(kNow, kNow + 3ms).sleep);
    CHECK(polls(automatic.plan(kNow, kNow + 3ms, true)));
    CHECK(polls(automatic.plan(kNow, std::nullopt, true)));
    CHECK(learned(Timing::hybrid).plan(kNow, kNow + 3ms, true).sleep);
    CHECK(Pacer(Timing::sleep).plan(kNow, kNow + 3ms, true).sleep);
  }

  TEST_CASE("auto and hybrid take a fresh sample after 100 ms without one, however near") {
    // One slow early wake-up (a busy start) must not make auto poll for the rest of the run.
    Pacer pacer(Timing::automatic);
    pacer.woke(326us, kNow);
    CHECK(pacer.poll_below() == 326us);
    // 200 us away: polled for while the sample is fresh...
    CHECK(polls(pacer.plan(kNow + 50ms, kNow + 50ms + 200us)));
    // ...slept for once it is stale, to the deadline itself (a timer set in the past measures
    // nothing), which brings a new sample.
    const Wait refresh = pacer.plan(kNow + 101ms, kNow + 101ms + 200us);
    CHECK(refresh.sleep);
    CHECK(refresh.wake_at == kNow + 101ms + 200us);
    // Early samples each update the margins: one more, and the median is the faster one.
    pacer.woke(20us, kNow + 101ms + 300us);
    CHECK(pacer.poll_below() == 20us);
    CHECK(pacer.plan(kNow + 102ms, kNow + 102ms + 200us).sleep);
    CHECK(pacer.plan(kNow + 102ms, kNow + 102ms + 200us).wake_at == kNow + 102ms + 200us);
    // Before any sample, a deadline is slept for, however near: the first sample comes at once.
    CHECK(Pacer(Timing::hybrid).plan(kNow, kNow + 1us).sleep);
    // Sleep mode needs no sample, and spin never sleeps.
    CHECK(polls(Pacer(Timing::spin).plan(kNow, kNow + 1ms)));
  }

  TEST_CASE("auto and hybrid assume 100 us before they measure, and keep their margins bounded") {
    const Pacer fresh(Timing::automatic);
    CHECK(fresh.margin() == 100us);
    CHECK(fresh.poll_below() == 100us);
    // A machine that stalls for a second does not make the loop poll for a second.
    Pacer stalled(Timing::hybrid);
    for (int i = 0; i < 64; ++i) stalled.woke(1s, kNow);
    CHECK(stalled.margin() == 2ms);
    // Nor does a perfect one ask for a wake-up with no margin at all.
    Pacer perfect(Timing::hybrid);
    for (int i = 0; i < 64; ++i) perfect.woke(Duration::zero(), kNow);
    CHECK(perfect.margin() == 10us);
    Pacer automatic(Timing::automatic);
    for (int i = 0; i < 64; ++i) automatic.woke(Duration::zero(), kNow);
    CHECK(automatic.margin() == 5us);
  }

  TEST_CASE("the margins follow the lateness as it changes") {
    Pacer pacer(Timing::hybrid);
    for (int i = 0; i < 256; ++i) pacer.woke(50us, kNow);
    CHECK(pacer.margin() == 60us);
    for (int i = 0; i < 256; ++i) pacer.woke(500us, kNow);
    CHECK(pacer.margin() == 510us);
  }
}

// The client's own lag, measured with a fake clock: a schedule that wakes late must show
// exactly how late each arrival was, the burst it caused, and the warning it deserves.

#include <doctest/doctest.h>

#include <vector>

#include "options/config.hpp"
#include "schedule/arrival.hpp"
#include "schedule/work_source.hpp"
#include "stats/collector.hpp"
#include "stats/summary.hpp"

namespace {

using namespace std::chrono_literals;
using rateperf::Duration;
using rateperf::TimePoint;
using rateperf::options::Period;
using rateperf::options::PeriodKind;
using rateperf::schedule::OpenLoop;
using rateperf::schedule::take_due;
using rateperf::schedule::Timeline;
using rateperf::stats::Collector;

Period every(Duration gap) {
  Period period;
  period.kind = PeriodKind::deterministic;
  period.mean = gap;
  return period;
}

// Wakes at each of `wakes` and issues what is due, as the worker does; every arrival starts at
// the wake-up's time. Returns the collector's summary.
rateperf::stats::Summary run(Timeline& timeline, const std::vector<TimePoint>& wakes,
                             double offered_rate_per_s, std::vector<std::uint64_t>* bursts) {
  Collector collector;
  OpenLoop source(timeline);
  for (const TimePoint now : wakes) {
    const std::uint64_t burst =
        take_due(source, now, [&](TimePoint intended) { collector.arrival(intended, now); });
    collector.burst(burst);
    if (bursts) bursts->push_back(burst);
  }
  rateperf::stats::RunInfo info;
  info.offered_rate_per_s = offered_rate_per_s;
  return rateperf::stats::summarize(collector, info);
}

}  // namespace

TEST_SUITE("lag") {
  TEST_CASE("a punctual client has no lag and bursts of one") {
    const TimePoint start{};
    Timeline timeline(every(1ms), 1, 100, start);
    std::vector<TimePoint> wakes;
    for (int i = 0; i < 100; ++i) wakes.push_back(start + i * 1ms);
    std::vector<std::uint64_t> bursts;
    const auto summary = run(timeline, wakes, 1000, &bursts);
    CHECK(summary.arrivals == 100);
    CHECK(summary.max_burst == 1);
    CHECK(summary.lag_max_ms == 0);
    CHECK(summary.lag_p99_ms == 0);
    CHECK(summary.lag_late_arrivals == 0);
    CHECK_FALSE(summary.client_limited);
  }

  TEST_CASE("a late wake-up takes every due arrival, each with its own lag") {
    // 1000/s: arrivals due at 0, 1, 2, ... ms. The client wakes at 0, then not until 10.5 ms.
    const TimePoint start{};
    Timeline timeline(every(1ms), 1, 20, start);
    std::vector<std::uint64_t> bursts;
    const auto summary =
        run(timeline, {start, start + 10500us, start + 11ms, start + 19ms}, 1000, &bursts);
    // The second wake-up takes the arrivals due at 1..10 ms, late by 9.5 .. 0.5 ms.
    REQUIRE(bursts.size() == 4);
    CHECK(bursts[0] == 1);
    CHECK(bursts[1] == 10);
    CHECK(bursts[2] == 1);
    CHECK(bursts[3] == 8);  // 12..19 ms, late by 7 .. 0 ms
    CHECK(summary.max_burst == 10);
    CHECK(summary.arrivals == 20);
    // Lags in ms: 0; 9.5 8.5 ... 0.5; 0; 7 6 ... 0. Above 1 ms: 9 + 6.
    CHECK(summary.lag_late_arrivals == 15);
    CHECK(summary.lag_max_ms == doctest::Approx(9.5));
    CHECK(summary.lag_p99_ms == doctest::Approx(9.5).epsilon(0.01));
    // The median of the 20 lags (sorted: 0 0 0 0.5 1 1.5 2 2.5 3 3.5 4 4.5 5 5.5 6 6.5 7 7.5 8.5
    // 9.5) is the 10th: 3.5 ms, read from the histogram within 1 %.
    CHECK(summary.lag_p50_ms == doctest::Approx(3.5).epsilon(0.01));
    CHECK(summary.client_limited);
    CHECK(summary.lag_limit_ms == doctest::Approx(1.0));
  }

  TEST_CASE("the schedule does not drift after a late wake-up") {
    const TimePoint start{};
    OpenLoop source(Timeline(every(1ms), 1, 5, start));
    std::vector<TimePoint> intended;
    take_due(source, start + 3500us, [&](TimePoint t) { intended.push_back(t); });
    take_due(source, start + 4ms, [&](TimePoint t) { intended.push_back(t); });
    CHECK(intended ==
          std::vector<TimePoint>{start, start + 1ms, start + 2ms, start + 3ms, start + 4ms});
  }

  TEST_CASE("at a slow rate the lag limit is a tenth of the gap") {
    // 2/s: gaps of 500 ms, so 20 ms of lag is within the limit of 50 ms.
    const TimePoint start{};
    Timeline timeline(every(500ms), 1, 4, start);
    const auto summary =
        run(timeline, {start + 20ms, start + 520ms, start + 1020ms, start + 1520ms}, 2, nullptr);
    CHECK(summary.lag_limit_ms == doctest::Approx(50.0));
    CHECK(summary.lag_p99_ms == doctest::Approx(20.0).epsilon(0.01));
    CHECK(summary.lag_late_arrivals == 4);
    CHECK_FALSE(summary.client_limited);
  }
}

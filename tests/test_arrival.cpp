#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "options/config.hpp"
#include "schedule/arrival.hpp"
#include "schedule/work_source.hpp"

using namespace std::chrono_literals;
using rateperf::Duration;
using rateperf::TimePoint;
using rateperf::options::Period;
using rateperf::options::PeriodKind;
using rateperf::options::PeriodStep;
using rateperf::schedule::ArrivalProcess;
using rateperf::schedule::Timeline;

namespace {

Period deterministic(Duration mean) {
  Period period;
  period.kind = PeriodKind::deterministic;
  period.mean = mean;
  return period;
}

Period exponential(Duration mean) {
  Period period;
  period.kind = PeriodKind::exponential;
  period.mean = mean;
  return period;
}

Period uniform(Duration low, Duration high) {
  Period period;
  period.kind = PeriodKind::uniform;
  period.low = low;
  period.high = high;
  return period;
}

// An arbitrary but fixed origin, far from zero, as steady_clock readings are.
const TimePoint kStart = TimePoint{} + 12345s;

struct Moments {
  double mean_ns;
  double variance_ns2;
};

Moments moments(const std::vector<Duration>& gaps) {
  double sum = 0;
  for (Duration gap : gaps) sum += static_cast<double>(gap.count());
  const double mean = sum / static_cast<double>(gaps.size());
  double squares = 0;
  for (Duration gap : gaps) {
    const double d = static_cast<double>(gap.count()) - mean;
    squares += d * d;
  }
  return {mean, squares / static_cast<double>(gaps.size() - 1)};
}

std::vector<Duration> draw(ArrivalProcess& process, std::size_t n) {
  std::vector<Duration> gaps;
  gaps.reserve(n);
  Duration since_start{};
  for (std::size_t i = 0; i < n; ++i) {
    gaps.push_back(process.next_gap(since_start));
    since_start += gaps.back();
  }
  return gaps;
}

}  // namespace

TEST_SUITE("arrival") {
  TEST_CASE("a deterministic rate gives exact gaps and no drift over a long run") {
    // --rate 300: the options turn it into a 3333333 ns period.
    const Duration gap = rateperf::from_s(1.0 / 300);
    REQUIRE(gap == 3333333ns);
    Timeline timeline(deterministic(gap), 1, 1000, kStart);
    CHECK(timeline.total() == 1000);
    CHECK_FALSE(timeline.done());
    CHECK(timeline.next_due() == kStart);

    TimePoint previous = timeline.take();
    CHECK(previous == kStart);
    while (!timeline.done()) {
      const TimePoint t = timeline.take();
      CHECK(t - previous == gap);
      previous = t;
    }
    CHECK(timeline.issued() == 1000);
    CHECK(previous == kStart + 999 * gap);
  }

  TEST_CASE("taking arrivals late or in bursts does not shift the timeline") {
    // The timeline has no notion of now: whether the caller takes arrivals one by one on time or
    // a hundred at once after a stall, each keeps its intended time.
    const Duration gap = 1ms;
    Timeline timeline(deterministic(gap), 1, 300, kStart);
    std::vector<TimePoint> intended;
    for (int burst : {1, 100, 7, 1, 150, 41}) {
      for (int i = 0; i < burst; ++i) intended.push_back(timeline.take());
    }
    REQUIRE(timeline.done());
    REQUIRE(intended.size() == 300);
    for (std::size_t i = 0; i < intended.size(); ++i) {
      CHECK(intended[i] == kStart + static_cast<std::int64_t>(i) * gap);
    }
  }

  TEST_CASE("Poisson arrivals have exponential gaps: mean and variance match") {
    const Duration mean = 1ms;
    ArrivalProcess process(exponential(mean), 42);
    const auto gaps = draw(process, 100000);
    const Moments m = moments(gaps);
    const double expected = static_cast<double>(mean.count());
    // With 100000 gaps the standard error of the mean is 0.3 % and that of the variance about
    // 0.9 %; the bounds are over three standard errors.
    CHECK(std::abs(m.mean_ns / expected - 1) < 0.01);
    CHECK(std::abs(m.variance_ns2 / (expected * expected) - 1) < 0.03);
    // An exponential's median is mean * ln 2: this tells it from other shapes with the same
    // mean and variance.
    std::size_t below_median = 0;
    for (Duration gap : gaps) {
      if (static_cast<double>(gap.count()) < expected * std::log(2.0)) ++below_median;
    }
    CHECK(std::abs(static_cast<double>(below_median) / 100000.0 - 0.5) < 0.01);
    for (Duration gap : gaps) REQUIRE(gap >= Duration::zero());
  }

  TEST_CASE("the same seed gives the same gaps, another seed different ones") {
    ArrivalProcess a(exponential(2ms), 7);
    ArrivalProcess b(exponential(2ms), 7);
    ArrivalProcess c(exponential(2ms), 8);
    const auto gaps_a = draw(a, 1000);
    const auto gaps_b = draw(b, 1000);
    const auto gaps_c = draw(c, 1000);
    CHECK(gaps_a == gaps_b);
    CHECK(gaps_a != gaps_c);

    ArrivalProcess u1(uniform(1ms, 3ms), 99);
    ArrivalProcess u2(uniform(1ms, 3ms), 99);
    CHECK(draw(u1, 1000) == draw(u2, 1000));
  }

  TEST_CASE("a seeded Poisson timeline is reproducible end to end") {
    Timeline first(exponential(3ms), 5, 500, kStart);
    Timeline second(exponential(3ms), 5, 500, kStart);
    TimePoint last_first{};
    TimePoint last_second{};
    while (!first.done()) last_first = first.take();
    while (!second.done()) last_second = second.take();
    CHECK(last_first == last_second);
    // 499 gaps of 3 ms on average: the run lasts about 1.5 s.
    CHECK(rateperf::to_s(last_first - kStart) == doctest::Approx(1.497).epsilon(0.15));
  }

  TEST_CASE("uniform gaps stay in [low, high) with the midpoint as mean") {
    const Duration low = 2ms;
    const Duration high = 6ms;
    ArrivalProcess process(uniform(low, high), 3);
    const auto gaps = draw(process, 100000);
    Duration smallest = gaps.front();
    Duration largest = gaps.front();
    for (Duration gap : gaps) {
      smallest = std::min(smallest, gap);
      largest = std::max(largest, gap);
    }
    CHECK(smallest >= low);
    CHECK(largest < high);
    // The whole interval is used, not a corner of it.
    CHECK(smallest < low + 10us);
    CHECK(largest > high - 10us);
    const Moments m = moments(gaps);
    CHECK(m.mean_ns == doctest::Approx(4e6).epsilon(0.01));
    // A uniform's variance is (high - low)^2 / 12.
    CHECK(m.variance_ns2 == doctest::Approx(16e12 / 12).epsilon(0.03));
  }

  TEST_CASE("a uniform period with low == high is deterministic") {
    ArrivalProcess process(uniform(5ms, 5ms), 1);
    for (Duration gap : draw(process, 100)) CHECK(gap == 5ms);
  }

  TEST_CASE("variable steps switch at their boundaries and cycle") {
    Period period;
    period.kind = PeriodKind::variable;
    period.steps = {PeriodStep{10ms, 100ms}, PeriodStep{25ms, 100ms}, PeriodStep{1ms, 5ms}};
    ArrivalProcess process(period, 1);
    // The step is chosen by schedule time modulo the 205 ms cycle.
    CHECK(process.next_gap(0ms) == 10ms);
    CHECK(process.next_gap(99ms) == 10ms);
    CHECK(process.next_gap(99999999ns) == 10ms);
    CHECK(process.next_gap(100ms) == 25ms);
    CHECK(process.next_gap(199ms) == 25ms);
    CHECK(process.next_gap(200ms) == 1ms);
    CHECK(process.next_gap(204ms) == 1ms);
    CHECK(process.next_gap(205ms) == 10ms);
    CHECK(process.next_gap(305ms) == 25ms);
    CHECK(process.next_gap(205ms * 7 + 202ms) == 1ms);

    // Through a timeline: 10 arrivals in the first 100 ms, then 4 (at 100, 125, 150, 175), one
    // at 200 ms (its gap is 1 ms), then the cycle restarts at 201..204 and 205 ms.
    Timeline timeline(period, 1, 25, kStart);
    std::vector<Duration> offsets;
    while (!timeline.done()) offsets.push_back(timeline.take() - kStart);
    const std::vector<Duration> expected = {
        0ms,   10ms,  20ms,  30ms,  40ms,  50ms,  60ms,  70ms,  80ms,  90ms,  100ms, 125ms, 150ms,
        175ms, 200ms, 201ms, 202ms, 203ms, 204ms, 205ms, 215ms, 225ms, 235ms, 245ms, 255ms};
    CHECK(offsets == expected);
  }

  TEST_CASE("stop() ends the schedule and keeps the count") {
    Timeline timeline(deterministic(1ms), 1, 100, kStart);
    for (int i = 0; i < 10; ++i) timeline.take();
    CHECK_FALSE(timeline.done());
    timeline.stop();
    CHECK(timeline.done());
    CHECK(timeline.issued() == 10);
    CHECK(timeline.total() == 10);
  }

  TEST_CASE("request mode: --requests, or the requests intended within --duration") {
    rateperf::options::Config config;
    config.request_mode = true;
    config.period = deterministic(std::chrono::nanoseconds(333333));  // 3000/s, rounded
    config.period.rate_per_s = 3000;
    config.duration = 1s;
    // A fixed gap: duration x rate, not the 3001 a sum of rounded gaps would let in.
    auto source = rateperf::schedule::make_work_source(config, kStart, 0, 1);
    std::uint64_t taken = 0;
    while (!source->done()) {
      source->take();
      ++taken;
    }
    CHECK(taken == 3000);
    config.requests = 7;
    source = rateperf::schedule::make_work_source(config, kStart, 0, 1);
    taken = 0;
    while (!source->done()) {
      source->take();
      ++taken;
    }
    CHECK(taken == 7);
    // Poisson: every request intended before the end, none at or after it.
    config.requests = 0;
    config.period = exponential(1ms);
    config.period.rate_per_s = 1000;
    source = rateperf::schedule::make_work_source(config, kStart, 0, 1);
    TimePoint last = kStart;
    taken = 0;
    while (!source->done()) {
      last = source->take();
      ++taken;
    }
    CHECK(last < kStart + 1s);
    CHECK(last > kStart + 990ms);
    CHECK(taken > 900);
    CHECK(taken < 1100);
  }

  TEST_CASE("an empty schedule is done at once") {
    Timeline timeline(deterministic(1ms), 1, 0, kStart);
    CHECK(timeline.done());
    CHECK(timeline.issued() == 0);
  }

  TEST_CASE("sequential mode: the next arrival is due when the previous one finished") {
    // --rate 0 is the closed loop of one slot.
    const Period period = deterministic(Duration::zero());
    REQUIRE(period.sequential());
    rateperf::options::Config config;
    config.period = period;
    config.num_conns = 3;
    const auto source = rateperf::schedule::make_work_source(config, kStart, 0, 1);
    REQUIRE(source->next_due() == kStart);
    CHECK(source->take() == kStart);
    // Nothing is due until the engine says when the previous connection ended.
    CHECK_FALSE(source->next_due().has_value());
    source->finished(kStart + 17ms);
    CHECK(source->next_due() == kStart + 17ms);
    CHECK(source->take() == kStart + 17ms);
    source->finished(kStart + 40ms);
    CHECK(source->take() == kStart + 40ms);
    CHECK(source->done());
    CHECK(source->issued() == 3);
    CHECK(source->burst_limit() == 1);
  }

  TEST_CASE("n shares of a timeline are exactly the one schedule, for d, u, e and v") {
    Period variable_period;
    variable_period.kind = PeriodKind::variable;
    variable_period.steps = {{10ms, 100ms}, {1ms, 20ms}, {3ms, 50ms}};
    Period uniform_period;
    uniform_period.kind = PeriodKind::uniform;
    uniform_period.low = 1ms;
    uniform_period.high = 9ms;
    for (const Period& period :
         {deterministic(3ms), uniform_period, exponential(2ms), variable_period}) {
      CAPTURE(static_cast<int>(period.kind));
      constexpr std::uint64_t total = 1001;
      Timeline whole(period, 7, total, kStart);
      std::vector<TimePoint> expected;
      while (!whole.done()) expected.push_back(whole.take());
      for (const std::uint64_t shares : {1u, 2u, 3u, 7u}) {
        CAPTURE(shares);
        std::vector<TimePoint> merged;
        for (std::uint64_t share = 0; share < shares; ++share) {
          Timeline part(period, 7, total, kStart, share, shares);
          CHECK(part.total() == (total - share + shares - 1) / shares);
          // Share k takes the arrivals k, k + n, k + 2n... of the whole, at their times.
          for (std::uint64_t i = share; !part.done(); i += shares) {
            const TimePoint t = part.take();
            CHECK(t == expected[i]);
            merged.push_back(t);
          }
        }
        std::sort(merged.begin(), merged.end());
        CHECK(merged == expected);
      }
    }
  }

  TEST_CASE("a closed loop of C slots: C due at the start, then one per finished arrival") {
    rateperf::schedule::ClosedLoop loop(3, 5, kStart);
    CHECK(loop.burst_limit() == 3);
    for (int i = 0; i < 3; ++i) {
      REQUIRE(loop.next_due() == kStart);
      CHECK(loop.take() == kStart);
    }
    CHECK_FALSE(loop.next_due().has_value());
    CHECK(loop.finished(kStart + 5ms));
    CHECK(loop.finished(kStart + 2ms));
    // Slots come back in the order their arrivals finished; each next one is due then.
    CHECK(loop.take() == kStart + 5ms);
    CHECK(loop.take() == kStart + 2ms);
    CHECK(loop.done());
    CHECK(loop.issued() == 5);
    CHECK_FALSE(loop.finished(kStart + 9ms));  // done: no slot to free
    CHECK_FALSE(loop.next_due().has_value());
  }

  TEST_CASE("a closed loop's think time delays a slot's next arrival; its end retires slots") {
    rateperf::schedule::ClosedLoop loop(2, UINT64_MAX, kStart, 100ms, kStart + 1s);
    CHECK(loop.take() == kStart);
    CHECK(loop.take() == kStart);
    CHECK(loop.finished(kStart + 50ms));
    CHECK(loop.next_due() == kStart + 150ms);  // 100 ms of think after it ended
    CHECK(loop.take() == kStart + 150ms);
    // Ending 950 ms in, a slot would start at the end: it retires; the other one still runs.
    CHECK_FALSE(loop.finished(kStart + 900ms));
    CHECK_FALSE(loop.done());
    CHECK(loop.finished(kStart + 850ms));
    CHECK(loop.take() == kStart + 950ms);
    CHECK_FALSE(loop.finished(kStart + 960ms));
    CHECK(loop.done());
    CHECK(loop.issued() == 4);
  }

  TEST_CASE("--concurrency splits its slots over the shares, and the total in proportion") {
    rateperf::options::Config config;
    config.concurrency = 5;
    config.num_conns = 51;
    // Two shares (--threads 2): 3 and 2 slots, 30 and 21 connections (51 x 3/5, rounded down,
    // and the rest).
    std::uint64_t total = 0;
    for (std::uint64_t share = 0; share < 2; ++share) {
      auto source = rateperf::schedule::make_work_source(config, kStart, share, 2);
      CHECK(source->burst_limit() == (share == 0 ? 3 : 2));
      std::uint64_t taken = 0;
      while (source->next_due()) {
        source->take();
        ++taken;
      }
      CHECK(taken == (share == 0 ? 3 : 2));  // every slot busy at the start
      while (!source->done()) {
        REQUIRE(source->finished(kStart + 1ms));
        source->take();
        ++taken;
      }
      CHECK(taken == (share == 0 ? 30 : 21));
      total += taken;
    }
    CHECK(total == 51);
    // More shares than slots (--concurrency 2 over 3 shards): the third has no slot and nothing
    // to issue.
    config.concurrency = 2;
    config.num_conns = 10;
    CHECK(rateperf::schedule::make_work_source(config, kStart, 2, 3)->done());
    CHECK(rateperf::schedule::make_work_source(config, kStart, 0, 3)->burst_limit() == 1);
    // Requests (--requests) are the total in request mode.
    config.request_mode = true;
    config.requests = 4;
    auto requests = rateperf::schedule::make_work_source(config, kStart, 0, 1);
    for (int i = 0; i < 2; ++i) requests->take();
    for (int i = 0; i < 2; ++i) {
      REQUIRE(requests->finished(kStart + 1ms));
      requests->take();
    }
    CHECK(requests->done());
  }
}

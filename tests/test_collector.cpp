// Collector::merge: a run's events counted by one collector, or split among several and merged,
// give the same figures. The threads and machines of later runs depend on it.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "options/config.hpp"
#include "report/json.hpp"
#include "stats/collector.hpp"
#include "stats/summary.hpp"

namespace {

using namespace rateperf;
using namespace std::chrono_literals;
using stats::Collector;

const TimePoint kStart{std::chrono::seconds(1000)};

// One lifecycle event of a made-up run, at its time, for one connection.
struct Event {
  TimePoint at;
  std::size_t connection;
  std::function<void(Collector&)> apply;
};

// A made-up run of `n` connections 7 ms apart: lags, connect and reply times drawn from a
// seeded generator; every fifth connection fails in one of the ways a run can end.
std::vector<Event> made_up_run(std::size_t n) {
  std::mt19937_64 rng(42);
  const auto ms = [&](int low, int high) {
    return std::chrono::microseconds(std::uniform_int_distribution<int>(low * 1000, high * 1000)(rng));
  };
  std::vector<Event> events;
  for (std::size_t i = 0; i < n; ++i) {
    const TimePoint intended = kStart + i * 7ms;
    const TimePoint actual = intended + ms(0, 2);
    events.push_back({actual, i, [=](Collector& c) {
                        c.arrival(intended, actual);
                        c.burst(1 + i % 3);
                      }});
    if (i % 10 == 9) {
      // No descriptor: the arrival ends before any connection.
      events.push_back({actual, i, [](Collector& c) { c.error(ErrorKind::fd_unavail); }});
      continue;
    }
    events.push_back({actual, i, [](Collector& c) { c.connecting(); }});
    const TimePoint connected = actual + ms(0, 3);
    const TimePoint first_byte = connected + ms(1, 400);
    const TimePoint done = first_byte + ms(0, 50);
    if (i % 10 == 4) {
      events.push_back({connected + 1s, i, [=](Collector& c) {
                          c.error(ErrorKind::client_timo);
                          c.connection_closed(connected + 1s - actual, 0);
                        }});
      continue;
    }
    events.push_back({connected, i, [=](Collector& c) {
                        c.connected(connected - actual);
                        c.request_sent(80 + i % 7);
                      }});
    events.push_back({done, i, [=](Collector& c) {
                        stats::ReplyRecord record;
                        record.status = 200 + 100 * static_cast<int>(i % 4);
                        record.header_bytes = 100 + i % 13;
                        // Five body lengths: the counts by length merge exactly up to eight.
                        record.body_bytes = 1000 + i % 5;
                        record.response = first_byte - connected;
                        record.transfer = done - first_byte;
                        record.latency_intended = done - intended;
                        record.latency_actual = done - actual;
                        c.reply(record);
                        c.connection_closed(done - actual, 1);
                      }});
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.at < b.at; });
  return events;
}

// Plays `events` in time order into `parts` collectors, connection i into part i % parts,
// closing a reply-rate interval in every part each `interval`. Returns the parts.
std::vector<Collector> play(const std::vector<Event>& events, std::size_t parts,
                            std::shared_ptr<stats::OpenGauge> gauge, Duration interval = 1s) {
  std::vector<Collector> collectors;
  for (std::size_t k = 0; k < parts; ++k) collectors.emplace_back(gauge);
  TimePoint sample_start = kStart;
  for (const Event& event : events) {
    while (event.at >= sample_start + interval) {
      for (Collector& c : collectors) c.sample(sample_start, sample_start + interval);
      sample_start += interval;
    }
    event.apply(collectors[event.connection % parts]);
  }
  return collectors;
}

nlohmann::json document_of(const Collector& c) {
  stats::RunInfo run;
  run.start = kStart;
  run.end = kStart + 10s;
  run.offered_rate_per_s = 1000.0 / 7;
  run.first_arrival = kStart;
  run.last_arrival = kStart + 5s;
  return report::to_json_document(stats::summarize(c, run), options::Config{});
}

// Equal JSON documents, but for the last bits of floating-point figures (a merged standard
// deviation is computed in another order).
void check_same(const nlohmann::json& a, const nlohmann::json& b, const std::string& at = "") {
  INFO(at);
  REQUIRE(a.type() == b.type());
  if (a.is_object()) {
    REQUIRE(a.size() == b.size());
    for (auto it = a.begin(); it != a.end(); ++it) {
      REQUIRE(b.contains(it.key()));
      check_same(it.value(), b.at(it.key()), at + "/" + it.key());
    }
  } else if (a.is_array()) {
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) check_same(a[i], b[i], at + "/" + std::to_string(i));
  } else if (a.is_number_float()) {
    CHECK(a.get<double>() == doctest::Approx(b.get<double>()).epsilon(1e-9));
  } else {
    CHECK(a == b);
  }
}

}  // namespace

TEST_SUITE("collector") {
  TEST_CASE("a run split over 2 and 3 collectors merges to the single collector's figures") {
    const auto events = made_up_run(700);
    const auto whole = play(events, 1, std::make_shared<stats::OpenGauge>());
    const nlohmann::json expected = document_of(whole[0]);
    // The made-up run exercises what merging must keep: samples, errors, several statuses.
    REQUIRE(expected.at("samples").size() == 5);
    REQUIRE(expected.at("errors").at("total") == 140);
    REQUIRE(expected.at("connection_rate").at("max_concurrent") > 10);

    for (const std::size_t parts : {2u, 3u}) {
      CAPTURE(parts);
      auto split = play(events, parts, std::make_shared<stats::OpenGauge>());
      // The parts really differ from the whole.
      CHECK(split[0].connections() < whole[0].connections());
      Collector merged = split[0];
      for (std::size_t k = 1; k < parts; ++k) merged.merge(split[k]);
      const nlohmann::json got = document_of(merged);
      check_same(expected, got);
      // The peak of open connections is the run's, not the sum of the parts' peaks.
      CHECK(got.at("connection_rate").at("max_concurrent") ==
            expected.at("connection_rate").at("max_concurrent"));
      CHECK(got.at("connection_rate").at("max_concurrent_is_bound") == false);
    }
  }

  TEST_CASE("parts measured apart (no shared gauge) merge to an upper bound of the peak") {
    const auto events = made_up_run(300);
    auto a = play(events, 2, std::make_shared<stats::OpenGauge>());
    const std::uint64_t peak = a[0].max_concurrent();
    // The same parts again, each with a gauge of its own, as on two machines.
    Collector first(std::make_shared<stats::OpenGauge>());
    Collector second(std::make_shared<stats::OpenGauge>());
    for (const Event& event : events) event.apply(event.connection % 2 == 0 ? first : second);
    const std::uint64_t sum = first.max_concurrent() + second.max_concurrent();
    CHECK(sum > peak);
    first.merge(second);
    CHECK(first.max_concurrent() == sum);
    CHECK(first.max_concurrent_is_bound());
  }

  TEST_CASE("samples merge by the time they cover, not by their index") {
    // One part sampled from the start, the other only from its second interval on (a worker
    // that started late): the merged first interval is the first part's alone.
    Collector early;
    Collector late;
    const auto reply = [](Collector& c, int n) {
      for (int i = 0; i < n; ++i) c.reply(stats::ReplyRecord{});
    };
    reply(early, 10);
    early.sample(kStart, kStart + 1s);
    reply(early, 20);
    early.sample(kStart + 1s, kStart + 2s);
    reply(late, 5);
    late.sample(kStart + 1s, kStart + 2s);
    reply(late, 7);
    late.sample(kStart + 2s, kStart + 3s);
    early.merge(late);
    const auto& samples = early.samples();
    REQUIRE(samples.size() == 3);
    CHECK(samples[0].start == kStart);
    CHECK(samples[0].replies == 10);
    CHECK(samples[1].replies == 25);
    CHECK(samples[2].start == kStart + 2s);
    CHECK(samples[2].replies == 7);
    CHECK(early.replies() == 42);
  }
}

TEST_SUITE("collector") {
  TEST_CASE("the time series: sparse buckets give the histogram's percentiles") {
    std::mt19937_64 random(7);
    std::lognormal_distribution<double> latency(15.0, 1.0);  // around 3 ms, in ns
    stats::Histogram whole;
    stats::SeriesRecorder series;
    for (int i = 0; i < 5000; ++i) {
      const auto value = static_cast<std::uint64_t>(latency(random));
      whole.record(value);
      series.reply(value);
    }
    series.close(TimePoint{}, TimePoint{} + 1s, 0);
    const stats::SparseBuckets& b = series.points().front().latency;
    CHECK(b.count == 5000);
    CHECK(b.max == whole.max());
    for (const double p : {50.0, 90.0, 99.0, 99.9, 100.0}) {
      CAPTURE(p);
      CHECK(b.percentile(p) == whole.percentile(p));
    }
  }

  TEST_CASE("the time series: bounded by halving, and merged by time whatever the intervals") {
    // 5,000 closes of one arrival and one reply each: at 4,096 points of 1 s the series halves
    // (2,048 points of 2 s), and the 904 closes after it make points of 2 s: 2,952 in all,
    // every arrival still counted once, the boundaries still those of the start.
    stats::SeriesRecorder long_run(1s);
    TimePoint at{};
    for (int i = 0; i < 5000; ++i) {
      long_run.arrival(1000);
      long_run.reply(2000);
      const TimePoint end = at + long_run.interval();
      long_run.close(at, end, 1);
      at = end;
    }
    CHECK(long_run.interval() == 2s);
    CHECK(long_run.points().size() == 2048 + 904);
    std::uint64_t arrivals = 0;
    for (const auto& p : long_run.points()) arrivals += p.arrivals;
    CHECK(arrivals == 5000);
    CHECK(long_run.points()[10].start == TimePoint{} + 20s);
    CHECK(long_run.points()[10].length == 2s);

    // A series of 1-s points merged into one of 2-s points: made as coarse, then met by time.
    stats::SeriesRecorder fine(1s);
    stats::SeriesRecorder coarse(2s);
    for (int i = 0; i < 4; ++i) {
      fine.arrival(0);
      fine.error(ErrorKind::connrefused, 1);
      fine.close(TimePoint{} + i * 1s, TimePoint{} + (i + 1) * 1s, static_cast<std::uint64_t>(i));
    }
    for (int i = 0; i < 2; ++i) {
      coarse.arrival(0);
      coarse.close(TimePoint{} + i * 2s, TimePoint{} + (i + 1) * 2s, 10);
    }
    coarse.merge(fine);
    REQUIRE(coarse.points().size() == 2);
    CHECK(coarse.points()[0].arrivals == 3);
    CHECK(coarse.points()[0].errors[static_cast<std::size_t>(ErrorKind::connrefused)] == 2);
    // Open at the end of [0, 2): the coarse part's 10 and the fine part's at 2 s (1).
    CHECK(coarse.points()[0].open == 11);
    CHECK(coarse.points()[1].open == 13);
    CHECK(coarse.points()[1].length == 2s);
  }
}

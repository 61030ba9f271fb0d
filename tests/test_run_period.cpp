// --period in a real run: the gaps between the connections the server accepts follow each
// distribution (d fixed, u uniform, e exponential, v in steps), as rateperf's seeded schedule
// draws them. The other options' effects are test_run_options.cpp's.

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <vector>

#include "options/config.hpp"
#include "process.hpp"
#include "report_text.hpp"
#include "run_on_loopback.hpp"
#include "schedule/arrival.hpp"
#include "test_server.hpp"

namespace {

using namespace std::chrono_literals;
using rateperf::test::ProcessResult;
using rateperf::test::report_figure;
using rateperf::test::run_rateperf;
using rateperf::test::ServerMode;
using rateperf::test::TestServer;

// The gaps between the connections the server accepted, in milliseconds.
std::vector<double> accept_gaps_ms(const TestServer& server) {
  const auto times = server.accept_times();
  std::vector<double> gaps;
  for (std::size_t i = 1; i < times.size(); ++i) {
    gaps.push_back(std::chrono::duration<double, std::milli>(times[i] - times[i - 1]).count());
  }
  return gaps;
}

double mean_of(const std::vector<double>& values) {
  double sum = 0;
  for (const double v : values) sum += v;
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

// The mean of the values without the smallest and the largest `fraction` of them: one stall of
// this VM (5 to 26 ms, a few in 10,000 sleeps of any thread) makes one long gap, and the
// schedule's catch-up one short one, which would move a plain mean of 99 gaps by up to 5 %.
double trimmed_mean_of(std::vector<double> values, double fraction) {
  std::sort(values.begin(), values.end());
  const auto cut = static_cast<std::ptrdiff_t>(static_cast<double>(values.size()) * fraction);
  return mean_of(std::vector<double>(values.begin() + cut, values.end() - cut));
}

// The coefficient of variation (stddev / mean): 0 for equal gaps, 1 for exponential ones.
double cv_of(const std::vector<double>& values) {
  const double mean = mean_of(values);
  double squares = 0;
  for (const double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1)) / mean;
}

// The median of |value - center|: how far a typical gap lies from `center`, blind to the few
// that a busy machine's late wake-ups push away.
double median_distance(std::vector<double> values, double center) {
  for (double& v : values) v = std::abs(v - center);
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// The share of `values` within [low, high].
double share_within(const std::vector<double>& values, double low, double high) {
  const auto n =
      std::count_if(values.begin(), values.end(), [&](double v) { return v >= low && v <= high; });
  return static_cast<double>(n) / static_cast<double>(values.size());
}

// The first `n` gaps, in milliseconds, that rateperf's seeded schedule draws for `period` with
// seed 1 (the default of a lone client).
std::vector<double> schedule_gaps_ms(const rateperf::options::Period& period, std::size_t n) {
  rateperf::schedule::ArrivalProcess process(period, 1);
  std::vector<double> gaps;
  rateperf::Duration at{};
  for (std::size_t i = 0; i < n; ++i) {
    const rateperf::Duration gap = process.next_gap(at);
    at += gap;
    gaps.push_back(std::chrono::duration<double, std::milli>(gap).count());
  }
  return gaps;
}

}  // namespace

TEST_SUITE("run_options") {
  TEST_CASE("--period d: the server sees arrivals a fixed gap apart") {
    TestServer server(ServerMode::reply);
    const ProcessResult run =
        run_rateperf(server.port(), {"--period", "d0.005", "--num-conns", "100", "--timeout", "5"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const auto gaps = accept_gaps_ms(server);
    REQUIRE(gaps.size() == 99);
    CHECK(trimmed_mean_of(gaps, 0.05) == doctest::Approx(5.0).epsilon(0.03));
    // A typical gap is 5 ms give or take the server's own wake-ups (u0.002,0.008 would be
    // 1.5 ms off).
    CHECK(median_distance(gaps, 5.0) < 0.5);
    CHECK(report_figure(run.out, "Offered rate:", "Offered rate:") == doctest::Approx(200.0));
  }

  TEST_CASE("--period u: gaps spread evenly over [T1, T2)") {
    TestServer server(ServerMode::reply);
    const ProcessResult run = run_rateperf(
        server.port(), {"--period", "u0.002,0.008", "--num-conns", "150", "--timeout", "5"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const auto gaps = accept_gaps_ms(server);
    REQUIRE(gaps.size() == 149);
    // The gaps the server saw are those of the seeded schedule: their mean within 3 % (about
    // 5 ms, as for d0.005), but two in three lie outside 4..6 ms where a fixed gap would put
    // nearly all inside, and hardly any far outside 2..8 ms.
    rateperf::options::Period period;
    period.kind = rateperf::options::PeriodKind::uniform;
    period.low = 2ms;
    period.high = 8ms;
    CHECK(mean_of(gaps) == doctest::Approx(mean_of(schedule_gaps_ms(period, 149))).epsilon(0.03));
    CHECK(share_within(gaps, 4, 6) < 0.5);
    CHECK(median_distance(gaps, 5.0) > 1.0);  // 1.5 ms for gaps uniform over 2..8 ms
    CHECK(share_within(gaps, 1, 9) >= 0.9);
    CHECK(report_figure(run.out, "Offered rate:", "Offered rate:") == doctest::Approx(200.0));
  }

  TEST_CASE("--period e: Poisson arrivals, exponential gaps") {
    TestServer server(ServerMode::reply);
    const ProcessResult run =
        run_rateperf(server.port(), {"--period", "e0.005", "--num-conns", "300", "--timeout", "5"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const auto gaps = accept_gaps_ms(server);
    REQUIRE(gaps.size() == 299);
    // The seeded schedule's own gaps (mean 4.6 ms, coefficient of variation 0.97: exponential
    // gaps have 1, fixed ones 0, u's 0.35) are what the server sees, within its wake-ups.
    rateperf::options::Period period;
    period.kind = rateperf::options::PeriodKind::exponential;
    period.mean = 5ms;
    const auto drawn = schedule_gaps_ms(period, 299);
    CHECK(mean_of(gaps) == doctest::Approx(mean_of(drawn)).epsilon(0.02));
    CHECK(cv_of(gaps) == doctest::Approx(cv_of(drawn)).epsilon(0.1));
    CHECK(cv_of(drawn) > 0.9);
  }

  TEST_CASE("--period v: each step's rate in its time") {
    // 100 conn/s for 0.5 s, then 250 conn/s for 0.5 s: 50 arrivals, then 125.
    TestServer server(ServerMode::reply);
    const ProcessResult run = run_rateperf(
        server.port(), {"--period", "v0.01,0.5,0.004,0.5", "--num-conns", "175", "--timeout", "5"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const auto times = server.accept_times();
    REQUIRE(times.size() == 175);
    const auto first = times.front();
    const auto in_step = [&](double from_s, double to_s) {
      return std::count_if(times.begin(), times.end(), [&](auto t) {
        const double s = std::chrono::duration<double>(t - first).count();
        return s >= from_s && s < to_s;
      });
    };
    // Each step's rate, by its typical gap: a VM stall of a few ms (the ASan run saw 12.7 ms)
    // bunches a few arrivals but moves no median.
    const auto gaps = accept_gaps_ms(server);
    const std::vector<double> slow(gaps.begin(), gaps.begin() + 48);
    const std::vector<double> fast(gaps.begin() + 51, gaps.end());
    CHECK(median_distance(slow, 10.0) < 1.0);
    CHECK(median_distance(fast, 4.0) < 1.0);
    // And each step in its time: the counts inside each step, away from the switch, where a
    // stall shifting the first arrival moves no arrival across a window's edge.
    CHECK(std::abs(in_step(0.05, 0.45) - 40) <= 3);
    CHECK(std::abs(in_step(0.6, 0.9) - 75) <= 4);
    // The offered rate of a v period is its time-weighted mean: 175 arrivals a second.
    CHECK(report_figure(run.out, "Offered rate:", "Offered rate:") == doctest::Approx(175.0));
  }
}

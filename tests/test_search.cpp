// rateperf search's decisions without a server: the SLO's grammar and its checks, a step's
// verdict (client-limited, the SLO, the divergence of the open connections), and the doubling
// and bisection against simulated servers, noisy ones included.

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "search/command.hpp"
#include "search/controller.hpp"
#include "search/slo.hpp"
#include "usage_error.hpp"

namespace {

using namespace rateperf;
using namespace rateperf::search;
using rateperf::test::usage_error_of;

// A step's figures: `rate` offered and issued, latency p99 `p99_ms`, `errors` of `calls`, and
// open connections at the end of ten 0.5-s intervals growing by `growth_per_s`.
stats::Summary step(double rate, double p99_ms, std::uint64_t errors = 0, double growth_per_s = 0) {
  stats::Summary s;
  s.offered_rate_per_s = rate;
  s.issued_rate_per_s = rate;
  s.issue_window_s = 5;
  s.calls = static_cast<std::uint64_t>(rate * 5);
  s.arrivals = s.calls;
  s.errors_total = errors;
  s.replies = s.calls - errors;
  s.status_classes[1] = s.replies;
  s.latency_intended.count = s.replies;
  s.latency_intended.p90_ms = p99_ms / 2;
  s.latency_intended.p99_ms = p99_ms;
  s.served_within_ms[7] = p99_ms;  // p99 in ab's table
  s.latency_intended.max_ms = p99_ms * 2;
  s.latency_intended.avg_ms = p99_ms / 3;
  for (int i = 0; i < 10; ++i) {
    stats::SeriesFigures point;
    point.start_s = 0.5 * i;
    point.length_s = 0.5;
    point.open_connections = static_cast<std::uint64_t>(3 + growth_per_s * 0.5 * (i + 1));
    s.series.push_back(point);
  }
  return s;
}

// Runs a controller against a server that passes every rate up to `capacity`; returns it done.
Controller drive(Settings settings, const std::function<Verdict(double, int)>& server) {
  Controller controller(settings);
  for (int runs = 0; !controller.done() && runs < 200; ++runs) {
    controller.record(server(controller.next_rate(), controller.repetition()));
  }
  REQUIRE(controller.done());
  return controller;
}

}  // namespace

TEST_SUITE("search_unit") {
  TEST_CASE("the SLO's terms parse, normalised, with their units") {
    const Slo slo = parse_slo(" p99 <= 100ms , p99.9<2s,mean<=250us, errors<=0.1% ,non2xx<10%");
    REQUIRE(slo.terms.size() == 5);
    CHECK(slo.text() == "p99<=100ms,p99.9<2s,mean<=250us,errors<=0.1%,non2xx<10%");
    CHECK(slo.terms[0].bound == doctest::Approx(100));
    CHECK(slo.terms[1].bound == doctest::Approx(2000));
    CHECK(slo.terms[1].strict);
    CHECK(slo.terms[2].bound == doctest::Approx(0.25));
    CHECK(slo.terms[3].metric == Metric::errors);
    CHECK(largest_latency_bound_ms(slo) == doctest::Approx(2000));
    CHECK(parse_slo(kDefaultSlo).text() == "p99<=100ms,errors<=0.1%");
  }

  TEST_CASE("an SLO that does not parse names the token and what is wrong") {
    CHECK(usage_error_of([] { parse_slo("p99<=100"); }) ==
          "--slo: 'p99<=100': a latency needs a unit (us, ms or s)");
    CHECK(usage_error_of([] { parse_slo("p99<=1ms,errors<=1"); }) ==
          "--slo: 'errors<=1': a share needs a '%' (e.g. 0.1%)");
    CHECK(usage_error_of([] { parse_slo("p97<=1ms"); }).find("'p97<=1ms': percentile 'p97'") !=
          std::string::npos);
    CHECK(usage_error_of([] { parse_slo("speed<=1ms"); }).find("unknown metric 'speed'") !=
          std::string::npos);
    CHECK(usage_error_of([] { parse_slo("p99>=1ms"); }).find("'p99>=1ms': expected") !=
          std::string::npos);
    CHECK(usage_error_of([] { parse_slo("p99<=1ms,,errors<1%"); }).find("an empty term") !=
          std::string::npos);
    CHECK(usage_error_of([] { parse_slo("p99<=abcms"); }) ==
          "--slo: 'p99<=abcms': 'abc' is not a number");
    CHECK(usage_error_of([] { parse_slo("errors<=120%"); }).find("at most 100%") !=
          std::string::npos);
  }

  TEST_CASE("a step's figures are checked against each term") {
    const Slo slo = parse_slo("p99<=100ms,errors<=1%,mean<40ms");
    const auto checks = check_slo(slo, step(100, 120, 2));  // 2 errors of 500 calls: 0.4 %
    REQUIRE(checks.size() == 3);
    CHECK_FALSE(checks[0].passed);
    CHECK(checks[0].describe() == "p99 120 ms > 100 ms");
    CHECK(checks[1].passed);
    CHECK(checks[1].value == doctest::Approx(0.4));
    CHECK_FALSE(checks[2].passed);  // the mean, 40 ms, is not below 40 ms: `<` is strict
    CHECK(checks[2].value == doctest::Approx(40));
  }

  TEST_CASE("a step without a reply fails its latency terms") {
    stats::Summary none = step(100, 0, 500);
    none.latency_intended.count = 0;
    const Slo slo = parse_slo("p99<=100ms");
    const auto checks = check_slo(slo, none);
    CHECK_FALSE(checks[0].passed);
    CHECK(checks[0].describe() == "p99 none (no reply) ms > 100 ms");
  }

  TEST_CASE("a step's verdict: pass, fail on the SLO, fail on divergence, client-limited") {
    const Slo slo = parse_slo(kDefaultSlo);
    CHECK(judge_step(slo, step(200, 11), 0.02).verdict == Verdict::pass);
    CHECK(judge_step(slo, step(300, 998), 0.02).verdict == Verdict::fail);

    // Passing figures, but the connections grow 10/s at 200/s offered (5 %): past capacity.
    const Judgement diverging = judge_step(slo, step(200, 50, 0, 10), 0.02);
    CHECK(diverging.verdict == Verdict::fail);
    CHECK(diverging.diverging);
    CHECK(diverging.in_flight_slope_per_s == doctest::Approx(10).epsilon(0.1));
    // 1 %: under the default 2 %, and noise.
    CHECK(judge_step(slo, step(200, 50, 0, 2), 0.02).verdict == Verdict::pass);

    stats::Summary behind = step(1000, 500);
    behind.issued_rate_per_s = 900;
    const Judgement limited = judge_step(slo, behind, 0.02);
    CHECK(limited.verdict == Verdict::client_limited);
    CHECK(limited.reasons.at(0) == "the client issued 900/s of the 1000/s offered");
    // The lag warning: a step that met the SLO passes (its latency counts the lag); one that
    // failed on latency by no more than its lag is the client's; by more, the server's.
    stats::Summary lagging = step(1000, 5);
    lagging.client_limited = true;
    lagging.lag_p99_ms = 12;
    CHECK(judge_step(slo, lagging, 0.02).verdict == Verdict::pass);
    lagging = step(1000, 110);
    lagging.client_limited = true;
    lagging.lag_p99_ms = 12;
    const Judgement late = judge_step(slo, lagging, 0.02);
    CHECK(late.verdict == Verdict::client_limited);
    CHECK(late.reasons.at(0).find("lag p99 12 ms") != std::string::npos);
    lagging = step(1000, 1200);
    lagging.client_limited = true;
    lagging.lag_p99_ms = 12;
    CHECK(judge_step(slo, lagging, 0.02).verdict == Verdict::fail);
    stats::Summary no_ports = step(1000, 5, 10);
    no_ports.errors[static_cast<std::size_t>(ErrorKind::addrunavail)] = 10;
    CHECK(judge_step(slo, no_ports, 0.02).verdict == Verdict::client_limited);
  }

  TEST_CASE("doubling then bisection finds a capacity within the resolution") {
    for (const double capacity : {15.0, 200.0, 333.0, 12345.0}) {
      CAPTURE(capacity);
      const Controller done = drive(
          {}, [&](double rate, int) { return rate <= capacity ? Verdict::pass : Verdict::fail; });
      CHECK(done.outcome() == Outcome::found);
      CHECK(done.passed_rate() <= capacity);
      CHECK(done.failed_rate() > capacity);
      CHECK(done.failed_rate() - done.passed_rate() <= 0.02 * done.passed_rate());
      CHECK(capacity_line(done, "conn/s").starts_with("Capacity [conn/s]: "));
    }
  }

  TEST_CASE("a boundary rate is run until a majority agrees; one bad run does not decide") {
    // A server of 200/s whose first run at each rate above 100/s is disturbed (fails).
    std::vector<std::pair<double, int>> runs;
    const Controller done = drive({}, [&](double rate, int repetition) {
      runs.emplace_back(rate, repetition);
      if (rate > 100 && repetition == 1) return Verdict::fail;
      return rate <= 200 ? Verdict::pass : Verdict::fail;
    });
    CHECK(done.outcome() == Outcome::found);
    CHECK(done.capacity() == doctest::Approx(200).epsilon(0.02));
    // 160/s failed once, then passed twice: passed. It took three runs.
    int at_160 = 0;
    for (const auto& [rate, repetition] : runs) at_160 += rate == 160;
    CHECK(at_160 == 3);
  }

  TEST_CASE("the search stops: below the start rate, the client's limit, --max-rate") {
    const Controller below = drive({.start_rate = 50}, [](double rate, int) {
      return rate <= 20 ? Verdict::pass : Verdict::fail;
    });
    CHECK(below.outcome() == Outcome::below_start);
    CHECK(capacity_line(below, "conn/s") == "Capacity [conn/s]: < 50 (below the start rate)");

    const Controller limited = drive(
        {}, [](double rate, int) { return rate >= 640 ? Verdict::client_limited : Verdict::pass; });
    CHECK(limited.outcome() == Outcome::client_limited);
    CHECK(capacity_line(limited, "conn/s") ==
          "Capacity [conn/s]: >= 320 (the client was the limit at 640)");

    // One run the client limited, then two passes: a busy moment, not the client's limit.
    const Controller noisy = drive({}, [](double rate, int repetition) {
      if (rate == 40 && repetition == 1) return Verdict::client_limited;
      return rate <= 100 ? Verdict::pass : Verdict::fail;
    });
    CHECK(noisy.outcome() == Outcome::found);

    const Controller capped =
        drive({.start_rate = 100, .max_rate = 300}, [](double, int) { return Verdict::pass; });
    CHECK(capped.outcome() == Outcome::max_rate);
    CHECK(capped.passed_rate() == 300);
  }

  TEST_CASE("the search's command line: its options, TARGET's words, and refusals") {
    const Command command =
        parse_command({"--slo", "p90<=5ms", "--server", "127.0.0.1", "--start-rate=25", "--port",
                       "8080", "-o", "r.html", "--", "--json", "x"});
    CHECK(command.slo.text() == "p90<=5ms");
    CHECK(command.settings.start_rate == 25);
    CHECK(command.report_path == "r.html");
    CHECK(command.json_path.empty());
    CHECK(command.target ==
          std::vector<std::string>{"--server", "127.0.0.1", "--port", "8080", "--json", "x"});
    CHECK(parse_command({"http://h/"}).slo.text() == "p99<=100ms,errors<=0.1%");
    CHECK(usage_error_of([] {
            parse_command({"--repeat", "0", "http://h/"});
          }) == "--repeat: must be within 1..15 (got 0)");
    CHECK(usage_error_of([] {
            parse_command({"--resolution", "0", "http://h/"});
          }).starts_with("--resolution: must be above 0"));
    CHECK(usage_error_of([] { parse_command({"--slo"}); }) == "--slo: needs a value");
    CHECK(usage_error_of([] { parse_command({"--step", "5"}); }).starts_with("no TARGET"));
  }
}

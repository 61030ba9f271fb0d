// --timing in real runs: each mode's behaviour as the report's Timing line and the JSON show it
// (sleeps, polls, timer arms, CPU), and auto's choice between sleeping and polling. The exact
// policy is the "pacing" suite's, on a fake clock.

#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "report_text.hpp"
#include "test_server.hpp"

namespace {

using rateperf::test::closed_port;
using rateperf::test::ProcessResult;
using rateperf::test::report_line;
using rateperf::test::run_rateperf_on;

struct TimedRun {
  std::string report;
  nlohmann::json timing;
  std::uint64_t arrivals = 0;
  double lag_p99_ms = 0;
  double duration_s = 0;
};

// A run to a closed port (every connection refused at once, so the loop's own work is all
// there is) at `rate` for `conns` connections, with --timing `mode` (and `more` options).
TimedRun run_timed(const std::string& mode, const std::string& rate, const std::string& conns,
                   const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"--rate",   rate, "--num-conns", conns,
                                   "--timing", mode, "--json",      "-"};
  args.insert(args.end(), more.begin(), more.end());
  const ProcessResult run = run_rateperf_on("127.0.0.1", closed_port(), args);
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  TimedRun timed;
  timed.report = run.err;  // --json - moves the report to stderr
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  timed.timing = doc.at("timing");
  timed.arrivals = doc.at("totals").at("arrivals").get<std::uint64_t>();
  timed.lag_p99_ms = doc.at("lag").at("p99_ms").get<double>();
  timed.duration_s = doc.at("totals").at("duration_s").get<double>();
  REQUIRE(doc.at("config").at("timing") == mode);
  return timed;
}

// The lag a run's turns may add: `bound_ms`, plus how far the run overran its schedule of
// `scheduled_s`. A loop that cannot keep up (a sanitizer build on a busy machine: 0 sleeps in
// a CI run at 40,000/s) falls behind by its own throughput, and its last arrivals' lag is that
// backlog, which is the run's speed and not its timing.
double lag_bound_ms(const TimedRun& run, double scheduled_s, double bound_ms) {
  const double overrun_ms = (run.duration_s - scheduled_s) * 1000;
  return bound_ms + (overrun_ms > 0 ? overrun_ms : 0);
}

std::uint64_t count(const TimedRun& run, const char* key) {
  return run.timing.at(key).get<std::uint64_t>();
}

}  // namespace

TEST_SUITE("timing") {
  TEST_CASE("every mode says in the report and the JSON that it ran, and what it cost") {
    for (const std::string mode : {"auto", "sleep", "hybrid", "spin", "batch"}) {
      CAPTURE(mode);
      const TimedRun run = run_timed(mode, "200", "40");
      CHECK(report_line(run.report, "Timing: ").rfind("Timing: " + mode + ", CPU ", 0) == 0);
      CHECK(run.timing.at("mode") == mode);
      CHECK(run.timing.at("cpu_percent").get<double>() >= 0);
      CHECK(run.arrivals == 40);
    }
  }

  TEST_CASE("spin never sleeps and never sets a timer, at a whole core; sleep sleeps") {
    // 50 arrivals 10 ms apart: half a second of mostly idle waiting.
    const TimedRun spin = run_timed("spin", "100", "50");
    CHECK(count(spin, "sleeps") == 0);
    CHECK(count(spin, "timer_arms") == 0);
    CHECK(count(spin, "polls") > 1000);
    const double spin_cpu = spin.timing.at("cpu_percent").get<double>();

    const TimedRun sleep = run_timed("sleep", "100", "50");
    // One sleep and one timer per gap (the first arrival is due at the start), but for the
    // gaps a stall of this machine swallowed: a wake-up that comes 10 ms late finds the next
    // deadline due (scripts/bench (g) measures such stalls: up to 26 ms, a few in 10,000).
    CHECK(count(sleep, "sleeps") >= 45);
    CHECK(count(sleep, "timer_arms") >= 45);
    CHECK(count(sleep, "timer_arms") <= 60);
    CHECK(count(sleep, "timer_wakeups") >= 45);
    const double sleep_cpu = sleep.timing.at("cpu_percent").get<double>();
    CHECK(sleep_cpu < 30);
    // A core's worth where nothing else runs; at least several times sleep's in any case.
    CHECK(spin_cpu > 30);
    CHECK(spin_cpu > 3 * sleep_cpu);
  }

  TEST_CASE("hybrid sleeps to a margin before each deadline and polls the rest") {
    const TimedRun hybrid = run_timed("hybrid", "100", "50");
    // Every gap is slept, but for a stall's of this VM (a wake-up that finds the next deadline
    // due: the ASan run on 65e3f0b slept 48 of 49), as in sleep mode.
    CHECK(count(hybrid, "sleeps") >= 45);
    // It polls the margin before a deadline: a poll or more a gap on a quiet machine. A wake-up
    // later than the margin has nothing to poll: one CI sanitizer run on a busy machine polled
    // 31 times for 49 sleeps. Sleep mode never polls.
    CHECK(count(hybrid, "polls") >= count(hybrid, "sleeps") / 4);
    // The p99 of the measured lateness plus 10 us, within the 5 us .. 2 ms bounds.
    const double margin = hybrid.timing.at("margin_ms").get<double>();
    CHECK(margin >= 0.015);
    CHECK(margin <= 2.0);
    CHECK(hybrid.timing.at("lateness_p50_ms").get<double>() > 0);
  }

  TEST_CASE("auto sleeps between far deadlines and sets no timer per arrival when they are near") {
    // 10 ms apart: every gap is slept, as in sleep mode (but for a stall's, as there).
    const TimedRun slow = run_timed("auto", "100", "50");
    CHECK(count(slow, "sleeps") >= 45);
    CHECK(count(slow, "timer_arms") >= 45);
    CHECK(slow.timing.at("cpu_percent").get<double>() < 30);
    // It sleeps to each deadline itself: no polling before it (when it slept to its margin
    // before the deadline and polled the rest, 32 polls for these 50 arrivals; hybrid polls
    // every one).
    CHECK(count(slow, "polls") < 10);
    // 25 us apart, nearer than a wake-up usually comes back here (median lateness 35..60 us),
    // timed by the client's clock: the loop polls, and sets the timer for hardly any of the
    // 10,000 arrivals, where sleep mode sets it for nearly every one. Auto decides from the
    // lateness it measures in the run: when its wake-ups came back within the gap (seen once in
    // six runs, at 11 us), sleeping was the right choice, and the run only has to say so.
    const TimedRun fast = run_timed("auto", "40000", "10000", {"--clock", "user"});
    CHECK(fast.timing.at("turn_ms").get<double>() == 0);
    const double lateness_us = fast.timing.at("lateness_p50_ms").get<double>() * 1000;
    if (lateness_us > 30) {
      CHECK(count(fast, "timer_arms") < fast.arrivals / 10);
      CHECK(count(fast, "polls") > count(fast, "sleeps"));
    } else {
      MESSAGE("wake-ups came back within " << lateness_us << " us, inside the 25-us gaps: auto slept");
      CHECK(count(fast, "timer_arms") <= count(fast, "sleeps"));
    }
    const TimedRun fast_sleep = run_timed("sleep", "20000", "10000");
    CHECK(count(fast_sleep, "timer_arms") > fast_sleep.arrivals / 4);
    MESSAGE("timer arms for 10,000 arrivals: auto at 40,000/s " << count(fast, "timer_arms")
                                                               << ", sleep at 20,000/s "
                                                               << count(fast_sleep, "timer_arms"));
  }

  TEST_CASE("auto takes batch's turns from 20,000 calls a second with the kernel clock") {
    // 40,000/s with the kernel clock (the default): a wake-up for each turn of 0.2 ms, some
    // eight arrivals to one, where the client's clock (above) polls for each.
    const TimedRun turns = run_timed("auto", "40000", "10000");
    CHECK(turns.arrivals == 10000);
    CHECK(turns.timing.at("turn_ms").get<double>() == doctest::Approx(0.2));
    CHECK(count(turns, "sleeps") < turns.arrivals / 2);
    CHECK(
        report_line(turns.report, "Timing: ").rfind("Timing: auto in turns of 0.200 ms, CPU ", 0) ==
        0);
    // 17.7 ms in one CI sanitizer run (the bound below); in another, 0 sleeps (the loop behind
    // all along) and 62.8 ms, its backlog.
    CHECK(turns.lag_p99_ms < lag_bound_ms(turns, 0.25, 50));
    // Below 20,000/s it is auto's own pacing, with no turns.
    const TimedRun below = run_timed("auto", "10000", "2000");
    CHECK(below.timing.at("turn_ms").get<double>() == 0);
    CHECK(report_line(below.report, "Timing: ").rfind("Timing: auto, CPU ", 0) == 0);
    MESSAGE("auto at 40,000/s: " << count(turns, "sleeps") << " sleeps, " << count(turns, "polls")
                                 << " polls, lag p99 " << turns.lag_p99_ms << " ms, "
                                 << turns.duration_s << " s for 0.25 s of schedule");
  }

  TEST_CASE("batch takes a turn every 0.2 ms (every --batch-reads T) for the arrivals due in it") {
    // 20,000/s, 50 us apart: four arrivals to a turn, one wake-up for them, where sleep mode
    // arms a timer for most arrivals (the test above) and auto polls.
    const TimedRun turns = run_timed("batch", "20000", "4000");
    CHECK(turns.arrivals == 4000);
    CHECK(count(turns, "sleeps") < turns.arrivals / 2);
    CHECK(count(turns, "timer_arms") <= count(turns, "sleeps"));
    // Each arrival goes out at the turn after it fell due: late by up to a turn and a wake-up's
    // lateness (a generous bound: a stall of this machine or a sanitizer build adds to it; 4 to
    // 5 ms in an idle sanitizer build, 21.8 in one CI sanitizer run beside the other suites).
    CHECK(turns.lag_p99_ms < lag_bound_ms(turns, 0.2, 50));
    // Turns of 2 ms: forty arrivals to one, some 100 turns in the 0.2 s.
    const TimedRun long_turns = run_timed("batch", "20000", "4000", {"--batch-reads", "0.002"});
    CHECK(long_turns.arrivals == 4000);
    CHECK(count(long_turns, "sleeps") < long_turns.arrivals / 10);
    CHECK(long_turns.lag_p99_ms >= 0.5);  // arrivals waited for their turn, visibly
    CHECK(long_turns.lag_p99_ms < lag_bound_ms(long_turns, 0.2, 50));
    MESSAGE("batch at 20,000/s: " << count(turns, "sleeps") << " sleeps, lag p99 "
                                  << turns.lag_p99_ms
                                  << " ms; turns of 2 ms: " << count(long_turns, "sleeps")
                                  << " sleeps, lag p99 " << long_turns.lag_p99_ms << " ms");
  }
}

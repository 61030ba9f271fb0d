#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "search/slo.hpp"
#include "stats/summary.hpp"

// The search's decisions, apart from running anything: what a step's figures say about the
// server (judge_step), and which rate to try next (Controller). Both are pure, so that the
// tests can drive them with made-up steps.
namespace rateperf::search {

enum class Verdict {
  pass,            // the server met the SLO and kept up
  fail,            // an SLO term failed, or the open-loop queue diverged
  client_limited,  // the client could not offer the rate: says nothing about the server
};

const char* verdict_name(Verdict verdict);  // "pass", "fail", "client-limited"

// A step judged.
struct Judgement {
  Verdict verdict = Verdict::pass;
  std::vector<Check> checks;         // the SLO's terms, in order
  double in_flight_slope_per_s = 0;  // the fitted growth of the open connections
  bool diverging = false;
  std::vector<std::string> reasons;  // why it did not pass (empty for a pass)
};

// The open connections (in request mode, the requests in flight: the connections are a fixed
// pool) at the end of each full interval of the step's schedule, the first left out.
struct Growth {
  double slope_per_s = 0;  // least-squares slope; 0 with fewer than 3 intervals
  double grown = 0;        // the slope over the span of the intervals fitted
};
Growth in_flight_growth(const stats::Summary& step);

// The least growth, in connections over the step, that counts as divergence: fewer is noise.
inline constexpr double kLeastDivergence = 5;

// Judges a step: client-limited first (issued rate under 99 % of offered, or the client out of
// descriptors, ports or file-table slots), then the SLO and the divergence: the open
// connections growing at `divergence_fraction` of the offered rate or faster. A step with the
// lag warning that failed only on latency terms, each by no more than its lag p99, is
// client-limited too: its lateness alone could have failed it.
Judgement judge_step(const Slo& slo, const stats::Summary& step, double divergence_fraction);

// How a search ended.
enum class Outcome {
  running,
  found,           // a passed and a failed rate within the resolution
  below_start,     // the first rate already failed
  client_limited,  // a step was limited by the client
  max_rate,        // --max-rate passed
  interrupted,     // SIGINT or SIGTERM
};

const char* outcome_name(Outcome outcome);  // "found", "below-start", ...

struct Settings {
  double start_rate = 10;    // arrivals/s of the first step
  double max_rate = 0;       // the highest rate tried; 0: none
  double resolution = 0.02;  // stop when (failed - passed) <= resolution * passed
  int repeat = 3;            // the most runs of a boundary rate
};

// The doubling and bisection: next_rate() and repetition() say what to run, record() takes its
// verdict. A rate whose verdict decides a boundary (a doubling step that failed, every
// bisection step) is run until a majority of `repeat` runs agree; a doubling step that passes
// at once is taken as passed. A run the client limited is run again too (a busy moment of a
// shared machine): the search stops as client-limited when a majority of the runs at a rate
// were; `repeat` runs without a majority decide pass or fail by their count, a tie failing.
class Controller {
 public:
  explicit Controller(const Settings& settings);

  bool done() const { return outcome_ != Outcome::running; }
  double next_rate() const { return rate_; }
  int repetition() const { return passes_ + fails_ + limits_ + 1; }
  bool bisecting() const { return bisecting_; }

  void record(Verdict verdict);
  void interrupt();

  Outcome outcome() const { return outcome_; }
  double passed_rate() const { return passed_; }    // the highest rate passed; 0: none
  double failed_rate() const { return failed_; }    // the lowest rate failed; 0: none
  double limited_rate() const { return limited_; }  // the rate the client could not offer
  double capacity() const { return (passed_ + failed_) / 2; }     // when found
  double uncertainty() const { return (failed_ - passed_) / 2; }  // when found

 private:
  void decided(bool passed);
  void bisect();

  Settings settings_;
  Outcome outcome_ = Outcome::running;
  double rate_;
  int passes_ = 0;  // of the runs at rate_
  int fails_ = 0;
  int limits_ = 0;  // runs the client limited
  bool bisecting_ = false;
  double passed_ = 0;
  double failed_ = 0;
  double limited_ = 0;
};

// The last line on stdout: "Capacity [UNIT]: C +- U" when found, else the bounds known and why.
std::string capacity_line(const Controller& controller, const std::string& unit);

}  // namespace rateperf::search

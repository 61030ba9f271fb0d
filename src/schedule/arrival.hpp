#pragma once

#include <cstdint>
#include <random>

#include "options/config.hpp"
#include "schedule/clock.hpp"

namespace rateperf::schedule {

// Draws the gaps between arrivals from a Period. Pure and seeded: the same period and seed give
// the same sequence of gaps, on every machine (the distributions are computed here, not by the
// standard library's implementation-defined ones).
class ArrivalProcess {
 public:
  ArrivalProcess(const options::Period& period, std::uint64_t seed);

  // The gap between the arrival intended at `since_start` (schedule time since the first
  // arrival) and the next one. Only the variable (v) process looks at `since_start`.
  Duration next_gap(Duration since_start);

 private:
  double uniform01();  // in [0, 1)

  options::Period period_;
  std::mt19937_64 rng_;
};

// The ideal timeline of a run: t_0 = start, t_{i+1} = t_i + gap_i. A late wake-up never shifts
// it: arrivals that are due late are still taken, each with its own intended time, so the
// schedule stays open loop and the lag (actual - intended) is measurable.
class Timeline {
 public:
  Timeline(const options::Period& period, std::uint64_t seed, std::uint64_t total,
           TimePoint start);

  bool done() const { return issued_ >= total_; }
  std::uint64_t issued() const { return issued_; }
  std::uint64_t total() const { return total_; }
  // The intended time of the next arrival (meaningless once done()).
  TimePoint next_due() const { return next_due_; }
  // Takes the next arrival: returns its intended time and advances next_due by one gap.
  TimePoint take();
  // Sequential mode (period 0): the next arrival is due at `t` (when the previous one ended).
  void due_at(TimePoint t) { next_due_ = t; }
  // Ends the schedule early (SIGINT): done() becomes true; issued() keeps its count.
  void stop() { total_ = issued_; }

 private:
  ArrivalProcess process_;
  TimePoint start_;
  TimePoint next_due_;
  std::uint64_t issued_ = 0;
  std::uint64_t total_;
};

// Takes, at `now`, every arrival of `timeline` that is due (at most `limit`), calling
// `issue(intended)` for each in order: open loop, whatever became of earlier arrivals, and each
// with its own intended time, so a late wake-up shows as lag and never shifts the schedule.
// Returns how many were taken: the burst of this wake-up (httperf's "connect burst length").
template <class F>
std::uint64_t take_due(Timeline& timeline, TimePoint now, F&& issue,
                       std::uint64_t limit = UINT64_MAX) {
  std::uint64_t taken = 0;
  while (taken < limit && !timeline.done() && timeline.next_due() <= now) {
    issue(timeline.take());
    ++taken;
  }
  return taken;
}

}  // namespace rateperf::schedule

#pragma once

#include <cstdint>
#include <random>

#include "core/clock.hpp"
#include "options/config.hpp"

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
//
// A timeline may be one share of the run's: share k of n takes the run's arrivals k, k+n,
// k+2n... at their times in the whole schedule (it draws every gap of the whole schedule and
// keeps one arrival in n), so that n shares together are exactly the one schedule, whatever the
// process. Pure: no clock.
class Timeline {
 public:
  // `total` arrivals in the whole schedule; this timeline takes share `share` of `shares`.
  Timeline(const options::Period& period, std::uint64_t seed, std::uint64_t total, TimePoint start,
           std::uint64_t share = 0, std::uint64_t shares = 1);

  bool done() const { return issued_ >= total_ || next_due_ >= end_; }
  std::uint64_t issued() const { return issued_; }
  std::uint64_t total() const { return total_; }  // arrivals of this share
  // The intended time of the next arrival (meaningless once done()).
  TimePoint next_due() const { return next_due_; }
  // Takes the next arrival: returns its intended time and moves to this share's next one.
  TimePoint take();
  // Ends the schedule early (SIGINT): done() becomes true; issued() keeps its count.
  void stop() { total_ = issued_; }
  // Bounds the schedule in time too: no arrival is intended at or after `end` (--duration).
  void end_at(TimePoint end) { end_ = end; }

 private:
  // Moves next_due_ on by `count` arrivals of the whole schedule.
  void skip(std::uint64_t count);

  ArrivalProcess process_;
  TimePoint start_;
  TimePoint next_due_;
  std::uint64_t shares_;
  std::uint64_t issued_ = 0;
  std::uint64_t total_;
  TimePoint end_ = TimePoint::max();
};

}  // namespace rateperf::schedule

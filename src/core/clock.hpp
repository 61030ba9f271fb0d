#pragma once

#include <chrono>

// The one clock of rateperf. Every measurement and every deadline is a steady_clock time point;
// wall-clock time is read only for the timestamps written into exports.
namespace rateperf {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Duration = Clock::duration;  // nanoseconds on Linux

// Converts a duration to floating-point milliseconds or seconds, for statistics and reports.
inline double to_ms(Duration d) { return std::chrono::duration<double, std::milli>(d).count(); }
inline double to_s(Duration d) { return std::chrono::duration<double>(d).count(); }

// Converts floating-point seconds (as given on the command line) to a Duration, rounding to the
// nearest nanosecond.
inline Duration from_s(double seconds) {
  return std::chrono::round<Duration>(std::chrono::duration<double>(seconds));
}

}  // namespace rateperf

#include <atomic>
#include <cstdint>
#include <ctime>

namespace rateperf {

// The kernel stamps packets on CLOCK_REALTIME; rateperf measures on CLOCK_MONOTONIC
// (steady_clock). RealtimeOffset holds realtime - monotonic, measured by reading the two clocks
// back to back (the pair read in the shortest bracket of a few tries), so that a kernel
// timestamp converts to the steady clock with an error of the bracket (tens of nanoseconds).
// The offset moves only when someone steps the wall clock (NTP's slewing changes both clocks'
// rates alike): measure() is called again during the run (once a second) and counts such
// steps, so that a run can say whether its conversions straddled one. Shared by the workers:
// one writer, any number of readers.
class RealtimeOffset {
 public:
  RealtimeOffset() { measure(); }

  // Measures the offset again; a change of more than kStep counts as a step of the wall clock
  // and the new offset is used from now on. Returns the change in nanoseconds.
  std::int64_t measure() {
    const std::int64_t fresh = read_offset();
    const std::int64_t old = offset_ns_.load(std::memory_order_relaxed);
    if (!measured_) {
      measured_ = true;
      offset_ns_.store(fresh, std::memory_order_relaxed);
      return 0;
    }
    const std::int64_t change = fresh - old;
    if (change > kStep || change < -kStep) {
      offset_ns_.store(fresh, std::memory_order_relaxed);
      steps_.fetch_add(1, std::memory_order_relaxed);
      const std::int64_t size = change < 0 ? -change : change;
      if (size > largest_step_ns_.load(std::memory_order_relaxed))
        largest_step_ns_.store(size, std::memory_order_relaxed);
    }
    return change;
  }

  // A CLOCK_REALTIME time (a kernel timestamp) on the steady clock.
  TimePoint to_steady(const timespec& real) const {
    return TimePoint(Duration(ns_of(real) - offset_ns_.load(std::memory_order_relaxed)));
  }
  // A steady-clock time on the wall clock, in nanoseconds since the epoch (for logs).
  std::int64_t to_realtime_ns(TimePoint steady) const {
    return steady.time_since_epoch().count() + offset_ns_.load(std::memory_order_relaxed);
  }
  std::int64_t offset_ns() const { return offset_ns_.load(std::memory_order_relaxed); }
  std::uint64_t steps() const { return steps_.load(std::memory_order_relaxed); }
  std::int64_t largest_step_ns() const { return largest_step_ns_.load(std::memory_order_relaxed); }

  // A change below this is the measurement's own noise (a preempted bracket), not a step.
  static constexpr std::int64_t kStep = 20'000;

 private:
  static std::int64_t ns_of(const timespec& t) {
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
  }
  static std::int64_t read_offset() {
    std::int64_t best_bracket = INT64_MAX;
    std::int64_t best = 0;
    for (int i = 0; i < 5; ++i) {
      timespec before{};
      timespec real{};
      timespec after{};
      ::clock_gettime(CLOCK_MONOTONIC, &before);
      ::clock_gettime(CLOCK_REALTIME, &real);
      ::clock_gettime(CLOCK_MONOTONIC, &after);
      const std::int64_t bracket = ns_of(after) - ns_of(before);
      if (bracket < best_bracket) {
        best_bracket = bracket;
        best = ns_of(real) - (ns_of(before) + bracket / 2);
      }
    }
    return best;
  }

  std::atomic<std::int64_t> offset_ns_{0};
  std::atomic<std::uint64_t> steps_{0};
  std::atomic<std::int64_t> largest_step_ns_{0};
  bool measured_ = false;  // only the one writer reads it
};

}  // namespace rateperf

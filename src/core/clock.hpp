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

#pragma once

#include <cstdint>

#include "core/clock.hpp"

namespace rateperf::stats {

// A snapshot of a run in progress, for the live progress line.
struct Progress {
  Duration elapsed{};         // since the start of the run
  std::uint64_t issued = 0;   // arrivals taken from the schedule so far
  std::uint64_t total = 0;    // arrivals in the whole schedule
  std::uint64_t replies = 0;  // replies so far
  std::uint64_t errors = 0;   // errors so far
  std::uint64_t open = 0;     // connections open now
};

}  // namespace rateperf::stats

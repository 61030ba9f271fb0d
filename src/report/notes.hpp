#pragma once

#include <cstdio>

#include "run/run.hpp"

namespace rateperf::report {

// The notes on stderr after the report that say what the figures are worth: arrivals the
// client itself failed (no descriptor, no local port, a full file table), sockets that refused
// a buffer size, and a client that fell behind its schedule.
void print_notes(const run::Outcome& outcome, std::FILE* out);

}  // namespace rateperf::report

#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>

#include "options/config.hpp"
#include "stats/collector.hpp"
#include "stats/progress.hpp"
#include "stats/summary.hpp"

namespace rateperf::run {

// How a run shows itself while it lasts; either may be empty.
struct Listeners {
  // About once a second: the run's progress and the reply rate since the last call (from the
  // watcher's thread).
  std::function<void(const stats::Progress&, double reply_rate_per_s)> on_progress;
  // Each reply-rate sample of the run as it closes (from a worker's thread).
  std::function<void(const stats::IntervalSample&)> on_sample;
  // The run is over, before the report (to clear the progress line).
  std::function<void()> on_end;
  // Where --print-request and --print-reply write each call's lines: with the report.
  std::FILE* call_lines = stdout;
};

// What a run produced, for the report and the notes after it.
struct Outcome {
  stats::Summary summary;
  std::uint64_t descriptor_limit = 0;  // the descriptors allowed (ulimit -n); 0 if unknown
  std::uint64_t buffer_refusals = 0;   // sockets on which the kernel refused a buffer size
  bool start_at = false;               // the schedule started at --start-at, by this host's clock
  bool batch_reads_dropped = false;    // --batch-reads was asked, but the kernel's clock is off
};

// Readies the process before anything else: SIGPIPE ignored (a server that resets mid-write is
// a counted error, never the end of the process), SIGINT and SIGTERM blocked in every thread
// to come, so that the run's watcher reads them from a signalfd, and so that one that comes
// while rateperf starts up or writes its report waits for it instead of killing it.
void prepare_process();

// The run coordinator: resolves the server's addresses, takes the descriptors it may, starts
// the workers (one share each) and the watcher of signals and progress, and merges the
// workers' results exactly into the run's Summary. Throws RunError when the run cannot be done.
Outcome execute(const options::Config& config, const Listeners& listeners);

}  // namespace rateperf::run

#include "report/notes.hpp"

#include <cinttypes>

namespace rateperf::report {

void print_notes(const run::Outcome& outcome, std::FILE* out) {
  const stats::Summary& s = outcome.summary;
  if (const std::uint64_t n = count_of(s.errors, ErrorKind::fd_unavail); n > 0) {
    std::fprintf(out,
                 "rateperf: %" PRIu64
                 " arrivals found no free descriptor (fd-unavail; the limit "
                 "is %" PRIu64 ", ulimit -n): the client, not the server, failed them\n",
                 n, outcome.descriptor_limit);
  }
  if (const std::uint64_t n = count_of(s.errors, ErrorKind::addrunavail); n > 0) {
    std::fprintf(out,
                 "rateperf: %" PRIu64
                 " arrivals found no free local port (addrunavail; see "
                 "net.ipv4.ip_local_port_range): the client, not the server, failed them\n",
                 n);
  }
  if (const std::uint64_t n = count_of(s.errors, ErrorKind::ftab_full); n > 0) {
    std::fprintf(
        out, "rateperf: %" PRIu64 " arrivals found the system's file table full (ftab-full)\n", n);
  }
  if (outcome.buffer_refusals > 0) {
    std::fprintf(out, "rateperf: the kernel refused a buffer size on %" PRIu64 " sockets\n",
                 outcome.buffer_refusals);
  }
  if (outcome.start_at) {
    std::fprintf(out,
                 "rateperf: the schedule started at %s (--start-at) by this host's clock: the "
                 "offsets between the clocks of the hosts that share it add to every lag and are "
                 "not measured here; bound them (NTP, PTP)\n",
                 s.start_time_utc.c_str());
  }
  if (!s.clock.fallback.empty()) {
    std::fprintf(
        out,
        "rateperf: the client's clock timed the replies, not the kernel's timestamps "
        "(--clock kernel): %s%s\n",
        s.clock.fallback.c_str(),
        outcome.batch_reads_dropped ? "; --batch-reads is off, each reply read at once" : "");
  } else if (s.clock.kernel && s.clock.user_replies > 0) {
    std::fprintf(out,
                 "rateperf: the kernel stamped the packets of %" PRIu64 " of %" PRIu64
                 " replies; the client's clock timed the other %" PRIu64 "\n",
                 s.clock.kernel_replies, s.replies, s.clock.user_replies);
  }
  if (s.clock.wall_clock_steps > 0) {
    std::fprintf(out,
                 "rateperf: the wall clock was stepped %" PRIu64
                 " times during the run (the largest %.3f ms): kernel timestamps near a step may "
                 "be off by it\n",
                 s.clock.wall_clock_steps, s.clock.largest_step_ms);
  }
  if (s.client_limited) {
    std::fprintf(out,
                 "rateperf: warning: the client fell behind its schedule (lag p99 %.3f ms, above "
                 "%.3f ms): the figures measure the client, not the server\n",
                 s.lag_p99_ms, s.lag_limit_ms);
  }
}

}  // namespace rateperf::report

#include "report/text_report.hpp"

#include <cinttypes>
#include <initializer_list>

#include "report/printf_text.hpp"

namespace rateperf::report {

namespace {

// httperf's session lines, after a blank line, in its format (--wsess, --wsesslog).
void append_session_lines(std::string& out, const stats::SessionFigures& f) {
  appendf(out,
          "\nSession rate [sess/s]: min %.2f avg %.2f max %.2f stddev %.2f (%" PRIu64 "/%" PRIu64
          ")\n",
          f.rate_min, f.rate_avg, f.rate_max, f.rate_stddev, f.completed, f.total);
  appendf(out, "Session: avg %.2f connections/session\n", f.connections_per_session);
  appendf(out, "Session lifetime [s]: %.1f\n", f.lifetime_avg_s);
  appendf(out, "Session failtime [s]: %.1f\n", f.failtime_avg_s);
  out += "Session length histogram:";
  for (const std::uint64_t count : f.length_histogram) appendf(out, " %" PRIu64, count);
  out += "\n\n";
}

// httperf's report, line for line: parsers of httperf's output depend on every label and on
// the order, so nothing here may change.
void append_httperf_lines(std::string& out, const stats::Summary& s) {
  out += s.command_line;
  out += '\n';
  appendf(out, "Maximum connect burst length: %" PRIu64 "\n", s.max_burst);
  out += '\n';
  appendf(out,
          "Total: connections %" PRIu64 " requests %" PRIu64 " replies %" PRIu64
          " test-duration %.3f s\n",
          s.connections, s.requests, s.replies, s.duration_s);
  out += '\n';

  appendf(out,
          "Connection rate: %.1f conn/s (%.1f ms/conn, <=%" PRIu64 " concurrent connections)\n",
          s.connection_rate_per_s, s.ms_per_connection, s.max_concurrent);
  const auto& life = s.connection_time;
  appendf(out, "Connection time [ms]: min %.1f avg %.1f max %.1f median %.1f stddev %.1f\n",
          life.min_ms, life.avg_ms, life.max_ms, life.median_ms, life.stddev_ms);
  appendf(out, "Connection time [ms]: connect %.1f\n", s.connect_avg_ms);
  appendf(out, "Connection length [replies/conn]: %.3f\n", s.replies_per_connection);
  out += '\n';

  appendf(out, "Request rate: %.1f req/s (%.1f ms/req)\n", s.request_rate_per_s, s.ms_per_request);
  appendf(out, "Request size [B]: %.1f\n", s.request_size_avg_bytes);
  out += '\n';

  appendf(out,
          "Reply rate [replies/s]: min %.1f avg %.1f max %.1f stddev %.1f (%" PRIu64 " samples)\n",
          s.reply_rate_min, s.reply_rate_avg, s.reply_rate_max, s.reply_rate_stddev,
          s.reply_rate_samples);
  appendf(out, "Reply time [ms]: response %.1f transfer %.1f\n", s.response_avg_ms,
          s.transfer_avg_ms);
  appendf(out, "Reply size [B]: header %.1f content %.1f footer %.1f (total %.1f)\n",
          s.reply_header_avg_bytes, s.reply_content_avg_bytes, s.reply_footer_avg_bytes,
          s.reply_total_avg_bytes);
  const auto& st = s.status_classes;
  appendf(out,
          "Reply status: 1xx=%" PRIu64 " 2xx=%" PRIu64 " 3xx=%" PRIu64 " 4xx=%" PRIu64
          " 5xx=%" PRIu64 "\n",
          st[0], st[1], st[2], st[3], st[4]);
  out += '\n';

  appendf(out, "CPU time [s]: user %.2f system %.2f (user %.1f%% system %.1f%% total %.1f%%)\n",
          s.cpu_user_s, s.cpu_system_s, s.cpu_user_percent, s.cpu_system_percent,
          s.cpu_total_percent);
  appendf(out, "Net I/O: %.1f KB/s (%.1f*10^6 bps)\n", s.net_io_kb_per_s, s.net_io_mbit_per_s);
  out += '\n';

  appendf(out,
          "Errors: total %" PRIu64 " client-timo %" PRIu64 " socket-timo %" PRIu64
          " connrefused %" PRIu64 " connreset %" PRIu64 "\n",
          s.errors_total, count_of(s.errors, ErrorKind::client_timo),
          count_of(s.errors, ErrorKind::socket_timo), count_of(s.errors, ErrorKind::connrefused),
          count_of(s.errors, ErrorKind::connreset));
  appendf(out,
          "Errors: fd-unavail %" PRIu64 " addrunavail %" PRIu64 " ftab-full %" PRIu64
          " other %" PRIu64 "\n",
          count_of(s.errors, ErrorKind::fd_unavail), count_of(s.errors, ErrorKind::addrunavail),
          count_of(s.errors, ErrorKind::ftab_full), s.errors_other_httperf);
  if (s.sessions_run) append_session_lines(out, s.sessions);
}

// One line of percentiles: the label, the five figures, then a note (empty or starting with a
// space) that tells apart two lines with the same label.
void append_percentiles(std::string& out, const char* label, const stats::Percentiles& p,
                        const char* note) {
  appendf(out, "%s p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f%s\n", label, p.p50_ms, p.p90_ms,
          p.p99_ms, p.p999_ms, p.max_ms, note);
}

// ab's table (--verbose), from the intended start. It follows every other line because it is
// optional and a parser of ab's output only looks for its header.
void append_served_within(std::string& out, const stats::Summary& s) {
  append_within_table(out, s.served_within_ms);
}

// An "Errors:" line of rateperf's with the count of each of `kinds`.
void append_error_line(std::string& out, const stats::Summary& s,
                       std::initializer_list<ErrorKind> kinds) {
  out += "Errors:";
  for (const ErrorKind kind : kinds) {
    const auto label = error_label(kind);
    appendf(out, " %.*s %" PRIu64, static_cast<int>(label.size()), label.data(),
            count_of(s.errors, kind));
  }
  out += '\n';
}

// rateperf's own lines. No label repeats one of httperf's labels ("Reply latency" is not
// "Reply time", "Connect time" is not "Connection time", and the parse-error line is a third
// "Errors:" line whose first label is not "total" or "fd-unavail"), so that parsers of
// httperf's report, which match on labels, are not misled by them.
// Which clock timed the reply figures above, and (when it was the kernel's) the client's own
// figures of the same replies beside them.
void append_clock(std::string& out, const stats::Summary& s) {
  const stats::ClockFigures& c = s.clock;
  if (!c.kernel) {
    appendf(out, "Reply clock: the client's reads%s%s%s\n", c.fallback.empty() ? "" : " (",
            c.fallback.c_str(), c.fallback.empty() ? "" : ")");
    return;
  }
  appendf(out,
          "Reply clock: kernel timestamps for %" PRIu64 " of %" PRIu64 " replies (%" PRIu64
          " from the request's transmit stamp), the client's reads for the "
          "rest; connect times the client's",
          c.kernel_replies, s.replies, c.kernel_sends);
  if (c.batch_reads_s > 0)
    appendf(out, "; replies read in batches within %.3g ms", c.batch_reads_s * 1e3);
  out += "\n";
  appendf(out,
          "Client's clock [ms]: latency p50 %.1f p99 %.1f, response p50 %.1f p99 %.1f, reply "
          "time response %.1f transfer %.1f (the same replies as the client read them)\n",
          c.user_latency.p50_ms, c.user_latency.p99_ms, c.user_response_time.p50_ms,
          c.user_response_time.p99_ms, c.user_response_avg_ms, c.user_transfer_avg_ms);
}

void append_rateperf_lines(std::string& out, const stats::Summary& s) {
  // The parse-error line is always printed, zeros included, so that parsers can rely on it;
  // TLS's kinds have a line of their own in TLS runs.
  append_error_line(out, s,
                    {ErrorKind::parse_status, ErrorKind::parse_header, ErrorKind::parse_chunk,
                     ErrorKind::parse_other, ErrorKind::unanswered});
  if (s.tls_run) {
    append_error_line(out, s,
                      {ErrorKind::tls_handshake, ErrorKind::tls_certificate, ErrorKind::tls_alert});
  }
  out += '\n';

  append_percentiles(out, "Reply latency [ms]:", s.latency_intended, " (from intended start)");
  append_percentiles(out, "Reply latency [ms]:", s.latency_actual, " (from actual start)");
  if (s.request_mode) {
    append_percentiles(out, "Request wait [ms]:", s.request_wait,
                       " (intended start to first byte sent)");
  }
  append_percentiles(out, "Connect time [ms]:", s.connect_time, "");
  if (s.tls_run) {
    append_percentiles(out, "TLS handshake [ms]:", s.tls.handshake, " (ClientHello to finished)");
    appendf(out, "TLS: handshakes full %" PRIu64 " resumed %" PRIu64 ", protocol %s, cipher %s\n",
            s.tls.full, s.tls.resumed, s.tls.protocol.empty() ? "-" : s.tls.protocol.c_str(),
            s.tls.cipher.empty() ? "-" : s.tls.cipher.c_str());
  }
  append_percentiles(out, "Response time [ms]:", s.response_time, "");
  append_clock(out, s);
  appendf(out,
          "Client lag [ms]: p50 %.3f p99 %.3f max %.3f (%" PRIu64
          " arrivals more than 1 ms late)\n",
          s.lag_p50_ms, s.lag_p99_ms, s.lag_max_ms, s.lag_late_arrivals);
  if (s.moved_arrivals > 0) {
    appendf(out,
            "Threads: %" PRIu64
            " arrivals started by a worker with time to spare (theirs was 2 ms or more behind)\n",
            s.moved_arrivals);
  }

  // The schedule's arrivals: connections, or in request mode requests.
  const char* unit = s.request_mode ? "req/s" : s.sessions_run ? "sess/s" : "conn/s";
  if (s.concurrency > 0) {
    appendf(out,
            "Offered rate: closed loop of %" PRIu64
            " slot%s (each starts its next %s %.3g s after its last one ended: the rate is "
            "whatever the server allowed, and lag does not apply)",
            s.concurrency, s.concurrency == 1 ? "" : "s", s.request_mode ? "request" : "connection",
            s.think_s);
  } else if (s.offered_rate_per_s > 0) {
    appendf(out, "Offered rate: %.1f %s", s.offered_rate_per_s, unit);
  } else {
    out += "Offered rate: sequential (one connection after another)";
  }
  appendf(out, ", issue window %.3f s (first to last arrival), issued rate %.1f %s\n",
          s.issue_window_s, s.issued_rate_per_s, unit);
  appendf(out,
          "Test duration: %.3f s (start to end of the last connection; httperf's rates divide "
          "by it)\n",
          s.duration_s);
  const stats::TimingFigures& t = s.timing;
  // Auto at a high rate takes batch's turns, and says so.
  std::string mode = t.mode;
  if (mode == "auto" && t.turn_ms > 0) appendf(mode, " in turns of %.3f ms", t.turn_ms);
  appendf(out,
          "Timing: %s, CPU %.1f%% of a core (sleeps %" PRIu64 " polls %" PRIu64
          " timer-arms %" PRIu64 "; wake-up lateness p50 %.3f p99 %.3f ms; margin %.3f ms)\n",
          mode.c_str(), t.cpu_percent, t.sleeps, t.polls, t.timer_arms, t.lateness_p50_ms,
          t.lateness_p99_ms, t.margin_ms);
  if (s.interrupted) out += "Run: interrupted (SIGINT/SIGTERM) before the end of the schedule\n";

  if (s.show_served_within) append_served_within(out, s);
}

}  // namespace

std::string format_text(const stats::Summary& summary) {
  std::string out;
  out.reserve(2048);
  append_httperf_lines(out, summary);
  append_rateperf_lines(out, summary);
  return out;
}

std::string format_series(const stats::Summary& s) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line,
                "Series [%g s]: start_s arrivals replies errors open latency_p50_ms p90 p99 max "
                "lag_p99_ms\n",
                s.series_interval_s);
  out += line;
  for (const stats::SeriesFigures& p : s.series) {
    std::snprintf(line, sizeof line,
                  "Series: %.3f %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                  " %.1f %.1f %.1f %.1f %.3f\n",
                  p.start_s, p.arrivals, p.replies, p.errors_total, p.open_connections,
                  p.latency_p50_ms, p.latency_p90_ms, p.latency_p99_ms, p.latency_max_ms,
                  p.lag_p99_ms);
    out += line;
  }
  return out;
}

}  // namespace rateperf::report

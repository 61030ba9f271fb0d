#include "report/tool_report.hpp"

#include <cinttypes>
#include <cmath>

#include "core/errors.hpp"
#include "core/version.hpp"
#include "report/printf_text.hpp"
#include "report/text_report.hpp"

namespace rateperf::report {

namespace {

double per(double numerator, double denominator) {
  return denominator > 0 ? numerator / denominator : 0;
}

std::uint64_t sum_of(const ErrorCounts& counts, std::initializer_list<ErrorKind> kinds) {
  std::uint64_t sum = 0;
  for (const ErrorKind kind : kinds) sum += count_of(counts, kind);
  return sum;
}

// ab's four kinds of failed requests: connecting, receiving (a reset, a timeout, a reply cut
// short or malformed), the reply's length differing from the first one's, and the rest.
struct AbFailures {
  std::uint64_t connect = 0;
  std::uint64_t receive = 0;
  std::uint64_t length = 0;
  std::uint64_t exceptions = 0;
  std::uint64_t total() const { return connect + receive + length + exceptions; }
};

AbFailures ab_failures(const stats::Summary& s) {
  AbFailures f;
  f.connect =
      sum_of(s.errors, {ErrorKind::socket_timo, ErrorKind::connrefused, ErrorKind::fd_unavail,
                        ErrorKind::addrunavail, ErrorKind::ftab_full, ErrorKind::tls_handshake,
                        ErrorKind::tls_certificate, ErrorKind::tls_alert});
  f.receive =
      sum_of(s.errors, {ErrorKind::client_timo, ErrorKind::connreset, ErrorKind::parse_status,
                        ErrorKind::parse_header, ErrorKind::parse_chunk, ErrorKind::parse_other,
                        ErrorKind::unanswered});
  f.exceptions = count_of(s.errors, ErrorKind::other);
  f.length = s.length_mismatches;
  return f;
}

// One row of ab's "Connection Times (ms)": min, mean, sd, median, max, rounded to whole ms as
// ab prints them (its sd with one decimal).
void append_ab_row(std::string& out, const char* label, const stats::MsFigures& f) {
  appendf(out, "%-11s %5.0f %4.0f %5.1f %6.0f %7.0f\n", label, f.min_ms, f.avg_ms, f.stddev_ms,
          f.median_ms, f.max_ms);
}

}  // namespace

std::string format_ab(const stats::Summary& s, const options::Config& config) {
  std::string out;
  out.reserve(2048);
  const AbFailures failed = ab_failures(s);
  // ab's "done": every request that ended but those that never connected.
  const std::uint64_t done = s.replies + s.errors_total - failed.connect;
  const double seconds = s.duration_s;
  // A closed loop's slots are ab's -c; an open loop has no such level: its peak of open
  // connections stands in, and the mean time per request is the mean Total itself (which
  // ab's concurrency x time / requests estimates, by Little's law, in its closed loop).
  const std::uint64_t level = s.concurrency > 0 ? s.concurrency : s.max_concurrent;
  const double per_request_ms =
      s.concurrency > 0
          ? per(static_cast<double>(s.concurrency) * seconds * 1000.0, static_cast<double>(done))
          : s.ab_total.avg_ms;

  appendf(out, "This is rateperf %s, in ApacheBench's report format (--format ab)\n\n", kVersion);
  appendf(out, "Server Hostname:        %s\n", config.server.c_str());
  appendf(out, "Server Port:            %u\n", static_cast<unsigned>(config.port));
  if (config.tls) appendf(out, "SSL/TLS Protocol:       %s\n", s.tls.protocol.c_str());
  out += '\n';
  appendf(out, "Document Path:          %s\n", config.uri.c_str());
  appendf(out, "Document Length:        %" PRIu64 " bytes\n", s.document_bytes);
  out += '\n';
  appendf(out, "Concurrency Level:      %" PRIu64 "\n", level);
  appendf(out, "Time taken for tests:   %.3f seconds\n", seconds);
  appendf(out, "Complete requests:      %" PRIu64 "\n", done);
  appendf(out, "Failed requests:        %" PRIu64 "\n", failed.total());
  if (failed.total() > 0) {
    appendf(out,
            "   (Connect: %" PRIu64 ", Receive: %" PRIu64 ", Length: %" PRIu64
            ", Exceptions: %" PRIu64 ")\n",
            failed.connect, failed.receive, failed.length, failed.exceptions);
  }
  const std::uint64_t non_2xx = s.replies - s.status_classes[1];
  if (non_2xx > 0) appendf(out, "Non-2xx responses:      %" PRIu64 "\n", non_2xx);
  if (s.request_mode) appendf(out, "Keep-Alive requests:    %" PRIu64 "\n", s.replies);
  appendf(out, "Total transferred:      %" PRIu64 " bytes\n", s.reply_bytes);
  appendf(out, "HTML transferred:       %" PRIu64 " bytes\n", s.reply_body_bytes);
  appendf(out, "Requests per second:    %.2f [#/sec] (mean)\n",
          per(static_cast<double>(done), seconds));
  appendf(out, "Time per request:       %.3f [ms] (mean)\n", per_request_ms);
  appendf(out, "Time per request:       %.3f [ms] (mean, across all concurrent requests)\n",
          per(seconds * 1000.0, static_cast<double>(done)));
  appendf(out, "Transfer rate:          %.2f [Kbytes/sec] received\n",
          per(static_cast<double>(s.reply_bytes) / 1024.0, seconds));
  out += '\n';
  out += "Connection Times (ms)\n";
  out += "              min  mean[+/-sd] median   max\n";
  append_ab_row(out, "Connect:", s.ab_connect);
  append_ab_row(out, "Processing:", s.ab_processing);
  append_ab_row(out, "Waiting:", s.ab_waiting);
  append_ab_row(out, "Total:", s.ab_total);
  append_within_table(out, s.ab_within_ms);
  return out;
}

std::string format_siege(const stats::Summary& s) {
  std::string out;
  out.reserve(1024);
  // siege's failures: socket failures (every error of ours: none ends with a reply) and
  // replies with a status of 400 or more; its transactions are the replies.
  const std::uint64_t status_failures = s.status_classes[3] + s.status_classes[4];
  const std::uint64_t failed = s.errors_total + status_failures;
  const double seconds = s.duration_s;
  // siege counts the replies' bodies, not their headers.
  const double megabytes = static_cast<double>(s.reply_body_bytes) / (1024.0 * 1024.0);
  const double replies = static_cast<double>(s.replies);
  appendf(out, "Transactions:\t\t%12" PRIu64 " hits\n", s.replies);
  appendf(out, "Availability:\t\t%12.2f %%\n",
          per(100.0 * replies, replies + static_cast<double>(s.errors_total)));
  appendf(out, "Elapsed time:\t\t%12.2f secs\n", seconds);
  appendf(out, "Data transferred:\t%12.2f MB\n", megabytes);
  appendf(out, "Response time:\t\t%12.2f secs\n", s.ab_total.avg_ms / 1000.0);
  appendf(out, "Transaction rate:\t%12.2f trans/sec\n", per(replies, seconds));
  appendf(out, "Throughput:\t\t%12.2f MB/sec\n", per(megabytes, seconds));
  appendf(out, "Concurrency:\t\t%12.2f\n", per(replies * s.ab_total.avg_ms / 1000.0, seconds));
  appendf(out, "Successful transactions:%12" PRIu64 "\n", s.replies - status_failures);
  appendf(out, "Failed transactions:\t%12" PRIu64 "\n", failed);
  appendf(out, "Longest transaction:\t%12.2f\n", s.ab_total.max_ms / 1000.0);
  appendf(out, "Shortest transaction:\t%12.2f\n", s.ab_total.min_ms / 1000.0);
  return out;
}

std::string format_report(const stats::Summary& summary, const options::Config& config) {
  switch (config.format) {
    case options::ReportFormat::ab:
      return format_ab(summary, config);
    case options::ReportFormat::siege:
      return format_siege(summary);
    case options::ReportFormat::httperf:
      break;
  }
  return format_text(summary);
}

}  // namespace rateperf::report

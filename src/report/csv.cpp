#include "report/csv.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "core/errors.hpp"

namespace rateperf::report {

namespace {

using options::Config;
using stats::Summary;

// Rates, times and percentages with three decimals: microseconds for the ms figures, enough
// for sweeps to be compared, and one fixed format so that a column never changes its look.
std::string decimal(double value) {
  char text[64];
  const int length = std::snprintf(text, sizeof text, "%.3f", value);
  return length > 0 ? std::string(text, static_cast<std::size_t>(length)) : std::string("0");
}

std::string whole(std::uint64_t value) {
  return std::to_string(value);
}

std::string flag(bool value) {
  return value ? "1" : "0";
}

// RFC 4180: a field is quoted only when it must be, and a quote inside is doubled.
std::string text(std::string_view value) {
  if (value.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(value);
  std::string quoted = "\"";
  for (char ch : value) {
    if (ch == '"') quoted += '"';
    quoted += ch;
  }
  quoted += '"';
  return quoted;
}

struct Column {
  std::string_view name;
  std::string (*format)(const Summary&, const Config&);
};

// The one table of columns: csv_header() prints the names and csv_row() the formats, so the two
// cannot drift apart. Columns are only ever appended (docs/csv.md): sweeps append rows of later
// versions to files written by earlier ones.
constexpr std::array kColumns = {
    Column{"start_time_utc", [](const Summary& s, const Config&) { return text(s.start_time_utc); }},
    Column{"server", [](const Summary&, const Config& c) { return text(c.server); }},
    Column{"port", [](const Summary&, const Config& c) { return whole(c.port); }},
    Column{"uri", [](const Summary&, const Config& c) { return text(c.uri); }},
    Column{"offered_rate_per_s",
           [](const Summary& s, const Config&) { return decimal(s.offered_rate_per_s); }},
    Column{"num_conns", [](const Summary&, const Config& c) { return whole(c.num_conns); }},
    Column{"timeout_s", [](const Summary&, const Config& c) { return decimal(to_s(c.timeout)); }},
    Column{"seed", [](const Summary&, const Config& c) { return whole(c.seed); }},
    Column{"duration_s", [](const Summary& s, const Config&) { return decimal(s.duration_s); }},
    Column{"issue_window_s",
           [](const Summary& s, const Config&) { return decimal(s.issue_window_s); }},
    Column{"issued_rate_per_s",
           [](const Summary& s, const Config&) { return decimal(s.issued_rate_per_s); }},
    Column{"connections", [](const Summary& s, const Config&) { return whole(s.connections); }},
    Column{"requests", [](const Summary& s, const Config&) { return whole(s.requests); }},
    Column{"replies", [](const Summary& s, const Config&) { return whole(s.replies); }},
    Column{"connection_rate_per_s",
           [](const Summary& s, const Config&) { return decimal(s.connection_rate_per_s); }},
    Column{"max_concurrent",
           [](const Summary& s, const Config&) { return whole(s.max_concurrent); }},
    Column{"request_rate_per_s",
           [](const Summary& s, const Config&) { return decimal(s.request_rate_per_s); }},
    Column{"reply_rate_min_per_s",
           [](const Summary& s, const Config&) { return decimal(s.reply_rate_min); }},
    Column{"reply_rate_avg_per_s",
           [](const Summary& s, const Config&) { return decimal(s.reply_rate_avg); }},
    Column{"reply_rate_max_per_s",
           [](const Summary& s, const Config&) { return decimal(s.reply_rate_max); }},
    Column{"reply_rate_stddev_per_s",
           [](const Summary& s, const Config&) { return decimal(s.reply_rate_stddev); }},
    Column{"reply_rate_samples",
           [](const Summary& s, const Config&) { return whole(s.reply_rate_samples); }},
    Column{"reply_time_response_ms",
           [](const Summary& s, const Config&) { return decimal(s.response_avg_ms); }},
    Column{"reply_time_transfer_ms",
           [](const Summary& s, const Config&) { return decimal(s.transfer_avg_ms); }},
    Column{"connection_time_avg_ms",
           [](const Summary& s, const Config&) { return decimal(s.connection_time.avg_ms); }},
    Column{"connection_time_median_ms",
           [](const Summary& s, const Config&) { return decimal(s.connection_time.median_ms); }},
    Column{"connect_time_avg_ms",
           [](const Summary& s, const Config&) { return decimal(s.connect_avg_ms); }},
    Column{"latency_p50_ms",
           [](const Summary& s, const Config&) { return decimal(s.latency_intended.p50_ms); }},
    Column{"latency_p90_ms",
           [](const Summary& s, const Config&) { return decimal(s.latency_intended.p90_ms); }},
    Column{"latency_p99_ms",
           [](const Summary& s, const Config&) { return decimal(s.latency_intended.p99_ms); }},
    Column{"latency_p999_ms",
           [](const Summary& s, const Config&) { return decimal(s.latency_intended.p999_ms); }},
    Column{"latency_max_ms",
           [](const Summary& s, const Config&) { return decimal(s.latency_intended.max_ms); }},
    Column{"lag_p99_ms", [](const Summary& s, const Config&) { return decimal(s.lag_p99_ms); }},
    Column{"max_burst", [](const Summary& s, const Config&) { return whole(s.max_burst); }},
    Column{"cpu_total_percent",
           [](const Summary& s, const Config&) { return decimal(s.cpu_total_percent); }},
    Column{"net_io_kb_per_s",
           [](const Summary& s, const Config&) { return decimal(s.net_io_kb_per_s); }},
    Column{"errors_total", [](const Summary& s, const Config&) { return whole(s.errors_total); }},
    Column{"client_timo",
           [](const Summary& s, const Config&) {
             return whole(count_of(s.errors, ErrorKind::client_timo));
           }},
    Column{"socket_timo",
           [](const Summary& s, const Config&) {
             return whole(count_of(s.errors, ErrorKind::socket_timo));
           }},
    Column{"connrefused",
           [](const Summary& s, const Config&) {
             return whole(count_of(s.errors, ErrorKind::connrefused));
           }},
    Column{"connreset",
           [](const Summary& s, const Config&) {
             return whole(count_of(s.errors, ErrorKind::connreset));
           }},
    Column{"fd_unavail",
           [](const Summary& s, const Config&) {
             return whole(count_of(s.errors, ErrorKind::fd_unavail));
           }},
    Column{"addrunavail",
           [](const Summary& s, const Config&) {
             return whole(count_of(s.errors, ErrorKind::addrunavail));
           }},
    Column{"ftab_full",
           [](const Summary& s, const Config&) {
             return whole(count_of(s.errors, ErrorKind::ftab_full));
           }},
    // The pure kind, not httperf's lump of other errnos and malformed replies: those have their
    // own column next to it.
    Column{"other",
           [](const Summary& s, const Config&) { return whole(count_of(s.errors, ErrorKind::other)); }},
    Column{"parse_errors",
           [](const Summary& s, const Config&) {
             return whole(count_of(s.errors, ErrorKind::parse_status) +
                          count_of(s.errors, ErrorKind::parse_header) +
                          count_of(s.errors, ErrorKind::parse_chunk) +
                          count_of(s.errors, ErrorKind::parse_other));
           }},
    Column{"status_1xx",
           [](const Summary& s, const Config&) { return whole(s.status_classes[0]); }},
    Column{"status_2xx",
           [](const Summary& s, const Config&) { return whole(s.status_classes[1]); }},
    Column{"status_3xx",
           [](const Summary& s, const Config&) { return whole(s.status_classes[2]); }},
    Column{"status_4xx",
           [](const Summary& s, const Config&) { return whole(s.status_classes[3]); }},
    Column{"status_5xx",
           [](const Summary& s, const Config&) { return whole(s.status_classes[4]); }},
    Column{"interrupted", [](const Summary& s, const Config&) { return flag(s.interrupted); }},
    // Keep-alive and request mode (issue 15), after the older columns so that a spreadsheet
    // built on them keeps its references.
    Column{"unanswered",
           [](const Summary& s, const Config&) {
             return whole(count_of(s.errors, ErrorKind::unanswered));
           }},
    Column{"calls", [](const Summary& s, const Config&) { return whole(s.calls); }},
    Column{"num_calls", [](const Summary&, const Config& c) { return whole(c.num_calls); }},
    Column{"burst_length", [](const Summary&, const Config& c) { return whole(c.burst_length); }},
    Column{"request_mode", [](const Summary& s, const Config&) { return flag(s.request_mode); }},
    Column{"request_wait_p50_ms",
           [](const Summary& s, const Config&) { return decimal(s.request_wait.p50_ms); }},
    Column{"request_wait_p99_ms",
           [](const Summary& s, const Config&) { return decimal(s.request_wait.p99_ms); }},
    // Sessions (issue 16): httperf's session figures; zeros when the run made none.
    Column{"sessions_completed",
           [](const Summary& s, const Config&) { return whole(s.sessions.completed); }},
    Column{"sessions_failed",
           [](const Summary& s, const Config&) { return whole(s.sessions.failed); }},
    Column{"session_rate_avg",
           [](const Summary& s, const Config&) { return decimal(s.sessions.rate_avg); }},
    Column{"connections_per_session",
           [](const Summary& s, const Config&) { return decimal(s.sessions.connections_per_session); }},
    Column{"session_lifetime_avg_s",
           [](const Summary& s, const Config&) { return decimal(s.sessions.lifetime_avg_s); }},
    Column{"session_failtime_avg_s",
           [](const Summary& s, const Config&) { return decimal(s.sessions.failtime_avg_s); }},
    // TLS (issue 17): zeros when the run spoke plain HTTP.
    Column{"tls_handshakes_full", [](const Summary& s, const Config&) { return whole(s.tls.full); }},
    Column{"tls_handshakes_resumed",
           [](const Summary& s, const Config&) { return whole(s.tls.resumed); }},
    Column{"tls_handshake_p50_ms",
           [](const Summary& s, const Config&) { return decimal(s.tls.handshake.p50_ms); }},
    Column{"tls_handshake_p99_ms",
           [](const Summary& s, const Config&) { return decimal(s.tls.handshake.p99_ms); }},
    Column{"tls_errors",
           [](const Summary& s, const Config&) {
             return whole(count_of(s.errors, ErrorKind::tls_handshake) +
                          count_of(s.errors, ErrorKind::tls_certificate) +
                          count_of(s.errors, ErrorKind::tls_alert));
           }},
    // The closed loop (issue 20): its slots (0: the open loop) and ab's mean Total.
    Column{"concurrency", [](const Summary& s, const Config&) { return whole(s.concurrency); }},
    Column{"think_s", [](const Summary& s, const Config&) { return decimal(s.think_s); }},
    Column{"total_avg_ms", [](const Summary& s, const Config&) { return decimal(s.ab_total.avg_ms); }},
};

}  // namespace

std::string csv_header() {
  std::string line;
  for (const auto& column : kColumns) {
    if (!line.empty()) line += ',';
    line += column.name;
  }
  line += '\n';
  return line;
}

std::string csv_row(const stats::Summary& summary, const options::Config& config) {
  std::string line;
  for (std::size_t i = 0; i < kColumns.size(); ++i) {
    if (i > 0) line += ',';
    line += kColumns[i].format(summary, config);
  }
  line += '\n';
  return line;
}

std::string series_csv(const Summary& s) {
  // Built by appending: GCC 12 gives a false -Wrestrict warning for "," + std::string(...).
  std::string out = "start_s,length_s,arrivals,replies,errors";
  for (std::size_t i = 0; i < kErrorKinds; ++i) {
    std::string kind(error_label(static_cast<ErrorKind>(i)));
    for (char& ch : kind) {
      if (ch == '-') ch = '_';
    }
    out += ",errors_";
    out += kind;
  }
  out +=
      ",open_connections,latency_p50_ms,latency_p90_ms,latency_p99_ms,latency_max_ms,"
      "lag_p99_ms\n";
  const auto field = [&out](const std::string& value) {
    out += value;
    out += ',';
  };
  for (const stats::SeriesFigures& p : s.series) {
    field(decimal(p.start_s));
    field(decimal(p.length_s));
    field(whole(p.arrivals));
    field(whole(p.replies));
    field(whole(p.errors_total));
    for (const std::uint64_t n : p.errors) field(whole(n));
    field(whole(p.open_connections));
    field(decimal(p.latency_p50_ms));
    field(decimal(p.latency_p90_ms));
    field(decimal(p.latency_p99_ms));
    field(decimal(p.latency_max_ms));
    out += decimal(p.lag_p99_ms);
    out += '\n';
  }
  return out;
}

}  // namespace rateperf::report

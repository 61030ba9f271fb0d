// The "export" suite's fixed run and the documented JSON fields (see export_fixture.hpp).

#include "export_fixture.hpp"

#include <cstddef>
#include <cstdint>

#include "core/clock.hpp"
#include "core/errors.hpp"

namespace rateperf::test {

using options::Config;
using options::PeriodKind;
using stats::Summary;

namespace {

void set_error(Summary& s, ErrorKind kind, std::uint64_t n) {
  s.errors[static_cast<std::size_t>(kind)] = n;
}

}  // namespace

Summary export_summary() {
  Summary s;
  s.command_line = "rateperf --timeout=5 --server=10.0.0.7 --port=8080 --uri=/a?b=c --rate=300";
  s.start_time_utc = "2024-05-06T07:08:09Z";
  s.max_burst = 7;
  s.arrivals = 40000;
  s.connections = 39999;
  s.requests = 39990;
  s.replies = 39980;
  s.duration_s = 133.45678;
  s.connection_rate_per_s = 299.72;
  s.ms_per_connection = 3.33645;
  s.max_concurrent = 19;
  s.connection_time = {39981, 0.21, 1.234, 5012.96, 1.5, 25.04};
  s.connect_avg_ms = 0.13;
  s.connect_count = 39985;
  s.replies_per_connection = 0.9991;
  s.request_rate_per_s = 299.64;
  s.ms_per_request = 3.3373;
  s.request_size_avg_bytes = 72;
  s.reply_rate_min = 280.4;
  s.reply_rate_avg = 299.61;
  s.reply_rate_max = 310.2;
  s.reply_rate_stddev = 6.27;
  s.reply_rate_samples = 26;
  s.response_avg_ms = 0.94;
  s.transfer_avg_ms = 0.02;
  s.reply_header_avg_bytes = 236;
  s.reply_content_avg_bytes = 612.3;
  s.reply_footer_avg_bytes = 0.5;
  s.reply_total_avg_bytes = 848.8;
  s.status_classes = {1, 39900, 30, 40, 9};
  s.cpu_user_s = 1.234;
  s.cpu_system_s = 2.5;
  s.cpu_user_percent = 0.92;
  s.cpu_system_percent = 1.87;
  s.cpu_total_percent = 2.79;
  s.net_io_kb_per_s = 247.12;
  s.net_io_mbit_per_s = 2.02;
  set_error(s, ErrorKind::client_timo, 3);
  set_error(s, ErrorKind::socket_timo, 11);
  set_error(s, ErrorKind::connrefused, 4);
  set_error(s, ErrorKind::connreset, 5);
  set_error(s, ErrorKind::fd_unavail, 12);
  set_error(s, ErrorKind::addrunavail, 1);
  set_error(s, ErrorKind::ftab_full, 13);
  set_error(s, ErrorKind::other, 2);
  set_error(s, ErrorKind::parse_status, 6);
  set_error(s, ErrorKind::parse_header, 7);
  set_error(s, ErrorKind::parse_chunk, 8);
  set_error(s, ErrorKind::parse_other, 9);
  set_error(s, ErrorKind::unanswered, 10);
  s.errors_total = 91;
  s.errors_other_httperf = 42;  // other 2, the parse errors 6 + 7 + 8 + 9 and unanswered 10
  s.offered_rate_per_s = 300;
  s.issue_window_s = 133.33;
  s.issued_rate_per_s = 299.93;
  s.interrupted = true;
  s.latency_intended = {39980, 1.26, 2.34, 17.81, 250.47, 5012.96};
  s.latency_actual = {39979, 1.04, 1.92, 3.61, 48.77, 5011.02};
  s.connect_time = {39985, 0.11, 0.17, 0.42, 3.08, 1003.2};
  s.response_time = {39978, 0.87, 1.41, 2.66, 31.39, 4990.12};
  s.served_within_ms = {1.4, 2.2, 2.6, 4.2, 5.1, 6.4, 8.4, 17.6, 5012.96};
  s.lag_p50_ms = 0.0123;
  s.lag_p99_ms = 0.1876;
  s.lag_max_ms = 12.3456;
  s.lag_late_arrivals = 14;
  s.client_limited = true;
  s.lag_limit_ms = 10;
  s.samples = {{0, 5, 1490, 298, 1}, {5, 5, 1510, 302, 0}, {10, 2.5, 700, 280, 3}};
  s.series_interval_s = 1;
  stats::SeriesFigures point;
  point.start_s = 0;
  point.length_s = 1;
  point.arrivals = 300;
  point.replies = 297;
  point.errors_total = 2;
  point.errors[static_cast<std::size_t>(ErrorKind::client_timo)] = 2;
  point.open_connections = 41;
  point.latency_p50_ms = 1.2;
  point.latency_p90_ms = 3.4;
  point.latency_p99_ms = 9.9;
  point.latency_max_ms = 12.1;
  point.lag_p99_ms = 0.2;
  s.series = {point, point};
  s.series.back().start_s = 1;
  s.series.back().length_s = 0.5;
  s.tls_run = true;
  s.tls.full = 12;
  s.tls.resumed = 188;
  s.tls.handshake = {200, 0.9, 1.4, 2.2, 3.0, 3.1};
  s.tls.protocol = "TLSv1.3";
  s.tls.cipher = "TLS_AES_256_GCM_SHA384";
  s.sessions_run = true;
  s.sessions.completed = 9;
  s.sessions.failed = 1;
  s.sessions.total = 10;
  s.sessions.rate_min = 0.8;
  s.sessions.rate_avg = 1.25;
  s.sessions.rate_max = 1.6;
  s.sessions.rate_stddev = 0.4;
  s.sessions.rate_samples = 3;
  s.sessions.connections_per_session = 2.5;
  s.sessions.lifetime_avg_s = 3.25;
  s.sessions.failtime_avg_s = 1.5;
  s.sessions.length_histogram = {0, 1, 0, 9};
  return s;
}

Config export_config() {
  Config c;
  c.server = "10.0.0.7";
  c.port = 8080;
  c.uri = "/a?b=c";
  c.server_name = "example.test";
  c.period.kind = PeriodKind::variable;
  c.period.rate_per_s = 300;
  c.period.steps = {{from_s(0.01), from_s(2)}, {from_s(0.005), from_s(3)}};
  c.num_conns = 40000;
  c.myaddr = {"10.0.0.2-10.0.0.9"};
  c.threads = 2;
  c.cpus = {0, 1};
  c.start_at_unix_ns = 1'796'407'200'250'000'000;  // 2026-12-04T18:00:00.250Z
  c.num_calls = 1;
  c.timeout = from_s(5);
  c.think_timeout = from_s(0.25);
  c.method = "HEAD";
  c.add_headers = {"X-One: 1", "X-Two: 2"};
  c.http_version = "1.0";
  c.send_buffer_bytes = 65536;  // recv_buffer left at its default, not given
  c.client_id = 2;
  c.client_count = 3;
  c.seed = 424242;
  c.verbose = 2;
  c.max_lag = from_s(0.05);
  c.max_error_rate_percent = -1;
  return c;
}

const std::vector<JsonField>& documented_fields() {
  static const std::vector<JsonField> fields = {
      {"/schema_version", JsonType::integer},
      {"/rateperf_version", JsonType::string},
      {"/start_time_utc", JsonType::string},
      {"/command_line", JsonType::string},
      {"/interrupted", JsonType::boolean},
      {"/config", JsonType::object},
      {"/config/server", JsonType::string},
      {"/config/port", JsonType::integer},
      {"/config/uri", JsonType::string},
      {"/config/server_name", JsonType::string},
      {"/config/rate_per_s", JsonType::number},
      {"/config/period", JsonType::object},
      {"/config/period/kind", JsonType::string},
      {"/config/period/mean_s", JsonType::number},
      {"/config/period/low_s", JsonType::number},
      {"/config/period/high_s", JsonType::number},
      {"/config/period/steps", JsonType::array},
      {"/config/period/steps[]/gap_s", JsonType::number},
      {"/config/period/steps[]/length_s", JsonType::number},
      {"/config/num_conns", JsonType::integer},
      {"/config/num_calls", JsonType::integer},
      {"/config/burst_length", JsonType::integer},
      {"/config/max_piped_calls", JsonType::integer},
      {"/config/request_rate_per_s", JsonType::number_or_null},
      {"/config/connections", JsonType::number_or_null},
      {"/config/requests", JsonType::number_or_null},
      {"/config/duration_s", JsonType::number_or_null},
      {"/config/concurrency", JsonType::number_or_null},
      {"/config/think_s", JsonType::number},
      {"/config/timeout_s", JsonType::number},
      {"/config/think_timeout_s", JsonType::number},
      {"/config/method", JsonType::string},
      {"/config/add_headers", JsonType::array},
      {"/config/add_headers[]", JsonType::string},
      {"/config/http_version", JsonType::string},
      {"/config/no_host_header", JsonType::boolean},
      {"/config/wlog_file", JsonType::string_or_null},
      {"/config/wlog_wrap", JsonType::boolean},
      {"/config/wset_files", JsonType::number_or_null},
      {"/config/wset_rate", JsonType::number_or_null},
      {"/config/server_addresses", JsonType::string},
      {"/config/myaddr", JsonType::array},
      {"/config/myaddr[]", JsonType::string},
      {"/config/hog", JsonType::boolean},
      {"/config/tls", JsonType::boolean},
      {"/config/tls_server_name", JsonType::string_or_null},
      {"/config/ssl_protocol", JsonType::string},
      {"/config/ssl_ciphers", JsonType::string_or_null},
      {"/config/tls_ciphersuites", JsonType::string_or_null},
      {"/config/ssl_reuse", JsonType::boolean},
      {"/config/ssl_verify", JsonType::boolean},
      {"/config/ssl_ca_file", JsonType::string_or_null},
      {"/config/sessions", JsonType::integer},
      {"/config/session_think_s", JsonType::number_or_null},
      {"/config/wsess_calls", JsonType::number_or_null},
      {"/config/wsesslog_file", JsonType::string_or_null},
      {"/config/max_connections", JsonType::integer},
      {"/config/failure_status", JsonType::number_or_null},
      {"/config/retry_on_failure", JsonType::boolean},
      {"/config/session_cookies", JsonType::boolean},
      {"/config/close_with_reset", JsonType::boolean},
      {"/config/print_request", JsonType::string},
      {"/config/print_reply", JsonType::string},
      {"/config/send_buffer_bytes", JsonType::number_or_null},
      {"/config/recv_buffer_bytes", JsonType::number_or_null},
      {"/config/client", JsonType::object},
      {"/config/client/id", JsonType::integer},
      {"/config/client/count", JsonType::integer},
      {"/config/seed", JsonType::integer},
      {"/config/verbose", JsonType::integer},
      {"/config/timing", JsonType::string},
      {"/config/clock", JsonType::string},
      {"/config/batch_reads_s", JsonType::number},
      {"/config/threads", JsonType::integer},
      {"/config/cpus", JsonType::array},
      {"/config/cpus[]", JsonType::integer},
      {"/config/shard", JsonType::object},
      {"/config/shard/index", JsonType::integer},
      {"/config/shard/count", JsonType::integer},
      {"/config/start_at", JsonType::string_or_null},
      {"/config/interval_s", JsonType::number},
      {"/config/max_lag_ms", JsonType::number_or_null},
      {"/config/max_error_rate_percent", JsonType::number_or_null},
      {"/totals", JsonType::object},
      {"/totals/arrivals", JsonType::integer},
      {"/totals/connections", JsonType::integer},
      {"/totals/requests", JsonType::integer},
      {"/totals/replies", JsonType::integer},
      {"/totals/calls", JsonType::integer},
      {"/request_mode", JsonType::boolean},
      {"/totals/duration_s", JsonType::number},
      {"/schedule", JsonType::object},
      {"/schedule/offered_rate_per_s", JsonType::number},
      {"/schedule/issue_window_s", JsonType::number},
      {"/schedule/issued_rate_per_s", JsonType::number},
      {"/schedule/intended_window_s", JsonType::number},
      {"/schedule/intended_rate_per_s", JsonType::number},
      {"/schedule/max_burst", JsonType::integer},
      {"/connection_rate", JsonType::object},
      {"/connection_rate/per_s", JsonType::number},
      {"/connection_rate/ms_per_connection", JsonType::number},
      {"/connection_rate/max_concurrent", JsonType::integer},
      {"/connection_rate/max_concurrent_is_bound", JsonType::boolean},
      {"/connection_time", JsonType::object},
      {"/connection_time/count", JsonType::integer},
      {"/connection_time/min_ms", JsonType::number},
      {"/connection_time/avg_ms", JsonType::number},
      {"/connection_time/max_ms", JsonType::number},
      {"/connection_time/median_ms", JsonType::number},
      {"/connection_time/stddev_ms", JsonType::number},
      {"/connection_time/connect_avg_ms", JsonType::number},
      {"/connection_time/connect_count", JsonType::integer},
      {"/connection_length", JsonType::object},
      {"/connection_length/replies_per_connection", JsonType::number},
      {"/request_rate", JsonType::object},
      {"/request_rate/per_s", JsonType::number},
      {"/request_rate/ms_per_request", JsonType::number},
      {"/request_size", JsonType::object},
      {"/request_size/avg_bytes", JsonType::number},
      {"/reply_rate", JsonType::object},
      {"/reply_rate/min_per_s", JsonType::number},
      {"/reply_rate/avg_per_s", JsonType::number},
      {"/reply_rate/max_per_s", JsonType::number},
      {"/reply_rate/stddev_per_s", JsonType::number},
      {"/reply_rate/samples", JsonType::integer},
      {"/reply_time", JsonType::object},
      {"/reply_time/response_ms", JsonType::number},
      {"/reply_time/transfer_ms", JsonType::number},
      {"/reply_size", JsonType::object},
      {"/reply_size/header_bytes", JsonType::number},
      {"/reply_size/content_bytes", JsonType::number},
      {"/reply_size/footer_bytes", JsonType::number},
      {"/reply_size/total_bytes", JsonType::number},
      {"/reply_status", JsonType::object},
      {"/reply_status/1xx", JsonType::integer},
      {"/reply_status/2xx", JsonType::integer},
      {"/reply_status/3xx", JsonType::integer},
      {"/reply_status/4xx", JsonType::integer},
      {"/reply_status/5xx", JsonType::integer},
      {"/cpu", JsonType::object},
      {"/cpu/user_s", JsonType::number},
      {"/cpu/system_s", JsonType::number},
      {"/cpu/user_percent", JsonType::number},
      {"/cpu/system_percent", JsonType::number},
      {"/cpu/total_percent", JsonType::number},
      {"/net_io", JsonType::object},
      {"/net_io/kb_per_s", JsonType::number},
      {"/net_io/mbit_per_s", JsonType::number},
      {"/errors", JsonType::object},
      {"/errors/total", JsonType::integer},
      {"/errors/client_timo", JsonType::integer},
      {"/errors/socket_timo", JsonType::integer},
      {"/errors/connrefused", JsonType::integer},
      {"/errors/connreset", JsonType::integer},
      {"/errors/fd_unavail", JsonType::integer},
      {"/errors/addrunavail", JsonType::integer},
      {"/errors/ftab_full", JsonType::integer},
      {"/errors/other", JsonType::integer},
      {"/errors/parse_status", JsonType::integer},
      {"/errors/parse_header", JsonType::integer},
      {"/errors/parse_chunk", JsonType::integer},
      {"/errors/parse_other", JsonType::integer},
      {"/errors/unanswered", JsonType::integer},
      {"/errors/tls_handshake", JsonType::integer},
      {"/errors/tls_cert", JsonType::integer},
      {"/errors/tls_alert", JsonType::integer},
      {"/latency_intended", JsonType::object},
      {"/latency_intended/count", JsonType::integer},
      {"/latency_intended/p50_ms", JsonType::number},
      {"/latency_intended/p90_ms", JsonType::number},
      {"/latency_intended/p99_ms", JsonType::number},
      {"/latency_intended/p99_9_ms", JsonType::number},
      {"/latency_intended/max_ms", JsonType::number},
      {"/latency_actual", JsonType::object},
      {"/latency_actual/count", JsonType::integer},
      {"/latency_actual/p50_ms", JsonType::number},
      {"/latency_actual/p90_ms", JsonType::number},
      {"/latency_actual/p99_ms", JsonType::number},
      {"/latency_actual/p99_9_ms", JsonType::number},
      {"/latency_actual/max_ms", JsonType::number},
      {"/tls", JsonType::object},
      {"/tls/used", JsonType::boolean},
      {"/tls/handshakes_full", JsonType::integer},
      {"/tls/handshakes_resumed", JsonType::integer},
      {"/tls/protocol", JsonType::string},
      {"/tls/cipher", JsonType::string},
      {"/tls/handshake", JsonType::object},
      {"/tls/handshake/count", JsonType::integer},
      {"/tls/handshake/p50_ms", JsonType::number},
      {"/tls/handshake/p90_ms", JsonType::number},
      {"/tls/handshake/p99_ms", JsonType::number},
      {"/tls/handshake/p99_9_ms", JsonType::number},
      {"/tls/handshake/max_ms", JsonType::number},
      {"/connect_time", JsonType::object},
      {"/connect_time/count", JsonType::integer},
      {"/connect_time/p50_ms", JsonType::number},
      {"/connect_time/p90_ms", JsonType::number},
      {"/connect_time/p99_ms", JsonType::number},
      {"/connect_time/p99_9_ms", JsonType::number},
      {"/connect_time/max_ms", JsonType::number},
      {"/sessions", JsonType::object},
      {"/sessions/total", JsonType::integer},
      {"/sessions/completed", JsonType::integer},
      {"/sessions/failed", JsonType::integer},
      {"/sessions/rate", JsonType::object},
      {"/sessions/rate/min_per_s", JsonType::number},
      {"/sessions/rate/avg_per_s", JsonType::number},
      {"/sessions/rate/max_per_s", JsonType::number},
      {"/sessions/rate/stddev_per_s", JsonType::number},
      {"/sessions/rate/samples", JsonType::integer},
      {"/sessions/connections_per_session", JsonType::number},
      {"/sessions/lifetime_avg_s", JsonType::number},
      {"/sessions/failtime_avg_s", JsonType::number},
      {"/sessions/length_histogram", JsonType::array},
      {"/sessions/length_histogram[]", JsonType::integer},
      {"/request_wait", JsonType::object},
      {"/request_wait/count", JsonType::integer},
      {"/request_wait/p50_ms", JsonType::number},
      {"/request_wait/p90_ms", JsonType::number},
      {"/request_wait/p99_ms", JsonType::number},
      {"/request_wait/p99_9_ms", JsonType::number},
      {"/request_wait/max_ms", JsonType::number},
      {"/response_time", JsonType::object},
      {"/response_time/count", JsonType::integer},
      {"/response_time/p50_ms", JsonType::number},
      {"/response_time/p90_ms", JsonType::number},
      {"/response_time/p99_ms", JsonType::number},
      {"/response_time/p99_9_ms", JsonType::number},
      {"/response_time/max_ms", JsonType::number},
      {"/served_within_ms", JsonType::object},
      {"/served_within_ms/50", JsonType::number},
      {"/served_within_ms/66", JsonType::number},
      {"/served_within_ms/75", JsonType::number},
      {"/served_within_ms/80", JsonType::number},
      {"/served_within_ms/90", JsonType::number},
      {"/served_within_ms/95", JsonType::number},
      {"/served_within_ms/98", JsonType::number},
      {"/served_within_ms/99", JsonType::number},
      {"/served_within_ms/100", JsonType::number},
      {"/clock", JsonType::object},
      {"/clock/asked", JsonType::string},
      {"/clock/kernel", JsonType::boolean},
      {"/clock/fallback", JsonType::string_or_null},
      {"/clock/replies", JsonType::string},
      {"/clock/kernel_replies", JsonType::integer},
      {"/clock/user_replies", JsonType::integer},
      {"/clock/kernel_sends", JsonType::integer},
      {"/clock/connect", JsonType::string},
      {"/clock/batch_reads_s", JsonType::number},
      {"/clock/wall_clock_steps", JsonType::integer},
      {"/clock/largest_step_ms", JsonType::number},
      {"/clock/user", JsonType::object},
      {"/clock/user/response_avg_ms", JsonType::number},
      {"/clock/user/transfer_avg_ms", JsonType::number},
      {"/clock/user/latency_intended", JsonType::object},
      {"/clock/user/latency_intended/count", JsonType::integer},
      {"/clock/user/latency_intended/p50_ms", JsonType::number},
      {"/clock/user/latency_intended/p90_ms", JsonType::number},
      {"/clock/user/latency_intended/p99_ms", JsonType::number},
      {"/clock/user/latency_intended/p99_9_ms", JsonType::number},
      {"/clock/user/latency_intended/max_ms", JsonType::number},
      {"/clock/user/response_time", JsonType::object},
      {"/clock/user/response_time/count", JsonType::integer},
      {"/clock/user/response_time/p50_ms", JsonType::number},
      {"/clock/user/response_time/p90_ms", JsonType::number},
      {"/clock/user/response_time/p99_ms", JsonType::number},
      {"/clock/user/response_time/p99_9_ms", JsonType::number},
      {"/clock/user/response_time/max_ms", JsonType::number},
      {"/loop", JsonType::object},
      {"/loop/kind", JsonType::string},
      {"/loop/concurrency", JsonType::integer},
      {"/loop/think_s", JsonType::number},
      {"/ab", JsonType::object},
      {"/ab/document_bytes", JsonType::integer},
      {"/ab/length_failures", JsonType::integer},
      {"/ab/reply_bytes", JsonType::integer},
      {"/ab/reply_body_bytes", JsonType::integer},
      {"/ab/connect", JsonType::object},
      {"/ab/connect/count", JsonType::integer},
      {"/ab/connect/min_ms", JsonType::number},
      {"/ab/connect/avg_ms", JsonType::number},
      {"/ab/connect/stddev_ms", JsonType::number},
      {"/ab/connect/median_ms", JsonType::number},
      {"/ab/connect/max_ms", JsonType::number},
      {"/ab/processing", JsonType::object},
      {"/ab/processing/count", JsonType::integer},
      {"/ab/processing/min_ms", JsonType::number},
      {"/ab/processing/avg_ms", JsonType::number},
      {"/ab/processing/stddev_ms", JsonType::number},
      {"/ab/processing/median_ms", JsonType::number},
      {"/ab/processing/max_ms", JsonType::number},
      {"/ab/waiting", JsonType::object},
      {"/ab/waiting/count", JsonType::integer},
      {"/ab/waiting/min_ms", JsonType::number},
      {"/ab/waiting/avg_ms", JsonType::number},
      {"/ab/waiting/stddev_ms", JsonType::number},
      {"/ab/waiting/median_ms", JsonType::number},
      {"/ab/waiting/max_ms", JsonType::number},
      {"/ab/total", JsonType::object},
      {"/ab/total/count", JsonType::integer},
      {"/ab/total/min_ms", JsonType::number},
      {"/ab/total/avg_ms", JsonType::number},
      {"/ab/total/stddev_ms", JsonType::number},
      {"/ab/total/median_ms", JsonType::number},
      {"/ab/total/max_ms", JsonType::number},
      {"/ab/served_within_ms", JsonType::object},
      {"/ab/served_within_ms/50", JsonType::number},
      {"/ab/served_within_ms/66", JsonType::number},
      {"/ab/served_within_ms/75", JsonType::number},
      {"/ab/served_within_ms/80", JsonType::number},
      {"/ab/served_within_ms/90", JsonType::number},
      {"/ab/served_within_ms/95", JsonType::number},
      {"/ab/served_within_ms/98", JsonType::number},
      {"/ab/served_within_ms/99", JsonType::number},
      {"/ab/served_within_ms/100", JsonType::number},
      {"/lag", JsonType::object},
      {"/lag/p50_ms", JsonType::number},
      {"/lag/p99_ms", JsonType::number},
      {"/lag/max_ms", JsonType::number},
      {"/lag/late_arrivals", JsonType::integer},
      {"/lag/moved_arrivals", JsonType::integer},
      {"/lag/limit_ms", JsonType::number},
      {"/lag/client_limited", JsonType::boolean},
      {"/timing", JsonType::object},
      {"/timing/mode", JsonType::string},
      {"/timing/cpu_percent", JsonType::number},
      {"/timing/sleeps", JsonType::integer},
      {"/timing/polls", JsonType::integer},
      {"/timing/timer_arms", JsonType::integer},
      {"/timing/timer_wakeups", JsonType::integer},
      {"/timing/lateness_p50_ms", JsonType::number},
      {"/timing/lateness_p99_ms", JsonType::number},
      {"/timing/margin_ms", JsonType::number},
      {"/timing/poll_below_ms", JsonType::number},
      {"/timing/turn_ms", JsonType::number},
      {"/samples", JsonType::array},
      {"/samples[]/start_s", JsonType::number},
      {"/samples[]/length_s", JsonType::number},
      {"/samples[]/replies", JsonType::integer},
      {"/samples[]/reply_rate_per_s", JsonType::number},
      {"/samples[]/errors", JsonType::integer},
      {"/series", JsonType::object},
      {"/series/interval_s", JsonType::number},
      {"/series/points", JsonType::array},
      {"/series/points[]/start_s", JsonType::number},
      {"/series/points[]/length_s", JsonType::number},
      {"/series/points[]/arrivals", JsonType::integer},
      {"/series/points[]/replies", JsonType::integer},
      {"/series/points[]/errors", JsonType::object},
      {"/series/points[]/errors/total", JsonType::integer},
      {"/series/points[]/errors/client_timo", JsonType::integer},
      {"/series/points[]/errors/socket_timo", JsonType::integer},
      {"/series/points[]/errors/connrefused", JsonType::integer},
      {"/series/points[]/errors/connreset", JsonType::integer},
      {"/series/points[]/errors/fd_unavail", JsonType::integer},
      {"/series/points[]/errors/addrunavail", JsonType::integer},
      {"/series/points[]/errors/ftab_full", JsonType::integer},
      {"/series/points[]/errors/other", JsonType::integer},
      {"/series/points[]/errors/parse_status", JsonType::integer},
      {"/series/points[]/errors/parse_header", JsonType::integer},
      {"/series/points[]/errors/parse_chunk", JsonType::integer},
      {"/series/points[]/errors/parse_other", JsonType::integer},
      {"/series/points[]/errors/unanswered", JsonType::integer},
      {"/series/points[]/errors/tls_handshake", JsonType::integer},
      {"/series/points[]/errors/tls_cert", JsonType::integer},
      {"/series/points[]/errors/tls_alert", JsonType::integer},
      {"/series/points[]/open_connections", JsonType::integer},
      {"/series/points[]/latency", JsonType::object},
      {"/series/points[]/latency/p50_ms", JsonType::number},
      {"/series/points[]/latency/p90_ms", JsonType::number},
      {"/series/points[]/latency/p99_ms", JsonType::number},
      {"/series/points[]/latency/max_ms", JsonType::number},
      {"/series/points[]/lag_p99_ms", JsonType::number},
  };
  return fields;
}

}  // namespace rateperf::test

#include "report/json.hpp"

#include <cstddef>
#include <string>

#include "core/errors.hpp"
#include "core/version.hpp"
#include "options/table.hpp"

// nlohmann/json finds to_json() by argument-dependent lookup, so each overload lives in the
// namespace of the struct it converts. They are static: they serve only this file, and internal
// linkage keeps them from clashing with another file's overloads of the same name.
namespace rateperf::stats {

static void to_json(nlohmann::json& j, const Percentiles& p) {
  j = nlohmann::json{
      {"count", p.count},   {"p50_ms", p.p50_ms},    {"p90_ms", p.p90_ms},
      {"p99_ms", p.p99_ms}, {"p99_9_ms", p.p999_ms}, {"max_ms", p.max_ms},
  };
}

static void to_json(nlohmann::json& j, const SampleFigures& s) {
  j = nlohmann::json{
      {"start_s", s.start_s}, {"length_s", s.length_s},
      {"replies", s.replies}, {"reply_rate_per_s", s.reply_rate_per_s},
      {"errors", s.errors},
  };
}

}  // namespace rateperf::stats

namespace rateperf::report {

namespace {

// Every error kind under its report label, with '-' made '_' so that the keys are identifiers
// in the languages that read the document. "other" is the pure kind here, not httperf's lump.
nlohmann::json errors_of(std::uint64_t total, const ErrorCounts& counts) {
  nlohmann::json errors = {{"total", total}};
  for (std::size_t i = 0; i < kErrorKinds; ++i) {
    std::string key(error_label(static_cast<ErrorKind>(i)));
    for (char& ch : key) {
      if (ch == '-') ch = '_';
    }
    errors[key] = counts[i];
  }
  return errors;
}

// The time series: its interval and one object an interval.
nlohmann::json series_of(const stats::Summary& s) {
  nlohmann::json points = nlohmann::json::array();
  for (const stats::SeriesFigures& p : s.series) {
    points.push_back({{"start_s", p.start_s},
                      {"length_s", p.length_s},
                      {"arrivals", p.arrivals},
                      {"replies", p.replies},
                      {"errors", errors_of(p.errors_total, p.errors)},
                      {"open_connections", p.open_connections},
                      {"latency",
                       {{"p50_ms", p.latency_p50_ms},
                        {"p90_ms", p.latency_p90_ms},
                        {"p99_ms", p.latency_p99_ms},
                        {"max_ms", p.latency_max_ms}}},
                      {"lag_p99_ms", p.lag_p99_ms}});
  }
  return {{"interval_s", s.series_interval_s}, {"points", std::move(points)}};
}

// The run's configuration: every option the table exports, under its own key.
nlohmann::json config_of(const options::Config& config) {
  nlohmann::json object = nlohmann::json::object();
  for (const options::OptionSpec& spec : options::option_table()) {
    if (spec.json != nullptr) spec.json(config, object);
  }
  return object;
}

nlohmann::json served_within_of(
    const std::array<double, stats::kServedWithinPercents.size()>& within_ms) {
  nlohmann::json served = nlohmann::json::object();
  for (std::size_t i = 0; i < stats::kServedWithinPercents.size(); ++i) {
    served[std::to_string(stats::kServedWithinPercents[i])] = within_ms[i];
  }
  return served;
}

nlohmann::json ms_figures_of(const stats::MsFigures& f) {
  return {{"count", f.count},         {"min_ms", f.min_ms},       {"avg_ms", f.avg_ms},
          {"stddev_ms", f.stddev_ms}, {"median_ms", f.median_ms}, {"max_ms", f.max_ms}};
}

// Which clock timed the reply figures, and the client's own figures of the same replies.
nlohmann::json clock_of(const stats::Summary& s) {
  const stats::ClockFigures& c = s.clock;
  return {{"asked", c.kernel || !c.fallback.empty() ? "kernel" : "user"},
          {"kernel", c.kernel},
          {"fallback", c.fallback.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.fallback)},
          {"replies", c.replies},
          {"kernel_replies", c.kernel_replies},
          {"user_replies", c.user_replies},
          {"kernel_sends", c.kernel_sends},
          {"connect", "user"},
          {"batch_reads_s", c.batch_reads_s},
          {"wall_clock_steps", c.wall_clock_steps},
          {"largest_step_ms", c.largest_step_ms},
          {"user",
           {{"response_avg_ms", c.user_response_avg_ms},
            {"transfer_avg_ms", c.user_transfer_avg_ms},
            {"latency_intended", c.user_latency},
            {"response_time", c.user_response_time}}}};
}

// The closed loop's settings, and ab's figures (--format ab), which any run has.
nlohmann::json loop_of(const stats::Summary& s) {
  return {{"kind", s.concurrency > 0 ? "closed" : "open"},
          {"concurrency", s.concurrency},
          {"think_s", s.think_s}};
}

nlohmann::json ab_of(const stats::Summary& s) {
  return {{"document_bytes", s.document_bytes},
          {"length_failures", s.length_mismatches},
          {"reply_bytes", s.reply_bytes},
          {"reply_body_bytes", s.reply_body_bytes},
          {"connect", ms_figures_of(s.ab_connect)},
          {"processing", ms_figures_of(s.ab_processing)},
          {"waiting", ms_figures_of(s.ab_waiting)},
          {"total", ms_figures_of(s.ab_total)},
          {"served_within_ms", served_within_of(s.ab_within_ms)}};
}

// httperf's session figures; zeros (and an empty histogram) when the run made no sessions.
nlohmann::json sessions_of(const stats::SessionFigures& f) {
  return {{"total", f.total},
          {"completed", f.completed},
          {"failed", f.failed},
          {"rate",
           {{"min_per_s", f.rate_min},
            {"avg_per_s", f.rate_avg},
            {"max_per_s", f.rate_max},
            {"stddev_per_s", f.rate_stddev},
            {"samples", f.rate_samples}}},
          {"connections_per_session", f.connections_per_session},
          {"lifetime_avg_s", f.lifetime_avg_s},
          {"failtime_avg_s", f.failtime_avg_s},
          {"length_histogram", f.length_histogram}};
}

}  // namespace

nlohmann::json to_json_document(const stats::Summary& s, const options::Config& config) {
  const auto& life = s.connection_time;
  const auto& st = s.status_classes;
  return nlohmann::json{
      {"schema_version", kJsonSchemaVersion},
      {"rateperf_version", kVersion},
      {"start_time_utc", s.start_time_utc},
      {"command_line", s.command_line},
      {"interrupted", s.interrupted},
      {"config", config_of(config)},
      {"totals",
       {{"arrivals", s.arrivals},
        {"connections", s.connections},
        {"requests", s.requests},
        {"replies", s.replies},
        {"calls", s.calls},
        {"duration_s", s.duration_s}}},
      {"request_mode", s.request_mode},
      {"sessions", sessions_of(s.sessions)},
      {"tls",
       {{"used", s.tls_run},
        {"handshakes_full", s.tls.full},
        {"handshakes_resumed", s.tls.resumed},
        {"protocol", s.tls.protocol},
        {"cipher", s.tls.cipher},
        {"handshake", s.tls.handshake}}},
      {"schedule",
       {{"offered_rate_per_s", s.offered_rate_per_s},
        {"issue_window_s", s.issue_window_s},
        {"intended_window_s", s.intended_window_s},
        {"intended_rate_per_s", s.intended_rate_per_s},
        {"issued_rate_per_s", s.issued_rate_per_s},
        {"max_burst", s.max_burst}}},
      {"connection_rate",
       {{"per_s", s.connection_rate_per_s},
        {"ms_per_connection", s.ms_per_connection},
        {"max_concurrent", s.max_concurrent},
        {"max_concurrent_is_bound", s.max_concurrent_is_bound}}},
      {"connection_time",
       {{"count", life.count},
        {"min_ms", life.min_ms},
        {"avg_ms", life.avg_ms},
        {"max_ms", life.max_ms},
        {"median_ms", life.median_ms},
        {"stddev_ms", life.stddev_ms},
        {"connect_avg_ms", s.connect_avg_ms},
        {"connect_count", s.connect_count}}},
      {"connection_length", {{"replies_per_connection", s.replies_per_connection}}},
      {"request_rate", {{"per_s", s.request_rate_per_s}, {"ms_per_request", s.ms_per_request}}},
      {"request_size", {{"avg_bytes", s.request_size_avg_bytes}}},
      {"reply_rate",
       {{"min_per_s", s.reply_rate_min},
        {"avg_per_s", s.reply_rate_avg},
        {"max_per_s", s.reply_rate_max},
        {"stddev_per_s", s.reply_rate_stddev},
        {"samples", s.reply_rate_samples}}},
      {"reply_time", {{"response_ms", s.response_avg_ms}, {"transfer_ms", s.transfer_avg_ms}}},
      {"reply_size",
       {{"header_bytes", s.reply_header_avg_bytes},
        {"content_bytes", s.reply_content_avg_bytes},
        {"footer_bytes", s.reply_footer_avg_bytes},
        {"total_bytes", s.reply_total_avg_bytes}}},
      {"reply_status",
       {{"1xx", st[0]}, {"2xx", st[1]}, {"3xx", st[2]}, {"4xx", st[3]}, {"5xx", st[4]}}},
      {"cpu",
       {{"user_s", s.cpu_user_s},
        {"system_s", s.cpu_system_s},
        {"user_percent", s.cpu_user_percent},
        {"system_percent", s.cpu_system_percent},
        {"total_percent", s.cpu_total_percent}}},
      {"net_io", {{"kb_per_s", s.net_io_kb_per_s}, {"mbit_per_s", s.net_io_mbit_per_s}}},
      {"errors", errors_of(s.errors_total, s.errors)},
      {"latency_intended", s.latency_intended},
      {"latency_actual", s.latency_actual},
      {"connect_time", s.connect_time},
      {"response_time", s.response_time},
      {"request_wait", s.request_wait},
      {"served_within_ms", served_within_of(s.served_within_ms)},
      {"clock", clock_of(s)},
      {"loop", loop_of(s)},
      {"ab", ab_of(s)},
      {"lag",
       {{"p50_ms", s.lag_p50_ms},
        {"p99_ms", s.lag_p99_ms},
        {"max_ms", s.lag_max_ms},
        {"late_arrivals", s.lag_late_arrivals},
        {"moved_arrivals", s.moved_arrivals},
        {"limit_ms", s.lag_limit_ms},
        {"client_limited", s.client_limited}}},
      {"timing",
       {{"mode", s.timing.mode},
        {"cpu_percent", s.timing.cpu_percent},
        {"sleeps", s.timing.sleeps},
        {"polls", s.timing.polls},
        {"timer_arms", s.timing.timer_arms},
        {"timer_wakeups", s.timing.timer_wakeups},
        {"lateness_p50_ms", s.timing.lateness_p50_ms},
        {"lateness_p99_ms", s.timing.lateness_p99_ms},
        {"margin_ms", s.timing.margin_ms},
        {"poll_below_ms", s.timing.poll_below_ms},
        {"turn_ms", s.timing.turn_ms}}},
      {"samples", s.samples},
      {"series", series_of(s)},
  };
}

}  // namespace rateperf::report

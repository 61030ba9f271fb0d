#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>

#include "stats/collector.hpp"

namespace rateperf::stats {

namespace {

double per(double numerator, double denominator) {
  return denominator > 0 ? numerator / denominator : 0;
}

double ns_to_ms(double ns) { return ns / 1e6; }

MsFigures ms_figures(const Histogram& h) {
  MsFigures f;
  f.count = h.count();
  if (f.count == 0) return f;
  f.min_ms = ns_to_ms(static_cast<double>(h.min()));
  f.avg_ms = ns_to_ms(h.mean());
  f.max_ms = ns_to_ms(static_cast<double>(h.max()));
  f.median_ms = ns_to_ms(static_cast<double>(h.percentile(50)));
  // The histogram's spread is the population's; httperf divides by n - 1.
  if (f.count > 1) {
    const double n = static_cast<double>(f.count);
    f.stddev_ms = ns_to_ms(h.stddev()) * std::sqrt(n / (n - 1));
  }
  return f;
}

Percentiles percentiles(const Histogram& h) {
  Percentiles p;
  p.count = h.count();
  if (p.count == 0) return p;
  p.p50_ms = ns_to_ms(static_cast<double>(h.percentile(50)));
  p.p90_ms = ns_to_ms(static_cast<double>(h.percentile(90)));
  p.p99_ms = ns_to_ms(static_cast<double>(h.percentile(99)));
  p.p999_ms = ns_to_ms(static_cast<double>(h.percentile(99.9)));
  p.max_ms = ns_to_ms(static_cast<double>(h.max()));
  p.avg_ms = ns_to_ms(h.mean());
  return p;
}

// ab's table: the time within which each of kServedWithinPercents of the values fell.
std::array<double, kServedWithinPercents.size()> served_within(const Histogram& h) {
  std::array<double, kServedWithinPercents.size()> ms{};
  for (std::size_t i = 0; i < kServedWithinPercents.size(); ++i) {
    ms[i] = ns_to_ms(static_cast<double>(h.percentile(kServedWithinPercents[i])));
  }
  return ms;
}

// The client held its schedule when the p99 lag stays within 1 ms, or within a tenth of the
// mean gap between arrivals when that is longer: a lag that small neither bunches arrivals
// into bursts the server would notice nor shifts the latency figures by more than their own
// precision. Above it, the figures measure the client as much as the server.
constexpr double kLagLimitFloorMs = 1.0;
constexpr double kLagLimitGapShare = 0.1;

double lag_limit_ms(double offered_rate_per_s) {
  const double gap_ms = offered_rate_per_s > 0 ? 1000.0 / offered_rate_per_s : 0;
  return std::max(kLagLimitFloorMs, kLagLimitGapShare * gap_ms);
}

}  // namespace

// The extremes, mean and spread of one rate over the reply-rate sampling intervals (httperf's
// reply and session rate lines): all 0 without samples; the stddev, as httperf's, with n - 1.
struct SampleStats {
  double min = 0;
  double mean = 0;
  double max = 0;
  double stddev = 0;
};

template <class RateOf>
SampleStats sample_stats(const std::vector<IntervalSample>& samples, RateOf rate_of) {
  SampleStats out;
  if (samples.empty()) return out;
  double sum = 0, sum_squares = 0;
  out.min = INFINITY;
  for (const IntervalSample& sample : samples) {
    const double rate = rate_of(sample);
    sum += rate;
    sum_squares += rate * rate;
    out.min = std::min(out.min, rate);
    out.max = std::max(out.max, rate);
  }
  const double n = static_cast<double>(samples.size());
  out.mean = sum / n;
  if (samples.size() > 1) out.stddev = std::sqrt(std::max(0.0, (sum_squares - sum * sum / n) / (n - 1)));
  return out;
}

// Reads the collector's private counts (a friend), so that Collector's interface stays the
// lifecycle events.
struct SummaryBuilder {
  // httperf's session lines: the rate's extremes and spread from the 5-s samples, its mean over
  // the run; connections and lifetime over the completed sessions, failtime over the failed.
  static SessionFigures session_figures(const Collector& c, double duration_s) {
    SessionFigures f;
    f.completed = c.sessions_completed_;
    f.failed = c.sessions_failed_;
    f.total = f.completed + f.failed;
    // httperf's avg is over the run, not the samples' mean.
    const SampleStats rates = sample_stats(c.samples_, [](const IntervalSample& sample) {
      return sample.end > sample.start
                 ? static_cast<double>(sample.sessions) / to_s(sample.length())
                 : 0.0;
    });
    f.rate_min = rates.min;
    f.rate_avg = per(static_cast<double>(f.completed), duration_s);
    f.rate_max = rates.max;
    f.rate_stddev = rates.stddev;
    f.rate_samples = c.samples_.size();
    const double completed = static_cast<double>(f.completed);
    f.connections_per_session = per(static_cast<double>(c.session_connections_), completed);
    f.lifetime_avg_s = per(to_s(c.session_lifetime_sum_), completed);
    f.failtime_avg_s = per(to_s(c.session_failtime_sum_), static_cast<double>(f.failed));
    f.length_histogram = c.session_lengths_;
    return f;
  }

  static Summary build(const Collector& c, const RunInfo& run) {
    Summary s;
    s.command_line = run.command_line;
    s.max_burst = c.max_burst_;
    s.arrivals = c.arrivals_;
    s.connections = c.connections_;
    s.requests = c.requests_;
    s.replies = c.replies_;
    s.duration_s = std::max(0.0, to_s(run.end - run.start));

    s.connection_rate_per_s = per(static_cast<double>(s.connections), s.duration_s);
    s.ms_per_connection = per(1000.0, s.connection_rate_per_s);
    s.max_concurrent = c.max_concurrent();
    s.max_concurrent_is_bound = c.max_concurrent_is_bound();
    s.connection_time = ms_figures(c.lifetime_);
    s.connect_count = c.connects_;
    s.connect_avg_ms = ns_to_ms(c.connect_.mean());
    s.replies_per_connection = per(static_cast<double>(c.replies_on_answered_connections_),
                                   static_cast<double>(c.connections_with_reply_));

    s.request_rate_per_s = per(static_cast<double>(s.requests), s.duration_s);
    s.ms_per_request = per(1000.0, s.request_rate_per_s);
    s.request_size_avg_bytes =
        per(static_cast<double>(c.request_bytes_), static_cast<double>(s.requests));

    // httperf's reply rate: the mean, extremes and spread of the per-interval samples.
    const auto& samples = c.samples_;
    s.reply_rate_samples = samples.size();
    const SampleStats reply_rates =
        sample_stats(samples, [](const IntervalSample& sample) { return sample.reply_rate_per_s(); });
    s.reply_rate_min = reply_rates.min;
    s.reply_rate_avg = reply_rates.mean;
    s.reply_rate_max = reply_rates.max;
    s.reply_rate_stddev = reply_rates.stddev;

    s.response_avg_ms = ns_to_ms(c.response_.mean());
    s.transfer_avg_ms = ns_to_ms(c.transfer_.mean());

    const double replies = static_cast<double>(s.replies);
    s.reply_header_avg_bytes = per(static_cast<double>(c.reply_header_bytes_), replies);
    s.reply_content_avg_bytes = per(static_cast<double>(c.reply_body_bytes_), replies);
    s.reply_footer_avg_bytes = per(static_cast<double>(c.reply_footer_bytes_), replies);
    s.reply_total_avg_bytes =
        s.reply_header_avg_bytes + s.reply_content_avg_bytes + s.reply_footer_avg_bytes;
    s.status_classes = c.status_classes_;

    s.cpu_user_s = run.cpu_user_s;
    s.cpu_system_s = run.cpu_system_s;
    s.cpu_user_percent = per(100.0 * run.cpu_user_s, s.duration_s);
    s.cpu_system_percent = per(100.0 * run.cpu_system_s, s.duration_s);
    s.cpu_total_percent = s.cpu_user_percent + s.cpu_system_percent;

    const double bytes = static_cast<double>(c.request_bytes_ + c.reply_header_bytes_ +
                                             c.reply_body_bytes_ + c.reply_footer_bytes_);
    s.net_io_kb_per_s = per(bytes, s.duration_s) / 1024.0;
    s.net_io_mbit_per_s = per(bytes * 8.0, s.duration_s) / 1e6;

    s.errors = c.errors_;
    s.errors_total = c.errors_total();
    s.calls = s.replies + s.errors_total;
    s.errors_other_httperf = 0;
    for (const ErrorKind kind : {ErrorKind::other, ErrorKind::parse_status, ErrorKind::parse_header,
                                 ErrorKind::parse_chunk, ErrorKind::parse_other,
                                 ErrorKind::unanswered, ErrorKind::tls_handshake,
                                 ErrorKind::tls_certificate, ErrorKind::tls_alert}) {
      s.errors_other_httperf += s.errors[static_cast<std::size_t>(kind)];
    }

    s.offered_rate_per_s = run.offered_rate_per_s;
    if (s.arrivals > 0) s.issue_window_s = std::max(0.0, to_s(run.last_arrival - run.first_arrival));
    s.issued_rate_per_s =
        s.arrivals > 1 ? per(static_cast<double>(s.arrivals - 1), s.issue_window_s) : 0;
    if (s.arrivals > 0) {
      s.intended_window_s = std::max(0.0, to_s(run.last_intended - run.first_intended));
    }
    s.intended_rate_per_s =
        s.arrivals > 1 ? per(static_cast<double>(s.arrivals - 1), s.intended_window_s) : 0;
    s.interrupted = run.interrupted;
    s.request_mode = run.request_mode;

    s.latency_intended = percentiles(c.latency_intended_);
    s.latency_actual = percentiles(c.latency_actual_);
    s.request_wait = percentiles(c.request_wait_);
    s.connect_time = percentiles(c.connect_);
    s.response_time = percentiles(c.response_);
    s.served_within_ms = served_within(c.latency_intended_);
    s.show_served_within = run.verbose;

    ClockFigures& clock = s.clock;
    clock.kernel = run.clock_kernel;
    clock.fallback = run.clock_fallback;
    clock.kernel_replies = c.kernel_replies_;
    clock.user_replies = c.replies_ - c.kernel_replies_;
    clock.kernel_sends = c.kernel_sends_;
    clock.replies = clock.user_replies == 0 && c.replies_ > 0 ? "kernel"
                    : clock.kernel_replies == 0               ? "user"
                                                              : "mixed";
    clock.batch_reads_s = run.batch_reads_s;
    clock.wall_clock_steps = run.wall_clock_steps;
    clock.largest_step_ms = run.largest_step_ms;
    clock.user_response_avg_ms = ns_to_ms(c.user_response_.mean());
    clock.user_transfer_avg_ms = ns_to_ms(c.user_transfer_.mean());
    clock.user_latency = percentiles(c.user_latency_);
    clock.user_response_time = percentiles(c.user_response_);

    s.concurrency = run.concurrency;
    s.think_s = run.think_s;
    s.ab_connect = ms_figures(c.call_connect_);
    s.ab_processing = ms_figures(c.processing_);
    s.ab_waiting = ms_figures(c.response_);
    s.ab_total = ms_figures(c.latency_actual_);
    s.ab_within_ms = served_within(c.latency_actual_);
    // The document: the body length most replies had (ties: the one seen first).
    std::uint64_t most = 0;
    for (const Collector::BodyLength& length : c.body_lengths_) {
      if (length.replies > most) {
        most = length.replies;
        s.document_bytes = length.bytes;
      }
    }
    s.has_document = most > 0;
    s.length_mismatches = c.replies_ - most;
    s.reply_body_bytes = c.reply_body_bytes_;
    s.reply_bytes = c.reply_header_bytes_ + c.reply_body_bytes_ + c.reply_footer_bytes_;

    s.lag_p50_ms = ns_to_ms(static_cast<double>(c.lag_.percentile(50)));
    s.lag_p99_ms = ns_to_ms(static_cast<double>(c.lag_.percentile(99)));
    s.lag_max_ms = ns_to_ms(static_cast<double>(c.lag_.max()));
    s.lag_late_arrivals = c.late_arrivals_;
    s.moved_arrivals = c.moved_arrivals_;
    s.lag_limit_ms = lag_limit_ms(run.offered_rate_per_s);
    // A closed loop has no schedule to fall behind: its slots start when the server lets them.
    s.client_limited = run.concurrency == 0 && s.arrivals > 0 && s.lag_p99_ms > s.lag_limit_ms;

    for (const auto& sample : samples) {
      SampleFigures figures;
      figures.start_s = to_s(sample.start - run.start);
      figures.length_s = to_s(sample.length());
      figures.replies = sample.replies;
      figures.reply_rate_per_s = sample.reply_rate_per_s();
      figures.errors = sample.errors;
      s.samples.push_back(figures);
    }
    s.series_interval_s = to_s(c.series_.interval());
    for (const SeriesPoint& point : c.series_.points()) {
      SeriesFigures figures;
      figures.start_s = to_s(point.start - run.start);
      figures.length_s = to_s(point.length);
      figures.arrivals = point.arrivals;
      figures.replies = point.replies;
      figures.errors = point.errors;
      for (const std::uint64_t n : point.errors) figures.errors_total += n;
      figures.open_connections = point.open;
      figures.latency_p50_ms = ns_to_ms(static_cast<double>(point.latency.percentile(50)));
      figures.latency_p90_ms = ns_to_ms(static_cast<double>(point.latency.percentile(90)));
      figures.latency_p99_ms = ns_to_ms(static_cast<double>(point.latency.percentile(99)));
      figures.latency_max_ms = ns_to_ms(static_cast<double>(point.latency.max));
      figures.lag_p99_ms = ns_to_ms(static_cast<double>(point.lag.percentile(99)));
      s.series.push_back(figures);
    }
    s.tls_run = run.tls;
    s.tls.full = c.tls_full_;
    s.tls.resumed = c.tls_resumed_;
    s.tls.handshake = percentiles(c.tls_handshake_);
    if (c.tls_protocol_ != nullptr) s.tls.protocol = c.tls_protocol_;
    if (c.tls_cipher_ != nullptr) s.tls.cipher = c.tls_cipher_;
    s.sessions_run = run.sessions;
    if (run.sessions) s.sessions = session_figures(c, s.duration_s);
    s.start_time_utc = run.start_time_utc;
    s.timing = run.timing;
    s.timing.cpu_percent = s.cpu_total_percent;
    return s;
  }
};

void TimingFigures::add(const TimingFigures& other) {
  sleeps += other.sleeps;
  polls += other.polls;
  timer_arms += other.timer_arms;
  timer_wakeups += other.timer_wakeups;
  lateness_p50_ms = std::max(lateness_p50_ms, other.lateness_p50_ms);
  lateness_p99_ms = std::max(lateness_p99_ms, other.lateness_p99_ms);
  margin_ms = std::max(margin_ms, other.margin_ms);
  poll_below_ms = std::max(poll_below_ms, other.poll_below_ms);
}

void RunInfo::include_arrivals(TimePoint first, TimePoint last, TimePoint first_due,
                               TimePoint last_due) {
  first_arrival = any_arrival ? std::min(first_arrival, first) : first;
  last_arrival = any_arrival ? std::max(last_arrival, last) : last;
  first_intended = any_arrival ? std::min(first_intended, first_due) : first_due;
  last_intended = any_arrival ? std::max(last_intended, last_due) : last_due;
  any_arrival = true;
}

Summary summarize(const Collector& collector, const RunInfo& run) {
  return SummaryBuilder::build(collector, run);
}

}  // namespace rateperf::stats

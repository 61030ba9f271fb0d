#include "stats/collector.hpp"

#include <algorithm>
#include <numeric>

namespace rateperf::stats {

namespace {

std::uint64_t ns(Duration d) {
  return d.count() < 0 ? 0 : static_cast<std::uint64_t>(d.count());
}

}  // namespace

Collector::Collector() : gauge_(std::make_shared<OpenGauge>()) {}

Collector::Collector(std::shared_ptr<OpenGauge> gauge) : gauge_(std::move(gauge)) {}

void Collector::arrival(TimePoint intended, TimePoint actual) {
  ++arrivals_;
  const Duration lag = actual - intended;
  if (lag > kLateLag) ++late_arrivals_;
  lag_.record(ns(lag));
  series_.arrival(ns(lag));
}

void Collector::burst(std::uint64_t count) { max_burst_ = std::max(max_burst_, count); }

void Collector::connecting() {
  ++connections_;
  ++open_;
  gauge_->opened();
}

void Collector::connected(Duration connect_time) {
  ++connects_;
  connect_.record(ns(connect_time));
}

void Collector::request_sent(std::size_t bytes) {
  ++requests_;
  request_bytes_ += bytes;
}

void Collector::reply(const ReplyRecord& record) {
  ++replies_;
  ++interval_replies_;
  reply_header_bytes_ += record.header_bytes;
  reply_body_bytes_ += record.body_bytes;
  reply_footer_bytes_ += record.footer_bytes;
  const int status_class = record.status / 100;
  if (status_class >= 1 && status_class <= 5) ++status_classes_[status_class - 1];
  response_.record(ns(record.response));
  transfer_.record(ns(record.transfer));
  latency_intended_.record(ns(record.latency_intended));
  series_.reply(ns(record.latency_intended));
  latency_actual_.record(ns(record.latency_actual));
  if (record.kernel) ++kernel_replies_;
  if (record.kernel_send) ++kernel_sends_;
  user_response_.record(ns(record.user_response));
  user_transfer_.record(ns(record.user_transfer));
  user_latency_.record(ns(record.user_latency_intended));
  call_connect_.record(ns(record.connect));
  processing_.record(ns(std::max(Duration::zero(), record.latency_actual - record.connect)));
  count_body_length(record.body_bytes, 1);
}

void Collector::count_body_length(std::uint64_t bytes, std::uint64_t replies) {
  for (BodyLength& length : body_lengths_) {
    if (length.bytes == bytes) {
      length.replies += replies;
      return;
    }
  }
  if (body_lengths_.size() < kBodyLengths) {
    body_lengths_.push_back({bytes, replies});
  } else {
    other_body_lengths_ += replies;
  }
}

void Collector::connection_closed(Duration lifetime, std::uint32_t replies) {
  if (open_ > 0) {
    --open_;
    gauge_->closed();
  }
  if (replies > 0) {
    ++connections_with_reply_;
    replies_on_answered_connections_ += replies;
    lifetime_.record(ns(lifetime));
  }
}

void Collector::error(ErrorKind kind, std::uint64_t count) {
  errors_[static_cast<std::size_t>(kind)] += count;
  interval_errors_ += count;
  series_.error(kind, count);
}

void Collector::request_wait(Duration wait) {
  request_wait_.record(ns(wait));
}

void Collector::tls_handshake(Duration time, bool resumed, const char* protocol,
                              const char* cipher) {
  ++(resumed ? tls_resumed_ : tls_full_);
  tls_handshake_.record(ns(time));
  tls_protocol_ = protocol;
  tls_cipher_ = cipher;
}

void Collector::session_ended(bool failed, Duration time, std::uint64_t replies,
                              std::uint64_t connections) {
  if (failed) {
    ++sessions_failed_;
    session_failtime_sum_ += time;
  } else {
    ++sessions_completed_;
    ++interval_sessions_;
    session_lifetime_sum_ += time;
    session_connections_ += connections;
  }
  if (session_lengths_.size() <= replies) session_lengths_.resize(replies + 1);
  ++session_lengths_[replies];
}

void Collector::sample(TimePoint start, TimePoint end) {
  samples_.push_back({start, end, interval_replies_, interval_errors_, interval_sessions_});
  interval_replies_ = 0;
  interval_errors_ = 0;
  interval_sessions_ = 0;
}

void Collector::merge(const Collector& other) {
  arrivals_ += other.arrivals_;
  late_arrivals_ += other.late_arrivals_;
  moved_arrivals_ += other.moved_arrivals_;
  max_burst_ = std::max(max_burst_, other.max_burst_);
  connections_ += other.connections_;
  open_ += other.open_;
  // Workers peak at different moments: without a shared gauge, the sum of their peaks only
  // bounds the run's from above.
  merged_peaks_ += other.gauge_ == gauge_ ? other.merged_peaks_ : other.max_concurrent();
  connects_ += other.connects_;
  requests_ += other.requests_;
  request_bytes_ += other.request_bytes_;
  replies_ += other.replies_;
  reply_header_bytes_ += other.reply_header_bytes_;
  reply_body_bytes_ += other.reply_body_bytes_;
  reply_footer_bytes_ += other.reply_footer_bytes_;
  connections_with_reply_ += other.connections_with_reply_;
  replies_on_answered_connections_ += other.replies_on_answered_connections_;
  for (std::size_t i = 0; i < status_classes_.size(); ++i) {
    status_classes_[i] += other.status_classes_[i];
  }
  for (std::size_t i = 0; i < errors_.size(); ++i) errors_[i] += other.errors_[i];
  lag_.merge(other.lag_);
  connect_.merge(other.connect_);
  response_.merge(other.response_);
  transfer_.merge(other.transfer_);
  lifetime_.merge(other.lifetime_);
  latency_intended_.merge(other.latency_intended_);
  latency_actual_.merge(other.latency_actual_);
  request_wait_.merge(other.request_wait_);
  call_connect_.merge(other.call_connect_);
  processing_.merge(other.processing_);
  kernel_replies_ += other.kernel_replies_;
  kernel_sends_ += other.kernel_sends_;
  user_response_.merge(other.user_response_);
  user_transfer_.merge(other.user_transfer_);
  user_latency_.merge(other.user_latency_);
  for (const BodyLength& length : other.body_lengths_)
    count_body_length(length.bytes, length.replies);
  other_body_lengths_ += other.other_body_lengths_;
  tls_handshake_.merge(other.tls_handshake_);
  tls_full_ += other.tls_full_;
  tls_resumed_ += other.tls_resumed_;
  if (tls_protocol_ == nullptr) tls_protocol_ = other.tls_protocol_;
  if (tls_cipher_ == nullptr) tls_cipher_ = other.tls_cipher_;
  interval_replies_ += other.interval_replies_;
  interval_errors_ += other.interval_errors_;
  interval_sessions_ += other.interval_sessions_;
  sessions_completed_ += other.sessions_completed_;
  sessions_failed_ += other.sessions_failed_;
  session_lifetime_sum_ += other.session_lifetime_sum_;
  session_failtime_sum_ += other.session_failtime_sum_;
  session_connections_ += other.session_connections_;
  if (session_lengths_.size() < other.session_lengths_.size()) {
    session_lengths_.resize(other.session_lengths_.size());
  }
  for (std::size_t i = 0; i < other.session_lengths_.size(); ++i) {
    session_lengths_[i] += other.session_lengths_[i];
  }
  // Samples meet by the time they cover, not by their index: a worker that started late or
  // stopped early has fewer, and its first one is still the others' first.
  samples_ = merge_by_start(samples_, other.samples_,
                            [](IntervalSample& sum, const IntervalSample& part) {
                              sum.end = std::max(sum.end, part.end);
                              sum.replies += part.replies;
                              sum.errors += part.errors;
                              sum.sessions += part.sessions;
                            });
  series_.merge(other.series_);
}

std::uint64_t Collector::errors_total() const {
  return std::accumulate(errors_.begin(), errors_.end(), std::uint64_t{0});
}

}  // namespace rateperf::stats

#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "stats/histogram.hpp"
#include "stats/series.hpp"

namespace rateperf::stats {

// What the engine knows about one reply when it completes.
struct ReplyRecord {
  int status = 0;
  std::size_t header_bytes = 0;
  std::size_t body_bytes = 0;
  std::size_t footer_bytes = 0;
  Duration response{};          // first reply byte - start of sending the request
  Duration transfer{};          // reply complete - first reply byte
  Duration latency_intended{};  // reply complete - the arrival's intended start
  Duration latency_actual{};    // reply complete - the arrival's actual start
  // The part of latency_actual spent connecting: the connect time for a call that waited for
  // its connection to open, 0 for one sent on a connection already open (ab's "Connect").
  Duration connect{};
  // Which clock timed the figures above. kernel: the reply's first and last bytes are the
  // kernel's receive timestamps; kernel_send: its request's start is the transmit timestamp.
  // Otherwise they are the client's reads and writes.
  bool kernel = false;
  bool kernel_send = false;
  // The same three figures by the client's own clock, kept beside the kernel's for comparison
  // (equal to them when kernel is false).
  Duration user_response{};
  Duration user_transfer{};
  Duration user_latency_intended{};
};

// Replies and errors counted in one reply-rate sampling interval.
struct IntervalSample {
  TimePoint start{};  // the interval, by the schedule's clock (the first one may be shorter)
  TimePoint end{};
  std::uint64_t replies = 0;
  std::uint64_t errors = 0;
  std::uint64_t sessions = 0;  // sessions completed in it (--wsess, --wsesslog)

  Duration length() const { return end - start; }
  // Replies per second over the interval (0 for an empty interval).
  double reply_rate_per_s() const {
    return end > start ? static_cast<double>(replies) / to_s(length()) : 0;
  }
};

// The connections open at once, and the most there have been. A run's workers share one, so
// that the peak is the run's own: the sum of the workers' peaks would only bound it, since they
// peak at different moments. Atomic, as the workers may run on threads of their own.
class OpenGauge {
 public:
  OpenGauge() = default;
  // A gauge of a run read back from its record: nothing open, and the peak it had.
  explicit OpenGauge(std::uint64_t peak) : peak_(peak) {}

  void opened() {
    const std::uint64_t now = open_.fetch_add(1, std::memory_order_relaxed) + 1;
    std::uint64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  void closed() { open_.fetch_sub(1, std::memory_order_relaxed); }
  std::uint64_t peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> open_{0};
  std::atomic<std::uint64_t> peak_{0};
};

// Counts one worker's lifecycle events: counters, sums and histogram increments only, nothing
// that formats or prints. Owned by one engine::Worker and used on its thread; collectors of
// several workers are merged after they join (exactly: see merge()).
class Collector {
 public:
  // An arrival that starts later than this after its intended time counts as late.
  static constexpr Duration kLateLag = std::chrono::milliseconds(1);

  // A collector with a gauge of its own for the connections open at once...
  Collector();
  // ...or with the gauge that the other workers of its run share.
  explicit Collector(std::shared_ptr<OpenGauge> gauge);

  // An arrival was taken from the schedule (intended) and issued (actual).
  void arrival(TimePoint intended, TimePoint actual);
  // One wake-up of the client issued `count` arrivals.
  void burst(std::uint64_t count);
  // `count` of them were another worker's share, which was behind (--threads).
  void moved_in(std::uint64_t count) { moved_arrivals_ += count; }
  // connect() was started on a new socket.
  void connecting();
  void connected(Duration connect_time);
  void request_sent(std::size_t bytes);
  void reply(const ReplyRecord& record);
  // A connection that had started connecting is closed (after a reply or an error).
  void connection_closed(Duration lifetime, std::uint32_t replies);
  // `count` calls (of an arrival, or of a connection) ended with this error.
  void error(ErrorKind kind, std::uint64_t count = 1);
  // Request mode: a request's first byte went out `wait` after its intended start.
  void request_wait(Duration wait);
  // A TLS handshake completed in `time` (ClientHello to its end), resumed or full; `protocol`
  // and `cipher` are OpenSSL's static names of what was negotiated.
  void tls_handshake(Duration time, bool resumed, const char* protocol, const char* cipher);
  // A session ended, completed or failed, `time` after its start, with `replies` replies on
  // `connections` connections.
  void session_ended(bool failed, Duration time, std::uint64_t replies, std::uint64_t connections);
  // Closes the current reply-rate sampling interval, [start, end).
  void sample(TimePoint start, TimePoint end);
  // Closes the current interval of the time series (--interval), [start, end).
  void close_interval(TimePoint start, TimePoint end) { series_.close(start, end, open_); }
  // The time series' interval now (it doubles when the series is halved).
  Duration series_interval() const { return series_.interval(); }
  void set_series_interval(Duration interval) { series_ = SeriesRecorder(interval); }
  const std::vector<SeriesPoint>& series() const { return series_.points(); }

  // Adds `other`'s counts, histograms and samples: the result is exactly what one collector
  // would hold had it seen both event streams. Samples of the same interval (the workers of a
  // run sample at the same times) are added; others are kept, in time order. The peak of open
  // connections stays exact when both shared one gauge; otherwise the merged peak is the sum
  // of both, an upper bound (max_concurrent_is_bound()).
  void merge(const Collector& other);

  std::uint64_t arrivals() const { return arrivals_; }
  std::uint64_t connections() const { return connections_; }
  std::uint64_t open_connections() const { return open_; }  // this worker's own
  std::uint64_t replies() const { return replies_; }
  std::uint64_t errors_total() const;
  const std::vector<IntervalSample>& samples() const { return samples_; }
  // The most connections open at once in the run (see merge()).
  std::uint64_t max_concurrent() const { return gauge_->peak() + merged_peaks_; }
  bool max_concurrent_is_bound() const { return merged_peaks_ > 0; }

 private:
  friend struct SummaryBuilder;
  friend struct RecordCodec;  // writes and reads a collector whole (stats/record.hpp)

  std::uint64_t arrivals_ = 0;
  std::uint64_t late_arrivals_ = 0;  // lag above kLateLag
  std::uint64_t max_burst_ = 0;
  std::uint64_t moved_arrivals_ = 0;  // started by a worker other than their share's
  std::uint64_t connections_ = 0;
  std::uint64_t open_ = 0;  // this collector's connections open now
  std::shared_ptr<OpenGauge> gauge_;
  std::uint64_t merged_peaks_ = 0;  // peaks of collectors merged in with gauges of their own
  std::uint64_t connects_ = 0;
  std::uint64_t requests_ = 0;
  std::uint64_t request_bytes_ = 0;
  std::uint64_t replies_ = 0;
  std::uint64_t reply_header_bytes_ = 0;
  std::uint64_t reply_body_bytes_ = 0;
  std::uint64_t reply_footer_bytes_ = 0;
  std::uint64_t connections_with_reply_ = 0;
  std::uint64_t replies_on_answered_connections_ = 0;
  std::array<std::uint64_t, 5> status_classes_{};
  ErrorCounts errors_{};

  Histogram lag_;               // actual - intended start of each arrival
  Histogram connect_;           // connect time
  Histogram response_;          // send start -> first reply byte
  Histogram transfer_;          // first reply byte -> reply complete
  Histogram lifetime_;          // connecting -> closed, connections with a reply
  Histogram latency_intended_;  // intended start -> reply complete
  Histogram latency_actual_;    // actual start -> reply complete
  Histogram request_wait_;      // request mode: intended start -> first byte sent
  // ab's per-request figures: the connect part of each reply's latency_actual, and the rest.
  Histogram call_connect_;
  Histogram processing_;
  // --clock kernel: the replies the kernel's timestamps timed (the rest the client's reads), of
  // them those whose request's start was its transmit timestamp; and the client's own figures
  // of every reply, kept for comparison (ReplyRecord).
  std::uint64_t kernel_replies_ = 0;
  std::uint64_t kernel_sends_ = 0;
  Histogram user_response_;
  Histogram user_transfer_;
  Histogram user_latency_;  // intended start -> reply complete
  // ab's "Document Length" and "Length" failures: the replies counted by body length, for the
  // first kBodyLengths lengths seen (a benchmark's page has one or a few: the page, an error
  // page), the rest in other_body_lengths_. Counts add, so merging is exact while the parts
  // saw no more than kBodyLengths lengths between them.
  struct BodyLength {
    std::uint64_t bytes = 0;
    std::uint64_t replies = 0;
  };
  static constexpr std::size_t kBodyLengths = 8;
  void count_body_length(std::uint64_t bytes, std::uint64_t replies);
  std::vector<BodyLength> body_lengths_;
  std::uint64_t other_body_lengths_ = 0;

  // TLS: handshakes and what they negotiated (the last one's names).
  std::uint64_t tls_full_ = 0;
  std::uint64_t tls_resumed_ = 0;
  Histogram tls_handshake_;
  const char* tls_protocol_ = nullptr;
  const char* tls_cipher_ = nullptr;

  // Sessions: httperf's session figures.
  std::uint64_t sessions_completed_ = 0;
  std::uint64_t sessions_failed_ = 0;
  Duration session_lifetime_sum_{};  // of the completed ones
  Duration session_failtime_sum_{};  // of the failed ones
  std::uint64_t session_connections_ = 0;  // connections of the completed ones
  std::vector<std::uint64_t> session_lengths_;  // sessions by their replies: [0], [1], ...

  std::uint64_t interval_replies_ = 0;
  std::uint64_t interval_errors_ = 0;
  std::uint64_t interval_sessions_ = 0;
  std::vector<IntervalSample> samples_;
  SeriesRecorder series_;
};

}  // namespace rateperf::stats

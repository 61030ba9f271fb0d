#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/errors.hpp"
#include "schedule/clock.hpp"
#include "stats/histogram.hpp"

namespace rateperf::stats {

// What the engine knows about one reply when it completes.
struct ReplyRecord {
  int status = 0;
  std::size_t header_bytes = 0;
  std::size_t body_bytes = 0;
  std::size_t footer_bytes = 0;
  Duration response{};           // first reply byte - start of sending the request
  Duration transfer{};           // reply complete - first reply byte
  Duration latency_intended{};   // reply complete - the arrival's intended start
  Duration latency_actual{};     // reply complete - the arrival's actual start
};

// Replies and errors counted in one reply-rate sampling interval.
struct IntervalSample {
  Duration length{};  // the interval's length (the first one may be shorter than the rest)
  std::uint64_t replies = 0;
  std::uint64_t errors = 0;

  // Replies per second over the interval (0 for an empty interval).
  double reply_rate_per_s() const {
    return length > Duration::zero() ? static_cast<double>(replies) / to_s(length) : 0;
  }
};

// Counts one worker's lifecycle events: counters, sums and histogram increments only, nothing
// that formats or prints. Owned by one engine::Worker and used on its thread; collectors of
// several workers are merged after they join (their sampling intervals are aligned, since every
// worker samples at the same offsets from the common start).
class Collector {
 public:
  // An arrival that starts later than this after its intended time counts as late.
  static constexpr Duration kLateLag = std::chrono::milliseconds(1);

  // An arrival was taken from the schedule (intended) and issued (actual).
  void arrival(TimePoint intended, TimePoint actual);
  // One wake-up of the client issued `count` arrivals.
  void burst(std::uint64_t count);
  // connect() was started on a new socket.
  void connecting();
  void connected(Duration connect_time);
  void request_sent(std::size_t bytes);
  void reply(const ReplyRecord& record);
  // A connection that had started connecting is closed (after a reply or an error).
  void connection_closed(Duration lifetime, std::uint32_t replies);
  // An arrival or a connection ended with this error.
  void error(ErrorKind kind);
  // Closes the current reply-rate sampling interval, `length` long.
  void sample(Duration length);

  void merge(const Collector& other);

  std::uint64_t arrivals() const { return arrivals_; }
  std::uint64_t connections() const { return connections_; }
  std::uint64_t open_connections() const { return open_; }
  std::uint64_t replies() const { return replies_; }
  std::uint64_t errors_total() const;
  const ErrorCounts& errors() const { return errors_; }
  const std::vector<IntervalSample>& samples() const { return samples_; }

 private:
  friend struct SummaryBuilder;

  std::uint64_t arrivals_ = 0;
  std::uint64_t late_arrivals_ = 0;  // lag above kLateLag
  std::uint64_t max_burst_ = 0;
  std::uint64_t connections_ = 0;
  std::uint64_t open_ = 0;
  std::uint64_t max_open_ = 0;
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

  std::uint64_t interval_replies_ = 0;
  std::uint64_t interval_errors_ = 0;
  std::vector<IntervalSample> samples_;
};

}  // namespace rateperf::stats

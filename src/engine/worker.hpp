#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/call_printer.hpp"
#include "engine/connection.hpp"
#include "engine/context.hpp"
#include "engine/event.hpp"
#include "engine/loop.hpp"
#include "engine/request_pool.hpp"
#include "engine/session.hpp"
#include "engine/timer.hpp"
#include "net/addresses.hpp"
#include "net/endpoint.hpp"
#include "options/config.hpp"
#include "schedule/work_source.hpp"
#include "stats/collector.hpp"
#include "stats/progress.hpp"
#include "workload/workload.hpp"

namespace rateperf::engine {

// Where a worker hands each reply-rate sample as it closes it (for --verbose). Called on the
// worker's thread.
class SampleSink {
 public:
  virtual void sample_taken(std::size_t worker, const stats::IntervalSample& sample) = 0;

 protected:
  ~SampleSink() = default;
};

// The TLS settings the options ask for (--ssl and the options after it).
net::TlsSettings tls_settings_of(const options::Config& config);

// What a worker is given: its share of the run and where the run's common parts are.
struct WorkerSetup {
  const options::Config& config;
  std::size_t share = 0;  // this worker is share `share` of `shares` of the schedule
  std::size_t shares = 1;
  const std::vector<net::Endpoint>& endpoints;  // the server's (the first, or all in turn)
  const std::vector<net::Endpoint>* sources = nullptr;  // --myaddr's addresses; none: the kernel's
  const workload::Workload& workload;
  std::shared_ptr<stats::OpenGauge> gauge;  // the run's count of open connections
  SampleSink* samples = nullptr;            // reply-rate samples as they close, if wanted
  bool publish_progress = false;            // keep progress() current, once a second
  CallPrinter* printer = nullptr;           // --print-request/--print-reply, shared; or none
  // --clock kernel, where the kernel gives timestamps: the run's conversion of them to the
  // steady clock; none: the client's clock times the replies.
  const RealtimeOffset* kernel_clock = nullptr;
  Duration batch_reads{};       // --batch-reads in effect (kernel clock only); zero: at once
  CallLog* call_log = nullptr;  // --call-log, shared; or none
};

// What a worker's run produced.
struct WorkerResult {
  WorkerResult() = default;
  explicit WorkerResult(stats::Collector counts) : collector(std::move(counts)) {}

  stats::Collector collector;
  TimePoint end{};            // the end of the last connection (or of the last arrival)
  TimePoint first_arrival{};  // actual start of the first and of the last arrival
  TimePoint last_arrival{};
  TimePoint first_intended{};  // intended start of the first and of the last arrival
  TimePoint last_intended{};
  bool any_arrival = false;
  bool interrupted = false;           // a stop request ended the schedule early
  std::uint64_t buffer_refusals = 0;  // sockets on which the kernel refused a buffer size
  LoopFigures loop;                    // how the loop waited (--timing)
};

// Runs one share of the schedule on its own event loop: takes arrivals from its work source
// regardless of replies, starts a Connection for each (or, in request mode, hands each to its
// RequestPool), and counts every outcome in its Collector. Arrivals, watchdogs and the reply-rate sampler are timers of its Loop.
//
// Owns its loop, connection pool and collector, and no process-wide state: it handles no
// signal. Everything runs on the thread that calls run(); request_stop() and progress() may
// be called from any thread.
class Worker final : private ConnectionOwner, private SessionOwner {
 public:
  explicit Worker(const WorkerSetup& setup);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker();

  // Runs the whole share, starting at `start` (the first arrival's intended time).
  WorkerResult run(TimePoint start);
  // After run() threw, on the thread that called it: closes every connection still open there,
  // where their sockets are (a worker's thread may have a descriptor table of its own). Throws
  // nothing; the run has failed, and what it counts is not reported.
  void close_after_failure() noexcept;

  // Asks the worker to stop, through an eventfd its loop watches: the first request stops the
  // schedule and gives open connections at most --timeout; the next ends them at once.
  void request_stop();
  // The run so far, as last published (about once a second).
  stats::Progress progress() const;

  // The other workers of this process (--threads), before any runs: a worker that keeps up
  // with its own share then takes the due arrivals of a peer kBehind or more behind its
  // share, and stays until every peer's share is done. Open loop only: a closed loop's slots,
  // and sessions (template k goes with arrival k), stay with their worker.
  void share_with(std::vector<Worker*> peers);
  // A worker is this far behind its share's schedule before a peer takes arrivals from it:
  // past what a worker on schedule is ever late (a turn of auto's batch timing is 1 ms).
  static constexpr Duration kBehind = std::chrono::milliseconds(2);

  // Called by a peer, on its thread: up to `most` of this worker's due arrivals, oldest first,
  // appended to `out` as their intended times, if it is kBehind or more behind at `now`.
  std::size_t lend(TimePoint now, std::size_t most, std::vector<TimePoint>& out);
  // What lend() needs first, lock-free: this worker is kBehind or more behind at `now`.
  bool behind(TimePoint now) const {
    return published_due_.load(std::memory_order_relaxed) <=
           (now - kBehind).time_since_epoch().count();
  }
  // Its share's schedule is done (or was never to be shared).
  bool share_done() const { return published_due_.load(std::memory_order_relaxed) == kNoneDue; }

 private:
  void on_arrival(Timer& timer, TimePoint now);
  void on_sample(Timer& timer, TimePoint now);
  void on_series(Timer& timer, TimePoint now);
  void on_grace(Timer& timer, TimePoint now);
  void on_progress(Timer& timer, TimePoint now);
  static void on_stop_request(evutil_socket_t fd, short, void* self);
  void issue_due(TimePoint now);
  // Starts the work of one arrival intended at `intended`, at `actual`.
  void start_arrival(TimePoint intended, TimePoint actual);
  // Starts the arrivals in due_, the first at `first`, each later one at the clock's time then,
  // until the URI list ends (--wlog n,FILE): how many it started.
  std::uint64_t start_due(TimePoint first);
  // Takes due arrivals of peers behind their shares, `most` at most: how many it started.
  std::uint64_t borrow(TimePoint now, std::uint64_t most);
  // Every peer's share is done.
  bool peers_done() const;
  // This worker's own share is done.
  bool source_done();
  // Publishes the source's next due time for peers (under source_mutex_).
  void publish_due();
  // Calls f(*source_); when peers may take from it, under source_mutex_, publishing its next
  // due time after (a worker alone has nobody to publish it for).
  template <class F>
  auto with_source(F&& f) {
    if (peers_.empty()) return f(*source_);
    const std::lock_guard lock(source_mutex_);
    struct Publish {
      Worker& worker;
      ~Publish() { worker.publish_due(); }
    } publish{*this};
    return f(*source_);
  }
  void stop_schedule(TimePoint now);
  void end_all(ErrorKind kind, TimePoint now);
  void maybe_finish(TimePoint now);
  // The work of an arrival (a connection, a session) ended: tells the work source.
  void arrival_ended(TimePoint now);
  // Request mode: the requests that ended since the last call (a reply or an error each) tell
  // the work source, one arrival each (a closed loop's slots are free again).
  void requests_ended(TimePoint now);
  void publish(TimePoint now);
  void connection_ended(Connection& connection, TimePoint now) override;
  void connection_idle(Connection& connection, TimePoint now) override;
  void reply_received(Connection& connection, const http::ResponseParser& reply,
                      TimePoint now) override;
  void session_ended(Session& session, TimePoint now) override;

  const options::Config& config_;
  std::size_t share_;
  std::size_t shares_;
  SampleSink* samples_;
  bool publish_progress_;

  Loop loop_;
  int stop_fd_ = -1;  // the eventfd of stop requests, read by stop_event_
  EventPtr stop_event_;
  std::unique_ptr<schedule::WorkSource> source_;
  // With peers, their lend() takes from source_ too: every use of it that may change it, or
  // reads it for a peer, holds this lock, and the next due time is published in
  // published_due_ (steady clock's count; kNoneDue once done).
  static constexpr std::int64_t kNoneDue = INT64_MAX;
  std::mutex source_mutex_;
  std::atomic<std::int64_t> published_due_{kNoneDue - 1};
  std::vector<Worker*> peers_;
  std::size_t next_peer_ = 0;
  std::vector<TimePoint> due_;  // a wake-up's arrivals, taken under the lock, started after
  Timer arrival_timer_;
  Timer sample_timer_;
  Timer series_timer_;  // the time series' boundaries (--interval)
  Timer grace_timer_;
  Timer progress_timer_;
  TimePoint start_{};
  TimePoint last_sample_at_{};
  TimePoint last_series_at_{};

  net::Addresses addresses_;
  net::SocketOptions socket_options_;
  std::unique_ptr<net::TlsContext> tls_;  // TLS (--ssl): this worker's client context
  std::vector<char> read_buffer_;
  WorkerResult result_;
  ConnectionContext context_;
  ConnectionStore connections_;  // grows to the peak number of connections open at once
  std::unique_ptr<RequestPool> requests_;  // request mode: the persistent connections
  bool closing_idle_ = false;              // request mode: the run's end closes the pool
  std::uint64_t requests_ended_ = 0;       // request mode: those requests_ended() has told
  std::unique_ptr<SessionStore> sessions_;  // sessions (--wsess, --wsesslog): theirs
  std::uint64_t active_sessions_ = 0;
  std::uint64_t sessions_started_ = 0;      // by this worker
  int stops_ = 0;
  bool finished_ = false;

  // Published for progress(): relaxed atomics, written by this worker's thread only.
  struct Published {
    std::atomic<std::int64_t> elapsed_ns{0};
    std::atomic<std::uint64_t> issued{0};
    std::atomic<std::uint64_t> replies{0};
    std::atomic<std::uint64_t> errors{0};
    std::atomic<std::uint64_t> open{0};
  } published_;
};

}  // namespace rateperf::engine

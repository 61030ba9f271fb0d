#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "engine/connection.hpp"
#include "engine/event.hpp"
#include "options/config.hpp"
#include "schedule/arrival.hpp"
#include "schedule/clock.hpp"
#include "schedule/timer_wheel.hpp"
#include "stats/collector.hpp"
#include "stats/progress.hpp"

namespace rateperf::engine {

// Where to connect: a resolved socket address.
struct Target {
  sockaddr_storage address{};
  socklen_t length = 0;
};

// What a worker's run produced.
struct WorkerResult {
  stats::Collector collector;
  TimePoint end{};            // the end of the last connection (or of the last arrival)
  TimePoint first_arrival{};  // actual start of the first and of the last arrival
  TimePoint last_arrival{};
  bool interrupted = false;   // SIGINT/SIGTERM stopped the schedule
  std::uint64_t buffer_refusals = 0;  // sockets on which the kernel refused a buffer size
};

// Runs one share of the schedule on its own event loop: takes arrivals from an ideal timeline
// regardless of replies, starts a Connection for each, and counts every outcome in its
// Collector. Arrivals, watchdogs and the reply-rate sampler are timers in one hashed timing
// wheel; a single timerfd, set to the wheel's next deadline, wakes the loop.
//
// Owns its event_base, wheel, connection pool and collector; everything runs on the thread that
// calls run(). It also stops on SIGINT/SIGTERM (first: stop the schedule and give open
// connections at most --timeout; second: end them at once).
class Worker {
 public:
  // Callbacks to the worker's owner, called on the worker's thread; either may be empty.
  struct Listeners {
    // Each closed reply-rate sample (for --verbose).
    std::function<void(const stats::IntervalSample&)> on_sample;
    // About once a second (for the live progress line).
    std::function<void(const stats::Progress&)> on_progress;
  };

  Worker(const options::Config& config, const Target& target, std::string request,
         Listeners listeners = {});
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker();

  // Runs the whole schedule, starting at `start` (the first arrival's intended time).
  WorkerResult run(TimePoint start);

 private:
  friend class Connection;

  enum TimerKind : int { kArrival, kWatchdog, kSample, kGrace, kProgress };

  static void on_timer(evutil_socket_t, short, void* self);
  static void on_signal(evutil_socket_t, short, void* self);
  void wake(TimePoint now);
  void fire(schedule::WheelTimer& timer, TimePoint now);
  void issue_due(TimePoint now);
  void stop_schedule(TimePoint now);
  void end_all(ErrorKind kind, TimePoint now);
  void arm_wakeup();
  void maybe_finish(TimePoint now);

  // For Connection.
  void schedule_timer(schedule::WheelTimer& timer, TimePoint deadline);
  void connection_ended(Connection& connection, TimePoint now);
  void catch_up(TimePoint now);

  const options::Config& config_;
  Target target_;
  std::string request_;
  bool head_request_ = false;
  Listeners listeners_;

  EventBasePtr base_;
  int timer_fd_ = -1;  // the wake-up timerfd, read by wakeup_
  EventPtr wakeup_;
  EventPtr sigint_;
  EventPtr sigterm_;
  bool wakeup_armed_ = false;
  bool waking_ = false;  // inside wake(), which re-arms the wake-up when it ends
  // The last issue_due() stopped at kMaxBurst with more arrivals due: the client is behind, and
  // the rest waits for the next turn of the event loop (see issue_due).
  bool backlogged_ = false;
  TimePoint wakeup_at_{};

  TimePoint start_{};
  schedule::Timeline timeline_;
  schedule::TimerWheel wheel_;
  schedule::WheelTimer arrival_timer_;
  schedule::WheelTimer sample_timer_;
  schedule::WheelTimer grace_timer_;
  schedule::WheelTimer progress_timer_;
  TimePoint last_sample_at_{};

  std::deque<Connection> pool_;  // stable addresses; grows to the peak number of connections
  Connection* free_ = nullptr;
  std::vector<char> read_buffer_;  // shared by all connections: reads are consumed at once

  WorkerResult result_;
  bool any_arrival_ = false;
  int signals_ = 0;
  bool finished_ = false;
};

}  // namespace rateperf::engine
